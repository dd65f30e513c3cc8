"""Gemma 3 270M through the GGUF path (gemma-3-270m-q4_k_m.gguf, shipped in four packages and
joined by attn): its gemma3 metadata and tensors read as transformers' Gemma3ForCausalLM
(QK-norm, a norm before and after each sublayer stored as 1 + w, five sliding layers to one
full, a rotary base per layer type, √d_model embeddings), its SentencePiece-style vocabulary
rebuilt; held to what transformers' own GGUF loading computes from the same file
(tests/references/gguf_gemma3.json, made by tests/references/make_gguf.py --gemma3). Skipped,
with the command that installs it, where it is missing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.api.predict import predict
from attncli.core.transformer import forward
from attncli.reading.models.model import load_model

# A real 270M model, converted once (29 s) and run: in the whole suite, not the quick run.
pytestmark = pytest.mark.slow

REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "gguf_gemma3.json").read_text()
)["model"]
SENTENCE = "The capital of France is"


@pytest.fixture(scope="module")
def gemma3_run(gemma3_gguf):
    model = load_model(gemma3_gguf)
    encoded = model.tokenizer.encode(SENTENCE)
    return model, encoded, forward(model.network, encoded.ids)


def test_the_config_is_transformers(gemma3_run):
    arch = gemma3_run[0].architecture
    config = REFERENCE["config"]
    assert arch.family == config["model_type"] == "gemma3_text"
    assert (arch.layers, arch.heads, arch.kv_heads, arch.head_dim, arch.d_model) == (
        config["num_hidden_layers"], config["num_attention_heads"],
        config["num_key_value_heads"], config["head_dim"], config["hidden_size"])  # fmt: skip
    window = config["sliding_window"]
    expected = [window if kind == "sliding_attention" else None for kind in config["layer_types"]]
    assert list(arch.windows) == expected
    assert arch.query_scalar == config["query_pre_attn_scalar"]
    assert arch.final_softcap is None and arch.attn_softcap is None


def test_the_ids_are_transformers(gemma3_run):
    model = gemma3_run[0]
    for case in REFERENCE["ids"]:
        assert model.tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"], case


@pytest.mark.parametrize("kind, attention, logits", [("shipped", 1e-5, 1e-4),
                                                      ("float64", 1e-12, 1e-11)])  # fmt: skip
def test_every_layer_and_the_top_logits_are_transformers(gemma3_run, kind, attention, logits):
    from attncli.core.predict import head_logits

    model, encoded, run = gemma3_run
    reference = REFERENCE[kind]
    assert encoded.ids.tolist() == reference["ids"]
    assert len(run.layers) == len(reference["attentions"])
    for layer, expected in zip(run.layers, reference["attentions"], strict=True):
        np.testing.assert_allclose(layer.attention.weights, expected, rtol=0, atol=attention)
    last = head_logits(model.network, run.last[-1:], normed=True)[0]
    np.testing.assert_allclose(last[reference["top_ids"]], reference["top_logits"], rtol=0,
                               atol=logits)  # fmt: skip


def test_predict_gives_transformers_top_tokens(gemma3_gguf):
    result = predict(SENTENCE, gemma3_gguf, top=5)
    assert list(result.top_ids) == REFERENCE["shipped"]["top_ids"][:5]


def test_each_norm_is_read_back_as_llama_cpp_stored_it_less_one(gemma3_gguf):
    """llama.cpp's converter stores Gemma's RMSNorm weights w as 1 + w; transformers' GGUF
    reader, and attn, subtract the 1 (the model multiplies by 1 + w)."""
    import gguf
    from safetensors.numpy import load_file

    weights = load_file(str(Path(load_model(gemma3_gguf).folder) / "model.safetensors"))
    stored = {t.name: t for t in gguf.GGUFReader(gemma3_gguf).tensors}
    for gguf_name, name in (("blk.3.attn_q_norm.weight", "model.layers.3.self_attn.q_norm.weight"),
                            ("blk.3.post_ffw_norm.weight",
                             "model.layers.3.post_feedforward_layernorm.weight"),
                            ("output_norm.weight", "model.norm.weight")):  # fmt: skip
        raw = np.asarray(stored[gguf_name].data, dtype=np.float32)
        np.testing.assert_array_equal(weights[name], raw - np.float32(1))
