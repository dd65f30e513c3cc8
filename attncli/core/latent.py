"""Multi-head latent attention (MLA), as DeepSeek-V2 and V3 compute it (DeepSeek-AI, 2024,
"DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model", §2.1;
transformers' DeepseekV3Attention).

The keys and values are not projected from x each: x is first pressed into a latent of rank
r, c_KV = RMSNorm(x W^DKV), and each head's key and value are read back from it,
k^C_h = c_KV W^UK_h, v_h = c_KV W^UV_h (kv_b_proj). Rotary positions cannot pass through
that product (they would have to be folded into W^UK), so a small key of d_rope numbers,
k^R = RoPE(x W^KR), is computed beside it and shared by every head; each head's query has
its own rotary part q^R_h beside q^C_h. A score is q^C_h · k^C_h + q^R_h · k^R, divided by
√(d_nope + d_rope). The cache keeps c_KV and k^R, r + d_rope numbers a token and layer,
where multi-head attention keeps 2 · h · d_h.

Because k^C_h = c_KV W^UK_h is linear in c_KV, q^C_h · k^C_h = (q^C_h W^UK_hᵀ) · c_KV: W^UK
can be absorbed into the query, and the scores computed from the latent itself, never
expanding the keys (absorbed_scores).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax
from attncli.core.rotary import rotate


@dataclass(frozen=True)
class LatentShape:
    """The sizes of a latent attention (config.json's names)."""

    heads: int
    nope: int  # qk_nope_head_dim: the part of q and k without positions
    rope: int  # qk_rope_head_dim: the turned part, one key shared by the heads
    v: int  # v_head_dim
    rank: int  # kv_lora_rank: c_KV's size
    q_rank: int | None  # q_lora_rank: the query's own latent (None: q = x W^Q)
    interleave: bool  # rope_interleave: the turned part's pairs are (0, 1), (2, 3), …
    divisor: float  # what the scores are divided by (√(nope + rope), YaRN's mscale² in it)

    def cache_numbers(self) -> tuple[int, int]:
        """A token's cache per layer: the latent's (r + d_rope) and multi-head's
        (2 · h · d_h: keys of nope + rope, values of v, per head)."""
        return self.rank + self.rope, self.heads * (self.nope + self.rope + self.v)


@dataclass
class LatentRun:
    """What one latent attention computed."""

    queries: np.ndarray  # [h, T, nope + rope]: q^C and the turned q^R side by side
    keys: np.ndarray  # [h, T, nope + rope]: k^C_h and the shared turned k^R
    values: np.ndarray  # [h, T, v]
    latent: np.ndarray  # [T, r]: c_KV, what the cache keeps beside k^R
    rotary_key: np.ndarray  # [T, rope]: k^R after its turn
    scores: np.ndarray  # [h, T, T]
    weights: np.ndarray  # [h, T, T]
    concat: np.ndarray  # [T, h · v]
    output: np.ndarray  # [T, d]


NORM_EPS = 1e-6  # the seeded layer's RMSNorm ε for c_KV (DeepSeek-V3's rms_norm_eps)
Product = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _project(
    x: np.ndarray, weights: dict[str, np.ndarray], name: str, product: Product | None = None
) -> np.ndarray:
    w = weights[f"w_{name}"]
    out = x @ w if product is None else product(x, w)
    bias = weights.get(f"b_{name}")
    return out if bias is None else out + bias


def _turned(x: np.ndarray, theta: np.ndarray, interleave: bool, start: int = 0) -> np.ndarray:
    """RoPE on x's pairs at positions start, start + 1, …: (0, 1), (2, 3), … when
    `interleave` (DeepSeek's layout: the even and the odd coordinates gathered into halves,
    then turned as Llama turns them)."""
    # [..., T, rope] -> [..., T, rope]
    if interleave:
        x = np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)
    return rotate(x, start=start, theta=theta)


