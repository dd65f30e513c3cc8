"""Lint, format and type checks run as tests, so the one test command covers them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _tool(name: str) -> str:
    """The tool installed beside this interpreter by the test extra, else the one on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else (shutil.which(name) or name)


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "attncli", "tests", "benchmarks", "tools"],
        ["ruff", "format", "--check", "attncli", "tests", "benchmarks", "tools"],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_tool_is_clean(command):
    result = subprocess.run(
        [_tool(command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


# A command or an operation reads its inputs, chooses, computes and emits through named
# steps; a function past this many lines (its docstring counted) does more than one of them.
LONGEST_FUNCTION = 80
KEPT_SHORT = ("attncli/cli/commands", "attncli/api")


def _function_lengths(folder: Path) -> dict[str, int]:
    """Every function under `folder` (methods and nested ones too), by where it starts:
    its lines from `def` to its last, its docstring counted."""
    import ast

    found = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                where = f"{path.relative_to(folder)}:{node.lineno} {node.name}"
                found[where] = node.end_lineno - node.lineno + 1
    return found


@pytest.mark.parametrize("folder", KEPT_SHORT)
def test_no_function_of_the_commands_or_the_operations_is_too_long(folder):
    lengths = _function_lengths(ROOT / folder)
    assert len(lengths) > 20  # the folder was read
    too_long = {where: lines for where, lines in lengths.items() if lines > LONGEST_FUNCTION}
    assert not too_long, f"longer than {LONGEST_FUNCTION} lines: {too_long}"


def test_the_length_counts_a_docstring_a_decorator_aside_and_a_nested_function(tmp_path):
    body = "\n".join(f"        x{n} = {n}" for n in range(LONGEST_FUNCTION))
    (tmp_path / "long.py").write_text(
        f'@cache\ndef outer():\n    def inner():\n        """Help."""\n{body}\n    return inner\n',
        encoding="utf-8",
    )
    assert _function_lengths(tmp_path) == {
        "long.py:2 outer": LONGEST_FUNCTION + 4,  # its def, inner's def and docstring, return
        "long.py:3 inner": LONGEST_FUNCTION + 2,
    }
