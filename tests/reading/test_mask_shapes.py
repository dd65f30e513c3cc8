"""Masks of every shape torch broadcasts to the scores [B, h, T_q, T_k], attn's own `mask`
as floats and of more axes, a float key_padding_mask, and the refusals of each: against a
loop reference (tests/naive.py), the mask laid out by numpy's broadcasting, which is the
rule torch documents for scaled_dot_product_attention's attn_mask."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from attncli.messages import Message
from tests import naive
from tests.meaning import EMPTY, TOO_LARGE, WRONG, said_in_spanish, told

CELL = "{field}: the cell at {cell}"
NUMBER_AT = "{field}: the number at {cell}"

B, H, T, D = 2, 2, 3, 4


def _layer(seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(B, T, D))
    params = {name: rng.normal(size=(D, D)) for name in ("w_q", "w_k", "w_v", "w_o")}
    return x, params


def _reference(x, params, allowed, bias) -> np.ndarray:
    """The layer sequence by sequence and head by head in loops; `allowed` and `bias` of
    [B, h, T_q, T_k] (a masked cell as a bias of -1e300: weight 0 in the loop's softmax)."""
    lists = {name: value.tolist() for name, value in params.items()}
    out = []
    for b in range(x.shape[0]):
        grids = np.where(allowed[b], bias[b], -1e300).tolist()
        out.append(naive.multihead(x[b].tolist(), x[b].tolist(), lists, H, None, None, grids))
    return np.asarray(out)


def _as_torch(mask: np.ndarray) -> np.ndarray:
    """A mask laid out over [B, h, T_q, T_k] as torch takes it: nn.MultiheadAttention's
    B·h × T_q × T_k one grid per sequence and head, else broadcast (numpy's rule)."""
    if mask.ndim == 3 and mask.shape[0] == B * H:
        return mask.reshape(B, H, T, T)
    return np.broadcast_to(mask, (B, H, T, T))


# shapes that broadcast to [B, h, T_q, T_k], as transformers and torch give them
SHAPES = [
    (B, 1, 1, T),  # transformers' extended mask
    (1, T),
    (T, 1),
    (T,),
    (H, 1, T),
    (B, H, 1, T),
    (H, T, T),  # one grid per head, on a batch
    (1, 1, T, T),
    (B, 1, T, T),
    (B * H, T, T),  # nn.MultiheadAttention's
]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_float_attn_mask_broadcasts_as_torch(shape):
    x, params = _layer(1)
    bias = np.random.default_rng(2).normal(size=shape)
    result = attn.selfattn(x=x, **params, heads=H, attn_mask=bias)
    full = _as_torch(bias)
    expected = _reference(x, params, np.ones(full.shape, dtype=bool), full)
    assert np.abs(result.output - expected).max() < 1e-12


@pytest.mark.parametrize("shape", [s for s in SHAPES if s[-1] == T])
def test_a_bool_attn_mask_and_mask_broadcast_as_torch(shape):
    x, params = _layer(3)
    blocked = np.random.default_rng(4).random(size=shape) < 0.4
    blocked[..., 0] = False  # every query may look at the first key
    by_torch = attn.selfattn(x=x, **params, heads=H, attn_mask=blocked)
    full = ~_as_torch(blocked)
    expected = _reference(x, params, full, np.zeros(full.shape))
    assert np.abs(by_torch.output - expected).max() < 1e-12
    assert np.array_equal(by_torch.weights == 0, ~full)
    # the same grid in attn's sense (1 = may look), as floats of 0.0 and 1.0
    by_mask = attn.selfattn(x=x, **params, heads=H, mask=(~blocked).astype(np.float64))
    assert np.array_equal(by_mask.output, by_torch.output)


def test_the_cli_reads_an_extended_mask_on_a_batch_with_heads(run_json):
    x, _ = _layer(5)
    extended = np.zeros((B, 1, 1, T))
    extended[1, 0, 0, 2] = -np.inf  # the second sequence's last key is padding
    text = json.dumps({"x": x.tolist(), "attn_mask": extended.tolist()})
    out = run_json("selfattn", "--heads", "2", "--json", input=text)
    weights = np.asarray(out["weights"], dtype=float)  # [B, h, T_q, T_k]
    assert (weights[1, :, :, 2] == 0).all() and (weights[0] > 0).all()
    padding = {"x": x.tolist(), "key_padding_mask": [[False] * T, [False, False, True]]}
    same = run_json("selfattn", "--heads", "2", "--json", input=json.dumps(padding))
    assert same["output"] == out["output"]


def test_mask_of_heads_of_a_batch_and_of_both(run_json):
    x, params = _layer(6)
    rng = np.random.default_rng(7)
    for shape, heads in (((H, T, T), H), ((B, T, T), None), ((B, H, T, T), H)):
        allowed = rng.random(size=shape) < 0.6
        allowed[..., 0] = True
        weights = dict(params) if heads else {k: params[k] for k in ("w_q", "w_k", "w_v")}
        by_mask = attn.selfattn(x=x, **weights, heads=heads, mask=allowed.astype(int).tolist())
        by_torch = attn.selfattn(x=x, **weights, heads=heads, attn_mask=~allowed)
        assert np.array_equal(by_mask.output, by_torch.output)
        lead = (B, H, T, T) if heads else (B, T, T)
        assert np.array_equal(by_mask.weights == 0, ~np.broadcast_to(allowed, lead))


def test_a_float_mask_of_0_and_1_in_npz_and_json(run, run_json, tmp_path):
    x = np.random.default_rng(8).normal(size=(T, D))
    path = tmp_path / "causal.npz"
    np.savez(path, x=x, mask=np.tril(np.ones((T, T))))
    from_npz = run_json("selfattn", "-i", str(path), "--json")
    causal = run_json("selfattn", "--causal", "--json", input=json.dumps({"x": x.tolist()}))
    assert from_npz["weights"] == causal["weights"]
    text = json.dumps({"x": x.tolist(), "mask": np.tril(np.ones((T, T))).tolist()})
    assert "[[1.0, 0.0, 0.0]" in text
    assert run_json("selfattn", "--json", input=text)["weights"] == causal["weights"]


# (mask, the error's kind, the fields that say where and what): matched by meaning, so
# that rewording a message in the catalog edits no test.
BAD_MASKS = [
    ([[1.0, 0.0, 0.0], [1.0, 0.5, 0.0], [1, 1, 1]], InputError, {"cell": "(2, 2)"}),
    ([[1, 0, 0], [1, 2, 0], [1, 1, 1]], InputError, {"cell": "(2, 2)"}),
    ([[1, 0, 0], [1, "1", 0], [1, 1, 1]], InputError, {"cell": "(2, 2)"}),
    ([[1, 0, 0], [1, None, 0], [1, 1, 1]], InputError, {"cell": "(2, 2)"}),
    ([[1, 0, 0], [1, 1], [1, 1, 1]], ShapeError, {}),
    ([[1, 0], [1, 1]], ShapeError, {"shape": "2 × 2", "scores": "3 × 3", "names": "T_q × T_k"}),
    ([], ShapeError, {}),
    (1, ShapeError, {}),
]


@pytest.mark.parametrize(("mask", "kind", "fields"), BAD_MASKS)
def test_a_bad_mask_is_one_line_naming_the_cell_or_shape(run, mask, kind, fields):
    x = np.eye(T).tolist()
    result = run("selfattn", input=json.dumps({"x": x, "mask": mask}))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    error = result.error
    assert type(error) is kind and error.about == {"mask"}
    where = error.fields.get("where")  # a cell's: where its Message says it
    said = {**error.fields, **(where.fields if isinstance(where, Message) else {})}
    assert fields.items() <= said.items(), said
    assert error.message("en") in result.stderr  # the line is that error, said
    for value in fields.values():  # where it is, on the line itself
        assert str(value) in result.stderr
    spanish = run("selfattn", "--lang", "es", input=json.dumps({"x": x, "mask": mask}))
    assert spanish.exit_code == 2 and spanish.stderr.count("\n") == 1
    assert spanish.error.msgid == error.msgid and error.message("es") in spanish.stderr
    assert error.message("es") != error.message("en")


NOT_BROADCAST = (
    "{field} is {shape} but must broadcast to the scores, {scores} ({names}), as torch "
    "broadcasts: counted from the right, each axis of that size or 1 (e.g. {listed})"
)
# What a mask's number past float64 (-1e400) is told to be instead.
PAST_FLOAT64 = (
    "-Infinity or null (None in Python) where a query may not look, or a finite number",
    {},
)


def test_mask_refusals_from_python_name_dtype_and_cell():
    x = np.eye(T)
    for mask, cell, kind in (
        (np.array([[1, 0.25, 0]] * T), "(1, 2)", "0.25 (float64)"),
        (np.array([[1, 0, 0]] * 2 + [[np.nan, 0, 0]], dtype=np.float32), "(3, 1)",
         "nan (float32)"),
    ):  # fmt: skip
        with pytest.raises(InputError) as caught:
            attn.selfattn(x=x, mask=mask)
        told(caught.value, InputError, WRONG, where=(CELL, {"field": "mask", "cell": cell}),
             kind=kind)  # fmt: skip
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=np.ones((B, T, D)), heads=H, mask=np.ones((2, 5, 3)))
    assert caught.value.msgid == NOT_BROADCAST
    fields = caught.value.fields
    assert (fields["field"], fields["shape"], fields["scores"]) == (
        "mask", "2 × 5 × 3", "2 × 2 × 3 × 3")  # fmt: skip
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=np.ones((B, T, D)), heads=H, attn_mask=np.zeros((3, 3, 3)))
    assert caught.value.msgid == NOT_BROADCAST
    fields = caught.value.fields
    assert (fields["field"], fields["shape"]) == ("attn_mask", "3 × 3 × 3")
    assert fields["listed"].endswith("4 × 3 × 3")  # nn.MultiheadAttention's B·h × T × T


