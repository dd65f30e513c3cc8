"""A result read back with sinusoidal positions: its x holds them already (the document says
so, as attn train's does), so they are never added twice, and a result computed without
them is refused when they are asked for now, the fix pointing the right way."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn

SENTENCE = "el tren va lleno"


def test_a_result_with_positions_writes_them_and_reads_back_alone(run):
    written = json.loads(run("selfattn", SENTENCE, "--positions", "sinusoidal").stdout)
    assert written["positions"] == "sinusoidal"
    again = json.loads(run("selfattn", input=json.dumps(written)).stdout)
    np.testing.assert_allclose(again["weights"], written["weights"], rtol=0, atol=1e-12)
    assert again["positions"] == "sinusoidal"  # carried on: a third read is still refused
    twice = run("selfattn", "--positions", "sinusoidal", input=json.dumps(again))
    assert twice.exit_code == 2 and twice.stdout == ""
    assert twice.error.msgid.startswith("this x already has {kind} positions added")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_asking_positions_of_a_result_computed_without_them_is_refused(run, lang):
    plain = run("selfattn", SENTENCE).stdout
    assert "positions" not in json.loads(plain)
    refused = run("selfattn", "--positions", "sinusoidal", "--lang", lang, input=plain)
    assert refused.exit_code == 2 and refused.stdout == "" and refused.stderr.count("\n") == 1
    assert refused.error.msgid.startswith("{option}: the input is a result computed without")
    said = refused.stderr
    assert (
        "without --positions sinusoidal" if lang == "en" else "sin --positions sinusoidal"
    ) in said


def test_a_results_inputs_alone_take_positions_in_python():
    result = attn.selfattn(sentence=SENTENCE)
    document = result.to_document()
    inputs = {name: document[name] for name in ("tokens", "x", "w_q", "w_k", "w_v")}
    placed = attn.selfattn(**inputs, positions="sinusoidal")
    assert placed.positions == "sinusoidal"
    assert not np.allclose(placed.weights, result.weights)
