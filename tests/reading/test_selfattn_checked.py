"""Self-attention's inputs are read and checked in one pass (reading/check/selfattn_checked):
every refusal comes before anything is drawn from the seed, and the object the computation
takes cannot be changed."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from attncli.layer import SelfAttnSettings
from attncli.reading.check import selfattn_checked
from attncli.reading.check.selfattn_checked import checked_selfattn
from attncli.reading.parse.layer_inputs import LayerInputs

X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W = [[1.0, 0.0], [0.0, 1.0]]


def _nothing_drawn(monkeypatch) -> None:
    """From here on, the fill step fails the test if it runs: a refusal must come first."""

    def drawn(*_args, **_kwargs):
        raise AssertionError("the seed was drawn before the refusal")

    monkeypatch.setattr(selfattn_checked, "fill_from_seed", drawn)


def test_the_checked_inputs_cannot_be_changed():
    checked = checked_selfattn(LayerInputs(), "el tren va lleno", SelfAttnSettings())
    with pytest.raises(dataclasses.FrozenInstanceError):
        checked.x = None  # type: ignore[misc]
    assert checked.query_labels == ("el", "tren", "va", "lleno")
    assert checked.x is not None and checked.x.shape == (4, 8)
    assert set(checked.weights) == {"w_q", "w_k", "w_v"} and checked.drawn == ("w_q", "w_k", "w_v")


def test_the_checked_inputs_are_what_the_computation_used():
    checked = checked_selfattn(LayerInputs(), "el tren va lleno", SelfAttnSettings(seed=3))
    result = attn.selfattn("el tren va lleno", seed=3)
    assert np.array_equal(checked.x, result.x)
    for name, weight in checked.weights.items():
        assert np.array_equal(weight, result.projections[name])


def test_a_results_drawn_list_is_refused_before_anything_is_drawn(run_json, monkeypatch):
    some = run_json("selfattn", "--draw-missing", input=json.dumps({"x": X, "w_v": W}))
    some["drawn"] = ["w_z"]
    _nothing_drawn(monkeypatch)
    inputs = LayerInputs.from_document(some)
    with pytest.raises(InputError) as raised:
        checked_selfattn(inputs, None, SelfAttnSettings(projections=True))
    assert raised.value.msgid.startswith("{field} is {value}; a result lists there")
    assert raised.value.fields["field"] == "drawn"


def test_positions_twice_are_refused_before_anything_is_drawn(run_json, monkeypatch):
    written = run_json("selfattn", "el tren", "--positions", "sinusoidal")
    _nothing_drawn(monkeypatch)
    inputs = LayerInputs.from_document(written)
    with pytest.raises(OptionError) as raised:
        checked_selfattn(inputs, None, SelfAttnSettings(positions="sinusoidal"))
    assert raised.value.msgid.startswith("this x already has {kind} positions added")


def test_positions_without_x_are_refused_before_anything_is_drawn(monkeypatch):
    _nothing_drawn(monkeypatch)
    inputs = LayerInputs(queries=np.eye(2), keys=np.eye(2), values=np.eye(2))
    with pytest.raises(OptionError) as raised:
        checked_selfattn(inputs, None, SelfAttnSettings(positions="sinusoidal"))
    assert raised.value.msgid.startswith("{option} adds the encoding to X")
