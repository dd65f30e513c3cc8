"""--window W and --alibi: attention by distance, a mask and a bias, equal to torch's
scaled_dot_product_attention with the window as a boolean mask and BLOOM's
build_alibi_tensor as its float attn_mask (tests/references/modern.json), to loops, the
invariant that a window of T is no window, the screen, the steps, the JSON read back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.core.distance import alibi_bias, alibi_slopes, window_mask
from attncli.errors import AttnError, InputError, OptionError
from tests.meaning import told

REFERENCES = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "modern.json").read_text("utf-8")
)["distance"]
LESSON = "las llaves del coche están ahí"
pytestmark = pytest.mark.slow  # hypothesis


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_equal_to_torch_with_blooms_alibi(name):
    case = REFERENCES[name]
    result = attn.selfattn(
        x=case["x"],
        **{w: case[w] for w in ("w_q", "w_k", "w_v", "w_o")},
        heads=case["heads"],
        causal=case["causal"],
        window=case["window"],
        alibi=case["alibi"],
    )
    np.testing.assert_allclose(result.weights, case["weights"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.output, case["output"], rtol=0, atol=1e-12)
    if case["alibi"]:
        np.testing.assert_allclose(alibi_slopes(case["heads"]), case["bloom_slopes"], rtol=1e-15)


def test_the_window_against_a_loop():
    for causal in (True, False):
        for window in (1, 2, 5):
            mask = window_mask(6, 6, window, causal)
            for i in range(6):
                for j in range(6):
                    near = (0 <= i - j < window) if causal else (abs(i - j) < window)
                    assert mask[i, j] == near


def test_the_slopes_by_hand():
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]
    # 6 heads: 4's slopes, then every other one of 8's: 2^-1, 2^-3
    assert alibi_slopes(6).tolist() == [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]
    assert alibi_bias(2, 3, 3)[1].tolist() == [[0, -1 / 256, -2 / 256], [-1 / 256, 0, -1 / 256],
                                               [-2 / 256, -1 / 256, 0]]  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), causal=st.booleans())
def test_a_window_of_t_is_no_window(seed, causal):
    windowed = attn.selfattn(LESSON, seed=seed, causal=causal, window=6)
    plain = attn.selfattn(LESSON, seed=seed, causal=causal)
    np.testing.assert_array_equal(windowed.weights, plain.weights)


def test_the_screen_and_the_steps_say_what_was_added(run):
    line = ("selfattn", LESSON, "--heads", "2", "--causal", "--window", "3", "--alibi")
    screen = re.sub(r"[ \n]+", " ", run(*line, "--format", "table").stdout)
    assert "sliding window 3: each query sees itself and the 2 before it" in screen
    assert "ALiBi: −m·|i − j| added to the scores, m = 1/16, 1/256 by head" in screen
    assert "Scores Q K^T / √4 + ALiBi (row" in screen and "attn_mask" not in screen
    steps = run(*line, "--steps", "--token", "están", "--format", "table").stdout
    assert "+ ALiBi" in steps
    spanish = re.sub(r"[ \n]+", " ", run(*line, "--format", "table", "--lang", "es").stdout)
    assert "ventana deslizante de 3: cada consulta ve su propia clave y las 2 anteriores" in spanish


def test_the_json_reads_back_only_with_the_same_window_and_alibi(run):
    piped = run("selfattn", LESSON, "--window", "2", "--alibi", "--json").stdout
    document = json.loads(piped)
    assert document["window"] == 2 and document["alibi"] is True and "attn_mask" not in document
    again = run("selfattn", "--window", "2", "--alibi", input=piped)
    assert again.exit_code == 0, again.stderr
    for line, field, fix in ((("--alibi",), "window", "--window 2"),
                             (("--window", "2"), "alibi", "--alibi")):  # fmt: skip
        refused = run("selfattn", *line, input=piped)
        assert refused.exit_code == 2 and refused.stdout == ""
        told(refused.error, InputError,
             "{field}: the input is a result computed with {field} {value}, and computing it "
             "again otherwise would change its numbers; read it back {fix}",
             field=field, fix=("with {option}", {"option": fix}))  # fmt: skip


def test_cross_attention_is_refused():
    for keywords in ({"window": 2}, {"alibi": True}):
        with pytest.raises(AttnError) as caught:
            attn.selfattn(LESSON, context="el coche", **keywords)
        told(caught.value, OptionError,
             "{option} counts the positions of one sequence, its queries' and keys' alike; "
             "with cross-attention the two sequences have no common positions")  # fmt: skip
        assert caught.value.fields["option"].name in keywords
