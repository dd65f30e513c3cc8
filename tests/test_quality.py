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
