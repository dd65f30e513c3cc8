"""A result of attn selfattn read back as its input: computed again from its inputs, to the
same numbers, with one head or several, a batch, or queries, keys and values given directly;
an output written down that the inputs do not give is refused in one line. The JSON says
which projections were drawn from the seed (`drawn`), and reading it back keeps saying so."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from tests.meaning import said_in_spanish, told

# A result's list of names (drawn, extra_keys) that is not one (reading/check/fields.listed).
LISTED = ("{field} is {value}; a result lists there {what}, a list of some of {names} (or []); "
          "restore it or remove it")  # fmt: skip

RNG = np.random.default_rng(41)
X = RNG.normal(size=(3, 4)).round(3).tolist()
W = RNG.normal(size=(4, 4)).round(3).tolist()


def _one_line_error(result, kind, msgid, /, lang="en", **fields) -> None:
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2, result.stdout
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


CHANGED = (
    "{name}: the input is a result whose {name} at [{place}] is {written:.6g}, but its inputs "
    "give {computed:.6g}; {fix}"
)


def _round_trip(run_json, first: dict, *options: str) -> dict:
    """The result read back twice: both times the same numbers, bit for bit."""
    again = run_json("selfattn", *options, input=json.dumps(first))
    twice = run_json("selfattn", *options, input=json.dumps(again))
    for name in ("queries", "keys", "values", "weights", "output"):
        assert again[name] == first[name] == twice[name], name
    return again


@pytest.mark.parametrize(
    "options",
    [
        ("--heads", "2"),
        ("--heads", "2", "--causal", "--no-scale"),
        ("--heads", "2", "--no-out-proj"),
        ("--heads", "4", "--d-k", "1", "--d-v", "3"),
        (),
        ("--no-proj",),
    ],
)
def test_a_result_read_back_gives_its_numbers_again(run_json, options):
    first = run_json("selfattn", "el tren llega tarde", *options)
    again = _round_trip(run_json, first, *options)
    if "--no-proj" not in options:  # the layer stays a layer: x and its projections kept
        assert again["x"] == first["x"] and again["w_q"] == first["w_q"]
        assert again["projections"] is True


def test_a_batch_of_several_heads_read_back(run_json):
    x = RNG.normal(size=(2, 3, 4)).tolist()
    first = run_json("selfattn", "--heads", "2", input=json.dumps({"x": x}))
    assert np.array(first["queries"]).shape == (2, 2, 3, 2)
    _round_trip(run_json, first, "--heads", "2")


def test_queries_of_several_heads_given_directly_read_back(run_json):
    qkv = {name: RNG.normal(size=(3, 4)).tolist() for name in ("queries", "keys", "values")}
    first = run_json("selfattn", "--heads", "2", input=json.dumps(qkv))
    assert np.array(first["queries"]).shape == (2, 3, 2)
    again = _round_trip(run_json, first, "--heads", "2")
    assert again == first
    batch = {name: RNG.normal(size=(2, 3, 4)).tolist() for name in ("queries", "keys", "values")}
    first = run_json("selfattn", "--heads", "2", input=json.dumps(batch))
    _round_trip(run_json, first, "--heads", "2")


@pytest.mark.parametrize(
    ("field", "index"),
    [
        ("queries", (1, 0, 1)),
        ("keys", (0, 2, 0)),
        ("values", (1, 1, 1)),
        ("weights", (1, 2, 0)),
        ("output", (0, 3)),
        ("x", (0, 0)),  # an input changed: the outputs written no longer follow from it
        ("w_o", (1, 2)),
    ],
)
def test_a_result_changed_after_it_was_written_is_refused(run, run_json, field, index):
    first = run_json("selfattn", "el tren llega", "--heads", "2", "--d-model", "4")
    changed = json.loads(json.dumps(first))
    cell = changed[field]
    for i in index[:-1]:
        cell = cell[i]
    cell[index[-1]] += 0.01
    result = run("selfattn", "--heads", "2", input=json.dumps(changed))
    _one_line_error(result, InputError, CHANGED)
    if field in ("queries", "keys", "values", "weights", "output"):
        place = ", ".join(str(i + 1) for i in index)
        assert result.stderr.startswith(f"attn: error: {field}: ") and f"[{place}]" in result.stderr


def test_a_changed_result_is_refused_in_spanish_too():
    from attncli.errors import InputError

    first = attn.selfattn("el tren llega", heads=2, d_model=4).to_document()
    document = json.loads(json.dumps(first, default=lambda a: a.tolist()))
    document["weights"][0][0][0] += 0.5
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    with pytest.raises(InputError) as raised:
        selfattn_inputs(LayerInputs.from_document(document), None, SelfAttnSettings(heads=2))
    told(raised.value, InputError, CHANGED, name="weights", place="1, 1, 1")
    assert "no anota" in raised.value.message("es") and "weights" in raised.value.message("es")


def test_a_result_computed_with_a_mask_writes_it_down(run, run_json):
    # The mask is written in the result (attn's sense): read back, it masks again
    first = run_json("selfattn", "--valid-len", "2", input=json.dumps({"x": X}))
    assert first["mask"] == [[True, True, False]] * 3
    assert run_json("selfattn", input=json.dumps(first))["weights"] == first["weights"]
    again = run_json("selfattn", "--valid-len", "2", input=json.dumps(first))
    assert again["weights"] == first["weights"]
    # left out by hand, the weights its inputs give differ: refused
    del first["mask"]
    _one_line_error(run("selfattn", input=json.dumps(first)), InputError, CHANGED, name="weights")


def test_per_head_queries_of_the_wrong_shape_are_refused(run, run_json):
    qkv = {name: RNG.normal(size=(3, 4)).tolist() for name in ("queries", "keys", "values")}
    first = run_json("selfattn", "--heads", "2", input=json.dumps(qkv))
    first["queries"] = first["queries"][0]  # one head's block alone
    _one_line_error(
        run("selfattn", "--heads", "2", input=json.dumps(first)), ShapeError,
        "{name} is {shape}, but a result of {setting} holds {heads} × T × d of them, one block "
        "per head (B × {heads} × T × d for a batch)",
        name="queries", shape="3 × 2", setting="--heads 2", heads=2,
    )  # fmt: skip


def test_the_json_says_which_projections_were_drawn(run_json):
    some = run_json("selfattn", "--draw-missing", input=json.dumps({"x": X, "w_v": W}))
    assert some["drawn"] == ["w_q", "w_k"] and some["seed"] == 0
    given = {"x": X, "w_q": W, "w_k": W, "w_v": W}
    assert run_json("selfattn", input=json.dumps(given))["drawn"] == []
    assert run_json("selfattn", "el tren", "--heads", "2", "--seed", "3")["drawn"] == [
        "w_q",
        "w_k",
        "w_v",
        "w_o",
    ]
    assert run_json("selfattn", "el tren", "--no-proj")["drawn"] == []
    assert attn.selfattn(x=X, w_v=W, draw_missing=True).to_document()["drawn"] == ["w_q", "w_k"]


def test_drawn_read_back_is_kept_with_its_seed(run, run_json):
    some = run_json(
        "selfattn", "--draw-missing", "--seed", "5", input=json.dumps({"x": X, "w_v": W})
    )
    again = run_json("selfattn", input=json.dumps(some))
    assert again["drawn"] == ["w_q", "w_k"] and again["seed"] == 5
    assert again["output"] == some["output"]
    screen = run("selfattn", "--format", "table", input=json.dumps(some)).stdout
    assert "W^Q, W^K drawn from seed 5" in " ".join(screen.split())


@pytest.mark.parametrize("written", [["w_z"], "w_q", [1], {"w_q": 1}])
def test_a_drawn_that_is_not_a_list_of_projections_is_refused(run, run_json, written):
    some = run_json("selfattn", "--draw-missing", input=json.dumps({"x": X, "w_v": W}))
    some["drawn"] = written
    _one_line_error(
        run("selfattn", input=json.dumps(some)), InputError,
        LISTED, field="drawn", value=json.dumps(written), names='["w_q", "w_k", "w_v"]',
        what=("the projections drawn from its seed", {}),
    )  # fmt: skip


def test_drawn_is_not_a_field_of_a_hand_written_document(run):
    result = run("selfattn", input=json.dumps({"x": X, "drawn": ["w_q"]}))
    _one_line_error(
        result, InputError, "{field}: not a field attn selfattn reads; {hint}", field="drawn",
        hint=("it is an output of the layer; remove it (or pass the whole result)", {}),
    )  # fmt: skip


@pytest.mark.parametrize(
    "options",
    [("--add-zero-attn",), ("--heads", "2", "--add-zero-attn"), ("--heads", "2", "--causal")],
)
def test_a_result_with_a_zero_key_read_back_asks_for_it_again_as_causal_does(
    run, run_json, options
):
    bias = {"bias_k": [0.5, -0.25, 1.0, 0.75], "bias_v": [1.0, 0.0, -1.0, 2.0]}
    weights = {"w_q": W, "w_k": W, "w_v": W, **({"w_o": W} if "--heads" in options else {})}
    for document in ({"x": X}, {"x": X, **weights, **bias}):
        first = run_json("selfattn", *options, input=json.dumps(document))
        zero = "--add-zero-attn" in options
        written = first.get("extra_keys", [])
        assert written == ["bias_k"] * ("bias_k" in document) + ["zero"] * zero
        _round_trip(run_json, first, *options)  # asked for again: the same numbers
        heads = [option for option in options if option != "--add-zero-attn"]
        other = heads if zero else [*heads, "--add-zero-attn"]
        fix = "with {option}" if zero else "without {option}"
        for lang in ("en", "es"):
            refused = run("selfattn", *other, "--lang", lang, input=json.dumps(first))
            _one_line_error(
                refused, InputError,
                "extra_keys: the input is a result computed {computed} (its extra_keys is "
                "{extra_keys}), and computing it again otherwise would change its numbers; read "
                "it back {fix}", lang=lang,
                extra_keys=json.dumps(written), fix=(fix, {"option": "--add-zero-attn"}),
            )  # fmt: skip
        said_in_spanish(refused.error)


def test_an_extra_keys_attn_did_not_write_is_refused_in_one_line(run, run_json):
    first = run_json("selfattn", "--add-zero-attn", input=json.dumps({"x": X}))
    for lang in ("en", "es"):
        bad = json.dumps({**first, "extra_keys": "zero"})
        refused = run("selfattn", "--add-zero-attn", "--lang", lang, input=bad)
        _one_line_error(
            refused, InputError,
            LISTED, lang=lang, field="extra_keys", value='"zero"', names='["bias_k", "zero"]',
        )  # fmt: skip
    said_in_spanish(refused.error)


def test_a_read_back_block_that_is_no_array_says_what_it_is(run):
    given = {"queries": [[1, 0, 0, 1], [0, 1, 1, 0]], "keys": [[1, 0, 0, 1], [0, 1, 1, 0]],
             "values": [[1, 0, 0, 1], [0, 1, 1, 0]]}  # fmt: skip
    document = json.loads(run("selfattn", "--heads", "2", input=json.dumps(given)).stdout)
    document["queries"] = "abc"
    result = run("selfattn", "--heads", "2", input=json.dumps(document))
    assert result.exit_code == 2 and result.error.fields["name"] == "queries"
    assert result.error.fields["shape"].msgid == "{value} (a string)"


def test_a_written_output_that_is_no_array_says_what_it_is(run):
    document = json.loads(run("selfattn", "las llaves del coche", "--heads", "2").stdout)
    for value, found in ((5, ("{value}", {"value": "5"})),
                         ("abc", ("{value} (a string)", {"value": '"abc"'})),
                         ([[1, 2], [3]], ("not an array of numbers", {}))):  # fmt: skip
        result = run("selfattn", "--heads", "2", input=json.dumps({**document, "keys": value}))
        told(result.error, ShapeError, WRITTEN_SHAPE, name="keys", found=found)


WRITTEN_SHAPE = ("{name}: the input is a result whose {name} is {found}, but its inputs give "
                 "{expected}; {fix}")  # fmt: skip


SIZE_CHANGED = (
    "{field}: the input is a result whose {field} is {written}, but each row of its {array} "
    "holds {size} numbers; it was changed after attn wrote it: give it back {size}, or remove "
    "{field}"
)


@pytest.mark.parametrize(
    ("field", "array", "size", "options"),
    [("d_k", "keys", 2, ("--heads", "2")), ("d_k", "keys", 4, ("--scale", "3")),
     ("d_v", "values", 2, ("--heads", "2")), ("d_model", "x", 4, ("--heads", "2"))],
)  # fmt: skip
@pytest.mark.parametrize("written", [3, 0, -1, "2", None])
def test_a_size_changed_in_a_result_is_named_not_the_divisor(
    run, run_json, field, array, size, options, written
):
    """An edited d_k was blamed on the divisor ('computed with divisor 1.41…'), and d_k -1
    was an internal error."""
    first = run_json("selfattn", "el tren llega", "--d-model", "4", *options)
    first[field] = written
    result = run("selfattn", *options, input=json.dumps(first))
    _one_line_error(result, InputError, SIZE_CHANGED, field=field, array=array, size=size,
                    written=json.dumps(written))  # fmt: skip
    first[field] = float(size)  # the same size, written by another tool: read back
    assert run_json("selfattn", *options, input=json.dumps(first))["output"]
