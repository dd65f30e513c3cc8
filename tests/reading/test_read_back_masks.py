"""A result computed with a mask writes down what masked it (`mask` in attn's sense, and an
added bias as a float `attn_mask`), so that piped back into attn selfattn it is computed
again to the same numbers: each kind of mask, with heads and with a batch."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError
from tests.meaning import told

RNG = np.random.default_rng(11)
ONE = RNG.normal(size=(3, 4))  # one sequence of 3 tokens
BATCH = RNG.normal(size=(2, 3, 4))


def _text(document: dict) -> str:
    """JSON as a user's file would hold it: -inf as -Infinity."""
    return json.dumps({k: v.tolist() if hasattr(v, "tolist") else v for k, v in document.items()})


def _padding(batch: bool) -> np.ndarray:
    return (
        np.array([[False, False, True], [False, True, False]])
        if batch
        else np.array([False, False, True])
    )


def _float_padding(batch: bool) -> np.ndarray:
    return np.where(_padding(batch), -np.inf, 0.25)


CASES = {
    "mask": lambda b: {"mask": np.tril(np.ones((3, 3), dtype=int))},
    "mask per head": lambda b: {"mask": RNG.random(size=(2, 3, 3)) < 2 / 3},
    "bool attn_mask": lambda b: {"attn_mask": np.triu(np.ones((3, 3), dtype=bool), 1)},
    "float attn_mask": lambda b: {"attn_mask": RNG.normal(size=(1, 3, 3))},
    "float attn_mask per head": lambda b: {"attn_mask": RNG.normal(size=(2, 3, 3))},
    "extended mask": lambda b: {
        "attn_mask": np.where(np.arange(3) == 2, -np.inf, 0.0).reshape(1, 1, 1, 3)
        if not b
        else np.array([0.0, 0, -np.inf, 0, 0, 0]).reshape(2, 1, 1, 3)
    },  # fmt: skip
    "key_padding_mask": lambda b: {"key_padding_mask": _padding(b)},
    "float key_padding_mask": lambda b: {"key_padding_mask": _float_padding(b)},
    "valid_len": lambda b: {},
}


# every kind, with and without heads, of one sequence and of a batch (a mask per head
# only with heads)
RUNS = [
    (kind, heads, batch)
    for kind in CASES
    for heads in (None, 2)
    for batch in (False, True)
    if heads or "per head" not in kind
]


@pytest.mark.parametrize(("kind", "heads", "batch"), RUNS)
def test_a_masked_result_read_back_gives_the_same_numbers(run, kind, heads, batch):
    document = {"x": BATCH if batch else ONE, **CASES[kind](batch)}
    options = ["--heads", "2"] if heads else []
    options += ["--valid-len", "2"] if kind == "valid_len" else []
    first = run("selfattn", "--json", *options, input=_text(document))
    assert first.exit_code == 0, first.stderr
    written = json.loads(first.stdout)
    # what masked it: a mask in attn's sense, or an added bias as a float attn_mask
    masked_by = "attn_mask" if kind.startswith("float attn_mask") else "mask"
    assert masked_by in written and "key_padding_mask" not in written
    again = run("selfattn", "--json", *(["--heads", "2"] if heads else []), input=first.stdout)
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["output"] == written["output"]
    assert json.loads(again.stdout)["weights"] == written["weights"]
    # and the mask is held: a cell changed by hand gives other weights, refused in one line
    changed = dict(written)
    cells = np.asarray(written[masked_by], dtype=bool if masked_by == "mask" else float)
    cells.flat[1] = not cells.flat[1] if masked_by == "mask" else cells.flat[1] + 1.0
    changed[masked_by] = cells.tolist()
    refused = run("selfattn", "--json", *(["--heads", "2"] if heads else []),
                  input=json.dumps(changed))  # fmt: skip
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1
    told(refused.error, InputError,
         "{name}: the input is a result whose {name} at [{place}] is {written:.6g}, but its "
         "inputs give {computed:.6g}; {fix}", name="weights")  # fmt: skip


def test_the_bias_is_written_as_a_float_attn_mask_and_causal_as_causal(run_json):
    alibi = [[-abs(i - j) * 1.0 for j in range(3)] for i in range(3)]
    document = {"x": ONE.tolist(), "attn_mask": alibi}
    written = run_json("selfattn", "--causal", "--json", input=json.dumps(document))
    assert written["attn_mask"] == alibi and written["causal"] is True
    assert "mask" not in written  # --causal alone masked it: written as causal
    again = run_json("selfattn", "--causal", "--json", input=json.dumps(written))
    assert again["output"] == written["output"]
    assert again["attn_mask"] == alibi


def test_float32_with_a_bias_reads_back(run_json):
    document = {"x": ONE.tolist(), "attn_mask": RNG.normal(size=(3, 3)).tolist()}
    written = run_json("selfattn", "--dtype", "float32", "--json", input=json.dumps(document))
    again = run_json("selfattn", "--dtype", "float32", "--json", input=json.dumps(written))
    assert again["output"] == written["output"]


def test_the_python_result_writes_its_mask_down():
    padding = np.array([[False, True, False], [False, False, False]])
    result = attn.selfattn(x=BATCH, heads=2, key_padding_mask=padding, causal=True)
    document = result.to_document()
    assert np.array_equal(document["mask"], np.broadcast_to(~padding[:, None, None, :],
                                                            (2, 2, 3, 3)))  # fmt: skip
    second = result.item(2).to_document()
    assert np.asarray(second["mask"]).all()  # sequence 2 has no padding
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    again = selfattn_inputs(
        LayerInputs.from_document(document), None, SelfAttnSettings(heads=2, causal=True)
    )
    assert np.array_equal(again.output, result.output)


def test_direct_queries_and_the_layer_s_extra_keys_read_back_with_their_masks(run):
    rng = np.random.default_rng(13)
    direct = {name: rng.normal(size=(2, 3, 4)).tolist() for name in ("queries", "keys", "values")}
    direct["attn_mask"] = rng.normal(size=(2, 1, 3)).tolist()
    direct["key_padding_mask"] = [[False, True, False], [False, False, False]]
    weights = {name: rng.normal(size=(4, 4)).tolist() for name in ("w_q", "w_k", "w_v", "w_o")}
    layer = {"x": ONE.tolist(), **weights, "bias_k": [0.5] * 4, "bias_v": [1.0] * 4,
             "key_padding_mask": [False, True, False]}  # fmt: skip
    extra = ["--heads", "2", "--add-zero-attn", "--causal"]
    for document, options in ((direct, ["--heads", "2"]), (layer, extra)):
        first = run("selfattn", "--json", *options, input=json.dumps(document))
        assert first.exit_code == 0, first.stderr
        written = json.loads(first.stdout)
        assert np.asarray(written["mask"]).shape[-1] == 3  # the tokens' keys, not the extra ones
        again = run("selfattn", "--json", *options, input=first.stdout)
        assert again.exit_code == 0, again.stderr
        assert json.loads(again.stdout)["output"] == written["output"]


def test_the_explorer_s_state_keeps_an_added_bias():
    from attncli.api.selfattn import selfattn_inputs
    from attncli.explore.saved import state_document
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    alibi = np.array([[-abs(i - j) * 0.5 for j in range(3)] for i in range(3)])
    result = attn.selfattn(x=ONE, attn_mask=alibi, causal=True)
    document = state_document(result)
    assert np.array_equal(document["attn_mask"], alibi)
    again = selfattn_inputs(LayerInputs.from_document(document), None, SelfAttnSettings())
    assert np.array_equal(again.output, result.output)
