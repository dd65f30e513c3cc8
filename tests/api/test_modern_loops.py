"""Grouped-query heads, sliding windows and ALiBi, alone and together, held to the loops of
tests/naive.py: a reference written cell by cell from the papers, apart from attn's
numpy (torch's and transformers' own values are in test_grouped.py and test_distance.py)."""

from __future__ import annotations

import numpy as np
import pytest

import attncli as attn
from tests import naive

T, D = 7, 12


def _weights(seed: int, heads: int, kv_heads: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    kv_width = D // heads * kv_heads
    return {
        "w_q": rng.normal(size=(D, D)),
        "w_k": rng.normal(size=(D, kv_width)),
        "w_v": rng.normal(size=(D, kv_width)),
        "w_o": rng.normal(size=(D, D)),
    }


CASES = {
    # name: (heads, kv_heads, window, alibi, causal)
    "grouped 6 by 2": (6, 2, None, False, False),
    "multi-query": (4, 1, None, False, True),
    "window 3, causal": (2, 2, 3, False, True),
    "window 2, both sides": (3, 3, 2, False, False),
    "alibi, 4 heads": (4, 4, None, True, True),
    "alibi, 6 heads (not a power of two)": (6, 6, None, True, False),
    "all three": (6, 3, 4, True, True),
}


@pytest.mark.parametrize("name", CASES)
def test_the_layer_equals_a_loop_cell_by_cell(name):
    heads, kv_heads, window, alibi, causal = CASES[name]
    x = np.random.default_rng(7).normal(size=(T, D))
    weights = _weights(11, heads, kv_heads)
    result = attn.selfattn(x=x, **weights, heads=heads, kv_heads=kv_heads, window=window,
                           alibi=alibi, causal=causal)  # fmt: skip
    allowed = None
    if window is not None:
        allowed = naive.window_allowed(T, window, causal)
    elif causal:
        allowed = [[j <= i for j in range(T)] for i in range(T)]
    expected = naive.multihead(
        x.tolist(),
        x.tolist(),
        {name: w.tolist() for name, w in weights.items()},
        heads=heads,
        allowed=allowed,
        bias=naive.alibi(heads, T) if alibi else None,
        kv_heads=kv_heads,
    )
    np.testing.assert_allclose(result.output, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("heads", [1, 2, 3, 4, 5, 6, 8, 12, 16])
def test_the_alibi_slopes_are_the_paper_s(heads):
    from attncli.core.distance import alibi_slopes

    np.testing.assert_allclose(alibi_slopes(heads), naive.alibi_slopes(heads), rtol=1e-15)
