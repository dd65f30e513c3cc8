"""The quick run (`pytest -m 'not slow'`) stays quick: a hypothesis test either is marked
slow or says its own budget, `@settings(max_examples=N)` with N at most QUICK_EXAMPLES, so
that no property quietly runs hypothesis' default hundred cases, or three hundred,
without saying so."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

QUICK_EXAMPLES = 100


def _name(node: ast.expr) -> str:
    """`given`, `settings`, `pytest.mark.slow`: a decorator's dotted name, calls unwrapped."""
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _marked_slow(module: ast.Module) -> bool:
    """`pytestmark = pytest.mark.slow` (or a list holding it) at the top of the file."""
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            values = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            if any(_name(value) == "pytest.mark.slow" for value in values):
                return True
    return False


def _budget(decorators: list[ast.expr]) -> int | None:
    """The max_examples a `@settings(...)` gives, if a literal."""
    for decorator in decorators:
        if isinstance(decorator, ast.Call) and _name(decorator) == "settings":
            for keyword in decorator.keywords:
                if keyword.arg == "max_examples" and isinstance(keyword.value, ast.Constant):
                    return int(keyword.value.value)
    return None


def unbudgeted_properties(source: str) -> list[str]:
    """The hypothesis tests of one file that would run in the quick run without a budget,
    each as `name (why)`."""
    module = ast.parse(source)
    if _marked_slow(module):
        return []
    found = []
    for node in ast.walk(module):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = [_name(decorator) for decorator in node.decorator_list]
        if "given" not in names or "pytest.mark.slow" in names:
            continue
        budget = _budget(node.decorator_list)
        if budget is None:
            found.append(f"{node.name} (no @settings(max_examples=…))")
        elif budget > QUICK_EXAMPLES:
            found.append(f"{node.name} ({budget} examples)")
    return found


def test_every_property_in_the_quick_run_has_a_budget():
    found = {
        str(path.relative_to(ROOT)): unbudgeted
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if (unbudgeted := unbudgeted_properties(path.read_text(encoding="utf-8")))
    }
    assert not found, f"mark these slow or give them max_examples ≤ {QUICK_EXAMPLES}: {found}"


def test_the_rule_finds_a_property_without_a_budget():
    bare = "@given(st.integers())\ndef test_x(n):\n    assert n == n\n"
    assert unbudgeted_properties(bare) == ["test_x (no @settings(max_examples=…))"]
    generous = "@settings(max_examples=300)\n" + bare
    assert unbudgeted_properties(generous) == ["test_x (300 examples)"]
    assert unbudgeted_properties("@settings(max_examples=100)\n" + bare) == []
    assert unbudgeted_properties("@pytest.mark.slow\n" + bare) == []
    assert unbudgeted_properties("pytestmark = pytest.mark.slow\n" + bare) == []
