"""One JSON reader for every source (-i documents, piped results, --weights JSON, a model's
config.json): a key given twice in one object is refused, and a weight's numbers are
checked as an input field's are (a boolean, a string, NaN or a ragged row is named)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.errors import InputError, ShapeError
from attncli.reading.parse.json_text import parse_json
from attncli.reading.parse.tensor_files import open_tensors
from tests.meaning import FINITE, NUMBER, WRONG, said_in_spanish, told

TWICE = (
    "{source}: the key {key} is given twice in one object (JSON would keep only the last); keep one"
)
NOT_JSON = "{source}: not valid JSON at line {lineno}, column {colno}: {msg} ({expected})"


def _one_line(result, kind, msgid, /, lang="en", **fields):
    """One line on stderr, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


def test_a_key_given_twice_is_refused_on_every_source(run, tmp_path):
    text = '{"scores": [1, 2, 3], "scores": [5, 5, 5]}'
    _one_line(run("softmax", input=text), InputError, TWICE, source="stdin", key='"scores"')
    (tmp_path / "twice.json").write_text(text)
    path = str(tmp_path / "twice.json")
    _one_line(run("softmax", "-i", path), InputError, TWICE, source=path, key='"scores"')
    spanish = run("softmax", "--lang", "es", input=text)
    _one_line(spanish, InputError, TWICE, lang="es", key='"scores"')
    said_in_spanish(spanish.error)


def test_a_key_twice_deep_inside_or_beside_colons_in_strings_is_found():
    for text, key in (
        ('{"items": [{"b": 1}, {"a": 1, "a": 2}]}', '"a"'),
        ('{"tokens": ["a:b", ":"], "w": [1], "w": [2]}', '"w"'),
        ('{"k": NaN, "k": 1}', '"k"'),
    ):  # the last on the json module's path
        with pytest.raises(InputError) as caught:
            parse_json(text, "x")
        told(caught.value, InputError, TWICE, source="x", key=key)


def test_colons_in_strings_alone_are_no_repeated_key():
    text = '{"tokens": ["a:b", ":", "::"], "note": "ratio 1:2", "scores": [1, 2, 3]}'
    assert parse_json(text, "x") == json.loads(text)


keys = st.text(alphabet="ab:c\"' ", min_size=1, max_size=3)
values = st.recursive(
    st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.text(alphabet="x: ", max_size=3)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=12,
)


@pytest.mark.slow  # hypothesis at length: the full run's
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, max_size=4))
def test_any_document_reads_as_json_reads_it(document):
    text = json.dumps(document)
    assert parse_json(text, "x") == json.loads(text)


@pytest.mark.slow  # hypothesis at length: the full run's
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=4), st.data())
def test_any_document_with_a_key_repeated_is_refused(document, data):
    key = data.draw(st.sampled_from(sorted(document)))
    text = json.dumps(document)
    repeated = text[:-1] + ", " + json.dumps(key) + ": 0}"
    with pytest.raises(InputError) as caught:
        parse_json(repeated, "x")
    told(caught.value, InputError, TWICE, source="x", key=json.dumps(key))


def _weights(tmp_path, **changes):
    rng = np.random.default_rng(0)
    state = {
        "in_proj_weight": rng.normal(size=(12, 4)).tolist(),
        "out_proj.weight": np.eye(4).tolist(),
    }
    state.update(changes)
    path = tmp_path / "layer.json"
    path.write_text(json.dumps(state, allow_nan=True))
    return path


def _at(path, row: int, item: int):
    """The `where` of a number of in_proj_weight in the weight file at `path`, as data."""
    field = f"{path}: in_proj_weight"
    return ("{field}: row {row}, item {item}", {"field": field, "row": row, "item": item})