def test_a_float_key_padding_mask_is_added_as_torch_adds_it():
    x, params = _layer(9)
    rng = np.random.default_rng(10)
    added = rng.normal(size=(B, T))
    added[0, 1] = -np.inf  # padding
    result = attn.selfattn(x=x, **params, heads=H, key_padding_mask=added)
    full = np.broadcast_to(added[:, None, None, :], (B, H, T, T))
    expected = _reference(x, params, ~np.isneginf(full), np.where(np.isneginf(full), 0, full))
    assert np.abs(result.output - expected).max() < 1e-12
    assert (result.weights[0, :, :, 1] == 0).all()
    # 0.0 and -inf is the same as a boolean one (true = padding); both beside an attn_mask
    flags = np.array([[False, True, False], [False, False, False]])
    floats = np.where(flags, -np.inf, 0.0)
    bias = rng.normal(size=(T, T))
    by_flags = attn.selfattn(x=x, **params, heads=H, key_padding_mask=flags, attn_mask=bias)
    by_floats = attn.selfattn(x=x, **params, heads=H, key_padding_mask=floats, attn_mask=bias)
    assert np.array_equal(by_flags.output, by_floats.output)
    one = attn.selfattn(x=x[0], **params, heads=H, key_padding_mask=added[1])
    alone = _reference(
        x[:1], params, np.ones((1, H, T, T), bool), np.broadcast_to(added[1], (1, H, T, T))
    )
    assert np.abs(one.output - alone[0]).max() < 1e-12


