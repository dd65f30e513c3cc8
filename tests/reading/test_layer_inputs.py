"""The typed inputs of the self-attention layer: a document parsed into LayerInputs once,
the Python API building it directly from its keywords, and the checks reading it."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import attncli
from attncli.errors import InputError, ShapeError
from attncli.reading.check.reader import read_layer
from attncli.reading.inputs import DIMENSIONS, FORMS, LAYER
from attncli.reading.parse.layer_inputs import INPUTS, LayerInputs
from tests.meaning import BOTH, DISAGREE, FINITE, WRONG, told


def test_a_document_is_parsed_into_fields_what_a_result_wrote_and_other_names():
    document = {
        "x": [[1.0, 0.0]],
        "tokens": ["a"],
        "mask": None,  # null: not given
        "encoder.layer.0.attention.self.query.weight": [[1.0]],
        "heads": 2,  # an option, not a field, unless a result is read back
    }
    inputs = LayerInputs.from_document(document)
    assert inputs.x == [[1.0, 0.0]] and inputs.tokens == ["a"] and inputs.mask is None
    assert list(inputs.others) == ["encoder.layer.0.attention.self.query.weight", "heads"]
    assert inputs.written == {} and not inputs.read_back and inputs.from_x
    assert inputs.given() == ["x", "tokens", *inputs.others]


def test_a_result_read_back_keeps_what_it_wrote_apart_from_its_inputs():
    result = attncli.selfattn("las llaves del coche", seed=0, heads=2).to_document()
    inputs = LayerInputs.from_document(result)
    assert inputs.read_back and "output" in inputs.written and inputs.others == {}
    assert inputs.written["heads"] == 2 and np.array_equal(inputs.x, result["x"])
    assert set(inputs.written) | set(inputs.given()) >= set(result) - {"queries", "keys"}


def test_the_python_api_s_array_keywords_are_the_declared_fields():
    keywords = inspect.signature(attncli.selfattn).parameters
    arrays = [name for name in keywords if name in INPUTS]
    # every field but what only a document carries (a result's query names, train's line,
    # the positions a trained layer learned with: in Python the setting positions=)
    assert set(INPUTS) - set(arrays) == {"query_tokens", "trained_by", "positions"}


def test_the_typed_object_holds_the_declared_fields_each_with_a_form_and_known_dimensions():
    import dataclasses

    held = {f.name for f in dataclasses.fields(LayerInputs)} - {"written", "others"}
    assert held == set(INPUTS) and len(INPUTS) == len(set(INPUTS))
    assert all(declared.form in FORMS for declared in LAYER.fields)
    assert {dim for declared in LAYER.fields for dim in declared.dims} <= set(DIMENSIONS)


def test_without_projections_the_w_s_are_left_unread_and_beside_x_the_outputs_too():
    given = LayerInputs(x=[[1.0, 0.0]], w_q="not read", queries="a result's output")
    kept = read_layer(given, projections=False)
    assert kept.w_q == "not read" and kept.queries == "a result's output"
    assert kept.x.dtype == np.float64
    with pytest.raises(attncli.AttnError):
        read_layer(given)  # with them, w_q is read and refused


def test_a_name_that_is_not_a_field_is_an_error_not_none():
    with pytest.raises(AttributeError):
        LayerInputs().value("W_q")
    assert LayerInputs().value("w_q") is None


def test_python_and_a_document_give_the_same_layer():
    x = np.arange(12.0).reshape(3, 4) / 10
    from_python = attncli.selfattn(x=x, seed=1, tokens=("a", "b", "c"))
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings

    document = {"x": x.tolist(), "tokens": ["a", "b", "c"]}
    from_document = selfattn_inputs(
        LayerInputs.from_document(document), None, SelfAttnSettings(seed=1, causal=False)
    )
    assert np.array_equal(from_python.output, from_document.output)
    assert from_python.tokens == from_document.tokens == ("a", "b", "c")


def test_w_q_sizes_a_sentence_s_embeddings_from_json_from_npz_and_from_python(run, tmp_path):
    rng = np.random.default_rng(0)
    weights = {name: rng.standard_normal((16, 16)) for name in ("w_q", "w_k", "w_v")}
    np.savez(tmp_path / "w.npz", **weights)
    (tmp_path / "w.json").write_text(
        json.dumps({name: array.tolist() for name, array in weights.items()}), encoding="utf-8"
    )
    outputs = []
    for name in ("w.json", "w.npz"):
        result = run("selfattn", "las llaves del coche", "-i", str(tmp_path / name))
        assert result.exit_code == 0, result.stderr
        document = json.loads(result.stdout)
        assert document["d_model"] == 16
        outputs.append(np.array(document["output"]))
    in_python = attncli.selfattn("las llaves del coche", **weights)
    assert np.array_equal(outputs[0], outputs[1]) and np.allclose(in_python.output, outputs[0])


X = [[1.0, 0.0], [0.0, 1.0]]
W = [[1.0, 0.5], [0.5, 1.0]]
Q = [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    ("document", "options", "msgid"),
    [
        (
            {"x": [[1, "a"]]},
            ["--positions", "rope", "--rope-base", "1"],
            "{setting}: it must be a number above {above}",
        ),
        (
            {"x": [[1, "a"]]},
            ["--context", "a b"],
            "{context} gives the keys and values for a sentence's queries; give the sentence too "
            "(or x_q and x_kv{where})",
        ),
        (
            {"x": X, "w_q": W, "w_k": W, "w_v": W, "w_o": "abc"},
            [],
            "w_o joins the heads of {heads} through W^O; give {option} (without {no_out_proj}), "
            "or leave w_o out",
        ),
        (
            {"queries": Q, "keys": Q, "values": Q, "x": "abc"},
            [],
            "{name}: queries, keys and values are given directly, so attn selfattn would not use "
            "{name}; remove it, or give x and the W's instead of queries/keys/values",
        ),
        (
            {"x": X, "b_q": "abc"},
            ["--no-proj"],
            "{setting} goes with the projections; drop {no_proj} or {setting}",
        ),
    ],
    ids=["rope-base-1", "context", "w_o-without-heads", "x-beside-queries", "bias-without-proj"],
)
def test_what_is_given_is_held_against_the_settings_before_any_array_is_read(
    run, tmp_path, document, options, msgid
):
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = run("selfattn", "-i", str(path), *options)
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert result.error.msgid == msgid, result.stderr


def test_without_projections_the_ws_are_left_aside_unread(run, tmp_path):
    path = tmp_path / "input.json"
    path.write_text(json.dumps({"x": X, "w_q": "abc"}), encoding="utf-8")
    assert run("selfattn", "-i", str(path), "--no-proj").exit_code == 0
    assert run("selfattn", "-i", str(path)).error.about == {"w_q"}  # with them: read


def test_torch_s_bias_kv_rows_are_read_in_its_shape_and_no_other_is_flattened():
    x, w = np.eye(4), np.eye(4)
    flat = attncli.selfattn(x=x, w_q=w, w_k=w, w_v=w, bias_k=[1, 2, 3, 4], bias_v=[0, 1, 0, 1])
    for shaped in (lambda r: [[r]], lambda r: np.array(r, dtype=float).reshape(1, 1, 4)):
        again = attncli.selfattn(x=x, w_q=w, w_k=w, w_v=w, bias_k=shaped([1, 2, 3, 4]),
                                 bias_v=shaped([0, 1, 0, 1]))  # fmt: skip
        assert np.array_equal(again.output, flat.output)
    for square in (np.arange(4.0).reshape(2, 2), [[0, 1], [2, 3]]):  # 4 numbers, not a row
        with pytest.raises(attncli.AttnError) as raised:
            attncli.selfattn(x=x, w_q=w, w_k=w, w_v=w, bias_k=square, bias_v=square)
        assert raised.value.about == {"bias_k"}


def test_query_tokens_of_the_wrong_count_are_named_as_such(run, tmp_path):
    path = tmp_path / "cross.json"
    path.write_text(json.dumps({"x_q": X, "x_kv": X + [[1.0, 1.0]], "query_tokens": ["a"]}),
                    encoding="utf-8")  # fmt: skip
    result = run("selfattn", "-i", str(path))
    told(result.error, ShapeError, DISAGREE, field="query_tokens", other="x_q", dimension="T_q")
    direct = {"queries": Q, "keys": Q, "values": Q, "query_tokens": ["a"]}
    told(run("selfattn", input=json.dumps(direct)).error, ShapeError, DISAGREE, other="queries")


def test_a_missing_key_field_is_asked_for_in_the_file_selfattn_reads(run):
    result = run("selfattn", input=json.dumps({"queries": [[1, 0]], "values": [[1, 0]]}))
    assert result.error.msgid == "missing field '{field}': {hint}"
    # the field as the file spells it, and a hint that names no option
    assert result.error.fields["field"] == "keys"
    assert result.error.fields["hint"].msgid == "give queries with keys and values"


def test_every_name_is_read_before_any_array_of_a_result_read_back(run):
    given = {"queries": Q, "keys": Q, "values": Q}
    document = json.loads(run("selfattn", "--heads", "2", input=json.dumps(given)).stdout)
    document.update(queries="abc", w_qq=[[1.0]])  # a bad block and a name attn does not read
    result = run("selfattn", "--heads", "2", input=json.dumps(document))
    assert result.error.fields["field"] == "w_qq", result.stderr


def test_every_field_is_read_once_before_the_checks_masks_with_their_sense_in_their_dtype():
    inputs = LayerInputs(
        x=[[1.0, 0.0], [0.0, 1.0]],
        tokens="a, b",  # the option's text
        mask=[[1, 0], [1, 1]],  # attn's sense: true where a query may look
        attn_mask=[[False, True], [False, False]],  # torch's bool: true where it may not
        key_padding_mask=[0.0, None],  # torch's float, null for -inf
        bias_k=[[[1.0, 2.0]]],  # torch's 1 × 1 × E row
        bias_v=[[[0.0, 1.0]]],
    )
    inputs = read_layer(inputs)
    assert inputs.tokens == ["a", "b"]
    assert inputs.mask.dtype == bool and inputs.mask.tolist() == [[True, False], [True, True]]
    assert inputs.attn_mask.dtype == bool and inputs.attn_mask[0, 1]
    assert inputs.key_padding_mask.dtype == np.float64
    assert inputs.key_padding_mask.tolist() == [0.0, -np.inf]
    assert inputs.bias_k.tolist() == [1.0, 2.0] and inputs.bias_v.shape == (2,)


def test_a_mask_read_and_the_same_mask_given_as_an_array_give_one_layer():
    x = np.arange(6.0).reshape(3, 2)
    grid = [[True, False, False], [True, True, False], [True, True, True]]
    from_lists = attncli.selfattn(x=x, seed=0, mask=grid)
    from_array = attncli.selfattn(x=x, seed=0, mask=np.array(grid))
    from_torch = attncli.selfattn(x=x, seed=0, attn_mask=~np.array(grid))
    assert np.array_equal(from_lists.weights, from_array.weights)
    assert np.array_equal(from_lists.weights, from_torch.weights)
    assert np.all(from_lists.weights[np.logical_not(grid)] == 0)


def test_bias_k_without_bias_v_is_told_by_name_before_its_numbers_are_read(run, tmp_path):
    path = tmp_path / "input.json"
    path.write_text(json.dumps({"x": X, "bias_k": "abc"}), encoding="utf-8")
    told(
        run("selfattn", "-i", str(path)).error,
        InputError,
        "{given} without {other}: torch's add_bias_kv appends a key row and a value row; give both",
        given="bias_k",
        other="bias_v",
    )


@pytest.mark.parametrize(
    ("field", "as_list", "kind", "expected"),
    [
        ("b_q", [[0.0, 1.0], [2.0, 3.0]], ("a matrix", {}), ("one vector such as [1, 0]", {})),
        ("w_q", [1.0, 0.0], ("a single row (wrap it in [ ] for a matrix of one row)", {}),
         ("a matrix, a row per token, such as [[2, 1], [0, 2]]", {})),
        ("w_q", 3.0, ("{value}", {"value": "3.0"}),
         ("a matrix, a row per token, such as [[2, 1], [0, 2]]", {})),
    ],
    ids=["matrix-for-a-vector", "row-for-a-matrix", "number-for-a-matrix"],
)  # fmt: skip
def test_an_array_of_the_wrong_rank_is_refused_in_the_words_its_lists_are(
    field, as_list, kind, expected
):
    for value in (as_list, np.array(as_list)):
        with pytest.raises(attncli.AttnError) as raised:
            attncli.selfattn(x=np.eye(4), seed=0, **{field: value})
        told(raised.value, InputError, WRONG, where=field, kind=kind, expected=expected)


def test_the_gradient_at_the_output_is_read_with_the_other_fields_of_its_own_rank():
    read = read_layer(LayerInputs(grad_output=[[1, 0], [0, 1]], target=[[[1.0]], [[2.0]]]))
    assert read.grad_output.dtype == np.float64 and read.grad_output.shape == (2, 2)
    assert read.target.shape == (2, 1, 1)  # a batch's
    with pytest.raises(attncli.AttnError) as raised:
        read_layer(LayerInputs(grad_output=[[1, "a"]]))
    assert raised.value.fields["where"].fields["field"] == "grad_output"


def test_a_gradient_beside_a_target_is_told_by_name_before_either_is_read(run, tmp_path):
    path = tmp_path / "input.json"
    path.write_text(json.dumps({"x": X, "grad_output": "abc", "target": "abc"}), encoding="utf-8")
    told(run("selfattn", "-i", str(path)).error, InputError, BOTH, first="grad_output",
         second="target")  # fmt: skip


BATCH = [[[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], [[0.7, 0.8], [0.9, 1.0], [1.1, 1.2]]]


@pytest.mark.parametrize(
    ("x", "grad_output", "shown", "wanted"),
    [
        (BATCH, [1, 0], "2", "2 × 3 × 2"),  # one row's numbers for a batch
        (X + [[1.0, 1.0]], [[[1, 0], [0, 1], [1, 1]]], "1 × 3 × 2", "3 × 2"),  # a batch of one
        (X, 3, ("{value}", {"value": "3.0"}), "2 × 2"),  # a single number shows itself
    ],
    ids=["vector-for-a-batch", "batch-for-a-matrix", "number"],
)
def test_a_gradient_of_another_rank_than_the_output_s_is_told_both_shapes(
    run, x, grad_output, shown, wanted
):
    result = run("selfattn", input=json.dumps({"x": x, "grad_output": grad_output}))
    assert result.exit_code == 2 and result.stdout == ""
    told(
        result.error,
        ShapeError,
        "{name} is {shown} but the output is {wanted} (give one number per number of the output)",
        name="grad_output",
        shown=shown,
        wanted=wanted,
    )


def test_a_numpy_gradient_of_four_axes_is_told_both_shapes():
    with pytest.raises(attncli.AttnError) as raised:
        attncli.selfattn(x=np.ones((2, 3, 4)), seed=0, grad_output=np.ones((1, 2, 3, 4)))
    assert raised.value.fields["shown"] == "1 × 2 × 3 × 4"
    assert raised.value.fields["wanted"] == "2 × 3 × 4"


def test_query_tokens_beside_x_are_refused_not_ignored(run):
    result = run("selfattn", input=json.dumps({"x": X, "query_tokens": ["p", "q"]}))
    told(
        result.error,
        InputError,
        "query_tokens names the queries of cross-attention (x_q beside x_kv); with x, tokens "
        "names the rows, queries and keys alike: give tokens, or x_q and x_kv",
    )


@pytest.mark.parametrize(
    ("mask", "kind", "fields"),
    [
        (1.5, ShapeError, {"where": "key_padding_mask", "kind": ("a single value", {})}),
        ([0, 2], InputError, {"where": ("{field}: the cell at {cell}",
                                        {"field": "key_padding_mask", "cell": "(2)"}),
                              "kind": ("{value}", {"value": "2"})}),
    ],
    ids=["single-float", "integer-2"],
)  # fmt: skip
def test_a_key_padding_mask_attn_cannot_read_is_refused_by_its_cell(run, mask, kind, fields):
    result = run("selfattn", input=json.dumps({"x": X, "key_padding_mask": mask}))
    told(result.error, kind, WRONG, **fields)


def test_a_python_nan_is_named_nan_not_an_overflow():
    with pytest.raises(attncli.AttnError) as raised:
        attncli.selfattn(x=[[1.0, float("nan")]], seed=0)
    told(raised.value, InputError, WRONG, kind="NaN", expected=FINITE)
