"""Every whole-number option is read by one rule (cli/declare.Declared.limits): the digits
int() reads, within the declared range, and at most 2^63 − 1 when no max is declared, so
that --window 10^20 is refused by the command line like --seed 10^20, not by numpy in the
middle of the work; the implicit max is left out of --help."""

from __future__ import annotations

import pytest

from attncli.cli.app import build_app  # noqa: F401 (the Typer path is the one tried)

PAST = str(2**63)


@pytest.mark.parametrize(
    "arguments",
    [
        ["selfattn", "el tren va", "--window", PAST],
        ["selfattn", "el tren va", "--heads", PAST],
        ["selfattn", "el tren va", "--window", str(10**30)],
        ["predict", "the keys", "--model", "tests/models/tiny-llama", "--top-k", PAST],
        ["exercise", "--size", "³"],
        ["exercise", "--seed", "9" * 5000],
        ["exercise", "--seed", str(2**64)],
    ],
    ids=lambda arguments: " ".join(arguments[:1] + [a[:12] for a in arguments[-2:]]),
)
def test_a_whole_number_past_its_range_or_not_one_is_a_usage_error(run, arguments):
    result = run(*arguments)
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("attn: error: Invalid value for '--")
    # Click's usage error, not one of attn's own (an internal error among them)
    assert result.error is None and len(result.stderr) < 200


def test_the_largest_whole_number_still_runs(run):
    result = run("selfattn", "el tren va", "--window", str(2**63 - 1), "--json")
    assert result.exit_code == 0, result.stderr


def test_help_shows_only_the_declared_range(run):
    said = run("selfattn", "--help").stdout
    assert "[x>=1]" in said and str(2**63 - 1) not in said
