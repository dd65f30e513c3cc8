"""attn softmax --online and attn exercise --online on the command line: the blocks with
--steps, the JSON piped, Spanish, and each refusal one line with nothing on stdout."""

from __future__ import annotations

import json
import math
import re

from attncli.errors import OptionError
from tests.meaning import told


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


def test_the_lessons_scores_in_blocks_of_two(run):
    result = run("softmax", "2", "0", "1", "--online", "--block", "2", "--steps",
                 "--tokens", "tren,va,lleno")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    screen = _flat(result.stdout)
    assert "Online softmax, 2 scores at a time" in screen
    assert "1 tren, va 2, 0 2 2 0 1.14 1.14" in screen
    assert "2 lleno 1 1 2 1 0.37 1.50" in screen
    assert "tren 2 1.00 0.665 0.665" in screen
    from attncli.present.language import say

    assert _flat(say("en", "online_identical")) in screen  # no ulp apart: said as identical


def test_without_steps_the_weights_and_a_hint(run):
    screen = _flat(run("softmax", "2", "0", "1", "--online", "--format", "table").stdout)
    assert "Block max" not in screen and "--steps shows the blocks one by one." in screen


def test_piped_the_json_has_every_block(run):
    document = json.loads(run("softmax", "2", "0", "1", "--online", "--block", "2").stdout)
    assert [block["m"] for block in document["blocks"]] == [2.0, 2.0]
    assert document["blocks"][1]["l"] == 1 + math.exp(-2) + math.exp(-1)
    assert document["weights"] == document["plain_weights"] and document["ulps"] == 0.0


def test_a_grid_of_scores_and_a_masked_row(run):
    document = json.loads(
        run(
            "softmax", "--scores", "[[null, null, null], [1, 5, 2]]", "--online", "--block", "2"
        ).stdout
    )
    assert document["weights"][0] == [0.0, 0.0, 0.0]
    assert document["blocks"][0][-1]["l"] == 0.0 and document["blocks"][0][-1]["m"] is None
    screen = _flat(run("softmax", "-inf", "-inf", "--online", "--steps").stdout)
    assert "Every score is masked: m stays −∞, ℓ stays 0 and every weight is 0." in screen
    assert "with the last m = −∞ and ℓ = 0.00" in screen  # m is −∞ there, not a masked dash


def test_one_score_a_block_is_said_in_the_singular(run):
    screen = _flat(run("softmax", "0", "2", "--online", "--block", "1", "--steps").stdout)
    assert "Online softmax, 1 score at a time" in screen
    spanish = run("softmax", "0", "2", "--online", "--block", "1", "--steps", "--lang", "es")
    assert "Softmax en línea, 1 puntuación por bloque" in _flat(spanish.stdout)


def test_a_temperature_is_in_every_label_that_divides_by_it(run, monkeypatch):
    """e^(−4) = 0.02 is e^((0 − 2) ÷ 0.5): each column and formula says the ÷ T it did."""
    monkeypatch.setenv("COLUMNS", "200")  # each header on one line
    line = ("softmax", "0", "2", "--online", "--block", "1", "--temperature", "0.5", "--steps")
    result = run(*line)
    assert result.exit_code == 0, result.stderr
    screen = _flat(result.stdout)
    assert "e^((m_old − m) ÷ T) Σ e^((s − m) ÷ T) ℓ" in screen
    assert "Weights = e^((s − m) ÷ T) ÷ ℓ, with the last m = 2 and ℓ = 1.02" in screen
    assert "Score e^((s − m) ÷ T) Weight" in screen
    assert "2 k2 2 2 2 0.02 1.00 1.02" in screen and f"{math.exp(-4):.2f}" == "0.02"
    assert "e^(m_old − m)" not in screen and "e^(s − m)" not in screen
    spanish = _flat(run(*line, "--lang", "es").stdout)
    assert "e^((m_ant − m) ÷ T) Σ e^((s − m) ÷ T) ℓ" in spanish
    assert "Pesos = e^((s − m) ÷ T) ÷ ℓ, con los últimos m = 2 y ℓ = 1,02" in spanish
    assert "e^(m_ant − m)" not in spanish and "e^(s − m)" not in spanish


def test_in_spanish(run):
    screen = _flat(run("softmax", "2", "0", "1", "--online", "--steps", "--lang", "es").stdout)
    assert "Softmax en línea, 2 puntuaciones por bloque" in screen
    assert "2 k3 1 1 2 1 0,37 1,50" in screen


def test_refusals(run):
    for line, said in (
        (("softmax", "2", "0", "--block", "2"), "add --online"),
        (("softmax", "2", "0", "--online", "--block", "0"), "--block 0: it must be 1 or more"),
        (("exercise", "--online", "--count", "2"), "--count with --online"),
        (("exercise", "--online", "--size", "2"), "--size 2 with blocks of 2"),
    ):
        result = run(*line)
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert said in result.stderr and result.stderr.count("\n") == 1


def test_the_worksheet_blank_then_filled_and_piped_back(run):
    sheet = _flat(
        run("exercise", "--online", "--seed", "1", "--answers", "--format", "table").stdout
    )
    assert "WORKSHEET" in sheet and "Scores 2, 0, 3, read 2 at a time." in sheet
    assert "____" in sheet and "ANSWERS" in sheet
    # Block 2 raises m from 2 to 3: ℓ = (1 + e^−2) e^−1 + 1.
    assert "2 va 3 3 3 0.37 1.00 1.42" in sheet
    problem = run("exercise", "--online", "--seed", "1").stdout
    assert json.loads(problem) == {"tokens": ["el", "tren", "va"], "scores": [2.0, 0.0, 3.0],
                                   "block": 2}  # fmt: skip
    worked = json.loads(run("softmax", "--online", input=problem).stdout)
    assert worked["block"] == 2 and worked["blocks"][1]["m"] == 3.0


def test_online_row_picks_the_row_whose_blocks_are_shown_and_a_missing_row_is_refused(run):
    """--row was ignored by --online, even a row that does not exist."""
    grid = '{"scores": [[2, 0, 1], [1, 1, 1], [0, 3, 1]]}'
    shown = run("softmax", "--online", "--steps", "--row", "2", "--format", "table", input=grid)
    assert shown.exit_code == 0, shown.stderr
    assert "q2" in shown.stdout and "q1" not in shown.stdout and "q3" not in shown.stdout
    for extra in (["--row", "4"], ["--token", "q9"]):
        refused = run("softmax", "--online", "--format", "table", *extra, input=grid)
        assert refused.exit_code == 2 and refused.stdout == ""
    missing = run("softmax", "2", "0", "1", "--online", "--row", "5", "--json")
    assert missing.exit_code == 2 and missing.stdout == ""
    told(missing.error, OptionError, "{option} is out of range: {there} (1 to {total})",
         option="--row 5", there=("there are {total} rows", {"total": 1}), total=1)  # fmt: skip


def test_exercise_online_refuses_dim_it_would_ignore(run):
    result = run("exercise", "--online", "--dim", "4", "--json")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{option} with {beside}: {why}", option="--dim",
         beside="--online", why=("the online sheet is one row of scores; leave out {option}",
                                 {"option": "--dim"}))  # fmt: skip
