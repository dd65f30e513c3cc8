"""Attention by distance: a sliding window (a mask) and ALiBi (a bias), both functions of how
far key j stands from query i.

A sliding window (Beltagy et al., 2020, Longformer; Mistral 7B, Jiang et al., 2023) lets
query i look only at the keys within W positions: causal, the W keys i − W + 1 … i, as
transformers' sliding_window mask (kv_idx > q_idx − W); otherwise |i − j| < W, as many on
either side. ALiBi (Press et al., 2022, "Train Short, Test Long") adds −m_h · |i − j| to head
h's scores, its slope m_h from a geometric sequence (alibi_slopes).
"""

from __future__ import annotations

import math

import numpy as np


def window_mask(t_q: int, t_k: int, window: int, causal: bool) -> np.ndarray:
    """True where query i may look at key j: j within `window` positions of i (and not after
    it when causal).

    >>> window_mask(4, 4, 2, causal=True).astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    """
    # -> [T_q, T_k]
    offset = np.arange(t_q)[:, None] - np.arange(t_k)[None, :]  # i − j
    if causal:
        return (offset >= 0) & (offset < window)
    return np.abs(offset) < window


def alibi_slopes(heads: int) -> np.ndarray:
    """The paper's slopes, as transformers' build_alibi_tensor computes them: 2^(−8h/H) for
    h = 1 … H when H is a power of two; otherwise those of the largest power of two n below
    H, then every other one of 2n's (2^(−4h/n) for h = 1, 3, 5, …) for the rest.

    >>> alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    # -> [H]
    closest = 2 ** math.floor(math.log2(heads))
    base = 2.0 ** (-(2.0 ** -(math.log2(closest) - 3)))  # 2^(−8/closest)
    slopes = [base**power for power in range(1, closest + 1)]
    if closest != heads:
        extra = 2.0 ** (-(2.0 ** -(math.log2(2 * closest) - 3)))  # 2^(−4/closest)
        slopes += [extra**power for power in range(1, 2 * (heads - closest), 2)]
    return np.array(slopes, dtype=np.float64)


def alibi_bias(heads: int, t_q: int, t_k: int) -> np.ndarray:
    """−m_h · |i − j| for every head, query and key: added to the scores after ÷ √d_k."""
    # -> [H, T_q, T_k]
    distance = np.abs(np.arange(t_q)[:, None] - np.arange(t_k)[None, :]).astype(np.float64)
    return -alibi_slopes(heads)[:, None, None] * distance[None, :, :]
