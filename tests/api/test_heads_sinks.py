"""attn heads' sink rates on the committed tiny models and the seeded layer: each head's is
the loop's (tests/core/test_sink_rates.py) on that head's own weights as attn selfattn
gives them; with gpt-oss' learned sinks, over the real keys."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.core.head_patterns import SINK_THRESHOLD
from tests import tiny_models
from tests.core.test_sink_rates import loop_sink_rate

MODELS = Path(__file__).resolve().parent.parent / "models"
SENTENCE = tiny_models.SENTENCES[0]


def layer_rates(model: str, sentence: str, layers: int) -> list[list[float]]:
    """Every head's rate, from attn selfattn's weights of each layer, by the loop."""
    rates = []
    for layer in range(1, layers + 1):
        weights = attn.selfattn(sentence, model=model, layer=layer).weights
        rates.append([loop_sink_rate(grid.tolist()) for grid in weights])
    return rates


@pytest.mark.parametrize("name", ["tiny-llama", "tiny-gemma2", "tiny-gpt-oss"])
def test_each_head_s_rate_is_the_loop_s_on_its_own_weights(name):
    model = str(MODELS / name)
    result = attn.heads(SENTENCE, model, pattern="previous")
    assert result.sink_rates is not None
    expected = layer_rates(model, SENTENCE, result.sink_rates.shape[0])
    np.testing.assert_allclose(result.sink_rates, expected, atol=1e-14)
    for entry in result.ranking:  # each ranked head carries its own
        assert entry.sink_rate == pytest.approx(expected[entry.layer - 1][entry.head - 1],
                                                abs=1e-14)  # fmt: skip
    above = sum(rate > SINK_THRESHOLD for row in expected for rate in row)
    assert result.sink_heads == above


def test_gpt_oss_rates_are_over_the_real_keys():
    model = str(MODELS / "tiny-gpt-oss")
    result = attn.heads(SENTENCE, model, grid=True)
    assert result.learned_sinks
    assert result.grid is not None
    # the weights the rate reads are the real keys' alone: every row gives its sink some
    assert (result.grid.sum(axis=-1) < 1 - 1e-6).all()
    np.testing.assert_allclose(result.sink_rates, result.grid[..., 1:, 0].mean(axis=-1),
                               atol=1e-15)  # fmt: skip
    document = result.to_document()
    assert document["learned_sinks"] is True
    assert attn.heads(SENTENCE, str(MODELS / "tiny-llama"), grid=True).learned_sinks is False


def test_over_several_sentences_a_rate_is_the_mean_of_each():
    model = str(MODELS / "tiny-qwen3")
    sentences = list(tiny_models.SENTENCES[:3])
    result = attn.heads(None, model, sentences=sentences, pattern="first")
    each = [layer_rates(model, text, 2) for text in sentences]
    np.testing.assert_allclose(result.sink_rates, np.mean(each, axis=0), atol=1e-14)


def test_the_seeded_layer_s_heads_have_their_rates():
    result = attn.heads("el tren va lleno de gente", heads=4, causal=True, grid=True)
    assert result.grid is not None and result.sink_rates is not None
    expected = [[loop_sink_rate(grid.tolist()) for grid in result.grid[0]]]
    np.testing.assert_allclose(result.sink_rates, expected, atol=1e-15)


def test_one_token_has_no_rate_and_says_none():
    result = attn.heads("tren", heads=2, causal=True, grid=True)
    assert result.sink_rates is None and "sink_rates" not in result.to_document()


def test_the_json_holds_every_rate_and_the_count_past_epsilon(run):
    model = str(MODELS / "tiny-gemma3")
    out = run("heads", SENTENCE, "--model", model, "--pattern", "first", "--json")
    assert out.exit_code == 0, out.stderr
    document = json.loads(out.stdout)
    expected = layer_rates(model, SENTENCE, 2)
    np.testing.assert_allclose(document["sink_rates"], expected, atol=1e-14)
    assert document["sink_threshold"] == SINK_THRESHOLD
    assert document["sink_heads"] == sum(r > SINK_THRESHOLD for row in expected for r in row)
    for head in document["heads"]:
        assert head["sink_rate"] == pytest.approx(expected[head["layer"] - 1][head["head"] - 1],
                                                  abs=1e-14)  # fmt: skip
