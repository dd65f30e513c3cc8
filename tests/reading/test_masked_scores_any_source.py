"""Scores with masked cells (null or -Infinity in JSON, -inf in an array) are read the same
whatever holds them: a JSON document, an .npz archive, or a numpy array from Python. attn
grad keeps them masked from each (their gradient 0), and softmax masks them from each."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.api.grad import grad_document
from attncli.errors import InputError, ShapeError
from tests.meaning import MASKED_FINITE, told

INPUTS = {
    "queries": [[0.0, 1.0], [1.0, 1.0]],
    "keys": [[2.0, 1.0], [0.0, 2.0], [1.0, 1.0]],
    "values": [[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]],
    "target": [[8.0, 2.0], [1.0, 1.0]],
}
SCORES = np.array([[1.0, -np.inf, 1.0], [3.0, 2.0, -np.inf]])  # what the inputs give, masked
GRADIENTS = ("grad_weights", "grad_scores", "grad_keys", "grad_queries", "grad_values")


def _json(tmp_path) -> str:
    path = tmp_path / "masked.json"
    scores = [[None if np.isneginf(s) else s for s in row] for row in SCORES.tolist()]
    path.write_text(json.dumps(INPUTS | {"scores": scores}))
    return str(path)


def _npz(tmp_path) -> str:
    path = tmp_path / "masked.npz"
    np.savez(path, scores=SCORES, **{k: np.array(v) for k, v in INPUTS.items()})
    return str(path)


def test_grad_keeps_the_mask_from_json_npz_and_python(run_json, tmp_path):
    from_json = run_json("grad", "-i", _json(tmp_path), "-f", "json")
    from_npz = run_json("grad", "-i", _npz(tmp_path), "-f", "json")
    document = {k: np.array(v) for k, v in INPUTS.items()} | {"scores": SCORES}
    from_python = grad_document(document)
    assert from_json["grad_scores"][0][1] == 0.0 and from_json["weights"][1][2] == 0.0
    for name in GRADIENTS:
        np.testing.assert_allclose(from_npz[name], from_json[name], rtol=0, atol=1e-12)
        np.testing.assert_allclose(getattr(from_python, name), from_json[name], atol=1e-12)


def test_softmax_masks_an_arrays_minus_infinity(tmp_path, run_json):
    weights = attn.softmax(scores=SCORES).weights
    assert weights[0][1] == 0.0 and weights[1][2] == 0.0
    from_npz = run_json("softmax", "-i", _npz(tmp_path), "-f", "json")
    np.testing.assert_allclose(from_npz["weights"], weights, rtol=0, atol=1e-15)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_an_arrays_other_non_finite_numbers_are_still_refused(bad):
    with pytest.raises(InputError) as raised:
        attn.softmax(scores=np.array([[1.0, bad, 1.0]]))
    told(raised.value, InputError, "{where} is {kind}; expected {expected}", "python",
         expected=MASKED_FINITE)  # fmt: skip


DISAGREE = "{field} has {found} where {other} has {bound}: both are {dimension}, {meaning}"


@pytest.mark.parametrize(
    ("scores", "dimension", "other"),
    [
        ([1.0, None, 1.0], "T_q", "queries"),  # one query's row beside two queries
        ([[1.0, None], [3.0, 2.0]], "T_k", "keys"),  # a score too few a row
        ([[1.0, None, 1.0]] * 3, "T_q", "queries"),
    ],
)
def test_grad_holds_the_given_scores_to_the_queries_and_keys(run, tmp_path, scores, dimension,
                                                             other):  # fmt: skip
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(INPUTS | {"scores": scores}))
    result = run("grad", "-i", str(path))
    assert result.exit_code == 2
    told(result.error, ShapeError, DISAGREE, field="scores", other=other, dimension=dimension)
