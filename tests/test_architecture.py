"""The shape of the package, as docs/ARCHITECTURE.md draws it: one folder per layer, imports
that only point down, no cycles but the notebook door, small modules.

The import graph is read with ast from every module, imports inside functions included
(a lazy import is still a dependency), so nothing here runs the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attncli"

# What the two faces of attn (the command line and the explorer) may import: every layer below.
FACES_MAY_IMPORT = {"layer", "api", "present", "reading", "results", "explain", "core", "errors",
                    "limits", "messages", "settings", "root"}  # fmt: skip
# What the operations may import: the layers below them.
API_MAY_IMPORT = {"layer", "settings", "reading", "results", "explain", "core", "errors", "limits",
                  "messages"}  # fmt: skip
# What each layer may import, besides itself. The top-level modules are layers of their own.
# messages.py (every sentence said in a language) is below them all and imports nothing.
ALLOWED: dict[str, set[str]] = {
    "messages": set(),
    "errors": {"messages"},
    "limits": {"errors", "messages"},
    # settings declared as a dataclass's fields: setting(), their values held to it
    "settings": {"errors", "messages"},
    "layer": {"settings", "errors", "messages"},  # the self-attention layer's settings
    "core": {"errors", "limits", "messages"},
    "reading": {"layer", "settings", "core", "errors", "limits", "messages"},
    "explain": {"core", "errors", "messages"},
    "results": {"explain", "core", "errors", "limits", "messages"},
    "api": API_MAY_IMPORT,
    "present": {"results", "explain", "core", "errors", "limits", "messages"},
    # `attn explore` opens the explorer, which never reaches back into the command line.
    "cli": FACES_MAY_IMPORT | {"explore"},
    "explore": FACES_MAY_IMPORT,
    "root": {
        "api",
        "layer",
        "errors",
        "cli",
        "messages",
    },  # __init__ (the public API, lazily) and __main__
}
# The one deliberate cycle: a result shows itself in rich or a notebook (__rich__,
# _repr_html_) by reaching the presentation layer lazily.
NOTEBOOK_DOOR = ("attncli.results.base", "attncli.present")
TOP_LEVEL_LIMIT = 7
# A runaway file, not a budget: a module holds one concept (docs/ARCHITECTURE.md).
LINE_LIMIT = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The attncli modules `name` imports, anywhere in its file."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1],
                                 *([base] if base else [])])  # fmt: skip
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in ("__main__",):
        return "root"
    return parts[1]


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    edges = {name: imports_of(name, path, known) for name, path in found.items()}
    # A package's __init__ is imported on the way to its modules, not a dependency of theirs.
    return {name: {t for t in targets if not name.startswith(t + ".")} for name, targets in
            edges.items()}  # fmt: skip


def through_door(source: str, target: str) -> bool:
    return source == NOTEBOOK_DOOR[0] and target.startswith(NOTEBOOK_DOOR[1])


def test_every_import_points_down():
    upward = [
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if layer(target) != layer(source)
        and layer(target) not in ALLOWED[layer(source)]
        and not through_door(source, target)
    ]
    assert upward == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_no_cycle_but_the_notebook_door():
    edges = graph()
    closed = {s: {t for t in ts if not through_door(s, t)} for s, ts in edges.items()}
    assert cycles(closed) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layer_check_sees_an_upward_import(tmp_path):
    # Would the check notice core importing the cli? Read such a line as the test does.
    path = tmp_path / "attncli" / "core" / "bad.py"
    path.parent.mkdir(parents=True)
    path.write_text("def f():\n    from attncli.cli.app import run\n")
    found = imports_of("attncli.core.bad", path, {"attncli.cli.app", "attncli.core.bad"})
    assert found == {"attncli.cli.app"}
    assert layer("attncli.cli.app") not in ALLOWED[layer("attncli.core.bad")]


def test_few_modules_at_the_top():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_LEVEL_LIMIT, top


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_is_long(name):
    lines = modules()[name].read_text(encoding="utf-8").count("\n")
    assert lines <= LINE_LIMIT, f"{name} has {lines} lines"
