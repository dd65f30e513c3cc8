"""attn selfattn --model M --kv-cache on the committed tiny checkpoints: the replay makes each
token's q, k, v as the model's forward pass does (QK-norm, scaled rotary positions and their
attention factor, softcapped scores, learned sinks), and a sliding layer's cache keeps the
last W − 1 tokens as transformers' own cache does (tests/references/cost.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from attncli.api.inference import kv_cache
from attncli.api.model import model_selfattn
from attncli.core import inference
from attncli.reading.models.model import read_config
from tests import tiny_models

TESTS = Path(__file__).resolve().parent.parent
MODELS = TESTS / "models"
COST = json.loads((TESTS / "references" / "cost.json").read_text(encoding="utf-8"))
SENTENCE = tiny_models.SENTENCES[0]
REPLAYED = ("tiny-llama", "tiny-mistral", "tiny-qwen2", "tiny-gemma", "tiny-qwen3",
            "tiny-olmo2", "tiny-gemma2", "tiny-gemma3", "tiny-gpt-oss")  # fmt: skip


@pytest.mark.parametrize("layer", [1, 2])
@pytest.mark.parametrize("name", REPLAYED)
def test_every_step_is_the_forward_pass_s_row(name, layer):
    result = model_selfattn(SENTENCE, str(MODELS / name), layer=layer)
    ledger = kv_cache(result, head=1)
    assert ledger.bit_for_bit
    attention, arch = result.attention, result.source.architecture
    window = arch.window(layer - 1)
    group = arch.heads // (arch.kv_heads or arch.heads)
    assert len(result.tokens) > 4  # longer than every window: the cache drops tokens
    for t, step in enumerate(ledger.ledger):
        first = 0 if window is None else max(0, t + 1 - window)
        assert step.first == first
        assert step.held == (t + 1 if window is None else min(t + 1, window - 1))
        # q and k as the forward pass scores them: normed, turned and scaled
        np.testing.assert_allclose(step.query, attention.queries[:, t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.key, attention.keys[::group, t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.value, attention.values[::group, t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.scores, attention.scores[:, t, first : t + 1], rtol=0,
                                   atol=1e-12)  # fmt: skip
        np.testing.assert_allclose(step.weights, attention.weights[:, t, first : t + 1], rtol=0,
                                   atol=1e-12)  # fmt: skip
        assert not attention.weights[:, t, :first].any()  # what the cache dropped weighs 0
        np.testing.assert_allclose(step.output, attention.output[t], rtol=0, atol=1e-12)


def test_gemma2_s_replay_caps_its_scores_and_gpt_oss_gives_its_sinks_their_share():
    gemma2 = kv_cache(model_selfattn(SENTENCE, str(MODELS / "tiny-gemma2"), layer=1))
    cap = model_selfattn(SENTENCE, str(MODELS / "tiny-gemma2")).source.attn_softcap
    assert cap is not None
    assert all(np.abs(step.scores).max() < cap for step in gemma2.ledger)
    gpt_oss = kv_cache(model_selfattn(SENTENCE, str(MODELS / "tiny-gpt-oss"), layer=2))
    for step in gpt_oss.ledger:  # every row gives its sink some weight
        assert (step.weights.sum(axis=-1) < 1 - 1e-9).all()


def test_a_sliding_model_s_cache_is_counted_layer_by_layer():
    result = model_selfattn(SENTENCE, str(MODELS / "tiny-gemma2"), layer=1)
    ledger = kv_cache(result)
    count = len(result.tokens)
    per_token = ledger.kv_heads * (ledger.d_k + ledger.d_v)
    assert ledger.windows == (4, None)  # a sliding layer, then a full one
    assert ledger.cache_numbers == per_token * (3 + count)
    assert ledger.full_numbers == per_token * 2 * count
    document = ledger.to_document()
    assert [step["kept"] for step in document["steps"]][:4] == [1, 2, 3, 3]
    assert document["steps"][-1]["first_key"] == count - 3


@pytest.mark.parametrize("family", sorted(set(COST["models"]) - {"deepseek_v3"}))
def test_the_ledger_keeps_what_transformers_cache_kept(family, tmp_path):
    reference = COST["models"][family]
    (tmp_path / "config.json").write_text(json.dumps(reference["config"]), encoding="utf-8")
    _, arch = read_config(str(tmp_path))
    windows = [arch.window(layer) for layer in range(arch.layers)]
    heads, kv, d = arch.heads, arch.kv_heads or arch.heads, arch.size_per_head
    rng = np.random.default_rng(0)
    for case in reference["cases"]:
        if case["dtype"] != "float32":
            continue
        tokens = case["tokens"]
        x = rng.normal(size=(tokens, arch.d_model))
        params = {
            name: rng.normal(size=(arch.d_model, width)) / 4
            for name, width in (("w_q", heads * d), ("w_k", kv * d), ("w_v", kv * d))
        }
        for window, kept in zip(windows, case["layers"], strict=True):
            steps = inference.cache_ledger(x, params, heads, math.sqrt(d), window=window)
            assert steps[-1].held == kept["keys"]["shape"][2] == kept["values"]["shape"][2]
        numbers = inference.cache_numbers(arch.layers, kv, d, tokens, d, windows)
        kept_bytes = sum(layer[name]["bytes"] for layer in case["layers"]
                         for name in ("keys", "values"))  # fmt: skip
        assert numbers * case["batch"] * 4 == kept_bytes  # float32: 4 bytes a number


@pytest.mark.parametrize(
    ("name", "replayed"),
    [("tiny-llama", ()), ("tiny-qwen3", ("qk_norm", "rope_attention_factor")),
     ("tiny-olmo2", ("qk_norm",)), ("tiny-gemma2", ("attn_logit_softcapping",)),
     ("tiny-gemma3", ("qk_norm",)), ("tiny-gpt-oss", ("rope_attention_factor", "sinks"))],
)  # fmt: skip
def test_the_ledger_says_what_it_replayed_besides_x_w(name, replayed, run):
    ledger = kv_cache(model_selfattn(SENTENCE, str(MODELS / name), layer=2))
    assert ledger.replayed == replayed
    assert ledger.to_document()["replayed"] == list(replayed)
    shown = run("selfattn", SENTENCE, "--model", str(MODELS / name), "--layer", "2",
                "--kv-cache", "--format", "table")  # fmt: skip
    assert shown.exit_code == 0, shown.stderr
    assert ("The replay makes q, k, v and the weights as the model's layer does:" in shown.stdout) \
        == bool(replayed)  # fmt: skip


@pytest.mark.parametrize("layer", [1, 2])
def test_a_latent_attention_caches_its_latent_and_rotary_key_and_is_its_forward_pass(layer):
    from attncli.core.transformer import latent_run

    model = str(MODELS / "tiny-deepseek-v3")
    result = model_selfattn(SENTENCE, model, layer=layer)
    ledger = kv_cache(result, head=3)
    assert ledger.bit_for_bit
    source = result.source
    shape = source.latent
    run = latent_run(source.architecture, source.block, result.x, layer - 1,
                     source.architecture.allowed(layer - 1, len(result.tokens)))  # fmt: skip
    for t, step in enumerate(ledger.ledger):
        # what the step writes: the forward pass's c_KV and turned k^R of token t
        np.testing.assert_allclose(step.latent, run.latent[t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.rotary_key, run.rotary_key[t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.query, run.queries[:, t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.weights, run.weights[:, t, : t + 1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.output, run.output[t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.output, result.attention.output[t], rtol=0, atol=1e-12)
    count = len(result.tokens)
    assert ledger.cache_numbers == source.layers * (shape.rank + shape.rope) * count
    per_token = shape.cache_numbers()  # the model header's: (r + rope, h · (nope + rope + v))
    assert ledger.multi_head_numbers == source.layers * per_token[1] * count
    document = ledger.to_document()
    assert (document["kv_lora_rank"], document["qk_rope_head_dim"]) == (shape.rank, shape.rope)
    assert len(document["steps"][0]["c_kv"]) == shape.rank


def test_the_latent_ledger_says_what_it_keeps(run):
    shown = run("selfattn", SENTENCE, "--model", str(MODELS / "tiny-deepseek-v3"), "--kv-cache",
                "--token", "cabinet", "--format", "table")  # fmt: skip
    assert shown.exit_code == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert "Numbers (c_KV and k^R written into the cache)" in said
    assert "a latent attention keeps each token's c_KV and its rotary key k^R" in said
    assert "Multiplications" not in said  # not counted for a latent attention here


def test_the_seeded_layer_s_window_keeps_w_minus_one_tokens_too():
    import attncli as attn

    layer = attn.selfattn("las llaves del coche están ahí", causal=True, window=3, heads=2)
    ledger = kv_cache(layer)
    assert ledger.bit_for_bit
    assert [step.held for step in ledger.ledger] == [1, 2, 2, 2, 2, 2]
    assert [step.first for step in ledger.ledger] == [0, 0, 0, 1, 2, 3]
    per_token = ledger.kv_heads * (ledger.d_k + ledger.d_v)
    assert (ledger.cache_numbers, ledger.full_numbers) == (per_token * 2, per_token * 6)
    for t, step in enumerate(ledger.ledger):  # the layer's own rows, within its window
        np.testing.assert_allclose(step.weights, layer.weights[:, t, step.first : t + 1],
                                   rtol=0, atol=1e-14)  # fmt: skip
