"""Softcapping laid out as a step (Gemma 2): each score of a row, before the softmax, as
cap · tanh(score ÷ cap): a score near 0 kept, a large one bent toward ±cap, never past it."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class SoftcapRow:
    """One key's score capped (a masked key has none)."""

    token: str
    score: float  # q · k ÷ divisor; -inf where masked
    over_cap: float  # score ÷ cap
    tanh: float
    capped: float  # cap · tanh(score ÷ cap): what the softmax takes


@dataclass
class SoftcapSteps:
    """A row's scores softcapped (attn_logit_softcapping)."""

    query_label: str
    cap: float
    rows: list[SoftcapRow]


def explain_softcap(
    query_label: str, raw: np.ndarray, cap: float, labels: list[str]
) -> SoftcapSteps:
    """Each of a row's `raw` scores (-inf where masked) through cap · tanh(score ÷ cap)."""
    # [T_k] -> a row per key
    rows = []
    for token, score in zip(labels, raw.tolist(), strict=True):
        if math.isinf(score):
            rows.append(SoftcapRow(token, score, score, score, score))  # masked: no score
            continue
        turned = math.tanh(score / cap)
        rows.append(SoftcapRow(token, score, score / cap, turned, cap * turned))
    return SoftcapSteps(query_label, cap, rows)
