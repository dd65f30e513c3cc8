"""The one reader of the calculator's inputs (reading/check/reader.py), held to the
declarations it reads by (reading/inputs.py): every two fields that share a dimension are
checked against each other, every needed field is asked for, and the command line's options
are the declared fields."""

from __future__ import annotations

import itertools
import json

import pytest

import attncli
from attncli.cli.commands import find, parameters
from attncli.errors import InputError, ShapeError
from attncli.reading.check.reader import read_inputs
from attncli.reading.inputs import GRAD, MIX, SCORE, SOFTMAX, Field, Operation
from tests.meaning import BOTH, DISAGREE, MISSING, NUMBER, WRONG, told

WHERE = "{field}: row {row}, item {item}"
OPERATIONS = {"score": SCORE, "softmax": SOFTMAX, "mix": MIX, "grad": GRAD}
SIZES = {"T_q": 2, "T_k": 3, "d_q": 4, "d_k": 4, "d_v": 5, "d_a": 6, "T": 3, "T_c": 2, "d_c": 5}


def _value(declared: Field, sizes: dict[str, int]) -> object:
    """A value of the declared shape at these sizes: names, or nested lists of numbers."""
    if declared.names:
        return [f"t{index}" for index in range(sizes[declared.dims[0]])]
    value: object = 1.5
    for dimension in reversed(declared.dims):
        value = [value] * sizes[dimension]
    return value


def _document(operation: Operation, sizes: dict[str, int]) -> dict[str, object]:
    """Every field of the operation, of one pair the first, at these sizes."""
    left_out = {need[1] for need in operation.needs if isinstance(need, tuple)}
    return {f.name: _value(f, sizes) for f in operation.fields if f.name not in left_out}


def _shared() -> list[tuple[str, str, str, str]]:
    """(operation, field, other field, dimension) for every two fields of an operation's
    document that hold one dimension."""
    cases = []
    for name, operation in OPERATIONS.items():
        document = _document(operation, SIZES)
        given = [f for f in operation.fields if f.name in document]
        for first, second in itertools.combinations(given, 2):
            for dimension in sorted(set(first.dims) & set(second.dims)):
                cases.append((name, first.name, second.name, dimension))
    return cases


def test_the_declarations_share_dimensions_across_fields():
    shared = {(operation, dimension) for operation, _, _, dimension in _shared()}
    assert {("score", "T_k"), ("softmax", "T_k"), ("mix", "T_k"), ("grad", "T_k")} <= shared


@pytest.mark.parametrize(("operation", "first", "second", "dimension"), _shared())
def test_two_fields_that_disagree_on_a_dimension_are_named_with_it(
    operation, first, second, dimension
):
    declared = OPERATIONS[operation]
    document = _document(declared, SIZES)
    document[second] = _value(declared.field(second), {**SIZES, dimension: SIZES[dimension] + 1})
    with pytest.raises(ShapeError) as raised:
        read_inputs(declared, document)
    # the later field is said against the one that bound the dimension: the first given
    binder = next(f.name for f in declared.fields if f.name in document and dimension in f.dims)
    told(raised.value, ShapeError, DISAGREE, field=second, other=binder, dimension=dimension)
    assert set(raised.value.about) == {binder, second}


@pytest.mark.parametrize(
    ("typed", "field", "other"),
    [(("--values", "--keys"), "--values", "--keys"),  # both typed with their options
     (("--values",), "--values", "keys"),  # keys from the file
     ((), "values", "keys")],  # both from the file
)  # fmt: skip
def test_each_field_is_named_as_it_was_given(run, tmp_path, typed, field, other):
    given = {"--keys": "[[1,0],[0,1]]", "--values": "[[1],[2],[3]]"}
    document = {"query": [1, 0], "keys": [[1, 0], [0, 1]], "values": [[1], [2], [3]]}
    for option in typed:
        del document[option[2:]]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document))
    options = [text for option in typed for text in (option, given[option])]
    result = run("score", "-i", str(path), *options)
    told(result.error, ShapeError, DISAGREE, field=field, other=other, dimension="T_k")
    document["keys"] = [[1, 0], [0, "x"]]  # a fault inside a field: named as given too
    path.write_text(json.dumps(document))
    result = run("score", "-i", str(path), "--keys", '[[1,0],[0,"x"]]')
    told(result.error, InputError, WRONG, where=(WHERE, {"field": "--keys", "row": 2,
         "item": 2}), expected=NUMBER)  # fmt: skip
    result = run("score", "-i", str(path), "--values", "[[1],[2]]")
    told(result.error, InputError, WRONG, where=(WHERE, {"field": "keys", "row": 2,
         "item": 2}), expected=NUMBER)  # fmt: skip
    with pytest.raises(ShapeError) as raised:  # in Python, by its keyword
        attncli.score([1, 0], keys=[[1, 0], [0, 1]], values=[[1], [2], [3]])
    told(raised.value, ShapeError, DISAGREE, "python", field="values", other="keys")


@pytest.mark.parametrize("operation", OPERATIONS)
def test_every_dimension_is_bound_to_the_size_its_fields_give(operation):
    declared = OPERATIONS[operation]
    read = read_inputs(declared, _document(declared, SIZES))
    assert read.sizes == {d: SIZES[d] for f in declared.fields if f.name in read.arrays
                          for d in f.dims}  # fmt: skip


