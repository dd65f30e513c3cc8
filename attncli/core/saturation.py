"""When a row of weights stops being a mix: the saturation rule every weight grid marks, and
the experiment that shows why the scores are divided by √d_k.

A dot product of d_k coordinates, each of unit variance, has variance d_k: its spread grows
as √d_k. Unscaled, the scores of a row drift apart as d_k grows and the softmax puts nearly
all the weight on one key; the gradient that flows back through the row, whose largest part
is α(1 − α), goes to 0 with it. Divided by √d_k, the scores keep a spread of about 1 at
every d_k, and so does the row's largest weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax

# A row is saturated when its largest weight is at least this: the other keys share less than
# 5%, so the row picks one key instead of mixing them (0.983 is; 0.558 is not).
SATURATED = 0.95


def saturated_rows(weights: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """Which rows of a weight grid are saturated: largest weight ≥ SATURATED, among rows that
    had at least two keys to choose from (a row that may look at one key only, as the first
    row of a causal grid, gets weight 1 by construction and is not counted)."""
    # [..., T_q, T_k] -> [..., T_q]
    weights = np.asarray(weights, dtype=np.float64)
    choices = np.full(weights.shape[:-1], weights.shape[-1])
    if allowed is not None:
        choices = np.broadcast_to(allowed, weights.shape).sum(axis=-1)
    return (weights.max(axis=-1) >= SATURATED) & (choices >= 2)


def largest_weight(
    d_k: int, keys_per_row: int, rows: int, seed: int, stream: str = "sweep"
) -> tuple[float, float]:
    """Average largest softmax weight of a row, unscaled and ÷√d_k, for random queries and keys
    with unit-variance coordinates: unscaled rows saturate as d_k grows, scaled ones do not.
    With rows=1, one draw: what a single run of the lesson shows, which wanders."""
    sweep = scaling_rows(d_k, keys_per_row, rows, seed, stream)
    return float(sweep.largest.mean()), float(sweep.largest_scaled.mean())


@dataclass(frozen=True)
class ScalingRows:
    """`rows` seeded rows of one d_k: a query against `keys_per_row` keys, every coordinate
    drawn from N(0, 1)."""

    d_k: int
    scores: np.ndarray  # [rows, keys_per_row] raw q · k
    largest: np.ndarray  # [rows] each row's largest weight, softmax of the raw scores
    largest_scaled: np.ndarray  # [rows] the same, softmax of the scores ÷ √d_k
    # [rows] max_j α_j (1 − α_j): the largest ∂α_j/∂s_j, how much the row still passes back
    gradient: np.ndarray
    gradient_scaled: np.ndarray


# The one seeded row that attn scaling and attn compare-scores show beside the mean: one
# stream, so that both show the same row for a seed.
ONE_ROW = "one row"


def scaling_rows(
    d_k: int, keys_per_row: int, rows: int, seed: int, stream: str = "sweep"
) -> ScalingRows:
    """The rows of the experiment at one d_k, the same on every machine for a seed."""
    from attncli.core.seeding import generator

    rng = generator(seed, stream, str(d_k))
    queries = rng.standard_normal((rows, 1, d_k))
    keys = rng.standard_normal((rows, keys_per_row, d_k))
    scores = (queries @ keys.transpose(0, 2, 1))[:, 0, :]  # [rows, keys_per_row]
    weights = softmax(scores)
    scaled = softmax(scores / np.sqrt(d_k))
    return ScalingRows(
        d_k=d_k,
        scores=scores,
        largest=weights.max(axis=-1),
        largest_scaled=scaled.max(axis=-1),
        gradient=(weights * (1 - weights)).max(axis=-1),
        gradient_scaled=(scaled * (1 - scaled)).max(axis=-1),
    )