def test_a_float_key_padding_mask_in_json(run, run_json):
    x = np.eye(T).tolist()
    text = f'{{"x": {json.dumps(x)}, "key_padding_mask": [0.0, -Infinity, 0.5]}}'
    out = run_json("selfattn", "--no-proj", "--json", input=text)
    scores = np.asarray(np.eye(T)) / np.sqrt(T) + np.array([0.0, 0.0, 0.5])
    scores[:, 1] = -np.inf
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    assert np.abs(np.asarray(out["weights"]) - weights).max() < 1e-15
    bad = run("selfattn", input=f'{{"x": {json.dumps(x)}, "key_padding_mask": [0.0, NaN, 0]}}')
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    told(bad.error, InputError, WRONG,
         where=(CELL, {"field": "key_padding_mask", "cell": "(2)"}),
         kind=("{value}", {"value": "NaN"}),
         expected=("numbers added to the key's scores in a float key_padding_mask (-Infinity or "
                   "null for padding)", {}))  # fmt: skip
    big = run("selfattn", input=f'{{"x": {json.dumps(x)}, "key_padding_mask": [0.0, 1e400, 0]}}')
    assert big.exit_code == 2
    told(big.error, InputError, WRONG, where=(NUMBER_AT, {"field": "key_padding_mask",
         "cell": "(2)"}), kind=TOO_LARGE, expected=PAST_FLOAT64)  # fmt: skip


def test_1e400_is_refused_and_minus_infinity_read_in_every_spelling(run):
    """-Infinity, null and -1e400 (a float past float64, -inf as torch reads it) mask the
    cell, as in a score; 1e400 is refused."""
    x = json.dumps(np.eye(2).tolist())
    big = run("selfattn", input=f'{{"x": {x}, "attn_mask": [[0, 1e400], [0, 0]]}}')
    assert big.exit_code == 2 and big.stdout == "" and big.stderr.count("\n") == 1
    told(
        big.error,
        InputError,
        WRONG,
        where=(NUMBER_AT, {"field": "attn_mask", "cell": "(1, 2)"}),
        kind=TOO_LARGE,
        expected=PAST_FLOAT64,
    )  # it says to write -Infinity or null
    assert big.stderr == f"attn: error: {big.error.message('en')}\n"
    for spelling in ("-Infinity", "null", "-1e400"):
        text = f'{{"x": {x}, "attn_mask": [[0, {spelling}], [0, 0]]}}'
        fine = run("selfattn", "--json", input=text)
        assert fine.exit_code == 0 and json.loads(fine.stdout)["weights"][0][1] == 0.0


