"""attn selfattn uses every field it is given, passes its own outputs through, and refuses
any other field in one line: a weight dropped silently would give a different number."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError

X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W = [[1.0, 2.0], [3.0, 4.0]]
EYE = [[1.0, 0.0], [0.0, 1.0]]


def _one_line_error(result, *fragments):
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def _piped(run, document, *options):
    return run("selfattn", *options, input=json.dumps(document))


@pytest.mark.parametrize(
    ("field", "fragments"),
    [
        ("W_v", ["W_v: not a field attn selfattn reads; did you mean w_v?"]),
        ("wq", ["wq: not a field attn selfattn reads; did you mean w_q?"]),
        ("Mask", ["did you mean mask?"]),
        ("tokenz", ["did you mean tokens?"]),
        ("in_proj_weight", ["in_proj_weight is 2 × 2; expected 6 × 2"]),  # read, by shape
        ("in_proj_bias", ["in_proj_bias", "as b_q, b_k and b_v"]),
        ("out_proj.weight", ["out_proj.weight: not a field", "transposed as w_o"]),
        ("bias_k", ["bias_k without bias_v: torch's add_bias_kv"]),  # read, both or neither
        ("bias_v", ["bias_v without bias_k"]),
        ("heads", ["heads: not a field", "give --heads"]),
        ("causal", ["give --causal"]),
        ("weights", ["weights: not a field", "an output of the layer"]),
        ("comment", ["comment: not a field attn selfattn reads; it reads x"]),
    ],
)
def test_a_field_the_layer_does_not_read_is_refused(run, field, fragments):
    _one_line_error(_piped(run, {"x": X, field: W}), *fragments)


def test_the_refusal_is_told_in_spanish(run):
    result = _piped(run, {"x": X, "W_v": W}, "--lang", "es")
    _one_line_error(result, "W_v: no es un campo que lea attn selfattn; ¿querías decir w_v?")


def test_an_npz_field_is_held_to_the_same_rule(run, tmp_path):
    path = tmp_path / "layer.npz"
    np.savez(path, x=np.array(X), W_q=np.array(W))
    _one_line_error(run("selfattn", "-i", str(path)), "W_q: not a field", "did you mean w_q?")


def test_the_api_refuses_too():
    from attncli.api.selfattn import selfattn_document
    from attncli.layer import SelfAttnSettings

    with pytest.raises(InputError, match="did you mean w_v"):
        selfattn_document({"x": X, "W_v": W}, None, SelfAttnSettings())


def test_some_projections_given_and_others_not_is_refused(run):
    result = _piped(run, {"x": X, "w_v": W, "w_q": EYE})
    _one_line_error(result, "gives w_q, w_v but not w_k", "--draw-missing")
    with pytest.raises(InputError, match="but not w_q, w_k"):
        attn.selfattn(x=X, w_v=W)


def test_a_missing_w_o_names_no_out_proj_as_well(run):
    result = _piped(run, {"x": X, "w_q": EYE, "w_k": EYE, "w_v": W}, "--heads", "2")
    _one_line_error(result, "but not w_o", "--no-out-proj", "--draw-missing")


def test_draw_missing_draws_exactly_the_missing_and_says_which(run):
    document = {"x": X, "w_v": W, "w_o": EYE}
    out = json.loads(_piped(run, document, "--heads", "2", "--draw-missing", "--json").stdout)
    assert out["w_v"] == W and out["w_o"] == EYE
    seeded = attn.selfattn(x=X, heads=2)  # the same seed draws the same W^Q, W^K
    assert np.array_equal(out["w_q"], seeded.projections["w_q"])
    screen = _piped(run, document, "--heads", "2", "--draw-missing", "--format", "table").stdout
    said = " ".join(screen.split())
    assert "W^Q, W^K drawn from seed 0 (--draw-missing), not trained; W^V, W^O from the input" in (
        said
    )
    assert "W^Q, W^K, W^V are random" not in said
    spanish = _piped(
        run, document, "--heads", "2", "--draw-missing", "--format", "table", "--lang", "es"
    ).stdout
    assert "W^Q, W^K sacadas de la semilla 0" in " ".join(spanish.split())
    drawn = attn.selfattn(x=X, w_v=W, draw_missing=True)
    assert drawn.drawn == ("w_q", "w_k") and np.array_equal(drawn.projections["w_v"], W)


def test_all_projections_drawn_still_says_random(run):
    screen = _piped(run, {"x": X}, "--format", "table").stdout
    assert "W^Q, W^K, W^V are random (seed 0)" in " ".join(screen.split())


def test_a_result_read_back_passes_its_outputs_through(run_json):
    first = run_json("selfattn", "el tren va", "--json")
    again = run_json("selfattn", "--json", input=json.dumps(first))
    assert np.allclose(again["output"], first["output"], atol=1e-12)


def test_queries_given_directly_refuse_an_unused_w(run):
    document = {"queries": X, "keys": X, "values": X, "w_q": EYE}
    _one_line_error(_piped(run, document), "w_q: queries, keys and values are given directly")


def test_other_commands_keep_passing_unknown_fields(run_json):
    out = run_json("score", "--json", input=json.dumps({"query": [1, 0], "keys": X, "note": 1}))
    assert out["note"] == 1


def test_an_empty_item_of_d_k_is_refused(run):
    from attncli.reading.parse.arguments import parse_dks

    _one_line_error(run("compare-scores", "--d-k", "1,,2"), "--d-k '1,,2': item 2 is empty")
    _one_line_error(run("compare-scores", "--d-k", "8,64,"), "item 3 is empty")
    with pytest.raises(OptionError):
        parse_dks("1,,2")
    assert parse_dks(" 8, 64") == [8, 64]


@pytest.mark.parametrize("command", ["mix", "softmax"])
def test_carried_keys_are_checked(run, command):
    document = {"weights" if command == "mix" else "scores": [0.5, 0.5], "values": EYE}
    document["keys"] = [[1, float("-inf")], [0, 1]]
    _one_line_error(run(command, input=json.dumps(document)), "keys: row 1, item 2 is -Infinity")


def test_carried_keys_that_are_fine_come_out_as_numbers(run_json):
    document = {"weights": [0.5, 0.5], "values": EYE, "keys": [[1, 2], [0, 1]]}
    out = run_json("mix", "--json", input=json.dumps(document))
    assert out["keys"] == [[1, 2], [0, 1]]


@pytest.mark.parametrize(
    ("written", "again", "said"),
    [
        (["--causal"], [], "causal true"),
        ([], ["--causal"], "causal false"),
        (["--no-scale"], [], "scale false"),
        (["--scale", "2"], [], "divisor 2.0"),
        (["--no-proj"], [], "projections false"),
        (["--heads", "2"], [], "heads 2"),
        (["--dtype", "float32"], [], 'dtype "float32"'),
    ],
)
def test_a_result_read_back_is_computed_with_the_settings_it_was_computed_with(
    run, written, again, said
):
    # A result written down with --causal and read back without it would silently give
    # the unmasked grid: refused, naming the option that computes it again the same way.
    result = run("selfattn", "el tren va", *written, "--json")
    assert result.exit_code == 0, result.stderr
    again_run = run("selfattn", *again, "--json", input=result.stdout)
    assert again_run.exit_code == 2 and again_run.stdout == ""
    assert said in again_run.stderr and again_run.stderr.count("\n") == 1
    assert "read it back with" in again_run.stderr


def test_a_result_read_back_with_its_settings_gives_its_numbers(run_json):
    first = run_json("selfattn", "el tren va", "--causal", "--scale", "2", "--json")
    again = run_json("selfattn", "--causal", "--scale", "2", "--json", input=json.dumps(first))
    assert again["weights"] == first["weights"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["el tren va", "--no-proj", "--d-k", "4"], "--d-k sizes the projections"),
        (["el tren va", "--no-proj", "--d-v", "4"], "--d-v sizes the projections"),
    ],
)
def test_a_size_that_would_not_be_used_is_refused(run, args, said):
    result = run("selfattn", *args)
    assert result.exit_code == 2 and result.stdout == "" and said in result.stderr


def test_norm_beside_a_given_x_is_refused(run, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones((3, 4)))
    result = run("selfattn", "-i", str(path), "--norm", "2")
    assert result.exit_code == 2 and result.stdout == "" and "drop --norm" in result.stderr
    with pytest.raises(InputError, match="^d_k sizes the projections and projections=False"):
        attn.selfattn("el tren", projections=False, d_k=4)
