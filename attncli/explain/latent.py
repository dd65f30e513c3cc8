"""Multi-head latent attention laid out as a step (DeepSeek-V2/V3's MLA, on the seeded
layer): the asked row's token pressed into its latent c_KV, that head's key and value read
back from it, and the row's scores computed twice, from the keys (q · k ÷ divisor) and in
the absorbed form, W^UK folded into the query ((q W^UKᵀ) · c_KV ÷ divisor), side by side
with their difference."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LatentScoreRow:
    """One key's score, from its key and from the latent (masked: -inf in both, no
    difference)."""

    token: str
    plain: float  # q · k ÷ divisor
    absorbed: float  # (q W^UKᵀ) · c_KV ÷ divisor
    difference: float  # absorbed − plain


@dataclass
class LatentSteps:
    """A row of head `head` through the latent: c_KV, k and v of the row's token, the query
    with W^UK absorbed, the scores both ways, and what the cache keeps a token."""

    query_label: str
    head: int
    rank: int  # r: c_KV's numbers
    divisor: float
    latent: list[float]  # c_KV of the row's token
    key: list[float]  # c_KV W^UK_h: its key in this head
    value: list[float]  # c_KV W^UV_h: its value in this head
    absorbed_query: list[float]  # q W^UK_hᵀ: r numbers
    rows: list[LatentScoreRow]
    cache_latent: int  # numbers a token the cache keeps: r
    cache_heads: int  # what multi-head attention would keep: h · (d_k + d_v)


def explain_latent(
    query_label: str,
    head: int,
    index: int,
    latent: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    absorbed_query: np.ndarray,
    plain: np.ndarray,
    absorbed: np.ndarray,
    key_labels: list[str],
    heads: int,
    divisor: float,
) -> LatentSteps:
    """Row `index` of one head: `latent` c_KV [T, r], that head's `keys` [T, d_k] and
    `values` [T, d_v], its `absorbed_query` [r], and the row's `plain` and `absorbed`
    scores [T] (already divided)."""
    rows = []
    for token, one, other in zip(key_labels, plain.tolist(), absorbed.tolist(), strict=True):
        gap = 0.0 if np.isneginf(one) else other - one
        rows.append(LatentScoreRow(token, one, other, gap))
    width = keys.shape[-1] + values.shape[-1]
    return LatentSteps(
        query_label, head, int(latent.shape[-1]), divisor,
        latent[index].tolist(), keys[index].tolist(), values[index].tolist(),
        absorbed_query.tolist(), rows, int(latent.shape[-1]), heads * width,
    )  # fmt: skip
