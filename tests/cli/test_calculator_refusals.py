"""The calculator's commands (score, softmax, mix, grad, check) under input they would
misread: a field they do not use, two fields of which one would be dropped, a number past
float64, a size of the wrong kind. Each is refused in one line by what it means, or read
as the document says."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import AttnError, InputError, OptionError
from tests.meaning import ABOVE, BOTH, MOST, TRY, told

KEYS = [[2, 1], [0, 2], [1, 1]]


def test_a_block_past_any_row_is_refused_not_an_internal_error(run):
    result = run("softmax", "2", "0", "1", "--online", "--block", "9" * 15, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    told(
        result.error,
        OptionError,
        TRY,
        example="--block 2",
        refusal=(MOST, {"setting": "--block " + "9" * 15, "least": 1, "most": 2**31 - 1}),
    )
    # past 2^63 − 1, the range every whole-number option shares (cli/declare.Declared.limits)
    result = run("softmax", "2", "0", "1", "--online", "--block", "9" * 23, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert "Invalid value for '--block'" in result.stderr


def test_running_out_of_memory_is_one_line_not_an_internal_error(run, monkeypatch):
    from attncli.api import calculator

    def exhausted(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(calculator, "score_document", exhausted)
    result = run("score", "--query", "1,0", "--keys", "1,0;0,1")
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        result.stderr.startswith("attn: error: out of memory:") and result.stderr.count("\n") == 1
    )


@pytest.mark.parametrize(
    ("command", "document"),
    [
        ("softmax", {"scores": [2, 0, 1], "mask": [1, 0, 1]}),
        ("softmax", {"scores": [2, 0, 1], "causal": True}),
        ("mix", {"weights": [0.5, 0.5], "values": [[1], [2]], "key_padding_mask": [0, 1]}),
        ("score", {"query": [1, 0], "keys": KEYS, "attn_mask": [[False, True, False]]}),
    ],
    ids=["softmax-mask", "softmax-causal", "mix-padding", "score-attn-mask"],
)
def test_a_mask_the_calculator_would_not_apply_is_refused(run, command, document):
    result = run(command, input=json.dumps(document))
    assert result.exit_code == 2 and result.stdout == ""
    masked = next(name for name in ("mask", "causal", "key_padding_mask", "attn_mask")
                  if name in document)  # fmt: skip
    told(result.error, InputError,
         "field '{name}': score, softmax, mix and grad do not mask; write null (or -Infinity) "
         "in scores where a query may not look, or give x and {name} to attn selfattn",
         name=masked)  # fmt: skip


def test_a_causal_layer_s_result_goes_on_to_softmax_its_scores_masked_already(run, run_json):
    layer = run_json("selfattn", "el tren va lleno", "--causal")
    weights = run_json("softmax", input=json.dumps(layer))["weights"]
    assert np.allclose(weights, layer["weights"], rtol=0, atol=1e-15)


def test_query_and_queries_together_are_refused_wherever_given(run):
    options = run("score", "--query", "1,0", "--queries", "0,1;1,1", "--keys", "1,0;0,1")
    told(options.error, InputError, BOTH, first="--query", second="--queries")
    document = {"query": [1, 0], "queries": [[0, 1]], "keys": [[1, 0], [0, 1]]}
    told(run("score", input=json.dumps(document)).error, InputError, BOTH,
         first="query", second="queries")  # fmt: skip
    with pytest.raises(InputError) as raised:
        attn.score([1, 0], [[1, 0], [0, 1]], queries=[[0, 1]])
    told(raised.value, InputError, BOTH, "python", first="query", second="queries")


def test_a_loss_past_float64_is_refused_not_written_null(run):
    line = ("--query", "1,0", "--keys", "2,1;0,2", "--values", "1,0;0,1", "--target", "1e308,0")
    result = run("grad", *line, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.fields["field"] == "loss"
    layer = {"x": [[1, 0], [0, 1]], "target": [[1e308, 0], [0, 0]]}
    refused = run("selfattn", "--json", input=json.dumps(layer))
    assert refused.exit_code == 2 and refused.error.fields["field"] == "loss"


def test_a_target_in_the_input_is_followed_back_whatever_fields_are_written(run_json):
    layer = {"x": [[1, 0], [0, 1]], "target": [[1, 0], [0, 0]]}
    some = run_json("selfattn", "--fields", "loss,grad_x", input=json.dumps(layer))
    whole = run_json("selfattn", input=json.dumps(layer))
    assert some["loss"] == whole["loss"] and some["grad_x"] == whole["grad_x"]


def test_piped_answers_past_the_sheet_s_last_blank_are_refused(run):
    from attncli.api.checking import corrector

    _sheet, marking = corrector(3, 3, None, "dot", False)
    typed = [" ".join(repr(float(v)) for v in np.ravel(marking.exact(b))) for b in marking.blanks]
    whole = run("check", "--seed", "3", "--json", input="\n".join(typed) + "\n")
    assert whole.exit_code == 0 and json.loads(whole.stdout)["right"] == len(typed)
    extra = run("check", "--seed", "3", "--json", input="\n".join([*typed, "1"]) + "\n")
    assert extra.exit_code == 2 and extra.stdout == ""
    told(extra.error, InputError,
         "{given} answers for a sheet of {blanks} blanks; give one a blank, in the sheet's "
         "order (is the sheet's seed, size or method another?)",
         given=len(typed) + 1, blanks=len(typed))  # fmt: skip


def test_d_a_is_refused_beside_a_score_without_a_hidden_layer(run):
    result = run("score", "-i", "tren", "-m", "dot", "--d-a", "3")
    told(result.error, OptionError,
         "{d_a} sizes the additive score's hidden layer, which {method} does not have; drop "
         "it, or give {additive}",
         d_a="--d-a 3", method="--method dot", additive="--method additive")  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        lambda: attn.score([1, 0], KEYS, method="additive", d_a=0),
        lambda: attn.score([1, 0], KEYS, method="additive", d_a=2.5),
        lambda: attn.score([1, 0], KEYS, method="additive", seed=-1),
        lambda: attn.grad([1, 0], KEYS, [[1, 0], [0, 1], [1, 1]], target=[1, 0], method="Dot"),
        lambda: attn.softmax([2, 0, 1], temperature="2"),
        lambda: attn.softmax([2, 0, 1], temperature=True),
        lambda: attn.exercise(size=2.5),
        lambda: attn.check(answers=None),
    ],
    ids=["d_a-0", "d_a-2.5", "seed-negative", "method-Dot", "temperature-text",
         "temperature-True", "size-2.5", "answers-None"],
)  # fmt: skip
def test_the_python_api_refuses_what_the_command_line_would_as_an_attn_error(call):
    with pytest.raises(AttnError) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_softmax_keeps_the_input_s_temperature_unless_told(run_json):
    given = {"scores": [2, 0, 1], "temperature": 2}
    kept = run_json("softmax", input=json.dumps(given))
    assert kept["temperature"] == 2.0
    assert np.allclose(kept["weights"], attn.softmax([2, 0, 1], temperature=2).weights)
    told_one = run_json("softmax", "-t", "0.5", input=json.dumps(given))
    assert told_one["temperature"] == 0.5


def test_score_draws_with_the_input_s_seed_and_d_a_unless_told(run_json):
    given = {"query": [1, 0], "keys": [[2, 1], [0, 2]], "method": "additive", "seed": 5, "d_a": 4}
    kept = run_json("score", input=json.dumps(given))
    by_options = run_json("score", "--seed", "5", "--d-a", "4", input=json.dumps(
        {"query": [1, 0], "keys": [[2, 1], [0, 2]], "method": "additive"}))  # fmt: skip
    assert kept["seed"] == 5 and np.asarray(kept["w_1"]).shape == (4, 2)
    assert kept["scores"] == by_options["scores"]


@pytest.mark.parametrize(
    "line",
    [
        ("softmax", "1.000", "0"),
        ("softmax", "2", "0", "1", "-t", "1.000"),
        ("score", "--query", "1.000;0", "--keys", "1;0|0;1"),
    ],
    ids=["argument", "option", "inline"],
)
def test_a_number_with_a_point_before_three_digits_is_refused_in_spanish(run, line):
    spanish = run(*line, "--lang", "es")
    assert spanish.exit_code == 2 and spanish.stdout == ""
    assert spanish.error.msgid.startswith("{where} {text!r} reads two ways: {thousands}")
    assert spanish.error.fields["thousands"] == "1000"
    if line[0] == "softmax":  # in English the point is a decimal point, and 1.000 is one
        assert run(*line, "--json").exit_code == 0


def test_grad_reads_its_own_result_back_and_refuses_it_edited(run, run_json, tmp_path):
    first = run_json("grad", "-i", "tren", "--target", "8,2")
    path = tmp_path / "g.json"
    path.write_text(json.dumps(first), encoding="utf-8")
    again = run_json("grad", "-i", str(path))
    assert again["grad_output"] == first["grad_output"] and again["loss"] == first["loss"]
    first["grad_output"][0] += 1.0  # edited: no longer what its target gives
    path.write_text(json.dumps(first), encoding="utf-8")
    edited = run("grad", "-i", str(path))
    assert edited.exit_code == 2 and edited.stdout == ""
    assert edited.error.fields["name"] == "grad_output"


def test_a_temperature_that_is_not_a_number_is_refused_not_taken_for_one(run, run_json):
    chain = run_json("mix", input=json.dumps(run_json("softmax", input=json.dumps(
        run_json("score", "-i", "tren")))))  # fmt: skip
    chain["temperature"] = "hot"
    for command in ("softmax", "grad"):
        extra = ("--target", "8,2") if command == "grad" else ()
        result = run(command, *extra, input=json.dumps(chain))
        assert result.exit_code == 2 and result.stdout == ""
        told(
            result.error,
            OptionError,
            TRY,
            example="--temperature 1",
            refusal=(ABOVE, {"setting": "--temperature hot", "above": "0"}),
        )
