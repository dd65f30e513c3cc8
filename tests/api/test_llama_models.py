"""The Llama family in --model: attn's numpy pass on the tiny Llama, Mistral, Qwen2 and
Gemma of tests/models, against what transformers computed on them (tests/references/llama.json,
made by tests/references/make_llama.py; the suite needs no torch).

transformers keeps three steps in float32 even in a float64 model: RMSNorm, the rotary
angles and the eager softmax. attn computes them in float64. So each model is held twice:
to transformers as shipped within float32's rounding (attention 1e-5, logits 1e-6), and to
the same forward pass with those three steps in float64 (the references' "float64") to the
last digits, which shows every other step (the embeddings, the heads' grouping, the
rotation and its scaling, the window, the biases, SwiGLU, the head) to be transformers' own.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from attncli.api.heads import heads
from attncli.api.model import model_selfattn
from attncli.api.predict import predict
from attncli.api.rollout import rollout
from attncli.core.rotary import Scaling, model_frequencies
from attncli.reading.models.model import load_model
from tests import tiny_models
from tests.model_runs import held, run_model

MODELS = Path(__file__).resolve().parent.parent / "models"
REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "llama.json").read_text()
)["models"]
NAMES = ("tiny-llama", "tiny-mistral", "tiny-qwen2", "tiny-gemma")
# Gemma's RMSNorm also multiplies by 1 + w in float32, and its last one feeds the tied head
# (logits up to 20): as shipped, its logits are within float32's rounding at 1e-5
SHIPPED_LOGITS = {"tiny-gemma": 1e-5}


@pytest.mark.parametrize("name", NAMES)
def test_the_token_ids_are_transformers(name):
    model = load_model(str(MODELS / name))
    for case in REFERENCE[name]["ids"]:
        assert model.tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"]


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_as_shipped(name):
    reference = REFERENCE[name]["shipped"]
    model, encoded, run = run_model(MODELS / name, reference["sentence"])
    assert encoded.ids.tolist() == reference["ids"]
    held(run, model, reference, attention=1e-5, hidden=1e-5,
          logits=SHIPPED_LOGITS.get(name, 1e-6))  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_in_float64_to_the_last_digits(name):
    reference = REFERENCE[name]["float64"]
    model, _encoded, run = run_model(MODELS / name, reference["sentence"])
    held(run, model, reference, attention=1e-13, hidden=1e-13, logits=1e-12)


def test_the_families_differ_where_their_configs_do():
    llama = load_model(str(MODELS / "tiny-llama")).architecture
    mistral = load_model(str(MODELS / "tiny-mistral")).architecture
    qwen2 = load_model(str(MODELS / "tiny-qwen2")).architecture
    assert (llama.kv_heads, llama.heads, llama.head_dim) == (2, 4, 8)
    assert llama.rope_scaling == Scaling("llama3", 8.0, 0.5, 5.0, 40) and not llama.tied
    assert mistral.windows == (4, 4) and mistral.rope_scaling == Scaling("linear", 2.0)
    # Qwen2's config has sliding_window 4 beside use_sliding_window false: no window
    assert qwen2.windows == () and qwen2.tied and qwen2.biases == ("q", "k", "v")
    assert qwen2.rope_base == 1e6 and qwen2.rope_scaling is None
    gemma = load_model(str(MODELS / "tiny-gemma")).architecture
    assert (gemma.kv_heads, gemma.head_dim, gemma.activation) == (1, 16, "gelu_pytorch_tanh")
    assert gemma.embed_scale == math.sqrt(32) and gemma.norm_offset == 1.0 and gemma.tied


def _copy(tmp_path: Path, name: str, change) -> Path:
    folder = tmp_path / name
    shutil.copytree(MODELS / name, folder)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    change(config)
    path.write_text(json.dumps(config))
    return folder


def test_qwen2_windows_the_layers_its_config_asks_for(tmp_path):
    reference = REFERENCE["qwen2-window"]

    def windowed(config):
        config.update(reference["config"])
        config.pop("layer_types")  # worked out from max_window_layers, as transformers does

    folder = _copy(tmp_path, "tiny-qwen2", windowed)
    model, _encoded, run = run_model(folder, reference["float64"]["sentence"])
    assert model.architecture.windows == (None, 4)
    held(run, model, reference["float64"], attention=1e-13, hidden=1e-13, logits=1e-12)
    weights = run.layers[1].attention.weights
    assert (weights[:, 4:, 0] == 0).all() and (weights[:, 3, 0] > 0).all()


@pytest.mark.parametrize(
    ("name", "old"),
    [
        ("tiny-llama", {"type": "llama3", "factor": 8.0, "low_freq_factor": 0.5,
                        "high_freq_factor": 5.0, "original_max_position_embeddings": 40}),
        ("tiny-mistral", {"rope_type": "linear", "factor": 2.0}),
        ("tiny-qwen2", None),
    ],
)  # fmt: skip
def test_the_older_rope_theta_and_rope_scaling_give_the_same_numbers(tmp_path, name, old):
    def older(config):
        theta = config.pop("rope_parameters")["rope_theta"]
        config["rope_theta"] = theta
        config["rope_scaling"] = old

    reference = REFERENCE[name]["float64"]
    model, _encoded, run = run_model(_copy(tmp_path, name, older), reference["sentence"])
    held(run, model, reference, attention=1e-13, hidden=1e-13, logits=1e-12)


def test_llama3_scaling_by_hand():
    # head size 8, θ = 1, 0.1, 0.01, 0.001; wavelengths 2π/θ against 40/5 = 8 and 40/0.5 = 80
    theta = model_frequencies(8, 10000.0, Scaling("llama3", 8.0, 0.5, 5.0, 40))
    smooth = (40 / (2 * math.pi / 0.1) - 0.5) / (5.0 - 0.5)  # 62.8 lies between: blended
    expected = [1.0, (1 - smooth) * 0.1 / 8 + smooth * 0.1, 0.01 / 8, 0.001 / 8]
    np.testing.assert_allclose(theta, expected, rtol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_predict_equals_transformers_logits(name):
    reference = REFERENCE[name]["float64"]
    result = predict(reference["sentence"], str(MODELS / name), by_layer=True)
    np.testing.assert_allclose(result.logits, reference["logits"], rtol=0, atol=1e-12)
    shipped = REFERENCE[name]["shipped"]["logits"]
    np.testing.assert_allclose(result.logits, shipped, rtol=0, atol=SHIPPED_LOGITS.get(name, 1e-6))
    assert result.lens is not None and result.lens.shape == (3, len(shipped))
    assert result.top_ids[0] == int(np.argmax(reference["logits"]))


def test_llamas_head_is_its_own_and_qwen2s_is_tied():
    llama = load_model(str(MODELS / "tiny-llama")).network
    qwen2 = load_model(str(MODELS / "tiny-qwen2")).network
    ids = np.arange(5)
    assert llama.head is not None and not np.array_equal(llama.head[ids], llama.word[ids])
    assert qwen2.head is None


def test_a_model_without_its_head_is_refused_in_one_line(tmp_path):
    from safetensors.numpy import save_file

    from attncli.errors import OptionError
    from attncli.reading.parse.tensor_files import open_tensors

    folder = tmp_path / "bare"
    shutil.copytree(MODELS / "tiny-mistral", folder)
    tensors = open_tensors(str(folder / "model.safetensors"))
    save_file({n: tensors[n] for n in tensors if n != "lm_head.weight"},
              str(folder / "model.safetensors"))  # fmt: skip
    with pytest.raises(OptionError) as caught:
        predict("the keys", str(folder))
    assert "lm_head" in caught.value.msgid and caught.value.fields["model"] == str(folder)
    assert heads("the keys", str(folder), pattern="previous").ranking  # heads need no head


def test_one_head_of_a_grouped_layer_reads_its_key_value_head():
    whole = model_selfattn("the keys to the cabinet", str(MODELS / "tiny-llama"), layer=1)
    third = model_selfattn("the keys to the cabinet", str(MODELS / "tiny-llama"), layer=1, head=3)
    # query heads 3 and 4 share key/value head 2: columns 8 … 15 of W^K and W^V
    np.testing.assert_array_equal(third.projections["w_k"], whole.projections["w_k"][:, 8:16])
    np.testing.assert_array_equal(third.projections["w_q"], whole.projections["w_q"][:, 16:24])
    np.testing.assert_array_equal(third.attention.weights, whole.attention.weights[2])
    np.testing.assert_array_equal(whole.attention.keys[2], whole.attention.keys[3])


def test_mistrals_window_is_the_results_mask():
    result = model_selfattn("the keys to the cabinet are on", str(MODELS / "tiny-mistral"))
    assert result.allowed is not None
    assert result.allowed[5].tolist() == [False, False, True, True, True, True, False, False]
    assert (result.attention.weights[:, 5, :2] == 0).all()


@pytest.mark.parametrize("name", NAMES)
def test_heads_grid_and_rollout_run(name):
    folder = str(MODELS / name)
    grid = heads("the keys to the cabinet", folder, grid=True)
    assert grid.grid is not None and grid.grid.shape[:2] == (2, 4)
    rolled = rollout("the keys to the cabinet", folder)
    np.testing.assert_allclose(np.asarray(rolled.rollout).sum(axis=-1), 1.0, atol=1e-12)


def test_the_model_is_checked_against_memory_before_it_is_read(monkeypatch):
    from attncli import limits
    from attncli.errors import InputError

    monkeypatch.setattr(limits, "available_memory", lambda: 1000)
    with pytest.raises(InputError) as caught:
        load_model(str(MODELS / "tiny-llama"))
    assert caught.value.msgid == limits.MEMORY_REFUSED


def test_the_sentences_come_from_the_shared_list():
    assert REFERENCE["tiny-llama"]["shipped"]["sentence"] == tiny_models.SENTENCES[0]


@pytest.mark.parametrize("name", NAMES)
def test_the_kv_cache_replays_a_llama_layer_with_its_rotation_and_window(name):
    from attncli.api.inference import kv_cache

    result = model_selfattn("the keys to the cabinet are on the table", str(MODELS / name))
    ledger = kv_cache(result, head=3)
    assert ledger.bit_for_bit and ledger.kv_heads == (1 if name == "tiny-gemma" else 2)
    # the replay's grid is the forward pass's (rotated q and k, Mistral's window)
    np.testing.assert_allclose(ledger.full_weights, result.attention.weights, rtol=0, atol=1e-14)
    assert ledger.layer_difference < 1e-14
    if name == "tiny-mistral":  # the window's slots: «table», token 10, reads 4 keys
        assert np.count_nonzero(ledger.ledger[9].weights[2]) == 4


def test_the_cache_ledger_with_rotation_and_window_is_the_layer():
    from attncli.core import inference
    from attncli.core.distance import window_mask
    from attncli.core.rotary import Scaling, model_frequencies
    from attncli.core.selfattn import attention_layer

    rng = np.random.default_rng(5)
    x = rng.normal(size=(9, 12))
    params = {"w_q": rng.normal(size=(12, 16)), "w_k": rng.normal(size=(12, 8)),
              "w_v": rng.normal(size=(12, 8)), "w_o": rng.normal(size=(16, 12))}  # fmt: skip
    theta = model_frequencies(4, 500.0, Scaling("linear", 3.0))
    steps = inference.cache_ledger(x, params, 4, 2.0, theta, 3)
    layer = attention_layer(x, x, params, 4, 2.0, window_mask(9, 9, 3, causal=True),
                            kv_heads=2, rope_frequencies=theta)  # fmt: skip
    for t, step in enumerate(steps):  # the cache keeps the window's last 2, reads 3
        assert step.first == max(0, t - 2) and step.held == min(t + 1, 2)
        np.testing.assert_allclose(step.weights, layer.weights[:, t, step.first : t + 1],
                                   atol=1e-14)  # fmt: skip
        assert not layer.weights[:, t, : step.first].any()
        np.testing.assert_allclose(step.output, layer.output[t], atol=1e-13)
