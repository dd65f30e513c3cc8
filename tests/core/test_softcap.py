"""Softcapping (core/attention.softcap): cap · tanh(x ÷ cap) keeps a small score, never
lets one past ±cap, keeps the order, and is no cap at all as the cap grows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.attention import softcap

pytestmark = pytest.mark.slow  # hypothesis

scores = st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=20).map(np.array)
caps = st.floats(0.5, 100.0)


@settings(max_examples=80, deadline=None)
@given(x=scores, cap=caps)
def test_a_capped_score_never_passes_the_cap_and_keeps_its_order(x, cap):
    capped = softcap(x, cap)
    assert (np.abs(capped) <= cap).all()
    order = np.argsort(x, kind="stable")
    assert (np.diff(capped[order]) >= 0).all()
    np.testing.assert_array_equal(softcap(-x, cap), -capped)


@settings(max_examples=80, deadline=None)
@given(x=scores)
def test_a_cap_far_above_every_score_is_no_cap(x):
    # tanh(t) = t − t³/3 + …: x off by under |x|³ / (3 cap²)
    np.testing.assert_allclose(softcap(x, 1e12), x, rtol=1e-12, atol=1e-300)


def test_by_hand():
    # 2 · tanh(2 ÷ 2) = 2 · tanh(1)
    assert softcap(np.array([2.0]), 2.0)[0] == pytest.approx(2 * 0.7615941559557649, rel=1e-15)
