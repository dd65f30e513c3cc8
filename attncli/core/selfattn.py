"""Self-attention: one sentence X supplies the queries, the keys and the values.

Q = X W^Q, K = X W^K, V = X W^V; A = softmax(Q K^T / sqrt(d_k)) row by row; out = A V
(Vaswani et al., 2017, eq. 1). With h heads, W^Q, W^K, W^V are split by columns into h
blocks (of d_model / h unless d_k, d_v are chosen), each head attends on its own, the heads
are concatenated and projected by W^O (ibid., section 3.2.2). Biases, cross-attention
(queries from one sequence, keys and values from another) and masks follow torch's
nn.MultiheadAttention, with W stored as d_in × d_out (x @ W; torch keeps W^T).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import aligned, capped, chosen_divisor, softmax, softmax_with_sink
from attncli.core.long_inputs import BLOCK_ROWS, long_output
from attncli.core.seeding import token_vector, uniform_parameter

LONG_CELLS = 1 << 22  # score cells from which blocked_output() takes long_output()
# A batch with more score cells than this is computed a group of sequences at a time (of
# about GROUP_CELLS cells each), so that its progress can be told; the numbers are the same.
BATCH_CELLS = 1 << 24
GROUP_CELLS = 1 << 21


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
    divisor: float = 1.0  # what the scores were divided by
    # Q and K before rotary positions turned them (queries and keys are then the turned ones)
    unrotated: tuple[np.ndarray, np.ndarray] | None = None
    # Q and K before QK-norm RMSNormed them (unrotated, or queries and keys, are the normed)
    unnormed: tuple[np.ndarray, np.ndarray] | None = None
    latent: np.ndarray | None = None  # [T_k, r]: MLA's c_KV, the keys and values read from it


@dataclass(frozen=True)
class Scoring:
    """What this year's layers do between the divided scores and the weights: Gemma 2's
    softcap, cap · tanh(score ÷ cap) after the division and before any bias and mask (as
    transformers' eager attention); gpt-oss' learned sinks, one more column of the softmax
    per head, dropped after it."""

    softcap: float | None = None
    sinks: np.ndarray | None = None  # against a column of the scores: [h, 1, 1] or [1, 1]

    def capped(self, scores: np.ndarray) -> np.ndarray:
        # [..., T_q, T_k] -> [..., T_q, T_k]
        return capped(scores, self.softcap)

    def weights(self, scores: np.ndarray) -> np.ndarray:
        # [..., T_q, T_k] -> [..., T_q, T_k]: rows summing to 1, or to 1 − the sink's share
        return softmax(scores) if self.sinks is None else softmax_with_sink(scores, self.sinks)

    @property
    def plain(self) -> bool:
        return self.softcap is None and self.sinks is None


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


def projection_shapes(
    d_model: int,
    d_k: int,
    d_v: int,
    with_output: bool = False,
    key_widths: tuple[int, int] | None = None,
    latent_rank: int | None = None,
    rotary_key: tuple[int, int] | None = None,
) -> dict[str, tuple[int, int]]:
    """The shapes of W^Q, W^K [d_model, d_k], W^V [d_model, d_v] and, for heads, W^O
    [d_v, d_model]; with `key_widths` (kdim, vdim), W^K [kdim, d_k] and W^V [vdim, d_v];
    with a `latent_rank` r, W^DKV [d_model, r], W^UK [r, d_k] and W^UV [r, d_v] instead of
    W^K and W^V (multi-head latent attention), and with its `rotary_key` (h, d_rope), W^QR
    [d_model, h · d_rope] and W^KR [d_model, d_rope] (the decoupled rotary key)."""
    kdim, vdim = key_widths or (d_model, d_model)
    shapes = {"w_q": (d_model, d_k), "w_k": (kdim, d_k), "w_v": (vdim, d_v)}
    if latent_rank is not None:
        del shapes["w_k"], shapes["w_v"]
        r = latent_rank
        shapes.update(w_dkv=(d_model, r), w_uk=(r, d_k), w_uv=(r, d_v))
        if rotary_key is not None:
            heads, rope = rotary_key
            shapes.update(w_qr=(d_model, heads * rope), w_kr=(d_model, rope))
    if with_output:
        shapes["w_o"] = (d_v, d_model)
    return shapes


def projections(
    seed: int,
    d_model: int,
    d_k: int,
    d_v: int,
    with_output: bool = False,
    key_widths: tuple[int, int] | None = None,
    names: tuple[str, ...] | None = None,
    latent_rank: int | None = None,
    rotary_key: tuple[int, int] | None = None,
) -> dict[str, np.ndarray]:
    """Seeded projections of projection_shapes' shapes, each uniform with variance 1/fan_in
    (fan_in = its rows); only those in `names` when given."""
    shapes = projection_shapes(d_model, d_k, d_v, with_output, key_widths, latent_rank, rotary_key)
    return {
        name: uniform_parameter(seed, name, shape, fan_in=shape[0])
        for name, shape in shapes.items()
        if names is None or name in names
    }


def attend(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None = None,
    allowed: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    scoring: Scoring | None = None,
) -> Attention:
    """softmax(Q K^T / divisor + bias) V, looking only where `allowed` is true (attn's one
    mask convention, from the API down: True where query i may look at key j); the other
    cells are masked (weight 0). `bias` (a float attn_mask's finite part, of the scores'
    shape) is added to the scores before the softmax, as torch adds a float attn_mask.
    `scoring` softcaps the divided scores and adds sinks to the softmax.

    The divisor is √d_k unless given (1 for unscaled scores). A row with every cell masked
    gets zero weights and a zero output (as torch's scaled_dot_product_attention; its
    nn.MultiheadAttention gives NaN there).
    """
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v], mask [T_q, T_k],
    # bias [..., T_q, T_k] -> Attention
    scores = queries @ np.swapaxes(keys, -1, -2)
    divisor = chosen_divisor(keys, divisor)
    if divisor != 1.0:
        scores /= divisor  # in place: the grid is the memory that counts
    scoring = scoring or Scoring()
    scores = scoring.capped(scores)
    if bias is not None:
        scores += bias
    if allowed is not None:
        scores[~aligned(allowed, scores.shape)] = -np.inf
    weights = scoring.weights(scores)
    return Attention(queries, keys, values, scores, weights, weights @ values, divisor=divisor)


def blocked_output(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None = None,
    allowed: np.ndarray | None = None,
    rows: int | None = None,
    bias: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
    scoring: Scoring | None = None,
) -> np.ndarray:
    """softmax(Q K^T / divisor + bias) V computed `rows` queries at a time, so that only
    a rows × T_k block of scores ever exists (per thread): memory O(T·(d + rows)) instead of
    T². `progress` hears (queries done, queries in all) as blocks end.

    Below LONG_CELLS score cells, blocks of BLOCK_ROWS, each computed as attend() computes
    its grid: the same numbers to the bit. From LONG_CELLS on, long_output(): the blocks
    shared among threads, to a few units in the last place of each row; with a softcap or
    sinks (`scoring`), which its tiles do not take, blocks of BLOCK_ROWS still.
    """
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v], mask [T_q, T_k],
    # bias [..., T_q, T_k] -> [..., T_q, d_v]
    cells = int(np.prod(queries.shape[:-1])) * keys.shape[-2]
    scoring = scoring or Scoring()
    if cells >= LONG_CELLS and scoring.plain:
        return long_output(queries, keys, values, divisor, allowed, rows, bias, progress)
    rows = rows or BLOCK_ROWS
    divisor = chosen_divisor(keys, divisor)
    output = np.empty((*queries.shape[:-1], values.shape[-1]), dtype=values.dtype)
    keys_t = np.swapaxes(keys, -1, -2)
    for start in range(0, queries.shape[-2], rows):
        block = queries[..., start : start + rows, :] @ keys_t
        if divisor != 1.0:
            block /= divisor
        block = scoring.capped(block)
        if bias is not None:
            block += bias[..., start : start + rows, :]
        if allowed is not None:
            block[~aligned(allowed[..., start : start + rows, :], block.shape)] = -np.inf
        output[..., start : start + rows, :] = scoring.weights(block) @ values
        if progress is not None:
            progress(min(start + rows, queries.shape[-2]), queries.shape[-2])
    return output


def project(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """x W (+ b): a linear layer with W as d_in × d_out (torch's nn.Linear keeps W^T)."""
    # [T, d_in], [d_in, d_out], [d_out] -> [T, d_out]
    projected = x @ weight
    if bias is not None:
        projected += bias
    return projected


def attend_or_block(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None,
    allowed: np.ndarray | None,
    grids: bool,
    bias: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
    scoring: Scoring | None = None,
) -> Attention:
    """attend(), or with grids false only the output, in row blocks (telling `progress`);
    the score and weight grids are then empty arrays."""
    if grids:
        return attend(queries, keys, values, divisor, allowed, bias, scoring)
    divisor = chosen_divisor(keys, divisor)
    output = blocked_output(queries, keys, values, divisor, allowed, bias=bias, progress=progress,
                            scoring=scoring)  # fmt: skip
    empty = np.empty((0, 0))
    return Attention(queries, keys, values, empty, empty, output, divisor=divisor)


def attend_batch(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None,
    allowed: np.ndarray | None,
    grids: bool,
    bias: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
    scoring: Scoring | None = None,
) -> Attention:
    """attend_or_block() on a batch, its first axis the sequences: in one go when small;
    above BATCH_CELLS score cells, a group of sequences at a time, telling `progress`
    (queries done, queries in all) as it goes. Each sequence is computed exactly as in one
    go (a matrix product per sequence, the softmax row by row): the same numbers."""
    # [B, (h,) T_q, d_k], [B, (h,) T_k, d_k], [B, (h,) T_k, d_v], mask and bias [T_q, T_k]
    # or [B, ...] -> Attention
    sequences, rows = queries.shape[0], queries.shape[-2]
    cells = int(np.prod(queries.shape[1:-1])) * keys.shape[-2]  # score cells per sequence
    if sequences * cells <= BATCH_CELLS:
        return attend_or_block(queries, keys, values, divisor, allowed, grids, bias, progress,
                               scoring)  # fmt: skip
    divisor = chosen_divisor(keys, divisor)
    group = max(1, GROUP_CELLS // max(cells, 1))

    def part(array: np.ndarray | None, start: int) -> np.ndarray | None:
        # a mask or bias of one grid per sequence is cut with them; a shared one is not
        return array if array is None or array.ndim < 3 else array[start : start + group]

    output = np.empty((*queries.shape[:-1], values.shape[-1]), dtype=values.dtype)
    scores = weights = np.empty((0, 0))
    for start in range(0, sequences, group):
        span = slice(start, start + group)
        told = None if progress is None else _within(progress, start, group, sequences, rows)
        q, k, v = (a[span] if a.ndim == queries.ndim else a for a in (queries, keys, values))
        one = attend_or_block(q, k, v, divisor, part(allowed, start), grids, part(bias, start),
                              told, scoring)  # fmt: skip
        if grids and not scores.size:
            scores = np.empty((sequences, *one.scores.shape[1:]), dtype=one.scores.dtype)
            weights = np.empty((sequences, *one.weights.shape[1:]), dtype=one.weights.dtype)
        if grids:
            scores[span], weights[span] = one.scores, one.weights
        output[span] = one.output
        if told is not None:
            told(rows, rows)
    return Attention(queries, keys, values, scores, weights, output, divisor=divisor)


def _within(
    progress: Callable[[int, int], None], start: int, group: int, sequences: int, rows: int
) -> Callable[[int, int], None]:
    """The progress of a group of sequences (its rows done) told as the whole batch's."""
    size = min(group, sequences - start)
    return lambda done, _: progress(start * rows + size * done, sequences * rows)


def split_heads(matrix: np.ndarray, heads: int) -> np.ndarray:
    """The columns of a [T, h * d] matrix as h blocks: [h, T, d] (batch axes kept in front)."""
    # [..., T, h*d] -> [..., h, T, d]
    *lead, rows, width = matrix.shape
    return np.swapaxes(matrix.reshape(*lead, rows, heads, width // heads), -3, -2)


def join_heads(per_head: np.ndarray) -> np.ndarray:
    """The heads side by side again: [h, T, d] to [T, h * d] (batch axes kept in front)."""
    # [..., h, T, d] -> [..., T, h*d]
    *lead, heads, rows, width = per_head.shape
    return np.swapaxes(per_head, -3, -2).reshape(*lead, rows, heads * width)


def head_products(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each head's products Q_h K_hᵀ, before any division: q · k summed over the head's own
    columns, so that the heads' grids add up to the products over all their columns."""
    # [h, T_q, d_k], [h, T_k, d_k] -> [h, T_q, T_k]
    return queries @ np.swapaxes(keys, -1, -2)


def append_row(matrix: np.ndarray, row: np.ndarray) -> np.ndarray:
    """One more row at the end of the token axis, the same for every leading axis."""
    # [..., T, d], [d] -> [..., T + 1, d]
    extra = np.broadcast_to(row.astype(matrix.dtype), (*matrix.shape[:-2], 1, matrix.shape[-1]))
    return np.concatenate([matrix, extra], axis=-2)


def with_extra_keys(
    allowed: np.ndarray | None, bias: np.ndarray | None, extra: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The masks with `extra` key columns at the end that every query may look at, and no
    bias added there: torch pads attn_mask and key_padding_mask so for add_bias_kv's and
    add_zero_attn's keys."""
    # [..., T_q, T_k] -> [..., T_q, T_k + extra]
    if extra and allowed is not None:
        shape = (*allowed.shape[:-1], extra)
        allowed = np.concatenate([allowed, np.ones(shape, dtype=bool)], axis=-1)
    if extra and bias is not None:
        bias = np.concatenate([bias, np.zeros((*bias.shape[:-1], extra))], axis=-1)
    return allowed, bias


def normed_and_turned(
    queries: np.ndarray,
    keys: np.ndarray,
    qk_norm: bool = False,
    rope_base: float | None = None,
    theta: np.ndarray | None = None,
    factor: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, tuple | None, tuple | None]:
    """Q and K as the scores take them: with `qk_norm`, each head's q and k RMSNormed
    (Qwen3's QK-norm, with weights of ones and the models' ε 1e-6); with `rope_base` or the
    frequencies `theta`, turned by their positions (core/rotary.py) and multiplied by a
    rotary scaling's attention `factor`. Also what they were before the turn (None: not
    turned) and before the norm (None: not normed)."""
    # [..., T_q, d_k], [..., T_k, d_k] -> the same, and the pairs before
    unrotated = unnormed = None
    if qk_norm:
        from attncli.core.norms import QK_NORM_EPS, rms_norm

        unnormed = (queries, keys)
        queries, keys = rms_norm(queries, 1.0, QK_NORM_EPS), rms_norm(keys, 1.0, QK_NORM_EPS)
    if rope_base is not None or theta is not None:
        from attncli.core.rotary import BASE, rotate

        base = BASE if rope_base is None else rope_base
        unrotated = (queries, keys)
        queries, keys = rotate(queries, base, theta=theta), rotate(keys, base, theta=theta)
        if factor != 1.0:
            queries, keys = queries * factor, keys * factor
    return queries, keys, unrotated, unnormed


def attention_layer(
    x_q: np.ndarray,
    x_kv: np.ndarray,
    params: dict[str, np.ndarray],
    heads: int | None = None,
    divisor: float | None = None,
    allowed: np.ndarray | None = None,
    grids: bool = True,
    bias: np.ndarray | None = None,
    zero_attn: bool = False,
    x_v: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
    rope_base: float | None = None,
    kv_heads: int | None = None,
    rope_frequencies: np.ndarray | None = None,
    rope_factor: float = 1.0,
    qk_norm: bool = False,
    scoring: Scoring | None = None,
) -> Attention:
    """Multi-head attention as torch's nn.MultiheadAttention computes it.

    Q = x_q W^Q + b_q, K = x_kv W^K + b_k, V = x_kv W^V + b_v (biases optional); with h
    heads the columns of Q, K, V are split into h blocks, each head attends on its own,
    the heads are joined side by side and, when W^O is given, projected: concat W^O + b_o.
    Self-attention is x_q = x_kv; with `x_v` the values come from a sequence of their
    own (x_kv then gives the keys: torch's kdim, vdim). With bias_k and bias_v in `params` (torch's
    add_bias_kv), one learned key and value row is appended after the projection; with
    `zero_attn` (add_zero_attn), a zero key and value row per head after that. The masks
    must already cover those keys (with_extra_keys). With `rope_base`, each head's queries
    and keys are turned by their positions before the score (core/rotary.py); with
    `rope_frequencies` θ_i, by those (a model's, scaled as its config says), and then
    multiplied by the scaling's `rope_factor`; with `qk_norm`, each head's q and k
    RMSNormed first (normed_and_turned). With `scoring`, the scores softcapped and the
    softmax given sinks. With `kv_heads` G, K and V hold G heads, each read by heads / G
    query heads (grouped-query: transformers' repeat_kv, kv head g for query heads g·n …
    g·n + n − 1). With w_dkv, w_uk and w_uv in `params` (and heads), the keys and values
    are read back from a latent c_KV (multi-head latent attention, core/latent.py), and
    with w_qr and w_kr, the decoupled rotary key turned by `rope_frequencies` (or
    `rope_base`'s) beside them.
    """
    # [T_q, d_model], [T_k, d_model], W^Q, W^K [d_model, h·d_k], W^V [d_model, h·d_v],
    # W^O [h·d_v, d_model] -> Attention (with a head axis when heads is given)
    queries = project(x_q, params["w_q"], params.get("b_q"))
    latent = None
    turned = None  # a latent layer's q^R and k^R before their turn
    if "w_dkv" in params and heads is not None:  # MLA: keys and values from the latent c_KV
        from attncli.core.latent import seeded_latent

        mla = seeded_latent(x_kv, params, heads, rope_base, rope_frequencies, rope_factor)
        latent, keys, values, turned = mla.latent, mla.keys, mla.values, mla.unturned
        queries = split_heads(queries, heads) if mla.queries is None else mla.queries
        rope_base = rope_frequencies = None  # turned already: the rotary key's parts alone
    else:
        keys = project(x_kv, params["w_k"], params.get("b_k"))
        values = project(x_kv if x_v is None else x_v, params["w_v"], params.get("b_v"))
        if "bias_k" in params:
            keys = append_row(keys, params["bias_k"])
            values = append_row(values, params["bias_v"])
        if heads is not None:
            queries = split_heads(queries, heads)
            keys, values = (split_heads(a, kv_heads or heads) for a in (keys, values))
    queries, keys, unrotated, unnormed = normed_and_turned(
        queries, keys, qk_norm, rope_base, rope_frequencies, rope_factor
    )
    unrotated = unrotated or turned
    if heads is not None and kv_heads is not None and kv_heads != heads:
        group = heads // kv_heads  # repeat_kv: each key/value head for its group of queries
        keys, values = np.repeat(keys, group, axis=-3), np.repeat(values, group, axis=-3)
        if unrotated is not None:
            unrotated = (unrotated[0], np.repeat(unrotated[1], group, axis=-3))
        if unnormed is not None:
            unnormed = (unnormed[0], np.repeat(unnormed[1], group, axis=-3))
    if zero_attn:
        keys = append_row(keys, np.zeros(keys.shape[-1], dtype=keys.dtype))
        values = append_row(values, np.zeros(values.shape[-1], dtype=values.dtype))
    attend_all = attend_batch if x_q.ndim == 3 else attend_or_block  # a batch: B × T × d
    result = attend_all(queries, keys, values, divisor, allowed, grids, bias, progress, scoring)
    result.unrotated, result.unnormed, result.latent = unrotated, unnormed, latent
    if heads is None:
        return result
    result.concat = join_heads(result.output)  # [T_q, h * d_v]
    result.output = result.concat
    if "w_o" in params:
        result.output = project(result.concat, params["w_o"], params.get("b_o"))
    return result
