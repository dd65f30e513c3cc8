"""Rotary positions (core/rotary.py): against a loop of 2 × 2 rotations, by hand at 90°, and
the invariants that make them rotary (lengths kept, the score a function of the offset)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.rotary import angles, frequencies, rotate, rotate_by, rotate_half
from tests import naive

pytestmark = pytest.mark.slow  # hypothesis


def test_rotate_half_pairs_the_two_halves():
    assert rotate_half(np.array([1.0, 2.0, 3.0, 4.0])).tolist() == [-3.0, -4.0, 1.0, 2.0]


def test_the_frequencies_are_base_to_minus_2i_over_d():
    assert frequencies(4).tolist() == [1.0, 0.01]
    assert frequencies(8, 500000.0)[1] == 1 / 500000.0**0.25


def test_a_quarter_turn_by_hand():
    # (x, y) = (3, 1) turned by 90° is (−1, 3); by 180° (−3, −1)
    vector = np.array([[3.0, 1.0]])
    quarter = rotate_by(vector, np.array([[math.pi / 2]]))[0]
    np.testing.assert_allclose(quarter, [-1.0, 3.0], atol=1e-15)
    half = rotate_by(vector, np.array([[math.pi]]))[0]
    np.testing.assert_allclose(half, [-3.0, -1.0], atol=1e-15)


def test_equal_to_a_loop_of_rotations():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 12))
    for base in (10000.0, 500000.0, 2.5):
        turned = rotate(x, base)
        for position, row in enumerate(x):
            expected = naive.rotary(row.tolist(), position, base)
            np.testing.assert_allclose(turned[position], expected, rtol=0, atol=1e-13)


def test_position_zero_is_not_turned():
    x = np.arange(6.0).reshape(1, 6)
    assert rotate(x).tolist() == x.tolist()
    assert angles(np.array([0, 1]), 6)[0].tolist() == [0.0, 0.0, 0.0]


vectors = st.lists(st.floats(-10, 10), min_size=4, max_size=4)


@settings(max_examples=60, deadline=None)
@given(q=vectors, k=vectors, i=st.integers(0, 50), j=st.integers(0, 50), n=st.integers(0, 200))
def test_the_score_depends_only_on_the_offset(q, k, i, j, n):
    qa, ka = np.array([q]), np.array([k])

    def score(a: int, b: int) -> float:
        turned_q = rotate_by(qa, angles(np.array([a]), 4))[0]
        turned_k = rotate_by(ka, angles(np.array([b]), 4))[0]
        return float(turned_q @ turned_k)

    assert math.isclose(score(i, j), score(i + n, j + n), rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(q=vectors, position=st.integers(0, 10_000))
def test_a_turn_keeps_the_length(q, position):
    turned = rotate_by(np.array([q]), angles(np.array([position]), 4))[0]
    assert math.isclose(np.linalg.norm(turned), np.linalg.norm(q), rel_tol=1e-12, abs_tol=1e-12)
