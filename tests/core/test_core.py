"""The numpy core against the hand-worked example, loop implementations and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attncli.core import attention
from attncli.core.seeding import generator, token_vector, uniform_parameter
from tests import naive

KEYS = np.array([[2.0, 1.0], [0.0, 2.0], [1.0, 1.0]])
VALUES = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
QUERIES = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])


def test_worked_example_one_query():
    scores = attention.dot_scores(np.array([[1.0, 0.0]]), KEYS)[0]
    assert scores.tolist() == [2.0, 0.0, 1.0]
    weights = attention.softmax(scores)
    assert np.round(weights, 3).tolist() == [0.665, 0.090, 0.245]
    assert round(float(np.exp(scores).sum()), 2) == 11.11
    output = attention.mix(weights, VALUES)
    assert np.round(output, 2).tolist() == [7.88, 2.12]


def test_worked_example_three_queries():
    weights = attention.softmax(attention.dot_scores(QUERIES, KEYS))
    assert np.round(weights, 3).tolist() == [
        [0.212, 0.576, 0.212],
        [0.576, 0.212, 0.212],
        [0.665, 0.090, 0.245],
    ]
    assert np.round(attention.mix(weights, VALUES), 2).tolist() == [
        [3.18, 6.82],
        [6.82, 3.18],
        [7.88, 2.12],
    ]


@pytest.mark.parametrize("method", ["dot", "scaled", "general", "additive"])
def test_scores_match_loops(method):
    rng = np.random.default_rng(7)
    queries, keys = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    w_a = rng.normal(size=(3, 3))
    w_1, w_2, v_a = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=6)
    functions = {
        "dot": lambda: attention.dot_scores(queries, keys),
        "scaled": lambda: attention.scaled_dot_scores(queries, keys),
        "general": lambda: attention.general_scores(queries, keys, w_a),
        "additive": lambda: attention.additive_scores(queries, keys, w_1, w_2, v_a),
    }
    expected = naive.scores(
        queries.tolist(),
        keys.tolist(),
        method,
        w_a=w_a.tolist(),
        w_1=w_1.tolist(),
        w_2=w_2.tolist(),
        v_a=v_a.tolist(),
    )
    np.testing.assert_allclose(functions[method](), expected, rtol=1e-12, atol=1e-12)


def test_general_and_additive_accept_different_query_and_key_sizes():
    rng = np.random.default_rng(1)
    queries, keys = rng.normal(size=(2, 3)), rng.normal(size=(4, 5))
    w_a = rng.normal(size=(3, 5))
    expected = naive.scores(queries.tolist(), keys.tolist(), "general", w_a=w_a.tolist())
    np.testing.assert_allclose(attention.general_scores(queries, keys, w_a), expected, rtol=1e-12)


def test_general_with_identity_is_dot():
    rng = np.random.default_rng(2)
    queries, keys = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    np.testing.assert_allclose(
        attention.general_scores(queries, keys, np.eye(4)), attention.dot_scores(queries, keys)
    )


def test_softmax_matches_loops_with_temperature_and_mask():
    grid = np.array([[2.0, 0.0, 1.0], [3.0, -np.inf, -1.0], [-np.inf, -np.inf, -np.inf]])
    for temperature in (0.5, 1.0, 3.0):
        expected = [naive.softmax_row(row, temperature) for row in grid.tolist()]
        np.testing.assert_allclose(attention.softmax(grid, temperature), expected, rtol=1e-14)


def test_softmax_stable_on_huge_scores():
    weights = attention.softmax(np.array([1000.0, 0.0, -1000.0]))
    assert weights.tolist() == [1.0, 0.0, 0.0]
    weights = attention.softmax(np.array([1e308, -1e308]), temperature=1e-3)
    assert weights.tolist() == [1.0, 0.0]


def test_fully_masked_row_gets_zero_weights_not_nan():
    weights = attention.softmax(np.array([[-np.inf, -np.inf], [0.0, 0.0]]))
    assert weights.tolist() == [[0.0, 0.0], [0.5, 0.5]]


def test_mix_matches_loops():
    rng = np.random.default_rng(3)
    weights, values = attention.softmax(rng.normal(size=(3, 4))), rng.normal(size=(4, 2))
    expected = [naive.mix_row(row, values.tolist()) for row in weights.tolist()]
    np.testing.assert_allclose(attention.mix(weights, values), expected, rtol=1e-12)


def test_causal_mask_is_lower_triangle():
    assert attention.causal_mask(3, 3).tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]


finite_rows = arrays(
    np.float64,
    st.tuples(st.integers(1, 5), st.integers(1, 8)),
    elements=st.floats(-1e6, 1e6, allow_nan=False),
)


@settings(max_examples=100)
@given(finite_rows)
def test_softmax_rows_sum_to_one_and_are_probabilities(grid):
    weights = attention.softmax(grid)
    assert np.all(weights >= 0) and np.all(weights <= 1)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)


@settings(max_examples=100)
@given(finite_rows, st.floats(-1e3, 1e3, allow_nan=False))
def test_softmax_shift_invariance(grid, shift):
    np.testing.assert_allclose(
        attention.softmax(grid + shift), attention.softmax(grid), rtol=1e-9, atol=1e-12
    )


@settings(max_examples=100)
@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-1e300, 1e300, allow_nan=False)))
def test_softmax_never_nan_on_huge_inputs(row):
    weights = attention.softmax(row)
    assert np.all(np.isfinite(weights))
    assert math.isclose(weights.sum(), 1.0, rel_tol=1e-12)
    assert weights[np.argmax(row)] == weights.max()


@settings(max_examples=100)
@given(finite_rows, st.integers(1, 4))
def test_mix_is_a_convex_combination_of_values(grid, width):
    values = np.linspace(-5, 5, grid.shape[1] * width).reshape(grid.shape[1], width)
    output = attention.mix(attention.softmax(grid), values)
    assert np.all(output >= values.min(axis=0) - 1e-9)
    assert np.all(output <= values.max(axis=0) + 1e-9)


def test_seeded_draws_are_fixed_numbers():
    # Pinned values: a change of generator or seeding would change every example.
    first = generator(0, "w_a").random()
    assert first == generator(0, "w_a").random()
    assert first != generator(1, "w_a").random()
    weights = uniform_parameter(0, "w_a", (2, 2), fan_in=2)
    assert np.all(np.abs(weights) <= math.sqrt(3 / 2))
    vector = token_vector(0, "llaves", 8, norm=3.0)
    assert math.isclose(float(np.linalg.norm(vector)), 3.0, rel_tol=1e-12)
    np.testing.assert_array_equal(vector, token_vector(0, "llaves", 8, norm=3.0))
    assert not np.allclose(vector, token_vector(0, "coche", 8, norm=3.0))


@pytest.mark.slow  # hypothesis at length: the full run's
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=False,
                 allow_infinity=False, width=64)), min_size=3, max_size=3),
        min_size=1, max_size=4,
    )
)  # fmt: skip
def test_bulk_and_item_by_item_number_checks_agree(rows):
    from attncli.reading.parse import values

    exact = np.array([[values._number(v, ("m", "m"), False) for v in row] for row in rows])
    np.testing.assert_array_equal(values.to_matrix(rows, "m"), exact)
    assert values._plain_numbers(rows, 2) is not None
