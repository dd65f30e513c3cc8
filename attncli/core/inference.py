"""Attention at inference: the online softmax, a query row through key tiles, the KV cache.

The online softmax reads a row of scores a block at a time and keeps two numbers, the
running maximum m and the running sum ℓ = Σ e^(s − m); when a block raises m, the sum so
far is rescaled by e^(m_old − m_new) (Milakov and Gimelshein (2018), "Online normalizer
calculation for softmax"). FlashAttention (Dao et al. (2022), "FlashAttention: Fast and
Memory-Efficient Exact Attention with IO-Awareness", algorithm 1) does the same to the
output: an accumulator Σ e^(s − m) v rescaled alike, divided by ℓ at the end, so that no
T × T grid is ever held.

At generation a causal layer keeps the keys and values it has computed (the KV cache):
token t brings one new q, k, v, one row of scores against the cached keys, one output
row. The cache grows a token a step, as transformers' DynamicCache does; a sliding
layer's keeps its last W − 1 tokens (DynamicSlidingWindowLayer). Every product here, and
each softmax's sum of powers, is summed in one fixed order (over the inner index, first
to last), the same for one row as for all of them, so that a step's row is row t of the
full causal grid bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OnlineBlocks:
    """The online softmax of a grid of scores, block by block (a leading axis per block)."""

    starts: list[int]  # the first column of each block
    block_max: np.ndarray  # [n_blocks, T_q]: the block's largest score ÷ T
    running_max: np.ndarray  # [n_blocks, T_q]: m after the block
    factor: np.ndarray  # [n_blocks, T_q]: e^(m_old − m_new), what ℓ so far was multiplied by
    block_sum: np.ndarray  # [n_blocks, T_q]: Σ e^(s ÷ T − m_new) over the block
    running_sum: np.ndarray  # [n_blocks, T_q]: ℓ after the block
    weights: np.ndarray  # [T_q, T_k]: e^(s ÷ T − m) ÷ ℓ with the final m and ℓ


def _rescale(old_max: np.ndarray, new_max: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """e^((m_old − m_new) ÷ T), and 1 while both are still −∞ (nothing summed yet)."""
    # [..., T_q], [..., T_q] -> [..., T_q]
    with np.errstate(invalid="ignore", over="ignore"):
        exponent = old_max - new_max
        if temperature != 1.0:
            exponent = exponent / temperature
        factor = np.exp(exponent)
    factor[np.isneginf(new_max)] = 1.0
    return factor


def _shifted_powers(scores: np.ndarray, shift: np.ndarray, temperature: float) -> np.ndarray:
    """e^((s − shift) ÷ T), with −∞ scores at 0 and a −∞ shift (a row masked so far) at 0,
    as attention.softmax computes them (the shift subtracted before the division)."""
    # [T_q, B], [T_q] -> [T_q, B]
    safe = np.where(np.isneginf(shift), 0.0, shift)[:, None]
    with np.errstate(over="ignore"):
        exponent = np.subtract(scores, safe)
        if temperature != 1.0:
            exponent /= temperature
    return np.exp(exponent)


def online_softmax(scores: np.ndarray, block: int, temperature: float = 1.0) -> OnlineBlocks:
    """softmax(scores ÷ T) row by row, reading `block` columns at a time with m and ℓ.

    The maximum is taken of the scores themselves (÷ T is monotonic) and every power is
    e^((s − m) ÷ T), as attention.softmax computes it, so the weights differ from the plain
    softmax only by the order ℓ was summed in: a few units in the last place. A row that is
    all −∞ keeps m = −∞ and ℓ = 0, and its weights are 0, as a fully masked row's are.
    """
    # [T_q, T_k] -> OnlineBlocks
    rows, columns = scores.shape
    starts = list(range(0, columns, block))
    # Each block's max and sum of powers, the full blocks as one [T_q, n, B] array and the
    # last, shorter one alone (each summed over its own columns, as a block read alone is):
    # a Python loop over 10^6 blocks of one score took 21 s, the same numbers.
    whole = columns // block
    parts = [scores[:, : whole * block].reshape(rows, whole, block)] if whole else []
    if whole * block < columns:
        parts.append(scores[:, whole * block :][:, None, :])
    block_max = np.concatenate([part.max(axis=2) for part in parts], axis=1).T  # [n, T_q]
    running_max = np.maximum.accumulate(block_max, axis=0)
    before = np.vstack([np.full((1, rows), -np.inf), running_max[:-1]])
    factor = _rescale(before, running_max, temperature)  # [n, T_q]
    sums, first = [], 0
    for part in parts:  # [T_q, n_part, B] against each block's own m
        shift = running_max[first : first + part.shape[1]].T  # [T_q, n_part]
        sums.append(_shifted_block_powers(part, shift, temperature).sum(axis=2))
        first += part.shape[1]
    block_sum = np.concatenate(sums, axis=1).T  # [n, T_q]
    running_sum = _running_sums(factor, block_sum)
    weights = _shifted_powers(scores, running_max[-1], temperature)
    final = running_sum[-1]
    np.divide(weights, final[:, None], out=weights, where=final[:, None] > 0)
    return OnlineBlocks(starts, block_max, running_max, factor, block_sum, running_sum, weights)


def _shifted_block_powers(blocks: np.ndarray, shift: np.ndarray, temperature: float) -> np.ndarray:
    """_shifted_powers of each block against its own shift: e^((s − m) ÷ T)."""
    # [T_q, n, B], [T_q, n] -> [T_q, n, B]
    safe = np.where(np.isneginf(shift), 0.0, shift)[:, :, None]
    with np.errstate(over="ignore"):
        exponent = np.subtract(blocks, safe)
        if temperature != 1.0:
            exponent /= temperature
    return np.exp(exponent)


def _running_sums(factor: np.ndarray, block_sum: np.ndarray) -> np.ndarray:
    """ℓ after each block: ℓ ← ℓ · e^(m_old − m_new) + the block's sum, in block order (one
    row in Python's floats, the same IEEE products and sums, without numpy's cost a step)."""
    # [n, T_q], [n, T_q] -> [n, T_q]
    sums = np.empty_like(block_sum)
    if block_sum.shape[1] == 1:
        total, column = 0.0, []
        for scale, part in zip(factor[:, 0].tolist(), block_sum[:, 0].tolist(), strict=True):
            total = total * scale + part
            column.append(total)
        sums[:, 0] = column
        return sums
    total_row = np.zeros(block_sum.shape[1])
    for index in range(block_sum.shape[0]):
        total_row = total_row * factor[index] + block_sum[index]
        sums[index] = total_row
    return sums


@dataclass(frozen=True)
class TiledRow:
    """One query row through the key blocks: after each block m, ℓ and the accumulator."""

    starts: list[int]  # the first key of each block
    scores: np.ndarray  # [T_k]: q · k ÷ divisor, −∞ where masked
    running_max: np.ndarray  # [n_blocks]
    factor: np.ndarray  # [n_blocks]: e^(m_old − m_new)
    running_sum: np.ndarray  # [n_blocks]: ℓ
    accumulator: np.ndarray  # [n_blocks, d_v]: Σ e^(s − m) v so far, rescaled
    output: np.ndarray  # [d_v]: the last accumulator ÷ ℓ


def tiled_row(
    query: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float,
    block: int,
    allowed: np.ndarray | None = None,
) -> TiledRow:
    """FlashAttention's inner loop for one query, as the long-input path runs it
    (core.long_inputs.key_tiles, with the running max): scores of a block of keys, m and ℓ
    updated, the output accumulator rescaled by e^(m_old − m_new) and the block's
    e^(s − m) v added; the output is the accumulator ÷ ℓ (zero for a row with every key
    masked)."""
    # [d_k], [T_k, d_k], [T_k, d_v], mask [T_k] -> TiledRow
    from attncli.core.long_inputs import TileBuffers, key_tiles

    buffers = TileBuffers(1, min(block, keys.shape[0]), values.shape[1], np.float64)
    seen: list[np.ndarray] = []
    history: dict[str, list[float]] = {"m": [], "f": [], "l": []}
    accumulators: list[np.ndarray] = []
    output = np.empty((1, values.shape[1]))

    def trace(_start: int, scores: np.ndarray, state: TileBuffers) -> None:
        seen.append(scores[0])
        history["m"].append(float(state.running_max[0, 0]))
        history["f"].append(float(state.factor[0, 0]))
        history["l"].append(float(state.running_sum[0, 0]))
        accumulators.append(output[0].copy())

    with np.errstate(over="ignore"):
        key_tiles(
            np.asarray(query, dtype=np.float64)[None, :],
            np.ascontiguousarray(np.asarray(keys, dtype=np.float64).T),
            np.asarray(values, dtype=np.float64),
            block,
            output,
            buffers,
            divisor=divisor if divisor != 1.0 else None,
            allowed=None if allowed is None else np.asarray(allowed, dtype=bool)[None, :],
            trace=trace,
        )
    return TiledRow(
        list(range(0, keys.shape[0], block)),
        np.concatenate(seen),
        np.array(history["m"]),
        np.array(history["f"]),
        np.array(history["l"]),
        np.array(accumulators),
        output[0],
    )


def tiled_memory(
    length_q: int, length_k: int, tile_q: int, tile_k: int, d_v: int
) -> dict[str, int]:
    """Numbers held at once: the tiled computation's (a Bq × Bk tile of scores, Bq rows of
    m, ℓ and the d_v accumulator) against the plain one's T_q × T_k grid of scores."""
    tile_q, tile_k = min(tile_q, length_q), min(tile_k, length_k)
    return {
        "tile_scores": tile_q * tile_k,
        "running": 2 * tile_q,
        "accumulator": tile_q * d_v,
        "tiled": tile_q * tile_k + 2 * tile_q + tile_q * d_v,
        "grid": length_q * length_k,
    }