@dataclass(frozen=True)
class LatentParts:
    """What a latent attention makes of some rows of x: each head's query, and what the
    cache keeps, the latent c_KV and the shared rotary key k^R."""

    queries: np.ndarray  # [h, n, nope + rope]: q^C and the turned q^R side by side
    latent: np.ndarray  # [n, r]: c_KV
    rotary_key: np.ndarray  # [n, rope]: k^R after its turn
    # q^R [h, n, rope] and k^R [n, rope] before their turn (the steps show the turn)
    unturned: tuple[np.ndarray, np.ndarray]


def latent_of(
    x: np.ndarray,
    weights: dict[str, np.ndarray],
    shape: LatentShape,
    norm: Callable[[np.ndarray, np.ndarray], np.ndarray],
    product: Product | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """What x is pressed into: the latent c_KV = RMSNorm(x W^DKV) (kv_a_proj's first r
    columns, normed by kv_a_norm), and the rotary key's part before its turn, x W^KR."""
    # [n, d] -> [n, r], [n, rope]
    compressed = _project(x, weights, "kv_a", product)  # [n, r + rope]
    return norm(compressed[:, : shape.rank], weights["kv_a_norm"]), compressed[:, shape.rank :]


def joined_up(w_uk: np.ndarray, w_uv: np.ndarray, heads: int) -> np.ndarray:
    """W^UK [r, h · d_k] and W^UV [r, h · d_v] as kv_b_proj holds them, one head's W^UK_h
    then W^UV_h, head after head: [r, h · (d_k + d_v)]."""
    rank = len(w_uk)
    per_head = [w.reshape(rank, heads, -1) for w in (w_uk, w_uv)]
    return np.concatenate(per_head, axis=-1).reshape(rank, -1)


@dataclass(frozen=True)
class SeededLatent:
    """What the seeded layer's latent attention makes of x: c_KV, each head's keys and
    values read from it, and with a decoupled rotary key, each head's query beside its
    turned q^R and both rotary parts before their turn (for the steps)."""

    latent: np.ndarray  # [T, r]: c_KV
    keys: np.ndarray  # [h, T, d_k + d_rope]: k^C_h, then the shared turned k^R
    values: np.ndarray  # [h, T, d_v]
    queries: np.ndarray | None = None  # [h, T, d_k + d_rope]: q^C_h, then q^R_h turned
    unturned: tuple[np.ndarray, np.ndarray] | None = None  # q^R [h, T, d_rope], k^R [h, T, d_rope]


def seeded_latent(
    x: np.ndarray,
    params: dict[str, np.ndarray],
    heads: int,
    base: float | None = None,
    theta: np.ndarray | None = None,
    factor: float = 1.0,
) -> SeededLatent:
    """The seeded layer's latent attention (attn selfattn --latent-rank): c_KV =
    RMSNorm(x W^DKV) with weights of ones, and each head's keys and values read back from
    it, from `params`' w_dkv [d, r], w_uk [r, h · d_k] and w_uv [r, h · d_v]. With w_qr [d,
    h · d_rope] and w_kr [d, d_rope] (--positions rope), DeepSeek's decoupled rotary key:
    each head's query gains q^R_h = RoPE(x W^QR_h) and every head's key the one k^R =
    RoPE(x W^KR), turned by `theta` (or base^(−2i/d_rope)) and × `factor`, through the
    model's own latent_parts, W^Q and W^QR joined head by head as q_proj holds them."""
    # [T, d] -> SeededLatent
    from attncli.core.norms import rms_norm

    w_dkv, w_uk, w_uv = params["w_dkv"], params["w_uk"], params["w_uv"]
    shape = seeded_shape(params, heads)
    rank, rope = shape.rank, shape.rope
    weights = {"w_kv_a": w_dkv, "kv_a_norm": np.ones(rank, dtype=w_dkv.dtype),
               "w_kv_b": joined_up(w_uk, w_uv, heads)}  # fmt: skip

    def norm(a: np.ndarray, gamma: np.ndarray) -> np.ndarray:
        return rms_norm(a, gamma, NORM_EPS)

    if not rope:
        latent, _ = latent_of(x, weights, shape, norm)
        keys, values = latent_keys(latent, np.empty((len(x), 0), latent.dtype), weights, shape)
        return SeededLatent(latent, keys, values)
    from attncli.core.rotary import BASE, frequencies

    weights["w_kv_a"] = np.concatenate([w_dkv, params["w_kr"]], axis=1)  # [d, r + d_rope]
    weights["w_q"] = joined_up(params["w_q"], params["w_qr"], heads)  # [d, h · (d_k + d_rope)]
    if "b_q" in params:  # the rotary part has no bias
        no_bias = np.zeros((1, heads * rope), dtype=params["b_q"].dtype)
        weights["b_q"] = joined_up(params["b_q"][None, :], no_bias, heads)[0]
    if theta is None:
        theta = frequencies(rope, BASE if base is None else base)
    parts = latent_parts(x, weights, shape, theta, factor, norm)
    keys, values = latent_keys(parts.latent, parts.rotary_key, weights, shape)
    unturned_query, unturned_key = parts.unturned  # every head's q^R beside the one k^R
    shared = np.broadcast_to(unturned_key, unturned_query.shape)
    return SeededLatent(parts.latent, keys, values, parts.queries, (unturned_query, shared))


def latent_parts(
    x: np.ndarray,
    weights: dict[str, np.ndarray],
    shape: LatentShape,
    theta: np.ndarray,
    factor: float,
    norm: Callable[[np.ndarray, np.ndarray], np.ndarray],
    start: int = 0,
    product: Product | None = None,
) -> LatentParts:
    """The rows x at positions start, start + 1, …: q = x W^Q (or through its own latent,
    W^DQ, its norm, W^UQ), c_KV = RMSNorm(x W^DKV), k^R = RoPE(x W^KR), q^R and k^R turned
    and multiplied by the rotary scaling's attention factor. `product` computes x W
    (default x @ W): the KV cache's replay passes one that sums in a fixed order."""
    # [n, d] -> LatentParts
    s = shape
    count = len(x)
    if "w_q" in weights:
        q = _project(x, weights, "q", product)
    else:
        q_latent = norm(_project(x, weights, "q_a", product), weights["q_a_norm"])
        q = q_latent @ weights["w_q_b"] if product is None else product(q_latent, weights["w_q_b"])
    q = np.swapaxes(q.reshape(count, s.heads, s.nope + s.rope), 0, 1)  # [h, n, nope + rope]
    latent, unturned = latent_of(x, weights, shape, norm, product)
    rotary_key = _turned(unturned, theta, s.interleave, start) * factor
    q_rot = _turned(q[..., s.nope :], theta, s.interleave, start) * factor
    queries = np.concatenate([q[..., : s.nope], q_rot], axis=-1)
    return LatentParts(queries, latent, rotary_key, (q[..., s.nope :], unturned))


def latent_keys(
    latent: np.ndarray,
    rotary_key: np.ndarray,
    weights: dict[str, np.ndarray],
    shape: LatentShape,
    product: Product | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each head's keys and values read back from the latent: k_h = [c_KV W^UK_h, k^R],
    v_h = c_KV W^UV_h (kv_b_proj), k^R shared by every head."""
    # [n, r], [n, rope] -> keys [h, n, nope + rope], values [h, n, v]
    s = shape
    count = len(latent)
    w = weights["w_kv_b"]
    up = latent @ w if product is None else product(latent, w)
    expanded = np.swapaxes(up.reshape(count, s.heads, s.nope + s.v), 0, 1)
    shared = np.broadcast_to(rotary_key, (s.heads, count, s.rope))
    keys = np.concatenate([expanded[..., : s.nope], shared], axis=-1)
    return keys, expanded[..., s.nope :]


def latent_attention(
    x: np.ndarray,
    weights: dict[str, np.ndarray],
    shape: LatentShape,
    theta: np.ndarray,
    factor: float,
    allowed: np.ndarray | None,
    norm: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> LatentRun:
    """MLA on x: `weights` in attn's names, x @ W: w_q (or w_q_a, b_q_a, q_a_norm, w_q_b),
    w_kv_a (and b_kv_a) [d, r + rope], kv_a_norm [r], w_kv_b [r, h · (nope + v)], w_o, b_o;
    `theta` the rotary frequencies of the rope part, `factor` the rotary scaling's
    attention factor; `norm(x, γ)` the model's RMSNorm."""
    # [T, d] -> LatentRun
    s = shape
    count = len(x)
    parts = latent_parts(x, weights, shape, theta, factor, norm)
    queries, latent, rotary_key = parts.queries, parts.latent, parts.rotary_key
    keys, values = latent_keys(latent, rotary_key, weights, shape)
    scores = queries @ np.swapaxes(keys, -1, -2) / s.divisor
    if allowed is not None:
        scores[:, ~allowed] = -np.inf
    attention = softmax(scores)
    concat = np.swapaxes(attention @ values, 0, 1).reshape(count, s.heads * s.v)
    output = _project(concat, weights, "o")
    return LatentRun(queries, keys, values, latent, rotary_key, scores, attention, concat, output)


def absorbed_scores(run: LatentRun, w_kv_b: np.ndarray, shape: LatentShape) -> np.ndarray:
    """The same scores with W^UK absorbed into the query: (q^C_h W^UK_hᵀ) · c_KV + q^R_h ·
    k^R, never expanding the keys (masked cells left as computed)."""
    # -> [h, T, T]
    s = shape
    absorbed = absorbed_queries(run.queries, w_kv_b, shape)  # [h, T, r]
    content = absorbed @ run.latent.T  # [h, T, T]
    position = run.queries[..., s.nope :] @ run.rotary_key.T
    return (content + position) / s.divisor


def absorbed_queries(queries: np.ndarray, w_kv_b: np.ndarray, shape: LatentShape) -> np.ndarray:
    """Each head's query with W^UK absorbed, q^C_h W^UK_hᵀ: r numbers to take a dot product
    with each token's c_KV instead of with its key."""
    # [h, T, nope + rope] -> [h, T, r]
    s = shape
    up_keys = w_kv_b.reshape(s.rank, s.heads, s.nope + s.v)[..., : s.nope]  # [r, h, nope]
    return np.einsum("htn,rhn->htr", queries[..., : s.nope], up_keys)


def seeded_absorbed(
    queries: np.ndarray,
    keys: np.ndarray,
    latent: np.ndarray,
    params: dict[str, np.ndarray],
    divisor: float,
) -> np.ndarray:
    """The seeded layer's scores in the absorbed form: each head's query with W^UK_h folded
    in, ((q^C_h W^UK_hᵀ) · c_KV + q^R_h · k^R) ÷ divisor, from the latent itself (and the
    rotary key the keys end with), never expanding the keys."""
    # [h, T_q, d_k + d_rope], [h, T_k, d_k + d_rope], [T_k, r] -> [h, T_q, T_k]
    d_k = seeded_shape(params, len(queries)).nope
    content = seeded_absorbed_queries(queries, params) @ latent.T
    position = queries[..., d_k:] @ np.swapaxes(keys[..., d_k:], -1, -2)
    return (content + position) / divisor


def seeded_absorbed_queries(queries: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    """The seeded layer's queries with W^UK_h folded in, q^C_h W^UK_hᵀ (absorbed_queries)."""
    # [h, T_q, d_k (+ d_rope)] -> [h, T_q, r]
    heads = len(queries)
    shape = seeded_shape(params, heads)
    return absorbed_queries(queries, joined_up(params["w_uk"], params["w_uv"], heads), shape)


def seeded_shape(params: dict[str, np.ndarray], heads: int) -> LatentShape:
    """The seeded layer's latent sizes, read from its drawn W^DKV, W^UK, W^UV (and W^KR)."""
    rope = params["w_kr"].shape[1] if "w_kr" in params else 0
    rank, d_k, d_v = params["w_dkv"].shape[1], params["w_uk"].shape[1], params["w_uv"].shape[1]
    return LatentShape(heads, d_k // heads, rope, d_v // heads, rank, None, False, 1.0)
