"""Scores, softmax and the weighted mix: the three steps of attention.

Rows are vectors (a query per row, a key per row), as in Vaswani et al. (2017),
"Attention Is All You Need", eq. 1: softmax(Q K^T / sqrt(d_k)) V.
The two learned scores are Luong et al. (2015), "Effective Approaches to
Attention-based Neural Machine Translation" (general: s^T W_a h), and
Bahdanau et al. (2015), "Neural Machine Translation by Jointly Learning to
Align and Translate" (additive: v_a^T tanh(W_1 s + W_2 h)). Each score is one object of
core.methods, which reads these.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def dot_scores(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Plain dot products q·k for every query and key."""
    # [T_q, d], [T_k, d] -> [T_q, T_k]
    return queries @ keys.T


def scaled_dot_scores(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Dot products divided by sqrt(d_k), which keeps their spread near 1 as d_k grows."""
    # [T_q, d], [T_k, d] -> [T_q, T_k]
    return (queries @ keys.T) / np.sqrt(keys.shape[-1])


def general_scores(queries: np.ndarray, keys: np.ndarray, w_a: np.ndarray) -> np.ndarray:
    """Luong's multiplicative score s^T W_a h: the key moved into the query's basis, dotted."""
    # [T_q, d_q], [T_k, d_k], [d_q, d_k] -> [T_q, T_k]
    return (queries @ w_a) @ keys.T


def additive_projections(
    queries: np.ndarray,
    keys: np.ndarray,
    w_1: np.ndarray,
    w_2: np.ndarray,
    b_1: np.ndarray | None = None,
    b_2: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """W_1 s (+ b_1) for every query and W_2 h (+ b_2) for every key, computed once and
    reused by every pair; biases are optional, as in a layer built with bias=False."""
    # [T_q, d_q], [T_k, d_k], [d_a, d_q], [d_a, d_k], [d_a], [d_a] -> [T_q, d_a], [T_k, d_a]
    projected_queries, projected_keys = queries @ w_1.T, keys @ w_2.T
    if b_1 is not None:
        projected_queries += b_1
    if b_2 is not None:
        projected_keys += b_2
    return projected_queries, projected_keys


def additive_scores(
    queries: np.ndarray,
    keys: np.ndarray,
    w_1: np.ndarray,
    w_2: np.ndarray,
    v_a: np.ndarray,
    b_1: np.ndarray | None = None,
    b_2: np.ndarray | None = None,
) -> np.ndarray:
    """Bahdanau's additive score v_a^T tanh(W_1 s + b_1 + W_2 h + b_2)."""
    # [T_q, d_q], [T_k, d_k], [d_a, d_q], [d_a, d_k], [d_a] -> [T_q, T_k]
    projected_queries, projected_keys = additive_projections(queries, keys, w_1, w_2, b_1, b_2)
    # The tanh sits between the sum and the readout, so the [T_q, T_k, d_a] block must exist;
    # it is made once and tanh is taken in place.
    hidden = projected_queries[:, None, :] + projected_keys[None, :, :]
    np.tanh(hidden, out=hidden)
    return hidden @ v_a


def general_projected_keys(keys: np.ndarray, w_a: np.ndarray) -> np.ndarray:
    """W_a h for every key: the vector each query is dotted with in the general score."""
    # [T_k, d_k], [d_q, d_k] -> [T_k, d_q]
    return keys @ w_a.T


def additive_hidden(
    query: np.ndarray, keys: np.ndarray, parameters: dict[str, np.ndarray]
) -> np.ndarray:
    """tanh(W_1 s + b_1 + W_2 h + b_2) for one query and every key: what v_a reads out."""
    # [d_q], [T_k, d_k] -> [T_k, d_a]
    p = parameters
    projected_query, projected_keys = additive_projections(
        query[None, :], keys, p["w_1"], p["w_2"], p.get("b_1"), p.get("b_2")
    )
    return np.tanh(projected_query + projected_keys)


def additive_hidden_grid(
    queries: np.ndarray, keys: np.ndarray, parameters: dict[str, np.ndarray]
) -> np.ndarray:
    """tanh(W_1 s_i + b_1 + W_2 h_j + b_2) for every pair."""
    # [T_q, d_q], [T_k, d_k] -> [T_q, T_k, d_a]
    p = parameters
    projected_queries, projected_keys = additive_projections(
        queries, keys, p["w_1"], p["w_2"], p.get("b_1"), p.get("b_2")
    )
    return np.tanh(projected_queries[:, None, :] + projected_keys[None, :, :])


def softmax(scores: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of scores / temperature, stable for any finite input.

    -inf marks a masked cell: its weight is exactly 0. A row with every cell
    masked has nothing to attend to and gets all-zero weights (its mix is the
    zero vector) rather than NaN.
    """
    # [..., T_k] -> [..., T_k]
    scores = np.asarray(scores)
    if scores.dtype != np.float32:  # float32 stays float32 (--dtype float32); else float64
        scores = scores.astype(np.float64, copy=False)
    # -inf cells do not raise a row's max; a row of nothing but -inf has max -inf, and
    # shifting it by 0 instead keeps it at -inf rather than NaN.
    row_max = scores.max(axis=-1, keepdims=True)
    row_max[np.isneginf(row_max)] = 0.0
    # One fresh array, then everything in place: a T × T grid is the memory that counts.
    # A score far below its row's max may go to -inf here, which is its weight, 0.
    with np.errstate(over="ignore"):
        weights = np.subtract(scores, row_max)
        if temperature != 1.0:
            weights /= temperature
    # Subtracting the row max first means the largest power is e^0 = 1: nothing overflows.
    np.exp(weights, out=weights)
    totals = weights.sum(axis=-1, keepdims=True)
    # A fully masked row is already all 0 (e^-inf); only the others are divided.
    np.divide(weights, totals, out=weights, where=totals > 0)
    return weights


def softcap(x: np.ndarray, cap: float) -> np.ndarray:
    """cap · tanh(x ÷ cap): x itself near 0, never past ±cap (Gemma 2's softcapping of its
    scores and logits). A cap of +∞ is no cap: x itself, the limit as the cap grows."""
    # [...] -> [...]
    if np.isposinf(cap):
        return x
    return cap * np.tanh(x / cap)


def capped(scores: np.ndarray, cap: float | None) -> np.ndarray:
    """The scores softcapped when the layer has a cap (None: as they are); done before the
    mask, so that a masked score stays −∞."""
    # [..., T_k] -> [..., T_k]
    return scores if cap is None else softcap(scores, cap)


def softmax_with_sink(
    scores: np.ndarray,
    sinks: np.ndarray,
    softmax_of: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """softmax over each row and one more column, the row's sink logit, dropped after it
    (gpt-oss' learned sinks): the sink takes a share of the weight, so a row sums to
    1 − that share over its keys. `sinks` broadcasts against a column of the scores
    ([h, 1, 1] for heads, [1, 1] for one); a sink of −∞ takes nothing: no sink.
    `softmax_of` is softmax() unless given (the KV cache's replay sums in its own order)."""
    # [..., T_q, T_k], [..., 1] -> [..., T_q, T_k]
    column = np.broadcast_to(np.asarray(sinks, dtype=scores.dtype), (*scores.shape[:-1], 1))
    return (softmax_of or softmax)(np.concatenate([scores, column], axis=-1))[..., :-1]


def mix(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The weighted sum of the value rows: each output row is a convex combination of them."""
    # [T_q, T_k] or [T_k], [T_k, d_v] -> [T_q, d_v] or [d_v]
    return weights @ values


def causal_mask(length_q: int, length_k: int) -> np.ndarray:
    """True where query i may look at key j: itself and the positions before it."""
    # -> [T_q, T_k] of bool
    return np.tril(np.ones((length_q, length_k), dtype=bool))


def chosen_divisor(keys: np.ndarray, divisor: float | None) -> float:
    """The divisor of the scores: the one given, else √d_k (d_k per head)."""
    return float(np.sqrt(keys.shape[-1])) if divisor is None else divisor


def aligned(allowed: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A mask of [T_q, T_k] or [B, T_q, T_k] broadcast to scores of `shape`: [T_q, T_k],
    [h or B, T_q, T_k] or [B, h, T_q, T_k] (a batch's mask is per sequence)."""
    if allowed.ndim == 3 and len(shape) == 4:
        allowed = allowed[:, None, :, :]
    return np.broadcast_to(allowed, shape)
