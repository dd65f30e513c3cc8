"""attn selfattn uses every field it is given, passes its own outputs through, and refuses
any other field in one line: a weight dropped silently would give a different number."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError, ShapeError
from tests.meaning import FINITE, WRONG, said_in_spanish, told

NO_X_FOR_POSITIONS = (
    "{option} adds the encoding to X; with queries, keys and values given there is no X to add "
    "it to"
)

X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W = [[1.0, 2.0], [3.0, 4.0]]
EYE = [[1.0, 0.0], [0.0, 1.0]]


def _one_line_error(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


NOT_A_FIELD = "{field}: not a field attn selfattn reads; {hint}"
AN_OPTION = (
    "{field}: not a field attn selfattn reads; it is an option here, give {option} (a whole "
    "result, with its output, passes it through)"
)
WITHOUT = (
    "{given} without {other}: torch's add_bias_kv appends a key row and a value row; give both"
)
NOT_GIVEN = (
    "the input gives {given} but not {missing}; give {missing} too, or {draw} to draw {missing} "
    "from {seed}"
)


def _near(name: str):
    return ("did you mean {near}?", {"near": name})


def _piped(run, document, *options):
    return run("selfattn", *options, input=json.dumps(document))


@pytest.mark.parametrize(
    ("field", "kind", "msgid", "fields"),
    [
        ("W_v", InputError, NOT_A_FIELD, {"hint": _near("w_v")}),
        ("wq", InputError, NOT_A_FIELD, {"hint": _near("w_q")}),
        ("Mask", InputError, NOT_A_FIELD, {"hint": _near("mask")}),
        ("tokenz", InputError, NOT_A_FIELD, {"hint": _near("tokens")}),
        ("in_proj_weight", ShapeError, WRONG,
         {"where": "in_proj_weight", "kind": "2 × 2", "expected": "6 × 2"}),  # read, by shape
        ("in_proj_bias", InputError, NOT_A_FIELD, {"hint": (
            "give torch's in_proj_bias as b_q, b_k and b_v, its three thirds in that order", {})}),
        ("out_proj.weight", InputError, NOT_A_FIELD,
         {"hint": ("give it transposed as {field}", {"field": "w_o"})}),
        ("bias_k", InputError, WITHOUT, {"given": "bias_k", "other": "bias_v"}),  # both or neither
        ("bias_v", InputError, WITHOUT, {"given": "bias_v", "other": "bias_k"}),
        ("heads", InputError, AN_OPTION, {"option": "--heads h"}),
        ("causal", InputError, AN_OPTION, {"option": "--causal"}),
        ("weights", InputError, NOT_A_FIELD, {"hint": (
            "it is an output of the layer; remove it (or pass the whole result)", {})}),
        ("comment", InputError, NOT_A_FIELD, {"hint": (
            "it reads x (or x_q, x_kv, or queries, keys, values), w_q, w_k, w_v, w_o, …", {})}),
    ],
)  # fmt: skip
def test_a_field_the_layer_does_not_read_is_refused(run, field, kind, msgid, fields):
    named = {} if kind is ShapeError or msgid == WITHOUT else {"field": field}
    _one_line_error(_piped(run, {"x": X, field: W}), kind, msgid, **named, **fields)


def test_the_refusal_is_told_in_spanish(run):
    result = _piped(run, {"x": X, "W_v": W}, "--lang", "es")
    _one_line_error(result, InputError, NOT_A_FIELD, lang="es", field="W_v", hint=_near("w_v"))
    said_in_spanish(result.error)


def test_an_npz_field_is_held_to_the_same_rule(run, tmp_path):
    path = tmp_path / "layer.npz"
    np.savez(path, x=np.array(X), W_q=np.array(W))
    _one_line_error(run("selfattn", "-i", str(path)), InputError, NOT_A_FIELD, field="W_q",
                    hint=_near("w_q"))  # fmt: skip


def test_the_api_refuses_too():
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    with pytest.raises(InputError) as caught:
        selfattn_inputs(LayerInputs.from_document({"x": X, "W_v": W}), None, SelfAttnSettings())
    told(caught.value, InputError, NOT_A_FIELD, field="W_v", hint=_near("w_v"))


def test_some_projections_given_and_others_not_is_refused(run):
    result = _piped(run, {"x": X, "w_v": W, "w_q": EYE})
    _one_line_error(result, InputError, NOT_GIVEN, given="w_q, w_v", missing="w_k",
                    draw="--draw-missing")  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=X, w_v=W)
    told(caught.value, InputError, NOT_GIVEN, "python", given="w_v", missing="w_q, w_k",
         draw="draw_missing=True")  # fmt: skip


def test_a_missing_w_o_names_no_out_proj_as_well(run):
    result = _piped(run, {"x": X, "w_q": EYE, "w_k": EYE, "w_v": W}, "--heads", "2")
    _one_line_error(
        result, InputError,
        "the input gives {given} but not {missing}; give {missing} too, or {no_out_proj}, or "
        "{draw} to draw {missing} from {seed}",
        missing="w_o", no_out_proj="--no-out-proj", draw="--draw-missing",
    )  # fmt: skip


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
    _one_line_error(
        _piped(run, document), InputError,
        "{name}: queries, keys and values are given directly, so attn selfattn would not use "
        "{name}; remove it, or give x and the W's instead of queries/keys/values", name="w_q",
    )  # fmt: skip


def test_other_commands_keep_passing_unknown_fields(run_json):
    out = run_json("score", "--json", input=json.dumps({"query": [1, 0], "keys": X, "note": 1}))
    assert out["note"] == 1


def test_an_empty_item_of_d_k_is_refused(run):
    from attncli.reading.parse.arguments import parse_dks

    empty = (
        "--d-k {text!r}: item {item} is {part!r}; give whole numbers from 1 to {most} separated "
        "by commas, e.g. 8,64,512"
    )
    _one_line_error(run("compare-scores", "--d-k", "1,,2"), OptionError, empty, text="1,,2",
                    item=2, part="")  # fmt: skip
    _one_line_error(run("compare-scores", "--d-k", "8,64,"), OptionError, empty, text="8,64,",
                    item=3, part="")  # fmt: skip
    with pytest.raises(OptionError):
        parse_dks("1,,2")
    assert parse_dks(" 8, 64") == [8, 64]


@pytest.mark.parametrize("command", ["mix", "softmax"])
def test_carried_keys_are_checked(run, command):
    document = {"weights" if command == "mix" else "scores": [0.5, 0.5], "values": EYE}
    document["keys"] = [[1, float("-inf")], [0, 1]]
    _one_line_error(
        run(command, input=json.dumps(document)), InputError,
        WRONG, kind="-Infinity", expected=FINITE,
        where=("{field}: row {row}, item {item}", {"field": "keys", "row": 1, "item": 2}),
    )  # fmt: skip


def test_carried_keys_that_are_fine_come_out_as_numbers(run_json):
    document = {"weights": [0.5, 0.5], "values": EYE, "keys": [[1, 2], [0, 1]]}
    out = run_json("mix", "--json", input=json.dumps(document))
    assert out["keys"] == [[1, 2], [0, 1]]


@pytest.mark.parametrize(
    ("written", "again", "field", "value", "fix"),
    [
        (["--causal"], [], "causal", "true", ("with {option}", {"option": "--causal"})),
        ([], ["--causal"], "causal", "false", ("without {option}", {"option": "--causal"})),
        (["--no-scale"], [], "scale", "false", ("with {option}", {"option": "--no-scale"})),
        (["--scale", "2"], [], "divisor", "2.0", ("with {option}", {"option": "--scale 2.0"})),
        (["--no-proj"], [], "projections", "false", ("with {option}", {"option": "--no-proj"})),
        (["--heads", "2"], [], "heads", "2", ("with {option}", {"option": "--heads 2"})),
        (["--dtype", "float32"], [], "dtype", '"float32"',
         ("with {option}", {"option": "--dtype float32"})),
    ],
)  # fmt: skip
def test_a_result_read_back_is_computed_with_the_settings_it_was_computed_with(
    run, written, again, field, value, fix
):
    # A result written down with --causal and read back without it would silently give
    # the unmasked grid: refused, naming the option that computes it again the same way.
    result = run("selfattn", "el tren va", *written, "--json")
    assert result.exit_code == 0, result.stderr
    again_run = run("selfattn", *again, "--json", input=result.stdout)
    assert again_run.exit_code == 2 and again_run.stdout == ""
    assert again_run.stderr.count("\n") == 1
    told(again_run.error, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}",
         field=field, value=value, fix=fix)  # fmt: skip


def test_a_result_read_back_with_its_settings_gives_its_numbers(run_json):
    first = run_json("selfattn", "el tren va", "--causal", "--scale", "2", "--json")
    again = run_json("selfattn", "--causal", "--scale", "2", "--json", input=json.dumps(first))
    assert again["weights"] == first["weights"]


UNUSED_SIZE = "{setting} goes with the projections; drop {no_proj} or {setting}"


@pytest.mark.parametrize("size", ["--d-k", "--d-v"])
def test_a_size_that_would_not_be_used_is_refused(run, size):
    result = run("selfattn", "el tren va", "--no-proj", size, "4")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, UNUSED_SIZE, setting=size, no_proj="--no-proj")


def test_norm_beside_a_given_x_is_refused(run, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones((3, 4)))
    result = run("selfattn", "-i", str(path), "--norm", "2")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError,
         "{norm} sets the length of the seeded embeddings, and the input gives X itself; drop "
         "{norm}", norm="--norm")  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn("el tren", projections=False, d_k=4)
    told(
        caught.value, InputError, UNUSED_SIZE, "python", setting="d_k", no_proj="projections=False"
    )


def test_sinusoidal_positions_with_no_x_to_add_them_to_are_refused(run, tmp_path):
    # queries, keys and values given directly: --positions rope turns them, sinusoidal has
    # no X to be added to
    path = tmp_path / "qkv.json"
    path.write_text(json.dumps({"queries": [[1, 0]], "keys": [[1, 0]], "values": [[1, 0]]}))
    result = run("selfattn", "-i", str(path), "--positions", "sinusoidal")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, NO_X_FOR_POSITIONS, option="--positions sinusoidal")
    with pytest.raises(OptionError) as caught:
        attn.selfattn(queries=[[1, 0]], keys=[[1, 0]], values=[[1, 0]], positions="sinusoidal")
    told(caught.value, OptionError, NO_X_FOR_POSITIONS, "python",
         option="positions='sinusoidal'")  # fmt: skip
    assert run("selfattn", "-i", str(path), "--positions", "rope").exit_code == 0


def test_torchs_extra_key_row_is_refused_with_rotary_positions(run, tmp_path):
    # add_bias_kv's key has no position to be turned by, as add_zero_attn's has not
    path = tmp_path / "layer.json"
    path.write_text(json.dumps({"x": np.eye(4).tolist(), "bias_k": [1, 0, 0, 0],
                                "bias_v": [0, 1, 0, 0]}))  # fmt: skip
    result = run("selfattn", "-i", str(path), "--positions", "rope")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError,
         "{rope} with add_bias_kv's or {zero}'s extra keys: those keys have no position to be "
         "turned by; leave them out", rope="--positions rope", zero="--add-zero-attn")  # fmt: skip
