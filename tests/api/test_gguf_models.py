"""GGUF files in --model: the tiny files of tests/tiny_gguf.py (eleven tensor types, llama.cpp's
order of W^Q's and W^K's rows) run by attn against what transformers computed from the same
files through its own GGUF reader (tests/references/gguf.json, made by
tests/references/make_gguf.py; the suite needs no torch). Tolerances as tests/api/
test_llama_models.py's: as shipped within float32's rounding, and with transformers' three
float32 steps in float64 to the last digits."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.core.transformer import forward
from attncli.reading.models import gguf_file
from attncli.reading.models.model import load_model
from tests import tiny_models

REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "gguf.json").read_text()
)["models"]
NAMES = ("tiny-llama", "tiny-qwen2")


def _held(path: Path, reference: dict, attention: float, logits: float, rtol: float = 0) -> None:
    from attncli.core.predict import head_logits

    model = load_model(str(path))
    encoded = model.tokenizer.encode(reference["sentence"])
    assert encoded.ids.tolist() == reference["ids"]
    run = forward(model.network, encoded.ids)
    assert len(run.layers) == len(reference["attentions"])
    for layer, expected in zip(run.layers, reference["attentions"], strict=True):
        np.testing.assert_allclose(layer.attention.weights, expected, rtol=0, atol=attention)
    every = head_logits(model.network, run.last, normed=True)
    np.testing.assert_allclose(every, reference["logits"], rtol=rtol, atol=logits)


@pytest.mark.parametrize("name", NAMES)
def test_the_dequantized_weights_are_transformers_to_the_bit(name, tiny_ggufs):
    from safetensors.numpy import load_file

    model = load_model(str(tiny_ggufs[name]))
    weights = load_file(str(Path(model.folder) / "model.safetensors"))
    assert all(array.dtype == np.float32 for array in weights.values())
    assert tiny_models.fingerprint(weights) == REFERENCE[name]["fingerprint"]


def test_the_fixture_holds_every_tensor_type_attn_reads(tiny_ggufs):
    import gguf

    kinds = set()
    for name in NAMES:
        reader = gguf.GGUFReader(str(tiny_ggufs[name]))
        kinds |= {gguf.GGMLQuantizationType(t.tensor_type).name for t in reader.tensors}
    assert kinds == set(gguf_file.TYPES)


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_as_shipped(name, tiny_ggufs):
    # the tied head of ±1 embeddings 256 wide gives logits up to 70: float32's rounding
    # of transformers' final RMSNorm shows there relative to them
    _held(tiny_ggufs[name], REFERENCE[name]["shipped"], attention=1e-5, logits=1e-5, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_in_float64_to_the_last_digits(name, tiny_ggufs):
    _held(tiny_ggufs[name], REFERENCE[name]["float64"], attention=1e-12, logits=1e-12)


def test_without_undoing_llama_cpp_row_order_the_attention_is_another_models(
    tiny_ggufs, monkeypatch, tmp_path
):
    """The q/k reorder is what makes the numbers transformers': left out, the model still
    runs, and its attention differs by far more than any tolerance."""
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path))
    monkeypatch.setattr(gguf_file, "hf_order", lambda weight, heads: weight)
    reference = REFERENCE["tiny-llama"]["float64"]
    model = load_model(str(tiny_ggufs["tiny-llama"]))
    run = forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
    worst = max(
        float(np.abs(layer.attention.weights - np.asarray(expected)).max())
        for layer, expected in zip(run.layers, reference["attentions"], strict=True)
    )
    assert worst > 0.01


def test_the_row_order_is_undone_as_llama_cpp_made_it():
    """llama.cpp's converter (convert_hf_to_gguf.py's permute) and hf_order undo each other."""
    rng = np.random.default_rng(0)
    heads, size, width = 3, 8, 5
    hf = rng.standard_normal((heads * size, width))
    ggml = hf.reshape(heads, 2, size // 2, width).swapaxes(1, 2).reshape(hf.shape)
    np.testing.assert_array_equal(gguf_file.hf_order(ggml, heads), hf)
    # within a head, HF row i is ggml's row 2i, row i + d/2 its row 2i + 1
    np.testing.assert_array_equal(ggml[2], hf[1])
    np.testing.assert_array_equal(ggml[3], hf[1 + size // 2])


def test_predict_names_a_special_token_as_itself(tiny_ggufs):
    """<|im_end|>, an instruct model's end of turn, is a likely next token: decoding would
    leave it empty, and the table would show a blank row."""
    from attncli.api.predict import predict

    result = predict("the keys", str(tiny_ggufs["tiny-qwen2"]), top=3)
    vocabulary = load_model(str(tiny_ggufs["tiny-qwen2"])).tokenizer.tokenizer.get_vocab()
    for special in ("<|im_start|>", "<|im_end|>", "<|endoftext|>"):
        assert result.vocabulary[vocabulary[special]] == special
    assert result.vocabulary[vocabulary["Ġkeys"]] == " keys"