# (row 3 of in_proj_weight, the error's kind, its msgid, its fields given the file's path)
BAD_ROWS = [
    ([True, 0.0, 0.0, 0.0], InputError, WRONG,
     lambda path: {"where": _at(path, 3, 1), "kind": ("{value} (a boolean)", {"value": "true"}),
                   "expected": NUMBER}),
    (["1", 0.0, 0.0, 0.0], InputError, WRONG,
     lambda path: {"where": _at(path, 3, 1), "kind": ("{value} (a string)", {"value": '"1"'}),
                   "expected": NUMBER}),
    ([float("nan"), 0.0, 0.0, 0.0], InputError, WRONG,
     lambda path: {"where": _at(path, 3, 1), "kind": "NaN", "expected": FINITE}),
    ([1.0], ShapeError,
     "{field}: row {index} has {row}, row 1 has {rows} (every row must have the same length)",
     lambda path: {"field": f"{path}: in_proj_weight", "index": 3,
                   "row": ("{count} number", {"count": 1}), "rows": 4}),
]  # fmt: skip


@pytest.mark.parametrize(("row", "kind", "msgid", "fields"), BAD_ROWS)
def test_a_weight_file_in_json_is_checked_number_by_number(tmp_path, row, kind, msgid, fields):
    state = np.random.default_rng(0).normal(size=(12, 4)).tolist()
    state[2] = row
    path = _weights(tmp_path, in_proj_weight=state)
    with pytest.raises((InputError, ShapeError)) as caught:
        open_tensors(str(path))
    told(caught.value, kind, msgid, **fields(path))


def test_a_matrix_of_numbers_in_quotes_is_refused_and_tokens_are_kept_aside(tmp_path):
    path = _weights(tmp_path, in_proj_weight=[["1"] * 4] * 12)
    with pytest.raises(InputError) as caught:
        open_tensors(str(path))
    told(caught.value, InputError, WRONG, where=_at(path, 1, 1),
         kind=("{value} (a string)", {"value": '"1"'}), expected=NUMBER)  # fmt: skip
    tensors = open_tensors(str(_weights(tmp_path, tokens=["el", "tren"], note="a layer")))
    assert tensors.others == ("tokens", "note") and tensors.shape("in_proj_weight") == (12, 4)


def test_a_weight_file_in_json_twice_named_or_malformed_is_one_line(run, tmp_path):
    path = tmp_path / "layer.json"
    path.write_text('{"in_proj_weight": [[1]], "in_proj_weight": [[2]]}')
    result = run("selfattn", "el tren", "--weights", str(path), "--heads", "1")
    _one_line(result, InputError, TWICE, source=str(path), key='"in_proj_weight"')
    path.write_text('{"in_proj_weight": [[1] [2]]}')
    result = run("selfattn", "el tren", "--weights", str(path), "--heads", "1")
    _one_line(
        result, InputError, NOT_JSON, source=str(path), lineno=1, colno=25,
        expected=("a weight file in JSON is an object of named arrays, such as {example}",
                  {"example": '{"in_proj_weight": [[…]], "out_proj.weight": [[…]]}'}),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "example", "bare"),
    [
        ("softmax", '{"scores": [2, 0, 1]}', True),
        ("score", '{"query": [1, 0], "keys": [[2, 1], [0, 2]]}', False),
        ("mix", '{"weights": [0.5, 0.5], "values": [[1, 0], [0, 1]]}', False),
        ("selfattn", '{"x": [[1, 0], [0, 1]]}', False),
    ],
)
def test_text_that_is_not_json_is_told_with_the_commands_own_document(run, command, example, bare):
    result = run(command, input="hola")
    assert result.exit_code == 2 and result.stdout == ""
    expected = result.error.fields["expected"]
    assert expected.fields["EXAMPLE_DOCUMENT"] == example
    assert ("or a bare array" in expected.msgid) is bare
    json.loads(example)  # the example itself reads


def test_jsons_reason_is_said_in_the_users_language(run):
    result = run("softmax", "--lang", "es", input='{"scores": [1, 2')
    reason = result.error.fields["msg"]
    assert reason.msgid == "Expecting ',' delimiter"  # json's reason, as a catalog msgid
    said = result.error.message("es")
    assert result.stderr == f"attn: error: {said}\n"
    assert reason.said("es") != reason.msgid and reason.said("es") in said
