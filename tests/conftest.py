from __future__ import annotations

import json
import os
from pathlib import Path
from unittest.mock import patch

import pytest
from typer.testing import CliRunner, Result

# One terminal width for every test that does not set its own, whether the suite runs in
# a terminal, a pipe or pytest-xdist's workers (which have no terminal): rich would take
# the real terminal's width, or 80 columns without one.
os.environ.setdefault("COLUMNS", "100")

from attncli.cli.app import app  # noqa: E402
from attncli.cli.fastpath import run_plain  # noqa: E402
from attncli.errors import AttnError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def invoke_attn(
    runner: CliRunner, arguments: list[str], input: str | None = None, **settings
) -> Result:
    """`attn ARGUMENTS` in-process, as the console script runs it: a plain command line
    without Typer (attncli.cli.fastpath), any other through Typer. The result's `error` is
    the AttnError its stderr line told (None when none was), so that a test matches what
    the error means (its kind, msgid and fields), not its wording."""
    told: list[AttnError] = []
    said = AttnError.message

    def telling(error: AttnError, lang: str, surface: str = "cli") -> str:
        told.append(error)
        return said(error, lang, surface)

    with patch.object(AttnError, "message", telling):
        result = _invoked(runner, arguments, input, **settings)
    result.error = told[-1] if told else None  # type: ignore[attr-defined]
    return result


def _invoked(runner: CliRunner, arguments: list[str], input: str | None, **settings) -> Result:
    with runner.isolation(input=input, env=settings.get("env")) as (stdout, stderr, output):
        status = run_plain(arguments)
        if status is not None:
            return Result(runner, stdout.getvalue(), stderr.getvalue(), output.getvalue(),
                          None, status, None)  # fmt: skip
    return runner.invoke(app, arguments, input=input, catch_exceptions=False, **settings)


@pytest.fixture
def run():
    """Invoke `attn ARGS` in-process; returns the result (stdout and stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return invoke_attn(runner, list(args), input=input)

    return invoke


@pytest.fixture
def run_json(run):
    """Invoke a command that must succeed and parse its JSON output."""

    def invoke(*args: str, input: str | None = None) -> dict:
        result = run(*args, input=input)
        assert result.exit_code == 0, result.output + result.stderr
        return json.loads(result.stdout)

    return invoke
