"""Click's usage errors are said from what they hold (cli/usage.py), never from their
English: each kind in both languages, and a message whose English says something else is
still said by its parts."""

from __future__ import annotations

import pytest
from typer._click import exceptions

from attncli import messages
from attncli.cli import usage
from attncli.cli.app import app
from attncli.core.methods import NAMES


@pytest.mark.parametrize(
    ("args", "msgid", "fields"),
    [
        (["score", "--method", "nope"], usage.NOT_A_CHOICE,
         {"value": "nope", "choices": ", ".join(f"'{name}'" for name in NAMES)}),
        (["score", "--digits", "99"], usage.OUT_OF_RANGE, {"value": "99", "range": "0<=x<=15"}),
        # below a min with no declared max, the bound alone, as --help shows it; above
        # the most numpy holds, with that most
        (["selfattn", "a", "--heads", "0"], usage.OUT_OF_RANGE, {"value": "0", "range": "x>=1"}),
        (["selfattn", "a", "--window", str(10**20)], usage.OUT_OF_RANGE,
         {"value": str(10**20), "range": f"1<=x<={2**63 - 1}"}),
        (["score", "--digits", "1.5"], usage.NOT_A_NUMBER[usage.types.IntRange],
         {"value": "1.5"}),
        # every whole-number option is an IntRange, held to 2^63 − 1 (cli/declare.py)
        (["selfattn", "a", "--heads", "x"], usage.NOT_A_NUMBER[usage.types.IntRange],
         {"value": "x"}),
        (["score", "--bogus"], usage.NO_SUCH_OPTION, {"option": "--bogus"}),
        (["scroe"], usage.NO_SUCH_COMMAND, {"name": "scroe"}),
        (["score", "a", "b"], usage.EXTRA_ARGUMENTS, {"arguments": "a b"}),
        (["selfattn", "a", "--heads"], usage.NEEDS_A_VALUE, {"option": "--heads"}),
        (["selfattn", "a", "--steps=3"], usage.TAKES_NO_VALUE, {"option": "--steps"}),
        (["--lang", "es"], usage.MISSING_COMMAND, {}),
    ],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_usage_error_is_said_from_its_parts(run, args, msgid, fields, lang):
    result = run(args[0], "--lang", lang, *args[1:]) if args[0] != "--lang" else run(*args)
    said = messages.say("es" if args[0] == "--lang" else lang, msgid, **fields)
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert result.stderr.count("\n") == 1 and said.rstrip() in result.stderr, result.stderr


def test_a_close_command_and_close_options_are_offered(run):
    result = run("scroe")
    assert messages.say("en", usage.DID_YOU_MEAN, option="'score'") in result.stderr
    result = run("score", "--digit", "3", "--lang", "es")
    said = messages.say("es", usage.POSSIBLE_OPTIONS, options="--digits")
    assert said in result.stderr, result.stderr


def test_the_english_an_error_carries_is_not_read():
    """An error whose text says something else entirely is still said by its parts."""
    error = exceptions.NoSuchOption("--bogus", message="Totally different words")
    assert usage.pieces(error, []) == [(usage.NO_SUCH_OPTION, {"option": "--bogus"})]
    error = exceptions.BadOptionUsage("--steps", "Totally different words")
    assert usage.pieces(error, ["--steps=3"]) == [(usage.TAKES_NO_VALUE, {"option": "--steps"})]
    assert usage.pieces(error, ["--steps"]) == [(usage.NEEDS_A_VALUE, {"option": "--steps"})]


def test_a_value_echoed_is_cut_as_attns_own_errors_cut_it(run):
    result = run("score", "--method", "x" * 5000)
    assert result.exit_code == 2 and len(result.stderr) < 200, len(result.stderr)


def test_clicks_shared_types_are_left_as_they_are():
    """The types that keep their value are copies: Click's INT is still Click's."""
    from typer._click import types

    before = type(types.INT)
    app(["score", "--digits", "3", "--query", "1, 0", "--keys", "[[1, 0]]", "--json"],
        standalone_mode=False)  # fmt: skip
    assert type(types.INT) is before and not getattr(before, "keeps_value", False)