def test_a_field_given_as_one_row_leaves_the_queries_dimension_unbound():
    read = read_inputs(SOFTMAX, {"scores": [2, 0, 1], "tokens": ["a", "b", "c"]})
    assert read.single and read.rows("scores").shape == (1, 3) and read.sizes == {"T_k": 3}
    grid = read_inputs(SOFTMAX, {"scores": [[2, 0, 1], [1, 1, 1]]})
    assert not grid.single and grid.sizes == {"T_q": 2, "T_k": 3}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_each_needed_field_left_out_is_asked_for_with_its_example(operation):
    declared = OPERATIONS[operation]
    for need in declared.needs:
        first = need[0] if isinstance(need, tuple) else need
        document = _document(declared, SIZES)
        for name in need if isinstance(need, tuple) else (need,):
            document.pop(name, None)
        with pytest.raises(InputError) as raised:
            read_inputs(declared, document)
        told(raised.value, InputError, MISSING, field=first)
        example = raised.value.fields["hint"].fields["example"]
        assert example.python.value == declared.field(first).example


def test_a_missing_field_names_the_near_name_the_input_gave_instead():
    with pytest.raises(InputError) as raised:
        read_inputs(SCORE, {"query": [1, 0], "kyes": [[2, 1]]})
    told(raised.value, InputError,
         "missing field '{field}': {hint} (the input has {near}: did you mean '{field}'?)",
         field="keys", near="'kyes'")  # fmt: skip
    with pytest.raises(InputError) as far:  # nothing near: the plain line
        read_inputs(SCORE, {"query": [1, 0], "colour": [[2, 1]]})
    told(far.value, InputError, MISSING, field="keys")


@pytest.mark.parametrize("operation", OPERATIONS)
def test_both_of_a_pair_are_refused(operation):
    declared = OPERATIONS[operation]
    for pair in (need for need in declared.needs if isinstance(need, tuple)):
        document = _document(declared, SIZES)
        document[pair[1]] = _value(declared.field(pair[1]), SIZES)
        with pytest.raises(InputError) as raised:
            read_inputs(declared, document)
        told(raised.value, InputError, BOTH, first=pair[0], second=pair[1])


def test_the_example_is_written_as_each_surface_gives_the_field(run):
    with pytest.raises(InputError) as raised:
        attncli.score(query=[1, 0])
    assert "keys=[[2, 1], [0, 2]]" in str(raised.value)
    said = run("score", "--query", "1,0").stderr
    assert "--keys '[[2,1],[0,2]]'" in said and said.count("\n") == 1


@pytest.mark.parametrize("operation", OPERATIONS)
def test_every_declared_field_is_an_option_of_its_command(operation):
    declared = OPERATIONS[operation]
    command = find(operation)
    assert command is not None
    options = {p.name: p.declaration for p in parameters(command)}
    for field in declared.fields:
        assert field.name in options, field.name
        names = options[field.name].names
        assert names == tuple(n for n in (field.option, field.short) if n), names
        assert options[field.name].help == field.help


def test_a_field_left_out_beside_a_name_very_near_it_is_refused(run):
    # W_a for w_a: left out, w_a would be drawn from the seed and the given one ignored
    typed = {"query": [1, 0], "keys": [[1, 0]], "W_a": [[1, 0], [0, 1]]}
    result = run("score", "--method", "general", input=json.dumps(typed))
    told(result.error, InputError,
         "field {near}: not a field attn {operation} reads; did you mean '{field}'?",
         near="'W_a'", operation="score", field="w_a")  # fmt: skip
    assert result.stdout == ""
    # a near name of a field the method does not read is no field of this operation
    assert run("score", input=json.dumps(typed)).exit_code == 0  # dot: W_a passes through
    with pytest.raises(InputError) as raised:
        read_inputs(SOFTMAX, {"scores": [1.0], "token": ["a"]})
    told(raised.value, InputError,
         "field {near}: not a field attn {operation} reads; did you mean '{field}'?",
         near="'token'", operation="softmax", field="tokens")  # fmt: skip


@pytest.mark.parametrize(("name", "value", "msgid"), [
    ("seed", -1, "{setting}: it must be {least} or more"),
    ("seed", 2**64, "{setting}: it must be {most} or less"),
    ("d_a", 0, "{setting}: it must be {least} or more"),
])  # fmt: skip
def test_a_number_s_range_is_declared_once_for_its_option_keyword_and_field(
    run, name, value, msgid
):
    from attncli.errors import OptionError
    from attncli.reading.inputs import HIDDEN_SIZE, SEED_RANGE

    whole = {"seed": SEED_RANGE, "d_a": HIDDEN_SIZE}[name]
    option = {p.name: p for p in parameters(find("score"))}[name]  # type: ignore[arg-type]
    assert option.limits.get("min") == whole.least
    assert name == "d_a" or option.limits["max"] == whole.most
    with pytest.raises(OptionError) as keyword:
        attncli.score(query=[1, 0], keys=[[1, 0]], method="additive", **{name: value})
    told(keyword.value, OptionError, msgid)
    document = {"query": [1, 0], "keys": [[1, 0]], name: value}
    if value < 2**63:  # a document's JSON holds integers of 64 bits
        told(run("score", "-m", "additive", input=json.dumps(document)).error, OptionError, msgid)
