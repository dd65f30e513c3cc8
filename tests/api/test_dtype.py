"""--dtype float32: the layer computed in float32 from the inputs on, agreeing with torch's
float32 CPU numbers to about 1e-6 relative (not bit for bit; tests/references/mha.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import OptionError
from tests.meaning import told

REFERENCES = Path(__file__).parent.parent / "references"
MHA = {case["name"]: case for case in json.loads((REFERENCES / "mha.json").read_text())["cases"]}


@pytest.mark.parametrize("name", ["packed_float32", "batch_first_float32", "causal_float32"])
def test_float32_agrees_with_torchs_float32(name):
    case = MHA[name]
    inputs = case["inputs"]
    extra = {}
    if "attn_mask" in inputs:
        extra["attn_mask"] = np.asarray(inputs["attn_mask"], dtype=np.float32)
    heads = case["module"]["num_heads"]
    weights = str(REFERENCES / case["file"])
    result = attn.selfattn(
        weights=weights, heads=heads, x=inputs["query"], dtype="float32", **extra
    )
    assert result.output.dtype == np.float32 and result.weights.dtype == np.float32
    assert all(array.dtype == np.float32 for array in result.projections.values())
    output = np.asarray(case["output"])
    assert np.abs(result.output - output).max() / np.abs(output).max() < 2e-6
    assert np.abs(result.weights - np.asarray(case["weights"])).max() < 2e-6


def test_the_json_says_which_and_the_backward_pass_is_float32_too(run_json):
    out = run_json("selfattn", "a b c", "--dtype", "float32", "--target", "1,0;0,1;1,1",
                   "--d-model", "2", "--json")  # fmt: skip
    assert out["dtype"] == "float32"
    assert run_json("selfattn", "a b c", "--json")["dtype"] == "float64"
    result = attn.selfattn("a b c", d_model=2, dtype="float32", target=[[1, 0], [0, 1], [1, 1]])
    assert {array.dtype for array in result.grads.values()} == {np.dtype(np.float32)}
    full = attn.selfattn("a b c", d_model=2, target=[[1, 0], [0, 1], [1, 1]])
    for name, gradient in full.grads.items():
        assert np.allclose(result.grads[name], gradient, rtol=1e-4, atol=1e-5), name


def test_the_row_blocked_path_in_float32(run_json):
    x = np.random.default_rng(0).normal(size=(6, 4)).tolist()
    whole = run_json("selfattn", "--dtype", "float32", "--json", input=json.dumps({"x": x}))
    blocks = run_json("selfattn", "--dtype", "float32", "--fields", "output",
                      input=json.dumps({"x": x}))  # fmt: skip
    assert np.allclose(whole["output"], blocks["output"], rtol=1e-6)


def test_another_dtype_is_refused(run):
    result = run("selfattn", "a b", "--dtype", "float16")
    assert result.exit_code == 2
    told(result.error, OptionError, "{setting}: give one of {choices}", setting="--dtype float16",
         choices="float32, float64")  # fmt: skip
    with pytest.raises(OptionError) as caught:
        attn.selfattn("a b", dtype="int8")
    told(
        caught.value,
        OptionError,
        "{setting}: give one of {choices}",
        "python",
        setting="dtype='int8'",
    )
