from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


@pytest.fixture
def run():
    """Invoke `attn ARGS` in-process; returns the result (stdout and stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def run_json(run):
    """Invoke a command that must succeed and parse its JSON output."""

    def invoke(*args: str, input: str | None = None) -> dict:
        result = run(*args, input=input)
        assert result.exit_code == 0, result.output + result.stderr
        return json.loads(result.stdout)

    return invoke
