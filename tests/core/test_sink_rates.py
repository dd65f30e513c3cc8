"""Each head's sink rate (core.head_patterns.sink_rates): its mean weight on the first token
over the rows after the first, held to a loop of its own and to numbers worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.head_patterns import sink_rates


def loop_sink_rate(grid: list[list[float]]) -> float:
    """The rate of one T × T grid, one row at a time, in plain floats."""
    total = 0.0
    for row in grid[1:]:
        total += row[0]
    return total / (len(grid) - 1)


def test_a_hand_made_grid_gives_the_rate_worked_by_hand():
    grid = np.array([[1.0, 0.0, 0.0], [0.6, 0.4, 0.0], [0.2, 0.3, 0.5]])
    # rows 2 and 3 put 0.6 and 0.2 on the first token; row 1 has no choice and is left out
    assert sink_rates(grid) == pytest.approx(0.4, abs=1e-15)
    assert loop_sink_rate(grid.tolist()) == pytest.approx(0.4, abs=1e-15)


def test_a_head_that_looks_only_at_the_first_token_is_a_full_sink():
    grid = np.zeros((5, 5))
    grid[:, 0] = 1.0
    assert sink_rates(grid) == 1.0
    assert sink_rates(np.eye(5)) == 0.0  # each token on itself: no weight on the first


def random_causal(rng: np.random.Generator, shape: tuple[int, ...], count: int) -> np.ndarray:
    scores = rng.normal(size=(*shape, count, count)) * 3
    scores[..., ~np.tril(np.ones((count, count), dtype=bool))] = -np.inf
    powers = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return powers / powers.sum(axis=-1, keepdims=True)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(1, 3), st.integers(1, 4))
def test_every_head_s_rate_is_the_loop_s(seed, count, layers, heads):
    weights = random_causal(np.random.default_rng(seed), (layers, heads), count)
    rates = sink_rates(weights)
    assert rates.shape == (layers, heads)
    for layer in range(layers):
        for head in range(heads):
            expected = loop_sink_rate(weights[layer, head].tolist())
            assert rates[layer, head] == pytest.approx(expected, abs=1e-15)


def test_gu_et_al_s_score_over_every_row_is_the_rate_with_the_first_row_added():
    weights = random_causal(np.random.default_rng(3), (2, 3), 7)
    gu = weights[..., :, 0].mean(axis=-1)  # their importance score of the first token
    np.testing.assert_allclose(gu, (1 + 6 * sink_rates(weights)) / 7, atol=1e-15)


def test_one_token_has_no_rate():
    """sink_rates needs two tokens; heads asks for none with one (nor does the explorer's
    knob, tests/explore)."""
    import attncli as attn

    result = attn.heads("tren", heads=2, causal=True, grid=True)
    assert result.grid is not None and result.sink_rates is None
