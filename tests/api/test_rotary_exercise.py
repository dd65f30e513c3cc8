"""attn exercise --positions rope: rotary positions by hand, θ = 90° a position, so that cos
and sin are 0 and ±1 and every turned number stays whole; its answers are the turned
vectors' dot scores, and the JSON pipes into attn score."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.core.rotary import rotate_by
from attncli.errors import AttnError, OptionError
from tests.meaning import SELFATTN_SHEET, told

ONE_PAIR = ("the worksheet turns one pair ({pair}) by quarter turns and scores it by the dot "
            "product; leave out {option}")  # fmt: skip
BESIDE = "{option} with {beside}: {why}"  # api/refusals.refuse_beside
BOTH = ("{choices} and {last}", {"choices": "--method scaled", "last": "--dim 4"})


@pytest.mark.parametrize("seed", range(6))
def test_the_turns_are_whole_and_equal_to_a_true_rotation(seed):
    sheet = attn.exercise(seed=seed, size=4, positions="rope")
    last = len(sheet.tokens) - 1
    assert sheet.given_query is not None and sheet.given_keys is not None
    truly = rotate_by(sheet.given_query[None], np.array([[last * np.pi / 2]]))[0]
    np.testing.assert_allclose(sheet.query, truly, atol=1e-12)
    assert sheet.query.tolist() == [float(round(v)) for v in sheet.query]
    for j, key in enumerate(sheet.given_keys):
        turned = rotate_by(key[None], np.array([[j * np.pi / 2]]))[0]
        np.testing.assert_allclose(sheet.keys[j], turned, atol=1e-12)
    np.testing.assert_allclose(sheet.scores, sheet.keys @ sheet.query, rtol=0, atol=0)


def test_by_hand_seed_7():
    # q = (1, 0) of «ahí» at 2 turns 180° to (−1, 0); k of «están» (1, 1) at 1 turns 90°
    # to (−1, 1); so q·k = 1
    sheet = attn.exercise(seed=7, positions="rope")
    assert sheet.tokens == ("coche", "están", "ahí")
    assert sheet.query.tolist() == [-1.0, 0.0]
    assert sheet.keys.tolist() == [[0.0, 0.0], [-1.0, 1.0], [-1.0, -2.0]]
    assert sheet.scores.tolist() == [0.0, 1.0, 1.0]
    turns = sheet.steps()[0]
    assert [(r.vector, r.position, r.degrees) for r in turns.rows] == [
        ("q", 2, 180), ("k", 0, 0), ("k", 1, 90), ("k", 2, 180),
    ]  # fmt: skip
    assert sheet.steps()[1].carried_inputs  # the student's own turned vectors


def test_the_json_pipes_into_attn_score(run, run_json):
    problem = run_json("exercise", "--positions", "rope", "--seed", "7", "--json")
    assert problem["given_query"] == [1, 0] and problem["query"] == [-1, 0]
    scored = run_json("score", input=json.dumps(problem))
    assert scored["scores"] == [0.0, 1.0, 1.0]


def test_a_worksheet_in_spanish(run):
    result = run(
        "exercise", "--positions", "rope", "--seed", "7", "--lang", "es", "--format", "table"
    )
    assert result.exit_code == 0, result.stderr
    assert "Posiciones rotatorias, θ = 90° por posición" in " ".join(result.stdout.split())


@pytest.mark.parametrize(
    ("extra", "msgid", "fields"),
    [
        (("--method", "scaled"), BESIDE,
         {"option": "--method scaled", "beside": "--positions rope",
          "why": (ONE_PAIR, {"option": "--method scaled", "pair": "--dim 2"})}),
        (("--dim", "4"), BESIDE, {"option": "--dim 4", "beside": "--positions rope",
                                  "why": (ONE_PAIR, {"option": "--dim 4", "pair": "--dim 2"})}),
        # both named, so that leaving out what the line says is the whole fix
        (("--method", "scaled", "--dim", "4"), BESIDE,
         {"option": BOTH, "beside": "--positions rope",
          "why": (ONE_PAIR, {"option": BOTH, "pair": "--dim 2"})}),
        (("--selfattn",), "{option} with {beside}: {why}",
         {"option": "--positions rope", "beside": "--selfattn",
          "why": (SELFATTN_SHEET, {"option": "--positions rope"})}),
    ],
)  # fmt: skip
def test_refused_in_one_line(run, extra, msgid, fields):
    result = run("exercise", "--positions", "rope", *extra)
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    told(result.error, OptionError, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_other_positions_are_refused():
    with pytest.raises(AttnError) as caught:
        attn.exercise(positions="sinusoidal")
    told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
         setting="positions='sinusoidal'", choices="rope")  # fmt: skip
    from attncli.api.exercise import exercise_set

    sheets = exercise_set(seed=3, count=2, positions="rope")
    assert all(sheet.given_query is not None for sheet in sheets.sheets)
