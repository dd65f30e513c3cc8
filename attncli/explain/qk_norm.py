"""QK-norm laid out as a step (Qwen3, OLMo 2, Gemma 3): a row's query and each key RMSNormed
before the turn and the score, x ÷ √(mean(x²) + ε), so that every q and k has a root mean
square of about 1 and a score is bounded by d_k whatever the projections make of x."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class QkNormRow:
    """One vector, the asked row's query or a key, before and after its norm."""

    vector: str  # "q" or "k"
    token: str
    before: list[float]
    mean_square: float  # mean(x²)
    root: float  # √(mean(x²) + ε): what every coordinate is divided by
    after: list[float]


@dataclass
class QkNormSteps:
    """The asked query and every key through RMSNorm (weights of ones)."""

    query_label: str
    eps: float
    rows: list[QkNormRow]


def explain_qk_norm(
    query_label: str,
    query: np.ndarray,
    keys: np.ndarray,
    key_labels: list[str],
    eps: float,
) -> QkNormSteps:
    """The query of the asked row and each key, each divided by its own √(mean(x²) + ε)."""
    # [d_k], [T_k, d_k] -> a row per vector

    def row(vector: str, token: str, x: np.ndarray) -> QkNormRow:
        mean_square = float(np.mean(x * x))
        root = math.sqrt(mean_square + eps)
        return QkNormRow(vector, token, x.tolist(), mean_square, root, (x / root).tolist())

    rows = [row("q", query_label, query)]
    rows += [row("k", token, key) for token, key in zip(key_labels, keys, strict=True)]
    return QkNormSteps(query_label, eps, rows)
