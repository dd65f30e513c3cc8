"""A hand-edited piped result is refused, never silently replaced by the unedited numbers:
attn selfattn -i on a result whose scores or raw_scores were changed, and attn grad -i on a
score, softmax or mix result whose scores, weights or output were changed. The unedited
result, a masked one (null scores) included, still reads back."""

from __future__ import annotations

import json

import pytest

from attncli.errors import AttnError, InputError
from tests.conftest import SAMPLES
from tests.meaning import told

CHAIN = {"queries": [[1, 0], [0, 1]], "keys": [[1, 1], [0, 2], [1, 0]],
         "values": [[1, 2], [3, 4], [5, 6]]}  # fmt: skip


def _refused(result, field: str) -> AttnError:
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.error is not None and result.error.fields["name"] == field
    return result.error


@pytest.mark.parametrize(
    "options", [(), ("--heads", "2"), ("--causal",), ("--heads", "2", "--causal")]
)
@pytest.mark.parametrize("field", ["scores", "raw_scores"])
def test_selfattn_refuses_a_result_whose_scores_were_edited(run, run_json, options, field):
    result = run_json("selfattn", "las llaves del coche", *options)
    run_json("selfattn", *options, input=json.dumps(result))  # unedited: read back
    grid = result[field]
    row = grid[0][-1] if "--heads" in options else grid[-1]  # the last row sees every key
    row[0] += 0.5
    error = _refused(run("selfattn", *options, input=json.dumps(result)), field)
    assert error.fields["place"].endswith("1")  # the edited cell, counted from 1


def _chain(run_json, *commands: tuple[str, ...]) -> dict:
    document = dict(CHAIN)
    for command in commands:
        document = run_json(*command, input=json.dumps(document))
    return document


CHAINS = [
    (("score",),),
    (("score",), ("softmax",)),
    (("score",), ("softmax", "--temperature", "2")),
    (("score", "--method", "scaled"), ("softmax",), ("mix",)),
]


@pytest.mark.parametrize("commands", CHAINS, ids=lambda c: " | ".join(" ".join(p) for p in c))
def test_grad_reads_an_unedited_chain_and_refuses_an_edited_one(run, run_json, commands):
    document = _chain(run_json, *commands)
    document["target"] = [[1, 2], [3, 4]]
    assert run_json("grad", input=json.dumps(document))["weights"]
    for field in ("scores", "weights", "output"):
        if field not in document:
            continue
        edited = json.loads(json.dumps(document))
        edited[field][1][0] += 0.25
        _refused(run("grad", input=json.dumps(edited)), field)


def test_grad_refuses_the_issues_case_the_weights_of_one_query_edited(run, run_json):
    # attn score -i tren.json | attn softmax, its weights then set by hand
    document = run_json(
        "softmax", input=json.dumps(run_json("score", "-i", str(SAMPLES / "tren.json")))
    )
    document.update(weights=[0.9, 0.05, 0.05], target=[8, 2])
    error = _refused(run("grad", input=json.dumps(document)), "weights")
    assert error.fields["written"] == 0.9


def test_grad_keeps_a_masked_chain_null_scores_and_all(run_json):
    document = _chain(run_json, ("score",))
    document["scores"][0][1] = document["scores"][1][2] = None  # masked by hand: an input
    masked = run_json("softmax", input=json.dumps(document))
    mixed = run_json("mix", input=json.dumps(masked))
    mixed["target"] = [[1, 2], [3, 4]]
    found = run_json("grad", input=json.dumps(mixed))
    assert found["weights"][0][1] == 0.0 and found["weights"][1][2] == 0.0


@pytest.mark.parametrize("options", [[], ["--no-proj"]], ids=["as-read", "no-proj"])
def test_an_x_added_to_a_result_of_queries_keys_and_values_is_named(run, run_json, options):
    given = {"queries": [[1, 0], [0, 1]], "keys": [[1, 0], [0, 1]], "values": [[1, 2], [3, 4]]}
    result = run_json("selfattn", input=json.dumps(given))
    again = run("selfattn", *options, input=json.dumps(result))
    assert again.exit_code == 0, again.stderr  # the result as written reads back
    result["x"] = [[1, 0], [0, 1]]
    edited = run("selfattn", *options, input=json.dumps(result))
    told(
        edited.error,
        InputError,
        "{field}: the input is a result computed from queries, keys and values given directly "
        "(it writes no d_model), to which {field} was added; remove {field} to read the result "
        "back, or give only inputs ({field}, w_q, …) to compute from {field}",
        field="x",
    )
    assert edited.stdout == ""


def test_a_result_of_x_without_its_d_model_is_not_taken_for_one_of_queries(run, run_json):
    result = run_json("selfattn", input=json.dumps({"x": [[1, 0], [0, 1], [1, 1]]}))
    result.pop("d_model")  # a result of x, with projections, edited: still read back
    again = run("selfattn", input=json.dumps(result))
    assert again.exit_code == 0, again.stderr


@pytest.mark.parametrize("dropped", ["bias_k", "bias_v"])
def test_a_result_read_back_without_one_of_its_bias_rows_is_told_which(run, run_json, dropped):
    x = [[0.1, 0.2, -0.3, 0.4], [0.5, -0.1, 0.2, 0.0], [-0.2, 0.3, 0.1, 0.6]]
    given = {"x": x, "bias_k": [0.1, 0.2, 0.3, 0.4], "bias_v": [0.5, 0.6, 0.7, 0.8]}
    result = run_json("selfattn", input=json.dumps(given))
    result.pop(dropped)
    edited = run("selfattn", input=json.dumps(result))
    assert edited.exit_code == 2 and edited.stdout == ""
    other = "bias_v" if dropped == "bias_k" else "bias_k"
    told(
        edited.error,
        InputError,
        "{given} without {other}: torch's add_bias_kv appends a key row and a value row; give both",
        given=other,
        other=dropped,
    )
