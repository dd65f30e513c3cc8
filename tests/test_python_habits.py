"""The Python API takes what an engineer has at hand: a pathlib.Path for weights=, numpy's
dtypes for dtype=; the result has weights_mean, and item(n) picks a sequence of a batch."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests.meaning import told

ROOT = pathlib.Path(__file__).resolve().parent.parent
X = np.load(ROOT / "samples" / "mha_x.npy")
LAYER = ROOT / "samples" / "mha.safetensors"


def test_weights_may_be_a_pathlib_path():
    by_path = attn.selfattn(weights=LAYER, heads=2, x=X)
    by_text = attn.selfattn(weights=str(LAYER), heads=2, x=X)
    assert np.array_equal(by_path.output, by_text.output)
    torch_output = [0.1258, 0.3813, 0.1881, -0.0251]  # torch 2.13, tests/reading/test_samples.py
    assert np.abs(by_path.output[0] - torch_output).max() < 6e-5
    with pytest.raises(InputError) as error:
        attn.selfattn(weights=3, heads=2, x=X)  # type: ignore[arg-type]
    assert error.value.msgid.startswith("weights is {kind}; give a state dict")
    assert error.value.fields == {"kind": "int"}
    assert "pathlib.Path" in str(error.value) and "pathlib.Path" in (error.value.message("es"))


@pytest.mark.parametrize("dtype", [np.float32, np.dtype("float32"), "float32"])
def test_dtype_takes_numpys_types(dtype):
    result = attn.selfattn(x=X, dtype=dtype)
    assert result.dtype == "float32" and result.output.dtype == np.float32
    assert result.to_document()["dtype"] == "float32"


def test_dtype_float64_and_a_type_attn_does_not_compute_in():
    assert attn.selfattn(x=X, dtype=np.float64).output.dtype == np.float64
    assert attn.selfattn(x=X, dtype=np.dtype("float64")).dtype == "float64"
    with pytest.raises(OptionError) as caught:
        attn.selfattn(x=X, dtype=np.int8)
    told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
         setting="dtype='int8'", choices="float32, float64")  # fmt: skip


def test_weights_mean_is_an_attribute():
    result = attn.selfattn(weights=LAYER, heads=2, x=X)
    assert result.weights_mean is not None
    assert np.array_equal(result.weights_mean, result.to_document()["weights_mean"])
    assert np.allclose(result.weights_mean, result.weights.mean(axis=0))
    assert attn.selfattn(x=X).weights_mean is None  # one head: nothing to average
    batch = attn.selfattn(x=np.stack([X, X[::-1]]), heads=2)
    assert batch.weights_mean.shape == (2, 3, 3)
    assert np.allclose(batch.item(2).weights_mean, batch.weights_mean[1])


def test_item_picks_a_sequence_of_a_batch(run, tmp_path):
    batch = attn.selfattn(x=np.stack([X, X[::-1]]), heads=2)
    second = batch.item(2)
    assert second.of_batch == (2, 2) and np.array_equal(second.output, batch.output[1])
    assert second.steps(row=1)
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": np.stack([X, X[::-1]]).tolist()}))
    shown = json.loads(run("selfattn", "-i", str(path), "--heads", "2", "--json").stdout)
    assert np.allclose(shown["output"][1], second.output)


def test_a_list_of_numpy_rows_or_ranges_is_a_matrix():
    x = np.arange(8.0).reshape(2, 4) / 10
    whole = attn.selfattn(x=x, seed=0)
    rows = attn.selfattn(x=[np.array(row) for row in x], seed=0)
    assert np.array_equal(rows.output, whole.output)
    assert attn.selfattn(x=[x, x], seed=0).output.shape == (2, 2, 4)  # a batch of two
    counted = attn.selfattn(x=[range(4), range(4)], seed=0)
    assert np.array_equal(counted.x, [[0, 1, 2, 3], [0, 1, 2, 3]])


def test_a_sentence_that_is_not_a_text_is_refused_in_one_line():
    result = attn.selfattn("las llaves", seed=0)
    for given in (result, 3):
        for model in (None, "x"):
            with pytest.raises(InputError) as raised:
                attn.selfattn(given, model=model)
            told(raised.value, InputError, NOT_A_TEXT, "python", kind=type(given).__name__,
                 what=("the sentence", {}))  # fmt: skip
    with pytest.raises(InputError) as raised:  # the context too, named as such
        attn.selfattn("las llaves", context=5)
    told(raised.value, InputError, NOT_A_TEXT, "python", what="context", kind="int")
    for pair in (("a b", 5), (5, "a b")):  # both sentences of a comparison
        with pytest.raises(InputError) as raised:
            attn.compare_sentences(*pair)
        assert raised.value.msgid == NOT_A_TEXT


NOT_A_TEXT = "{what} is {kind}; give a text, e.g. {example}"


def test_an_unknown_keyword_is_matched_against_every_keyword_of_the_function():
    told_for = {"w_qq": "w_q", "hedas": "heads", "attn_msk": "attn_mask", "zzzz": None}
    for name, close in told_for.items():
        with pytest.raises(attn.OptionError) as raised:
            attn.selfattn(x=np.eye(2), **{name: 1})
        assert raised.value.fields.get("close") == close and raised.value.fields["name"] == name


def test_a_misspelt_keyword_is_told_against_the_function_s_own_positional_ones_too():
    cases = [(attn.selfattn, {"sentense": "the keys"}, "sentence"),
             (attn.heads, {"sentence": "the keys", "modle": "x"}, "model"),
             (attn.compare_sentences, {"first": "a b", "second": "a c", "secnd": "x"}, "second"),
             (attn.compare_sentences, {"first": "a b", "second": "a c", "model": "m",
                                       "wrods": True}, "words")]  # fmt: skip
    for function, given, close in cases:
        with pytest.raises(attn.OptionError) as raised:
            function(**given)
        assert raised.value.fields.get("close") == close, raised.value
