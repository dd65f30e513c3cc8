"""Multi-head latent attention laid out as a step (DeepSeek-V2/V3's MLA, on the seeded
layer): the asked row's token pressed into its latent c_KV, that head's key and value read
back from it, and the row's scores computed twice, from the keys (q · k ÷ divisor) and in
the absorbed form, W^UK folded into the query ((q W^UKᵀ) · c_KV ÷ divisor), side by side
with their difference; with DeepSeek's decoupled rotary key, the row's turned q^R and its
token's k^R too, and the absorbed score's two parts, (q^C W^UKᵀ) · c_KV and q^R · k^R."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LatentScoreRow:
    """One key's score, from its key and from the latent (masked: -inf in both, no
    difference); with a decoupled rotary key, the absorbed score's two parts before the
    division."""

    token: str
    plain: float  # q · k ÷ divisor
    absorbed: float  # ((q^C W^UKᵀ) · c_KV + q^R · k^R) ÷ divisor
    difference: float  # absorbed − plain
    content: float | None = None  # (q^C W^UKᵀ) · c_KV, with a rotary key (None: masked)
    position: float | None = None  # q^R · k^R


@dataclass
class LatentSteps:
    """A row of head `head` through the latent: c_KV, k and v of the row's token, the query
    with W^UK absorbed, the scores both ways, and what the cache keeps a token; with a
    decoupled rotary key, the row's q^R and its token's k^R, both turned."""

    query_label: str
    head: int
    rank: int  # r: c_KV's numbers
    divisor: float
    latent: list[float]  # c_KV of the row's token
    key: list[float]  # c_KV W^UK_h: its key in this head (k^C with a rotary key)
    value: list[float]  # c_KV W^UV_h: its value in this head
    absorbed_query: list[float]  # q^C W^UK_hᵀ: r numbers
    rows: list[LatentScoreRow]
    cache_latent: int  # numbers a token the cache keeps: r (+ d_rope)
    cache_heads: int  # what multi-head attention would keep: h · (d_k (+ d_rope) + d_v)
    rotary_query: list[float] | None = None  # q^R_h = RoPE(x W^QR_h) of the row
    rotary_key: list[float] | None = None  # k^R = RoPE(x W^KR) of the row's token

    @property
    def rope(self) -> int:
        """d_rope: the decoupled rotary key's numbers (0: none)."""
        return 0 if self.rotary_key is None else len(self.rotary_key)


def explain_latent(
    query_label: str,
    head: int,
    index: int,
    latent: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    queries: np.ndarray,
    absorbed_query: np.ndarray,
    plain: np.ndarray,
    absorbed: np.ndarray,
    key_labels: list[str],
    heads: int,
    divisor: float,
    rope: int = 0,
) -> LatentSteps:
    """Row `index` of one head: `latent` c_KV [T, r], that head's `keys` [T, d_k + d_rope]
    (k^C then the shared k^R), `values` [T, d_v] and `queries` [T, d_k + d_rope], its
    `absorbed_query` [r], and the row's `plain` and `absorbed` scores [T] (already
    divided); `rope` the rotary key's width d_rope (0: none)."""
    content = latent @ absorbed_query  # [T]: (q^C W^UKᵀ) · c_KV
    position = keys[:, keys.shape[-1] - rope :] @ queries[index, queries.shape[-1] - rope :]
    rows = []
    for j, (token, one, other) in enumerate(zip(key_labels, plain.tolist(), absorbed.tolist(),
                                                strict=True)):  # fmt: skip
        masked = bool(np.isneginf(one))
        parts = (None, None) if masked or not rope else (float(content[j]), float(position[j]))
        rows.append(LatentScoreRow(token, one, other, 0.0 if masked else other - one, *parts))
    d_k = keys.shape[-1] - rope
    rotary = (queries[index, d_k:].tolist(), keys[index, d_k:].tolist()) if rope else (None, None)
    return LatentSteps(
        query_label, head, int(latent.shape[-1]), divisor,
        latent[index].tolist(), keys[index, :d_k].tolist(), values[index].tolist(),
        absorbed_query.tolist(), rows, int(latent.shape[-1]) + rope,
        heads * (keys.shape[-1] + values.shape[-1]), *rotary,
    )  # fmt: skip
