"""The score methods' registry: each method's parts agree with one another, for every
method in it (a new one is held to the same, with nothing added here)."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.core import methods
from attncli.core.gradients import central_differences, relative_difference
from attncli.core.seeding import generator, linear_parameter

NAMES = methods.NAMES


def _problem(name: str, seed: int = 1) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Three queries and four keys of 3 numbers, and the method's parameters drawn (d_a = 5)."""
    rng = generator(seed, "methods-test")
    queries, keys = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    sizes = {"d_q": 3, "d_k": 3, "d_a": 5}
    scoring = methods.method(name)
    parameters = {
        p.name: linear_parameter(seed, p.name, tuple(sizes[d] for d in p.shape), 3)
        for p in scoring.parameters
    }
    for name_ in scoring.optional:
        parameters[name_] = rng.standard_normal(sizes["d_a"])
    return queries, keys, parameters


def test_the_registry_names_every_method_once_in_its_order():
    assert NAMES[:4] == ("dot", "scaled", "general", "additive")
    assert [methods.method(name).name for name in NAMES] == list(NAMES)
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_backward_matches_finite_differences_of_the_score(name):
    """∂ℓ/∂Q, ∂ℓ/∂K and every parameter's, for ℓ = Σ G ⊙ score: the method's own backward
    against central differences of its own score."""
    queries, keys, parameters = _problem(name)
    upstream = generator(2, "upstream").standard_normal((3, 4))
    scoring = methods.method(name)

    def loss() -> float:
        return float(np.sum(upstream * scoring.score(queries, keys, parameters)))

    grad_q, grad_k, grad_p = scoring.backward(queries, keys, parameters, upstream)
    assert relative_difference(grad_q, central_differences(loss, queries)) < 1e-7
    assert relative_difference(grad_k, central_differences(loss, keys)) < 1e-7
    assert set(grad_p) == set(parameters)
    for key, value in parameters.items():
        assert relative_difference(grad_p[key], central_differences(loss, value)) < 1e-7


@pytest.mark.parametrize("name", NAMES)
def test_the_worked_rows_sum_to_the_score(name):
    """What a hand-worked table sums for each key, divided as the method divides it, is the
    method's score of that key."""
    queries, keys, parameters = _problem(name)
    scoring = methods.method(name)
    grid = scoring.score(queries, keys, parameters)
    for row, query in enumerate(queries):
        worked = scoring.worked(query, keys, parameters)
        totals = np.einsum("ij,ij->i", worked.lefts, worked.rights)
        divisor = scoring.divisor(keys) or 1.0
        if worked.lengths is not None:
            totals = totals / worked.lengths.prod(axis=1)
        np.testing.assert_allclose(totals / divisor, grid[row], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_the_worked_way_back_sums_to_the_query_s_gradient(name):
    """The column a student sums on the way back gives the core's ∂ℓ/∂q of that row
    (through W_1ᵀ for a hidden layer)."""
    queries, keys, parameters = _problem(name)
    scoring = methods.method(name)
    upstream = generator(3, "upstream").standard_normal((1, 4))
    grad_q, _grad_k, _grad_p = scoring.backward(queries[:1], keys, parameters, upstream)
    back = scoring.worked_back(queries[0], keys, parameters, upstream[0])
    summed = back.to_query.sum(axis=0)
    if scoring.hidden:
        summed = parameters["w_1"].T @ summed
    np.testing.assert_allclose(summed, grad_q[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_a_sheet_s_steps_end_in_the_score(name):
    """A worksheet's chain of steps before the softmax, worked from the sheet's own
    numbers, ends in the method's score of every key (a sheet has no optional parameter)."""
    queries, keys, parameters = _problem(name)
    scoring = methods.method(name)
    parameters = {k: v for k, v in parameters.items() if k not in scoring.optional}
    values: dict[tuple[str, int], np.ndarray] = {}

    def get(step: str, j: int | None) -> np.ndarray:
        assert j is not None
        return values[(step, j)]

    view = methods.SheetView(queries[0], lambda j: keys[j], get, len(keys), parameters)
    for step in scoring.sheet_steps:
        for j in range(len(keys)):
            values[(step, j)] = scoring.sheet_value(step, j, view)
    scores = [float(values[("score", j)]) for j in range(len(keys))]
    expected = scoring.score(queries[:1], keys, parameters)[0]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_a_method_s_pairwise_loop_is_its_score(name):
    """compare-scores' loop check, for the methods it loops: the same grid pair by pair."""
    scoring = methods.method(name)
    queries, keys, parameters = _problem(name)
    parameters = {k: v for k, v in parameters.items() if k not in scoring.optional}
    pairs = [(i, j) for i in range(3) for j in range(4)]
    looped = scoring.pairwise(queries, keys, parameters, pairs)
    if not scoring.looped:
        assert looped is None
        return
    assert looped is not None
    grid = scoring.score(queries, keys, parameters)
    np.testing.assert_allclose(looped, [grid[i, j] for i, j in pairs], rtol=1e-12)


def test_each_compared_method_s_counts_are_the_hand_counts():
    """compare-scores' figures for a 4 × 6 grid of 8 numbers, d_a = 8, counted by hand; the
    methods it leaves out of its table (a fifth column does not fit 80 columns) count too."""
    counts = {name: methods.method(name).cost(6, 4, 8, 8) for name in NAMES}
    pairs = 24
    assert (counts["dot"].mult_adds, counts["dot"].elementwise) == (pairs * 8, 0)
    assert (counts["scaled"].mult_adds, counts["scaled"].elementwise) == (pairs * 8, pairs)
    assert counts["general"].mult_adds == 4 * 8 * 8 + pairs * 8
    assert counts["additive"].tanh == pairs * 8
    cosine = counts["cosine"]  # the products, each state's length once, a division per pair
    assert (cosine.mult_adds, cosine.elementwise, cosine.params) == (pairs * 8 + 10 * 8, pairs, 0)
    assert [m.name for m in methods.compared()] == ["additive", "general", "dot", "scaled"]


def test_a_method_must_give_its_score_and_its_gradient():
    """ScoreMethod is an abstract base: a method without score or backward cannot be made."""
    from attncli.core.methods import ScoreMethod

    class Unscored(ScoreMethod):
        name = "unscored"

    with pytest.raises(TypeError, match="backward, score|score, backward"):
        Unscored()
