"""Plain dot-product scores carry one line: real models divide by √d_k first."""

from __future__ import annotations

import pytest

from attncli.present.language import say


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("lang", ["en", "es"])
def test_dot_scores_say_that_the_scaling_step_is_skipped(run, lang):
    note = _flat(say(lang, "dot_unscaled", d_k=2))
    for extra in ((), ("--steps",)):
        args = ("score", "-i", "samples/tren.json", *extra, "--format", "table", "--lang", lang)
        assert note in _flat(run(*args).stdout)


def test_scaled_scores_and_worksheets_do_not(run):
    note = _flat(say("en", "dot_unscaled", d_k=2))
    scaled = run("score", "-i", "samples/tren.json", "--method", "scaled", "--format", "table")
    assert scaled.exit_code == 0 and note not in _flat(scaled.stdout)
    sheet = run("exercise", "--seed", "3", "--format", "table")
    assert sheet.exit_code == 0 and "√d_k (here" not in sheet.stdout
    piped = run("score", "-i", "samples/tren.json", "--json")
    assert note not in _flat(piped.stdout)