def test_python_s_minus_inf_masks_a_cell_of_a_float_mask():
    """torch's float masks write -inf where a query may not look; from Python it is read
    as the document's -Infinity is."""
    x = np.eye(2).tolist()
    for mask in ([[0.0, -math.inf], [0.0, 0.0]], [[0.0, None], [0.0, 0.0]]):
        assert attn.selfattn(x=x, attn_mask=mask).weights[0][1] == 0.0
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, attn_mask=[[0.0, math.inf], [0.0, 0.0]])
    assert caught.value.fields["where"].fields == {"field": "attn_mask", "cell": "(1, 2)"}


def test_an_all_zero_int_attn_mask_says_why_it_is_ambiguous(run):
    x = json.dumps(np.eye(2).tolist())
    zeros = run("selfattn", input=f'{{"x": {x}, "attn_mask": [[0, 0], [0, 0]]}}')
    assert zeros.exit_code == 2 and zeros.stderr.count("\n") == 1
    assert type(zeros.error) is InputError and zeros.error.msgid == (
        "attn_mask of integer 0s only is ambiguous: in torch's senses (false, or 0.0 added) "
        "every query may look at every key, in mask's and transformers' attention_mask's "
        "(1 = may look) none may; write false or 0.0 for torch's sense, or leave attn_mask out"
    )
    fine = run("selfattn", "--json", input=f'{{"x": {x}, "attn_mask": [[0.0, 0.0], [0.0, 0.0]]}}')
    plain = run("selfattn", "--json", input=f'{{"x": {x}}}')
    assert (
        fine.exit_code == 0
        and json.loads(fine.stdout)["output"] == json.loads(plain.stdout)["output"]
    )


ATTENTION_MASK_SENSE = (
    "transformers' attention_mask is 1 = attend (torch's boolean attn_mask is the opposite), "
    "so attn reads it only as mask, the same sense: give the tokenizer's B × T_k one as mask of "
    "B × 1 × 1 × T_k (a T_q × T_k grid as it is), or 1 − it as key_padding_mask"
)


def test_transformers_attention_mask_is_refused_saying_its_sense(run, run_json):
    x = np.random.default_rng(12).normal(size=(B, T, D)).tolist()
    attention_mask = [[1, 1, 0], [1, 1, 1]]  # the tokenizer's: 1 = attend, B × T_k
    given = run("selfattn", input=json.dumps({"x": x, "attention_mask": attention_mask}))
    assert given.exit_code == 2 and given.stdout == "" and given.stderr.count("\n") == 1
    error = given.error
    assert type(error) is InputError and error.msgid == "{field}: {reason}"
    assert error.fields["field"] == "attention_mask"
    assert error.fields["reason"].msgid == ATTENTION_MASK_SENSE
    assert given.stderr == f"attn: error: {error.message('en')}\n"  # no did-you-mean besides
    spanish = run("selfattn", "--lang", "es", input=json.dumps({"x": x, "attention_mask": []}))
    assert spanish.error.fields["reason"].msgid == ATTENTION_MASK_SENSE
    said = spanish.error.message("es")
    assert spanish.stderr == f"attn: error: {said}\n" and said != spanish.error.message("en")
    # what the line says to write gives the numbers of the same mask as torch's padding
    as_mask = np.asarray(attention_mask).reshape(B, 1, 1, T).tolist()
    by_mask = run_json("selfattn", "--json", input=json.dumps({"x": x, "mask": as_mask}))
    padding = (1 - np.asarray(attention_mask)).tolist()
    by_padding = run_json(
        "selfattn", "--json", input=json.dumps({"x": x, "key_padding_mask": padding})
    )
    assert by_mask["output"] == by_padding["output"]
    assert np.asarray(by_mask["weights"])[0, :, 2].max() == 0.0


def test_an_empty_or_single_attn_mask_in_both_languages(run):
    x = json.dumps(np.eye(2).tolist())
    grid = ("a grid of {hint}", {"hint": (
        "true/false or numbers, T_q × T_k or any shape that broadcasts to the scores "
        "(B × h × T_q × T_k)", {})})  # fmt: skip
    for mask, msgid, fields in (("5", WRONG, {"kind": ("a single value", {})}), ("[]", EMPTY, {})):
        for lang in ("en", "es"):
            text = f'{{"x": {x}, "attn_mask": {mask}}}'
            given = run("selfattn", "--lang", lang, input=text)
            assert given.exit_code == 2 and given.stderr.count("\n") == 1
            told(given.error, ShapeError, msgid, where="attn_mask", expected=grid, **fields)
            assert given.error.message(lang) in given.stderr, given.stderr
    said_in_spanish(given.error)
