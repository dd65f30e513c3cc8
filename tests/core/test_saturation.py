"""The saturation rule and the √d_k experiment's rows, against loop references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.saturation import SATURATED, saturated_rows, scaling_rows


def test_a_row_is_saturated_from_its_largest_weight_on():
    weights = np.array([[0.983, 0.017], [0.558, 0.442], [SATURATED, 1 - SATURATED]])
    assert saturated_rows(weights).tolist() == [True, False, True]


def test_a_row_with_one_key_to_look_at_is_not_saturated_but_forced():
    weights = np.array([[1.0, 0.0, 0.0], [0.99, 0.01, 0.0], [0.5, 0.3, 0.2]])
    causal = np.tril(np.ones((3, 3), dtype=bool))
    assert saturated_rows(weights, causal).tolist() == [False, True, False]


def _loop_row(query, keys, divisor):
    scores = [sum(q * k for q, k in zip(query, key, strict=True)) / divisor for key in keys]
    top = max(scores)
    powers = [math.exp(s - top) for s in scores]
    weights = [p / sum(powers) for p in powers]
    return max(weights), max(w * (1 - w) for w in weights)


@pytest.mark.parametrize("d_k", [1, 8, 64])
def test_each_row_is_a_softmax_of_dot_products_computed_one_at_a_time(d_k):
    from attncli.core.seeding import generator

    rows = scaling_rows(d_k, 6, 5, seed=3)
    rng = generator(3, "sweep", str(d_k))  # the draw the rows come from, made again
    queries = rng.standard_normal((5, 1, d_k))
    keys = rng.standard_normal((5, 6, d_k))
    for r in range(5):
        largest, gradient = _loop_row(queries[r, 0], keys[r], 1.0)
        largest_scaled, gradient_scaled = _loop_row(queries[r, 0], keys[r], math.sqrt(d_k))
        assert rows.largest[r] == pytest.approx(largest, abs=1e-12)
        assert rows.gradient[r] == pytest.approx(gradient, abs=1e-12)
        assert rows.largest_scaled[r] == pytest.approx(largest_scaled, abs=1e-12)
        assert rows.gradient_scaled[r] == pytest.approx(gradient_scaled, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(d_k=st.integers(1, 64), keys=st.integers(2, 9), seed=st.integers(0, 2**32))
def test_the_largest_weight_and_what_a_row_passes_back_are_bounded(d_k, keys, seed):
    rows = scaling_rows(d_k, keys, 3, seed)
    for largest in (rows.largest, rows.largest_scaled):
        assert np.all(largest >= 1 / keys - 1e-12) and np.all(largest <= 1)
    for gradient in (rows.gradient, rows.gradient_scaled):
        assert np.all(gradient >= 0) and np.all(gradient <= 0.25 + 1e-15)
