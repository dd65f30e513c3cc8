"""The online softmax against the plain one: the lesson's scores worked by hand, and for any
blocks and scores (−∞, huge, a row all −∞) the same weights to a few units in the last
place of the row's largest weight."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.attention import softmax
from attncli.core.inference import online_softmax
from attncli.results.inference import ulps_apart

pytestmark = pytest.mark.slow


def test_the_lessons_scores_in_blocks_of_two_by_hand():
    blocks = online_softmax(np.array([[2.0, 0.0, 1.0]]), 2)
    assert blocks.starts == [0, 2]
    # Block 1 (2, 0): m = 2, ℓ = e^0 + e^−2; block 2 (1): m stays 2, ℓ += e^−1.
    assert blocks.running_max[:, 0].tolist() == [2.0, 2.0]
    assert blocks.factor[:, 0].tolist() == [0.0, 1.0]
    first = 1 + math.exp(-2)
    assert blocks.running_sum[0, 0] == pytest.approx(first, rel=1e-15)
    assert blocks.running_sum[1, 0] == pytest.approx(first + math.exp(-1), rel=1e-15)
    total = 1 + math.exp(-2) + math.exp(-1)
    expected = [1 / total, math.exp(-2) / total, math.exp(-1) / total]
    np.testing.assert_allclose(blocks.weights[0], expected, rtol=1e-15)


def test_a_rising_max_rescales_the_sum_so_far():
    blocks = online_softmax(np.array([[0.0, 1.0, 3.0]]), 1)
    # m: 0, 1, 3; ℓ: 1, 1·e^−1 + 1, (e^−1 + 1)·e^−2 + 1
    np.testing.assert_array_equal(blocks.running_max[:, 0], [0.0, 1.0, 3.0])
    np.testing.assert_allclose(blocks.factor[:, 0], [0.0, math.exp(-1), math.exp(-2)], rtol=1e-15)
    np.testing.assert_allclose(
        blocks.running_sum[:, 0],
        [1.0, math.exp(-1) + 1, (math.exp(-1) + 1) * math.exp(-2) + 1],
        rtol=1e-15,
    )


def test_a_row_all_masked_is_zero_as_a_fully_masked_row_is():
    scores = np.array([[-np.inf, -np.inf, -np.inf], [1.0, -np.inf, 2.0]])
    blocks = online_softmax(scores, 2)
    np.testing.assert_array_equal(blocks.weights[0], [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(blocks.weights[0], softmax(scores)[0])
    assert blocks.running_sum[-1, 0] == 0 and np.isneginf(blocks.running_max[-1, 0])
    assert not np.isnan(blocks.weights).any()


def test_a_masked_first_block_then_scores():
    blocks = online_softmax(np.array([[-np.inf, -np.inf, 0.5, 0.5]]), 2)
    assert blocks.factor[0, 0] == 1.0 and blocks.running_sum[0, 0] == 0.0
    np.testing.assert_allclose(blocks.weights[0], [0, 0, 0.5, 0.5], rtol=1e-15)


def test_huge_scores_do_not_overflow():
    scores = np.array([[1e308, -1e308, 1e308, 5.0]])
    blocks = online_softmax(scores, 1)
    np.testing.assert_array_equal(blocks.weights, softmax(scores))
    np.testing.assert_array_equal(blocks.weights[0], [0.5, 0.0, 0.5, 0.0])


def test_temperature_divides_after_the_shift_as_the_plain_softmax():
    scores = np.array([[2.0, 0.0, 1.0, 4.0]])
    blocks = online_softmax(scores, 3, temperature=0.5)
    assert ulps_apart(blocks.weights, softmax(scores, 0.5))[0] <= 2


def test_ulps_counts_in_the_rows_largest_weight():
    plain = np.array([[0.5, 0.25, 0.25]])
    online = plain + np.array([[np.spacing(0.5), 0.0, 0.0]])
    assert ulps_apart(online, plain)[0] == 1.0
    assert ulps_apart(plain, plain)[0] == 0.0


SCORE = st.one_of(
    st.floats(-50, 50, allow_nan=False),
    st.floats(-1e300, 1e300, allow_nan=False),
    st.just(-math.inf),
)


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.lists(SCORE, min_size=1, max_size=40), min_size=1, max_size=4).filter(
        lambda rows: len({len(row) for row in rows}) == 1
    ),
    block=st.integers(1, 50),
    temperature=st.sampled_from([1.0, 0.5, 2.0]),
)
def test_equal_to_the_plain_softmax_within_a_few_ulps(rows, block, temperature):
    scores = np.array(rows)
    blocks = online_softmax(scores, block, temperature)
    plain = softmax(scores, temperature)
    assert not np.isnan(blocks.weights).any()
    # Each block adds one rounding of ℓ and one of its rescaling: a few ulps per block.
    allowed = 4 * len(blocks.starts) + 4
    assert (ulps_apart(blocks.weights, plain) <= allowed).all()
    masked = np.isneginf(scores)
    assert (blocks.weights[masked] == 0).all()
    empty = masked.all(axis=1)
    assert (blocks.weights[empty] == 0).all()
    np.testing.assert_allclose(blocks.weights[~empty].sum(axis=1), 1.0, rtol=1e-12)
    assert blocks.running_max[-1].tolist() == [
        max(row) if not all(math.isinf(v) for v in row) else -math.inf for row in rows
    ]


def _loop(row: list[float], block: int, temperature: float) -> list[tuple[float, ...]]:
    """The online softmax of one row by hand, block after block: (block max, m, factor,
    block sum, ℓ) after each."""
    m, total, history = -math.inf, 0.0, []
    for start in range(0, len(row), block):
        part = row[start : start + block]
        new = max(m, max(part))
        factor = 1.0 if new == -math.inf else math.exp((m - new) / temperature)
        shift = 0.0 if new == -math.inf else new
        powers = sum(math.exp((s - shift) / temperature) for s in part)
        total = total * factor + powers
        history.append((max(part), new, factor, powers, total))
        m = new
    return history


@pytest.mark.parametrize(
    ("columns", "block", "temperature"),
    [(7, 3, 1.0), (9, 3, 0.5), (1, 4, 1.0), (10, 1, 2.0), (11, 10, 0.7)],
)
def test_every_block_s_numbers_as_a_loop_works_them(columns, block, temperature):
    rng = np.random.default_rng(columns * 31 + block)
    scores = rng.normal(size=(2, columns)) * 4
    scores[1, : columns // 2] = -math.inf  # a row whose first blocks are masked
    blocks = online_softmax(scores, block, temperature)
    for row in range(2):
        expected = _loop(scores[row].tolist(), block, temperature)
        worked = zip(blocks.block_max[:, row], blocks.running_max[:, row], blocks.factor[:, row],
                     blocks.block_sum[:, row], blocks.running_sum[:, row], strict=True)  # fmt: skip
        for got, want in zip(worked, expected, strict=True):
            assert list(got) == pytest.approx(list(want), rel=1e-14, abs=0)
