"""attn predict against transformers' GPT2LMHeadModel on the tiny GPT-2 (committed
references, tests/references/make_predict.py), and what temperature, top-k and top-p do."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.api.predict import predict
from attncli.core.predict import filtered
from attncli.errors import LARGEST_WHOLE, OptionError
from tests import tiny_models
from tests.meaning import ABOVE, LEAST, TRY, told

SHARE = "{setting}: it must be a number above {above} and at most {most}"  # top_p's (0, 1]

REFERENCE = json.loads((Path(__file__).parent.parent / "references/predict.json").read_text())


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "gpt2"
    tiny_models.write_gpt2(folder)
    return str(folder)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda case: case["sentence"])
def test_the_logits_and_the_lens_equal_transformers(gpt2, case):
    result = predict(case["sentence"], gpt2, by_layer=True)
    np.testing.assert_allclose(result.logits, case["logits"], rtol=0, atol=1e-9)
    assert result.lens is not None
    np.testing.assert_allclose(result.lens, case["lens"], rtol=0, atol=1e-9)
    assert result.top_ids[0] == int(np.argmax(case["logits"]))
    exact = np.exp(np.array(case["logits"]) - max(case["logits"]))
    np.testing.assert_allclose(result.probabilities, exact / exact.sum(), rtol=1e-12)


def test_temperature_top_k_and_top_p_reshape_the_table(gpt2):
    plain = predict("the keys of the car", gpt2)
    hot = predict("the keys of the car", gpt2, temperature=2.0)
    assert hot.sampled.max() < plain.sampled.max()  # T > 1 spreads
    kept = predict("the keys of the car", gpt2, top_k=3)
    assert (kept.sampled > 0).sum() == 3
    top3 = list(plain.top_ids[:3])
    np.testing.assert_allclose(
        kept.sampled[top3], plain.probabilities[top3] / plain.probabilities[top3].sum(), rtol=1e-12
    )
    nucleus = predict("the keys of the car", gpt2, top_p=0.5)
    first = plain.probabilities[plain.top_ids[0]]
    assert first >= 0.5 and (nucleus.sampled > 0).sum() == 1  # the first token alone reaches p


def test_top_p_keeps_the_fewest_that_reach_p():
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05]))
    assert np.isneginf(filtered(logits, 1.0, None, 0.75)).tolist() == [False, False, True, True]
    assert np.isneginf(filtered(logits, 1.0, None, 0.85)).tolist() == [False, False, False, True]
    assert np.isneginf(filtered(logits, 1.0, 1, None)).tolist() == [False, True, True, True]


def test_a_tiny_temperature_takes_the_largest_logit_without_nan(gpt2):
    """1e-320 sent the logits ÷ T to ±∞ and the sampled column to NaN (null in the JSON),
    with numpy's overflow warnings on stderr."""
    import warnings

    plain = predict("the keys of the car", gpt2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cold = predict("the keys of the car", gpt2, temperature=1e-320)
    assert np.isfinite(cold.sampled).all()
    assert cold.sampled[plain.top_ids[0]] == 1.0 and cold.sampled.sum() == 1.0
    ties = filtered(np.array([2.0, 2.0, 1.0]), 1e-320, None, None)
    assert ties.tolist() == [0.0, 0.0, -np.inf]  # a tie shares the weight


def test_an_encoder_and_bad_options_are_refused(gpt2):
    with pytest.raises(OptionError) as caught:
        predict("the keys", "all-MiniLM-L6-v2")
    told(caught.value, OptionError,
         "{model} has no language-model head (it is an encoder, {kind}): {predict} needs a "
         "causal model such as GPT-2", "python", model="all-MiniLM-L6-v2", kind="bert",
         predict="attncli.predict()")  # fmt: skip
    refused = [
        ({"top_k": 0}, TRY, {"refusal": (LEAST, {"setting": "--top-k 0", "least": 1,
                                                  "most": LARGEST_WHOLE}),
                             "example": "--top-k 5"}),
        ({"top_p": 1.5}, TRY, {"refusal": (SHARE, {"setting": "--top-p 1.5", "above": "0",
                                                    "most": "1"}),
                               "example": "--top-p 0.9"}),
        ({"top_p": 0}, TRY, {"refusal": (SHARE, {"setting": "--top-p 0", "above": "0",
                                                  "most": "1"}),
                             "example": "--top-p 0.9"}),
        ({"top": 0}, TRY, {"refusal": (LEAST, {"setting": "--top 0", "least": 1,
                                                "most": LARGEST_WHOLE}),
                           "example": "--top 5"}),
        ({"temperature": 0}, TRY, {"refusal": (ABOVE, {"setting": "--temperature 0",
                                                        "above": "0"}),
                                   "example": "--temperature 1"}),
    ]  # fmt: skip
    for options, msgid, fields in refused:
        with pytest.raises(OptionError) as caught:
            predict("the keys", gpt2, **options)
        told(caught.value, OptionError, msgid, **fields)