def ordered_product(rows: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """rows @ matrix summed over the inner index first to last, whatever the number of rows:
    one row gives bit for bit what it gives among all the rows (a BLAS product does not)."""
    # [..., n], [n, m] -> [..., m]
    total = rows[..., 0, None] * matrix[0]
    for index in range(1, matrix.shape[0]):
        total += rows[..., index, None] * matrix[index]
    return total


def ordered_dots(rows: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Every row · every other row, summed first to last over the shared index."""
    # [..., T_q, d], [..., T_k, d] -> [..., T_q, T_k]
    total = rows[..., :, 0, None] * others[..., None, :, 0]
    for index in range(1, rows.shape[-1]):
        total += rows[..., :, index, None] * others[..., None, :, index]
    return total


def ordered_mix(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """weights @ values summed first to last over the keys: one query row's products at
    once, added by add.accumulate (one by one, in order); a grid's key by key, which keeps
    its memory to the output's size. Both give the same bits."""
    # [..., T_q, T_k], [..., T_k, d_v] -> [..., T_q, d_v]
    if weights.shape[-2] == 1:
        products = weights[..., :, :, None] * values[..., None, :, :]  # [..., 1, T_k, d_v]
        return np.add.accumulate(products, axis=-2)[..., -1, :]
    total = weights[..., :, 0, None] * values[..., None, 0, :]
    for index in range(1, weights.shape[-1]):
        total += weights[..., :, index, None] * values[..., None, index, :]
    return total


def ordered_softmax(scores: np.ndarray) -> np.ndarray:
    """softmax over the last axis, its sum of powers taken first to last: np.sum's order
    depends on the array's shape (from 8 columns it sums in 8 interleaved parts), so a row
    alone and the same row inside a grid could differ in the last bit. -inf weighs 0."""
    # [..., T_k] -> [..., T_k]
    row_max = scores.max(axis=-1, keepdims=True)
    row_max[np.isneginf(row_max)] = 0.0  # a row of nothing but -inf: all 0, not NaN
    powers = np.exp(scores - row_max)
    total = np.add.accumulate(powers, axis=-1)[..., -1:]  # one by one, first to last
    return np.divide(powers, total, out=np.zeros_like(powers), where=total > 0)


@dataclass(frozen=True)
class CacheStep:
    """Token t at generation: its q, k, v, the cache with its row appended, one row out."""

    query: np.ndarray  # [h, d_k]
    key: np.ndarray  # [g, d_k]: one a key/value head (g = h without grouped heads)
    value: np.ndarray  # [g, d_v]
    scores: np.ndarray  # [h, n]: the new row against the n keys read (first..t), ÷ divisor
    weights: np.ndarray  # [h, n]
    mixed: np.ndarray  # [h, d_v]: each head's weights × cached values
    output: np.ndarray  # [d_out]: the heads joined (and through W^O when the layer has it)
    first: int = 0  # the position of the first key read (a sliding window's oldest)
    held: int = 0  # the tokens the cache keeps after the step, for the next one
    # a latent attention's (MLA): what the step writes into the cache instead of k and v,
    # its c_KV [r] and its turned rotary key k^R [rope]; key and value are then what they
    # give each head, [h, nope + rope] and [h, v]
    latent: np.ndarray | None = None
    rotary_key: np.ndarray | None = None


@dataclass(frozen=True)
class LayerReplay:
    """What a model's layer does besides x W: its own q, k, v of a few rows (QK-norm, its
    scaled rotary positions and their attention factor: the forward pass's
    core.transformer.decoder_qkv), its softcap and its learned sinks."""

    # rows [n, d_model] at positions start, start + 1, … -> q [h, n, d_k], k [g, n, d_k],
    # v [g, n, d_v]
    qkv: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
    cap: float | None = None  # the scores softcapped, cap · tanh(s ÷ cap), before the mask
    sinks: np.ndarray | None = None  # [h]: each head's learned sink logit


@dataclass(frozen=True)
class LatentReplay:
    """A latent attention's (MLA) own steps, from core.latent's code, the forward pass's:
    what some rows make (each head's query, the latent c_KV and the rotary key k^R, which
    the cache keeps) and each head's keys and values read back from what the cache holds."""

    # rows [n, d_model] at positions start, … -> q [h, n, d_k], c_KV [n, r], k^R [n, rope]
    parts: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
    # c_KV [n, r], k^R [n, rope] -> keys [h, n, d_k], values [h, n, d_v]
    expand: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def latent_ledger(
    x: np.ndarray, params: dict[str, np.ndarray], divisor: float, replay: LatentReplay
) -> list[CacheStep]:
    """A latent attention replayed token by token: step t makes q_t, c_KV_t and k^R_t from
    x_t alone and appends the latter two to the cache (r + d_rope numbers, never a key or a
    value per head); each head's keys and values are read back from the whole cache, the
    new row scored against them, the values mixed and the heads joined through W^O."""
    # [T, d_model] -> a CacheStep per token
    latents = np.zeros((0, 0))
    rotary = np.zeros((0, 0))
    steps = []
    for t in range(x.shape[0]):
        query, latent, rotary_key = replay.parts(x[t : t + 1], t)  # [h, 1, d], [1, r], [1, rope]
        latents = latent if t == 0 else np.concatenate([latents, latent])
        rotary = rotary_key if t == 0 else np.concatenate([rotary, rotary_key])
        keys, values = replay.expand(latents, rotary)  # [h, t + 1, d_k], [h, t + 1, d_v]
        scores = ordered_dots(query, keys)[:, 0] / divisor  # [h, t + 1]
        weights = ordered_softmax(scores)
        mixed = ordered_mix(weights[:, None, :], values)[:, 0]  # [h, d_v]
        steps.append(CacheStep(query[:, 0], keys[:, t], values[:, t], scores, weights, mixed,
                               _joined_output(mixed, params), 0, t + 1, latent[0],
                               rotary_key[0]))  # fmt: skip
    return steps


def latent_grid(
    x: np.ndarray, params: dict[str, np.ndarray], divisor: float, replay: LatentReplay
) -> CausalGrid:
    """The whole latent attention at once, with the ledger's ordered sums."""
    # [T, d_model] -> CausalGrid
    queries, latent, rotary_key = replay.parts(x, 0)
    keys, values = replay.expand(latent, rotary_key)
    scores = ordered_dots(queries, keys) / divisor
    scores[:, ~np.tril(np.ones((len(x), len(x)), dtype=bool))] = -np.inf
    weights = ordered_softmax(scores)
    mixed = np.moveaxis(ordered_mix(weights, values), 0, 1)  # [T, h, d_v]
    return CausalGrid(scores, weights, _joined_output(mixed, params))


def _projected(x: np.ndarray, params: dict[str, np.ndarray], name: str) -> np.ndarray:
    out = ordered_product(x, params[f"w_{name}"])
    bias = params.get(f"b_{name}")
    return out if bias is None else out + bias


def _heads(matrix: np.ndarray, heads: int) -> np.ndarray:
    # [..., h·d] -> [..., h, d]
    return matrix.reshape(*matrix.shape[:-1], heads, matrix.shape[-1] // heads)


def _joined_output(mixed: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    # [..., h, d_v] -> [..., h·d_v] or [..., d_model] through W^O
    joined = mixed.reshape(*mixed.shape[:-2], -1)
    if "w_o" not in params:
        return joined
    out = ordered_product(joined, params["w_o"])
    return out if params.get("b_o") is None else out + params["b_o"]


def _kv_heads(params: dict[str, np.ndarray], heads: int) -> int:
    """How many heads keep keys and values: W^K's columns over each query head's d_k (fewer
    than the query heads when groups of them share one, as grouped-query attention does)."""
    return params["w_k"].shape[1] // (params["w_q"].shape[1] // heads)


def _shared(matrix: np.ndarray, heads: int, kv_heads: int) -> np.ndarray:
    """Each kv-head's rows repeated for the query heads of its group."""
    # [kv, ...] -> [h, ...]
    return matrix if kv_heads == heads else np.repeat(matrix, heads // kv_heads, axis=0)


def _turned(rows: np.ndarray, start: int, theta: np.ndarray | None) -> np.ndarray:
    """Rows at positions start, start + 1, … turned by rotary positions of frequencies
    `theta` (a Llama-family layer's); the rows themselves without."""
    # [..., T, d] -> [..., T, d]
    if theta is None:
        return rows
    from attncli.core.rotary import rotate

    return rotate(rows, start=start, theta=theta)


def _qkv(
    x: np.ndarray,
    start: int,
    params: dict[str, np.ndarray],
    heads: int,
    theta: np.ndarray | None,
    replay: LayerReplay | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v of the rows x at positions start, …: the model layer's own (`replay`), or
    x W (+ b) turned by `theta`. [n, d_model] -> [h, n, d_k], [g, n, d_k], [g, n, d_v]"""
    if replay is not None:
        return replay.qkv(x, start)
    kv = _kv_heads(params, heads)
    queries = np.moveaxis(_heads(_projected(x, params, "q"), heads), -2, 0)
    keys = np.moveaxis(_heads(_projected(x, params, "k"), kv), -2, 0)
    values = np.moveaxis(_heads(_projected(x, params, "v"), kv), -2, 0)
    return _turned(queries, start, theta), _turned(keys, start, theta), values


def _weighed(scores: np.ndarray, replay: LayerReplay | None) -> np.ndarray:
    """Masked scores' weights, in the ledger's fixed order: with learned sinks, their
    column in the softmax and dropped after it (the forward pass's sink_softmax)."""
    # [h, T_q, T_k] -> [h, T_q, T_k]
    if replay is None or replay.sinks is None:
        return ordered_softmax(scores)
    from attncli.core.transformer import sink_softmax

    return sink_softmax(scores, replay.sinks, ordered_softmax)


def _capped(scores: np.ndarray, replay: LayerReplay | None) -> np.ndarray:
    """The scores softcapped where the layer caps them (the forward pass's own cap)."""
    if replay is None or replay.cap is None:
        return scores
    from attncli.core.transformer import capped

    return capped(scores, replay.cap)


def kept(window: int | None, tokens: int) -> int:
    """The tokens a layer's cache keeps after `tokens` steps, as transformers'
    DynamicSlidingWindowLayer does: every one without a window; with a window W the last
    W − 1, which with the new token make the W a query reads (attn cost's own rule)."""
    from attncli.core.attention_cost import kept as kept_by_cost

    return kept_by_cost(window, tokens)


def cache_ledger(
    x: np.ndarray,
    params: dict[str, np.ndarray],
    heads: int,
    divisor: float,
    theta: np.ndarray | None = None,
    window: int | None = None,
    replay: LayerReplay | None = None,
) -> list[CacheStep]:
    """The causal layer replayed token by token with a KV cache: step t projects x_t alone,
    appends its k and v to the cache, scores q_t against the keys the cache holds and mixes
    their values. The cache holds one key and value per kv-head; a group of query heads
    reads the same one. With rotary frequencies `theta`, q_t and k_t are turned by position
    t before k_t is cached (the cache holds turned keys); a model's layer (`replay`) makes
    its own q, k, v, caps its scores and adds its sinks as its forward pass does. With a
    sliding `window` W, the cache keeps the last W − 1 tokens after each step, as
    transformers' sliding-window cache does, and a step reads those and its own."""
    # [T, d_model], W^Q [d_model, h·d_k], W^K [d_model, g·d_k], W^V [d_model, g·d_v]
    # -> a CacheStep per token
    length = x.shape[0]
    kv = _kv_heads(params, heads)
    d_k = params["w_k"].shape[1] // kv
    d_v = params["w_v"].shape[1] // kv
    key_cache = np.zeros((kv, 0, d_k))
    value_cache = np.zeros((kv, 0, d_v))
    steps = []
    for t in range(length):
        query, key, value = (part[:, 0] for part in _qkv(x[t : t + 1], t, params, heads,
                                                         theta, replay))  # fmt: skip
        read_keys = np.concatenate([key_cache, key[:, None]], axis=1)  # [g, n, d_k]
        read_values = np.concatenate([value_cache, value[:, None]], axis=1)
        keys, values = _shared(read_keys, heads, kv), _shared(read_values, heads, kv)
        scores = _capped(ordered_dots(query[:, None, :], keys)[:, 0] / divisor, replay)
        weights = _weighed(scores[:, None, :], replay)[:, 0]  # [h, n]
        mixed = ordered_mix(weights[:, None, :], values)[:, 0]  # [h, d_v]
        held = kept(window, t + 1)
        key_cache = read_keys[:, read_keys.shape[1] - held :]
        value_cache = read_values[:, read_values.shape[1] - held :]
        steps.append(CacheStep(query, key, value, scores, weights, mixed,
                               _joined_output(mixed, params), t + 1 - keys.shape[1],
                               held))  # fmt: skip
    return steps


@dataclass(frozen=True)
class CausalGrid:
    """The whole causal layer at once, with the same ordered sums as the ledger."""

    scores: np.ndarray  # [h, T, T], −∞ above the diagonal
    weights: np.ndarray  # [h, T, T]
    output: np.ndarray  # [T, d_out]


def causal_grid(
    x: np.ndarray,
    params: dict[str, np.ndarray],
    heads: int,
    divisor: float,
    theta: np.ndarray | None = None,
    window: int | None = None,
    replay: LayerReplay | None = None,
) -> CausalGrid:
    """Every token's q, k, v at once, the T × T causal grid (within `window` when given,
    q and k turned by rotary frequencies `theta` when given, a model layer's own q, k, v,
    softcap and sinks with `replay`), every output row."""
    # [T, d_model] -> CausalGrid
    kv = _kv_heads(params, heads)
    queries, keys, values = _qkv(x, 0, params, heads, theta, replay)
    keys, values = _shared(keys, heads, kv), _shared(values, heads, kv)
    scores = _capped(ordered_dots(queries, keys) / divisor, replay)
    length = x.shape[0]
    seen = np.tril(np.ones((length, length), dtype=bool))
    if window is not None:
        seen &= np.triu(np.ones((length, length), dtype=bool), 1 - window)
    scores[:, ~seen] = -np.inf
    weights = _weighed(scores, replay)
    mixed = np.moveaxis(ordered_mix(weights, values), 0, 1)  # [T, h, d_v]
    return CausalGrid(scores, weights, _joined_output(mixed, params))


def cache_multiplications(
    length: int,
    d_model: int,
    heads: int,
    d_k: int,
    d_v: int,
    w_o: bool,
    kv_heads: int,
    layers: int = 1,
    windows: Sequence[int | None] = (),
) -> dict[str, int]:
    """Multiplications the attention of `layers` layers of one shape does to generate T
    tokens one at a time: with the cache (each step projects its own token and scores one
    row against the t keys it reads, W at most in a sliding layer: `windows`, one a layer)
    and without (each step projects the whole prefix again and computes its t × t grid). A
    model's feed-forward blocks cost the same either way and are not counted."""
    from attncli.core.attention_cost import seen

    projections = d_model * (heads * d_k + kv_heads * (d_k + d_v))
    per_token = projections + (heads * d_v * d_model if w_o else 0)
    each = windows or (None,) * layers
    cached = sum(per_token + heads * seen(window, t) * (d_k + d_v)
                 for window in each for t in range(1, length + 1))  # fmt: skip
    recomputed = sum(t * per_token + heads * t * t * (d_k + d_v) for t in range(1, length + 1))
    return {"cached": cached, "recomputed": len(each) * recomputed}


def cache_numbers(
    layers: int,
    kv_heads: int,
    d_k: int,
    length: int,
    d_v: int | None = None,
    windows: Sequence[int | None] = (),
) -> int:
    """The KV cache's size in numbers: a key and a value per kv-head, layer and token,
    2 · layers · kv-heads · d_k · T (layers · kv-heads · (d_k + d_v) · T when d_v differs).
    With each layer's window (`windows`, None for a full layer), a sliding layer keeps
    min(T, W − 1) tokens (kept), a full one T."""
    per_token = kv_heads * (d_k + (d_k if d_v is None else d_v))
    if windows:
        return per_token * sum(kept(window, length) for window in windows)
    return layers * per_token * length


def online_exercise(seed: int, size: int, block: int) -> tuple[list[str], list[float]]:
    """Tokens and small whole scores (0 to 3) for the online softmax by hand: a later block
    always holds a larger score than the first, so that ℓ is rescaled at least once."""
    from attncli.core.exercise import SENTENCES
    from attncli.core.seeding import generator

    rng = generator(seed, "online softmax")
    sentences = [s.split() for s in SENTENCES if len(s.split()) >= size]
    words = sentences[int(rng.integers(len(sentences)))][:size]
    while True:
        scores = rng.integers(0, 4, size=size)
        if scores[block:].size and scores[block:].max() > scores[:block].max():
            return words, [float(s) for s in scores]
