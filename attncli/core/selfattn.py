"""Self-attention: one sentence X supplies the queries, the keys and the values.

Q = X W^Q, K = X W^K, V = X W^V; A = softmax(Q K^T / sqrt(d_k)) row by row; out = A V
(Vaswani et al., 2017, eq. 1). With h heads, W^Q, W^K, W^V are split by columns into h
blocks of d_model / h, each head attends on its own, the heads are concatenated and
projected by W^O (ibid., section 3.2.2), so the parameter count does not depend on h.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import causal_mask, softmax
from attncli.core.seeding import token_vector, uniform_parameter


@dataclass
class Attention:
    """Everything one attention computes; with heads, a leading axis per head."""

    queries: np.ndarray  # [T_q, d_k] or [h, T_q, d_k]
    keys: np.ndarray  # [T_k, d_k] or [h, T_k, d_k]
    values: np.ndarray  # [T_k, d_v] or [h, T_k, d_v]
    scores: np.ndarray  # [T_q, T_k] or [h, T_q, T_k]; -inf where masked
    weights: np.ndarray  # [T_q, T_k] or [h, T_q, T_k]
    output: np.ndarray  # [T_q, d_v], or [T_q, d_model] after W^O
    concat: np.ndarray | None = None  # [T_q, h * d_v], the heads side by side before W^O


def embed(tokens: list[str], d_model: int, norm: float, seed: int) -> np.ndarray:
    """X: a seeded vector of length `norm` per token; the same token always gets the same row.

    Tokens are compared in Unicode normal form C, so «están» typed with a combining accent
    (as some keyboards and file systems write it) is still the same word.
    """
    # [T] -> [T, d_model]
    cache: dict[str, np.ndarray] = {}
    keys = [unicodedata.normalize("NFC", token) for token in tokens]
    for key in keys:
        if key not in cache:
            cache[key] = token_vector(seed, key, d_model, norm)
    return np.stack([cache[key] for key in keys])


def projections(
    seed: int, d_model: int, d_k: int, d_v: int, with_output: bool = False
) -> dict[str, np.ndarray]:
    """Seeded W^Q, W^K [d_model, d_k], W^V [d_model, d_v] and, for heads, W^O [d_v, d_model]."""
    weights = {
        "w_q": uniform_parameter(seed, "w_q", (d_model, d_k), fan_in=d_model),
        "w_k": uniform_parameter(seed, "w_k", (d_model, d_k), fan_in=d_model),
        "w_v": uniform_parameter(seed, "w_v", (d_model, d_v), fan_in=d_model),
    }
    if with_output:
        weights["w_o"] = uniform_parameter(seed, "w_o", (d_v, d_model), fan_in=d_v)
    return weights


def attend(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    scale: bool = True,
    causal: bool = False,
) -> Attention:
    """softmax(Q K^T / sqrt(d_k)) V, optionally unscaled or with a causal mask."""
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v] -> Attention
    scores = queries @ np.swapaxes(keys, -1, -2)
    if scale:
        scores /= np.sqrt(keys.shape[-1])  # in place: the grid is the memory that counts
    if causal:
        scores[..., ~causal_mask(scores.shape[-2], scores.shape[-1])] = -np.inf
    weights = softmax(scores)
    return Attention(queries, keys, values, scores, weights, weights @ values)


def self_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    scale: bool = True,
    causal: bool = False,
) -> Attention:
    """One head of self-attention over the rows of X."""
    # [T, d_model], [d_model, d_k], [d_model, d_k], [d_model, d_v] -> Attention
    return attend(x @ w_q, x @ w_k, x @ w_v, scale, causal)


def split_heads(matrix: np.ndarray, heads: int) -> np.ndarray:
    """The columns of a [T, h * d] matrix as h blocks: [h, T, d]."""
    # [T, h*d] -> [h, T, d]
    rows, width = matrix.shape
    return matrix.reshape(rows, heads, width // heads).transpose(1, 0, 2)


def multi_head_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    heads: int,
    scale: bool = True,
    causal: bool = False,
) -> Attention:
    """h heads on column blocks of the projections, concatenated, then projected by W^O."""
    # [T, d_model], [d_model, d_model] x3, [d_model, d_model] -> Attention with a head axis
    result = attend(
        split_heads(x @ w_q, heads),
        split_heads(x @ w_k, heads),
        split_heads(x @ w_v, heads),
        scale,
        causal,
    )
    # [h, T, d_v] -> [T, h * d_v]
    result.concat = result.output.transpose(1, 0, 2).reshape(x.shape[0], -1)
    result.output = result.concat @ w_o
    return result
