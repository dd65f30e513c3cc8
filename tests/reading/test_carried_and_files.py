"""What a command carries forward is checked as it is read: a query, queries or score
parameter holding -Infinity is refused by the command given it, never written as null for
the next one; an .npz of object arrays given to --weights says what it holds; the --plot of
a batch says which sequence it draws."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncli.errors import InputError, ShapeError
from attncli.present.format import Format
from attncli.results.selfattn import SelfAttnResult
from tests.meaning import DISAGREE, FINITE, PICKLED_ARRAY, WRONG, said_in_spanish, told

KEYS = [[1.0, 0.0], [0.0, 1.0]]


def _one_line_error(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


@pytest.mark.parametrize(
    ("command", "field", "value", "rest"),
    [("softmax", "query", [1, "-Infinity"], {"scores": [1, 0]}),
     ("softmax", "queries", [[1, "-Infinity"]], {"scores": [1, 0]}),
     ("softmax", "w_a", [[1, "-Infinity"], [0, 1]], {"scores": [1, 0]}),
     ("mix", "query", [1, "-Infinity"], {"weights": [0.5, 0.5], "values": [[1], [2]]}),
     ("mix", "queries", [[1, "-Infinity"]], {"weights": [0.5, 0.5], "values": [[1], [2]]})],
)  # fmt: skip
def test_a_carried_query_or_parameter_must_be_finite(run, command, field, value, rest):
    text = json.dumps({field: value, "keys": KEYS, **rest}).replace('"-Infinity"', "-Infinity")
    result = run(command, "--json", input=text)
    if isinstance(value[0], list):  # a row of a matrix: its first, the second number
        where = ("{field}: row {row}, item {item}", {"field": field, "row": 1, "item": 2})
    else:
        where = ("{field}, item {item}", {"field": field, "item": 2})
    _one_line_error(result, InputError, WRONG, where=where, kind="-Infinity",
                    expected=FINITE)  # fmt: skip
    assert "null" not in result.stdout


def test_a_finite_query_is_carried_as_it_was(run):
    text = json.dumps({"query": [1, 0], "keys": KEYS, "scores": [1, 0]})
    document = json.loads(run("softmax", "--json", input=text).stdout)
    assert document["query"] == [1.0, 0.0] and document["keys"] == KEYS


def test_an_object_array_npz_for_weights_says_what_it_is(run, tmp_path):
    path = tmp_path / "layer.npz"
    np.savez(path, in_proj_weight=np.array([[1, "a"]], dtype=object))
    result = run("selfattn", "-i", "mha_x", "--weights", str(path), "--heads", "2")
    _one_line_error(result, InputError, PICKLED_ARRAY, where=f"{path}: in_proj_weight.npy")
    spanish = run("selfattn", "-i", "mha_x", "--weights", str(path), "--heads", "2",
                  "--lang", "es")  # fmt: skip
    _one_line_error(spanish, InputError, PICKLED_ARRAY, lang="es",
                    where=f"{path}: in_proj_weight.npy")  # fmt: skip
    said_in_spanish(spanish.error)


@pytest.mark.parametrize(("options", "said"), [(["--item", "2"], "sequence 2 of 3"),
                                               ([], "sequence 1 of 3")])  # fmt: skip
def test_the_plot_of_a_batch_says_which_sequence(run, tmp_path, monkeypatch, options, said):
    import attncli.present.plot as plot

    titles: list[str] = []

    def keep(figure, path):
        titles.extend(axis.get_title() for axis in figure.axes if axis.get_title())

    monkeypatch.setattr(plot, "save_figure", keep)
    x = np.random.default_rng(1).normal(size=(3, 4, 4)).round(2)
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": x.tolist()}))
    result = run("selfattn", "-i", str(path), "--heads", "2", "--plot",
                 str(tmp_path / "w.png"), *options, "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert titles == [f"Head 1: Weights · {said}", f"Head 2: Weights · {said}"]


def test_the_plot_of_one_sequence_is_titled_as_before(monkeypatch, tmp_path):
    import attncli as attn
    import attncli.present.plot as plot

    titles: list[str] = []
    monkeypatch.setattr(plot, "save_figure", lambda figure, path: titles.extend(
        axis.get_title() for axis in figure.axes if axis.get_title()))  # fmt: skip
    result: SelfAttnResult = attn.selfattn("el tren llega")
    plot.plot_result(str(tmp_path / "w.png"), result, Format())
    assert titles == ["Weights"]


@pytest.mark.parametrize("field", ["keys", "values"])
def test_carried_keys_and_values_with_minus_infinity_are_refused(run, field):
    """A -Infinity in keys or values that softmax does not read still stops it (the text goes
    through the json module, which keeps the literal): carried on, it would come out null."""
    rest = {"keys": KEYS, "values": [[1, 0], [0, 1]]}
    rest[field] = [[1, "-Infinity"], [0, 1]]
    text = json.dumps({"scores": [1, 0], **rest}).replace('"-Infinity"', "-Infinity")
    result = run("softmax", "--json", input=text)
    _one_line_error(result, InputError, WRONG,
                    where=("{field}: row {row}, item {item}",
                           {"field": field, "row": 1, "item": 2}),
                    kind="-Infinity", expected=FINITE)  # fmt: skip


def test_keys_and_values_softmax_does_not_read_go_on_as_they_came_and_mix_checks_them(run):
    """Read strictly (every number finite), keys and values are carried unconverted, their
    rows counted; what mix then cannot use it refuses, naming the field."""
    values = [[1, 0], [0, "one"]]
    text = json.dumps({"scores": [1, 0], "keys": KEYS, "values": values})
    carried = run("softmax", "--json", input=text)
    assert carried.exit_code == 0
    assert json.loads(carried.stdout)["values"] == values  # as it came
    mixed = run("mix", "--json", input=carried.stdout)
    assert mixed.exit_code == 2 and mixed.stdout == ""
    assert "values" in mixed.error.message("en")
    short = json.dumps({"scores": [1, 0], "keys": KEYS, "values": [[1, 0]]})
    refused = run("softmax", "--json", input=short)
    told(refused.error, ShapeError, DISAGREE, field="values", other="keys", dimension="T_k")
