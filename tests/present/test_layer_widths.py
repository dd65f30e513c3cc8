"""An output projection of its own width: W^O of (h·d_v) × d_out, as the rasbt book's
MultiHeadAttention(d_in=3, d_out=2) has, against the loop reference and finite differences."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from tests import naive
from tests.meaning import DISAGREE, told


def _layer(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4, 3))  # d_in = 3
    params = {name: rng.normal(size=(3, 2)) for name in ("w_q", "w_k", "w_v")}  # d_out = 2
    params.update(w_o=rng.normal(size=(2, 2)), b_o=rng.normal(size=2))
    return x, params


def test_w_o_of_its_own_width_against_the_loop_reference():
    x, params = _layer()
    result = attn.selfattn(x=x, heads=2, causal=True, **params)
    allowed = np.tril(np.ones((4, 4), dtype=bool)).tolist()
    lists = {name: value.tolist() for name, value in params.items()}
    reference = naive.multihead(x.tolist(), x.tolist(), lists, 2, None, allowed)
    assert result.output.shape == (4, 2)
    assert np.abs(result.output - np.asarray(reference)).max() < 1e-13


def test_its_gradient_against_finite_differences():
    x, params = _layer(1)
    target = np.random.default_rng(2).normal(size=(4, 2))
    grads = attn.selfattn(x=x, heads=2, target=target, **params).grads

    def loss(w_o):
        output = attn.selfattn(x=x, heads=2, **{**params, "w_o": w_o}).output
        return 0.5 * float(((output - target) ** 2).sum())

    step, numeric = 1e-6, np.zeros((2, 2))
    for index in np.ndindex(2, 2):
        up, down = params["w_o"].copy(), params["w_o"].copy()
        up[index] += step
        down[index] -= step
        numeric[index] = (loss(up) - loss(down)) / (2 * step)
    assert np.abs(grads["grad_w_o"] - numeric).max() < 1e-7


def test_on_the_command_line(run, run_json):
    x, params = _layer()
    document = json.dumps({"x": x.tolist(), **{k: v.tolist() for k, v in params.items()}})
    out = run_json("selfattn", "--heads", "2", "--json", input=document)
    assert np.asarray(out["output"]).shape == (4, 2) and out["params"] == 3 * 6 + 4 + 2
    screen = run("selfattn", "--heads", "2", "--format", "table", input=document).stdout
    assert "Output (4 × 2)" in screen


def test_its_rows_and_its_bias_are_still_checked():
    x, params = _layer()
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=x, heads=2, **{**params, "w_o": np.ones((3, 2))})
    told(caught.value, ShapeError, DISAGREE, field="w_o", found=("{count} row", {"count": 3}),
         dimension="d_v")  # fmt: skip
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=x, heads=2, **{**params, "b_o": np.ones(3)})
    told(caught.value, ShapeError, DISAGREE, field="b_o", found=("{count} number", {"count": 3}),
         other="w_o", dimension="d_out")  # fmt: skip


def test_keys_and_values_of_their_own_widths_give_torchs_numbers(run_json, tmp_path):
    # nn.MultiheadAttention(embed_dim=4, num_heads=2, kdim=3, vdim=5): q/k/v_proj_weight
    from pathlib import Path

    references = Path(__file__).parent.parent / "references"
    case = next(
        case
        for case in json.loads((references / "mha.json").read_text())["cases"]
        if case["name"] == "kdim_vdim"
    )
    given = case["inputs"]
    path = tmp_path / "kv.json"
    path.write_text(json.dumps({"x_q": given["query"], "x_k": given["key"], "x_v": given["value"]}))
    weights = str(references / case["file"])
    out = run_json("selfattn", "-i", str(path), "--weights", weights, "--heads", "2", "--json")
    assert np.abs(np.asarray(out["output"]) - np.asarray(case["output"])).max() < 1e-13
    assert np.abs(np.asarray(out["weights"]) - np.asarray(case["weights"])).max() < 1e-13
    assert np.asarray(out["x_k"]).shape == (4, 3) and np.asarray(out["x_v"]).shape == (4, 5)
    in_python = attn.selfattn(
        weights=weights, heads=2, x_q=given["query"], x_k=given["key"], x_v=given["value"]
    )
    assert np.array_equal(in_python.output, np.asarray(out["output"]))


def test_keys_and_values_of_their_own_widths_against_the_loop_reference():
    rng = np.random.default_rng(7)
    x_q, x_k, x_v = rng.normal(size=(2, 4)), rng.normal(size=(3, 3)), rng.normal(size=(3, 5))
    result = attn.selfattn(x_q=x_q, x_k=x_k, x_v=x_v, heads=2)  # W's drawn, of kdim and vdim rows
    p = {name: value.tolist() for name, value in result.projections.items()}
    queries = naive.linear(x_q.tolist(), p["w_q"])
    keys, values = naive.linear(x_k.tolist(), p["w_k"]), naive.linear(x_v.tolist(), p["w_v"])
    joined = [[] for _ in queries]
    for h in range(2):
        cut = slice(2 * h, 2 * h + 2)
        q, k, v = ([row[cut] for row in m] for m in (queries, keys, values))
        for i, row in enumerate(naive.attention(q, k, v)[2]):
            joined[i] += row
    reference = naive.linear(joined, p["w_o"])
    assert np.abs(result.output - np.asarray(reference)).max() < 1e-13


def test_keys_and_values_of_their_own_are_checked():
    rng = np.random.default_rng(8)
    x_q, x_k, x_v = rng.normal(size=(2, 4)), rng.normal(size=(3, 3)), rng.normal(size=(2, 5))
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x_q=x_q, x_k=x_k, x_v=x_v)
    told(caught.value, ShapeError, DISAGREE, field="x_v", found=("{count} row", {"count": 2}),
         other="x_k", bound=("{count} row", {"count": 3}), dimension="T_k")  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn(x_q=x_q, x_k=x_k)
    told(caught.value, InputError, "missing field '{field}': {hint}", field="x_v",
         hint=("keys and values of their own widths need x_q, x_k and x_v", {}))  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn(x_q=x_q, x_kv=x_k, x_k=x_k, x_v=x_v[:1].repeat(3, 0))
    told(
        caught.value,
        InputError,
        NOT_BOTH,
        given="x_q, x_k, x_v",
        other="x_kv",
    )


NOT_BOTH = ("give {given} or {other}, not both: the layer reads its sequences from one of them "
            "(x: self-attention; x_q, x_kv: cross-attention; x_q, x_k, x_v: keys and values of "
            "their own widths)")  # fmt: skip


def test_two_layouts_of_sequences_and_a_d_model_of_another_width_are_refused():
    rng = np.random.default_rng(9)
    x, x_q, x_kv = rng.normal(size=(3, 4)), rng.normal(size=(2, 4)), rng.normal(size=(3, 4))
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, x_q=x_q, x_kv=x_kv)
    told(caught.value, InputError, NOT_BOTH, given="x_q, x_kv", other="x")
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, x_q=x_q, x_k=x_kv, x_v=x_kv)
    told(caught.value, InputError, NOT_BOTH, given="x_q, x_k, x_v", other="x")
    for keywords, name in (({"x": x}, "x"), ({"x_q": x_q, "x_kv": x_kv}, "x_q")):
        with pytest.raises(ShapeError) as caught:
            attn.selfattn(**keywords, d_model=5)
        told(caught.value, ShapeError, DISAGREE, "python", field=name, other="d_model=5",
             bound=("{count} number", {"count": 5}), dimension="d_model")  # fmt: skip


def test_keys_and_values_of_their_own_in_the_backward_pass(run):
    rng = np.random.default_rng(14)
    x_q, x_k, x_v = rng.normal(size=(2, 4)), rng.normal(size=(3, 3)), rng.normal(size=(3, 5))
    target = rng.normal(size=(2, 4))
    result = attn.selfattn(x_q=x_q, x_k=x_k, x_v=x_v, heads=2, target=target)
    grads = result.grads
    assert grads["grad_x_k"].shape == (3, 3) and grads["grad_x_v"].shape == (3, 5)
    assert grads["grad_w_k"].shape == (3, 4) and grads["grad_w_v"].shape == (5, 4)
    drawn = {name: result.projections[name] for name in ("w_q", "w_k", "w_v", "w_o")}

    def loss(name, array):
        inputs = {"x_q": x_q, "x_k": x_k, "x_v": x_v, name: array}
        return attn.selfattn(**inputs, **drawn, heads=2, target=target).loss

    step = 1e-6
    for name, array in (("x_k", x_k), ("x_v", x_v)):
        for index in [(0, 0), (2, array.shape[1] - 1), (1, 1)]:
            up, down = array.copy(), array.copy()
            up[index] += step
            down[index] -= step
            numeric = (loss(name, up) - loss(name, down)) / (2 * step)
            assert abs(grads[f"grad_{name}"][index] - numeric) < 1e-7, (name, index)
    document = json.dumps({"x_q": x_q.tolist(), "x_k": x_k.tolist(), "x_v": x_v.tolist(),
                           "target": target.tolist()})  # fmt: skip
    screen = run("selfattn", "--heads", "2", "--format", "table", input=document).stdout
    after = screen.split("∂ℓ/∂X_q (grad_x_q)")[1]
    assert after.index("q1") < after.index("∂ℓ/∂X_k (grad_x_k)")


def test_every_gradient_is_headed_by_what_it_is_of(run):
    """∂ℓ/∂X (grad_x), ∂ℓ/∂W^Q (grad_w_q), …: the symbol the header and the course use, then
    the JSON's name."""
    from attncli.present.layer.view import gradient_symbol

    named = {"grad_output": "out", "grad_x": "X", "grad_x_kv": "X_kv", "grad_w_o": "W^O",
             "grad_b_q": "b^Q", "grad_bias_k": "bias_k", "grad_queries": "Q"}  # fmt: skip
    assert {name: gradient_symbol(name) for name in named} == named
    target = json.dumps([[0.0] * 4] * 6)
    screen = run("selfattn", "-i", "llaves", "--target", target, "--format", "table").stdout
    for heading in ("∂ℓ/∂out (grad_output)", "∂ℓ/∂X (grad_x)", "∂ℓ/∂W^Q (grad_w_q)",
                    "∂ℓ/∂W^K (grad_w_k)", "∂ℓ/∂W^V (grad_w_v)"):  # fmt: skip
        assert heading in screen, screen
    assert "∂ℓ/∂ (" not in screen
