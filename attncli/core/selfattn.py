"""Self-attention: one sentence X supplies the queries, the keys and the values.

Q = X W^Q, K = X W^K, V = X W^V; A = softmax(Q K^T / sqrt(d_k)) row by row; out = A V
(Vaswani et al., 2017, eq. 1). With h heads, W^Q, W^K, W^V are split by columns into h
blocks (of d_model / h unless d_k, d_v are chosen), each head attends on its own, the heads
are concatenated and projected by W^O (ibid., section 3.2.2). Biases, cross-attention
(queries from one sequence, keys and values from another) and masks follow torch's
nn.MultiheadAttention, with W stored as d_in × d_out (x @ W; torch keeps W^T).
"""

from __future__ import annotations

import math
import os
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax
from attncli.core.seeding import token_vector, uniform_parameter

BLOCK_ROWS = 512  # at most this many queries per block, in all threads together, when only
# the output is wanted (reading/check/sizes.py counts two such blocks)
BEST_BLOCK_ROWS = 128  # measured, see block_rows()
MIN_BLOCK_ROWS = 16
BLOCK_BYTES = 64 << 20  # the largest block of scores, per thread
KEY_TILE_BYTES = 1 << 20  # a shift-free block's tile of scores, per thread (key_tile())
LONG_CELLS = 1 << 22  # score cells from which blocked_output() takes long_output()
MAX_THREADS = 32
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
) -> dict[str, tuple[int, int]]:
    """The shapes of W^Q, W^K [d_model, d_k], W^V [d_model, d_v] and, for heads, W^O
    [d_v, d_model]; with `key_widths` (kdim, vdim), W^K [kdim, d_k] and W^V [vdim, d_v]."""
    kdim, vdim = key_widths or (d_model, d_model)
    shapes = {"w_q": (d_model, d_k), "w_k": (kdim, d_k), "w_v": (vdim, d_v)}
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
) -> dict[str, np.ndarray]:
    """Seeded projections of projection_shapes' shapes, each uniform with variance 1/fan_in
    (fan_in = its rows); only those in `names` when given."""
    shapes = projection_shapes(d_model, d_k, d_v, with_output, key_widths)
    return {
        name: uniform_parameter(seed, name, shape, fan_in=shape[0])
        for name, shape in shapes.items()
        if names is None or name in names
    }


def chosen_divisor(keys: np.ndarray, divisor: float | None) -> float:
    """The divisor of the scores: the one given, else √d_k (d_k per head)."""
    return float(np.sqrt(keys.shape[-1])) if divisor is None else divisor


def attend(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None = None,
    allowed: np.ndarray | None = None,
    bias: np.ndarray | None = None,
) -> Attention:
    """softmax(Q K^T / divisor + bias) V, looking only where `allowed` is true (attn's one
    mask convention, from the API down: True where query i may look at key j); the other
    cells are masked (weight 0). `bias` (a float attn_mask's finite part, of the scores'
    shape) is added to the scores before the softmax, as torch adds a float attn_mask.

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
    if bias is not None:
        scores += bias
    if allowed is not None:
        scores[~aligned(allowed, scores.shape)] = -np.inf
    weights = softmax(scores)
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
) -> np.ndarray:
    """softmax(Q K^T / divisor + bias) V computed `rows` queries at a time, so that only
    a rows × T_k block of scores ever exists (per thread): memory O(T·(d + rows)) instead of
    T². `progress` hears (queries done, queries in all) as blocks end.

    Below LONG_CELLS score cells, blocks of BLOCK_ROWS, each computed as attend() computes
    its grid: the same numbers to the bit. From LONG_CELLS on, long_output(): the blocks
    shared among threads, to a few units in the last place of each row.
    """
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v], mask [T_q, T_k],
    # bias [..., T_q, T_k] -> [..., T_q, d_v]
    cells = int(np.prod(queries.shape[:-1])) * keys.shape[-2]
    if cells >= LONG_CELLS:
        return long_output(queries, keys, values, divisor, allowed, rows, bias, progress)
    rows = rows or BLOCK_ROWS
    divisor = chosen_divisor(keys, divisor)
    output = np.empty((*queries.shape[:-1], values.shape[-1]), dtype=values.dtype)
    keys_t = np.swapaxes(keys, -1, -2)
    for start in range(0, queries.shape[-2], rows):
        block = queries[..., start : start + rows, :] @ keys_t
        if divisor != 1.0:
            block /= divisor
        if bias is not None:
            block += bias[..., start : start + rows, :]
        if allowed is not None:
            block[~aligned(allowed[..., start : start + rows, :], block.shape)] = -np.inf
        output[..., start : start + rows, :] = softmax(block) @ values
        if progress is not None:
            progress(min(start + rows, queries.shape[-2]), queries.shape[-2])
    return output


def long_output(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    divisor: float | None = None,
    allowed: np.ndarray | None = None,
    rows: int | None = None,
    bias: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """blocked_output() for long inputs, near the machine's limit: the row blocks (of
    block_rows() unless given) shared among block_threads() threads, each multiplying
    with one BLAS thread, so that the exponentials between the products run on every core.

    Most rows need no max subtracted: when Cauchy–Schwarz bounds every score of a row,
    |q_i · k_j| ≤ |q_i| max_j |k_j|, within shift_free_bound() of zero, e^score can neither
    overflow nor leave the normal numbers, and softmax is the same function with or without
    the shift. Such a block is computed over the keys KEY_TILE_BYTES at a time (its scores
    stay in the core's cache): Q K^T into a reused tile, e^x in place, the tile's row sums
    (numpy's pairwise sums: a column of ones beside V would have BLAS add them in a line,
    several units in the last place worse at T = 700) and the tile times V added up; the
    output rows are divided by the sums at the end (T × d divisions instead of T × T_k).
    A block with a row past the bound, or any block when a bias is added, is computed over
    all its keys at once: the row max subtracted, e^x, the sums, the product with V, the
    division (_shifted_block()).

    float32 stays float32 throughout. The output differs from attend()'s by a few units in
    the last place of the row's scale, Σ_j α_ij |v_j|, norm-wise: the division moves after
    the mix, the shift goes, and BLAS orders a product's sums by the shape it is given
    (tests/core/test_long_inputs.py holds it); the threads change no number.
    """
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v], mask [T_q, T_k],
    # bias [..., T_q, T_k] -> [..., T_q, d_v]
    divisor = chosen_divisor(keys, divisor)
    kind = np.float32 if all(a.dtype == np.float32 for a in (queries, keys, values)) else np.float64
    lead, t_q, t_k, d_v = queries.shape[:-2], queries.shape[-2], keys.shape[-2], values.shape[-1]
    output = np.empty((*queries.shape[:-1], d_v), dtype=values.dtype)
    work = output if output.dtype == kind else np.empty(output.shape, dtype=kind)
    scaled = queries.astype(kind, copy=False)
    # ÷ a power of two (√64 = 8) is exact, so it may as well fall on Q; any other divisor
    # divides the block, as attend() does
    exact = divisor != 1.0 and math.frexp(divisor)[0] == 0.5
    if exact:
        scaled = scaled / kind(divisor)
    divided = divisor != 1.0 and not exact
    # K^T laid out row by row (d × T_k per head, O(T) memory): BLAS multiplies it about a
    # third faster than the transposed view of K
    keys_t = np.ascontiguousarray(
        np.broadcast_to(np.swapaxes(keys, -1, -2), (*lead, keys.shape[-1], t_k)), dtype=kind
    )
    values = np.broadcast_to(values.astype(kind, copy=False), (*lead, *values.shape[-2:]))
    shape = (*lead, t_q, t_k)
    masked = None if allowed is None else aligned(allowed, shape)
    added = None if bias is None else np.broadcast_to(bias, shape)
    # [..., T_q]: True where no score of the row can pass the bound, so no shift is needed
    free = np.zeros((*lead, t_q), dtype=bool)
    if added is None:
        largest_key = np.linalg.norm(keys_t, axis=-2).max(axis=-1, initial=0.0)
        bound = np.linalg.norm(scaled, axis=-1) * largest_key[..., None]
        with np.errstate(invalid="ignore", over="ignore"):
            free = bound / (divisor if divided else 1.0) <= shift_free_bound(kind)
    threads = block_threads()
    rows = min(rows or block_rows(t_k, np.dtype(kind).itemsize, threads), max(t_q, 1))
    tile = key_tile(rows, np.dtype(kind).itemsize)
    taken = [(head, start) for start in range(0, t_q, rows) for head in np.ndindex(*lead)]
    threads, blocks = min(threads, len(taken)), iter(taken)
    lock, done = threading.Lock(), [0]
    heads = max(1, int(np.prod(lead)))

    def worker() -> None:
        # per thread, reused for every block it takes: the score tile, the mix and the
        # row sums of a shift-free block, and the whole-row block only if one needs the shift
        tiled = np.empty((rows, min(tile, t_k)), dtype=kind)
        part, total, tile_sums = (
            np.empty(size, kind) for size in ((rows, d_v), (rows, 1), (rows, 1))
        )
        whole: list[np.ndarray] = []
        with np.errstate(over="ignore"):
            while (item := _next_block(blocks, lock)) is not None:
                head, start = item
                span = slice(start, min(start + rows, t_q))
                count = span.stop - start
                if free[head][span].all():
                    mixed, sums = work[head][span], total[:count]
                    for first in range(0, t_k, tile):
                        keys_in = slice(first, min(first + tile, t_k))
                        scores = tiled[:count, : keys_in.stop - first]
                        np.matmul(scaled[head][span], keys_t[head][:, keys_in], out=scores)
                        if divided:
                            scores /= kind(divisor)
                        if masked is not None:
                            np.copyto(scores, -np.inf, where=~masked[head][span, keys_in])
                        np.exp(scores, out=scores)
                        if first == 0:
                            np.sum(scores, axis=1, keepdims=True, out=sums)
                            np.matmul(scores, values[head][keys_in], out=mixed)
                        else:
                            sums += np.sum(scores, axis=1, keepdims=True, out=tile_sums[:count])
                            mixed += np.matmul(scores, values[head][keys_in], out=part[:count])
                    sums[sums == 0.0] = 1.0  # a fully masked row: zero weights, zero output
                    mixed /= sums
                else:
                    if not whole:
                        whole.extend((np.empty((rows, t_k), kind), np.empty((rows, 1), kind)))
                    _shifted_block(
                        scaled[head][span],
                        keys_t[head],
                        values[head],
                        kind(divisor) if divided else None,
                        None if masked is None else masked[head][span],
                        None if added is None else added[head][span],
                        whole[0][:count],
                        whole[1][:count],
                        work[head][span],
                    )
                if progress is not None:
                    with lock:
                        done[0] += count
                        progress(done[0] // heads, t_q)

    from threadpoolctl import threadpool_limits

    # each thread multiplies its own blocks with one BLAS thread (BLAS splitting each
    # product again would only have the threads wait on one another), one thread alone too:
    # the numbers then do not depend on how many threads there are
    with threadpool_limits(1, user_api="blas"):
        if threads <= 1:
            worker()
        else:
            failed: list[BaseException] = []

            def guarded() -> None:
                try:
                    worker()
                except BaseException as error:  # raised in the caller's thread below
                    failed.append(error)

            pool = [threading.Thread(target=guarded) for _ in range(threads)]
            for thread in pool:
                thread.start()
            for thread in pool:
                thread.join()
            if failed:
                raise failed[0]
    if work is not output:
        output[...] = work
    return output


def _shifted_block(
    queries: np.ndarray,
    keys_t: np.ndarray,
    values: np.ndarray,
    divisor: np.floating | None,
    allowed: np.ndarray | None,
    bias: np.ndarray | None,
    scores: np.ndarray,
    total: np.ndarray,
    out: np.ndarray,
) -> None:
    """One block of long_output() over all its keys, the row max subtracted: `scores`
    [rows, T_k] and `total` [rows, 1] are the thread's buffers, `out` [rows, d_v] the rows."""
    np.matmul(queries, keys_t, out=scores)
    if divisor is not None:
        scores /= divisor
    if bias is not None:
        scores += bias
    if allowed is not None:
        np.copyto(scores, -np.inf, where=~allowed)
    np.max(scores, axis=1, keepdims=True, out=total)
    total[np.isneginf(total)] = 0.0  # a fully masked row stays -inf, not NaN
    np.subtract(scores, total, out=scores)
    np.exp(scores, out=scores)
    np.sum(scores, axis=1, keepdims=True, out=total)
    total[total == 0.0] = 1.0  # a fully masked row: zero weights, zero output
    np.matmul(scores, values, out=out)
    out /= total


def shift_free_bound(kind: type[np.floating]) -> float:
    """How far from zero every score of a row may be for softmax without the max
    subtracted: half the exponent's range (354 in float64, 44 in float32), so that T_k
    terms of e^score neither overflow nor fall below the normal numbers."""
    return float(np.log(np.finfo(kind).max)) / 2


def key_tile(rows: int, itemsize: int) -> int:
    """Keys per tile in long_output()'s shift-free blocks: a rows × keys tile of
    KEY_TILE_BYTES, which stays in one core's cache between the product, e^x and the mix
    (measured: 1,024 keys for 128 float64 rows, against 512 and 2,048, at T = 32,000;
    benchmarks/scaling.py --tiles)."""
    return max(256, KEY_TILE_BYTES // (rows * itemsize))


def _next_block(
    blocks: Iterator[tuple[tuple[int, ...], int]], lock: threading.Lock
) -> tuple[tuple[int, ...], int] | None:
    """The next (head index, first row) of a row-blocked computation, taken by one thread."""
    with lock:
        return next(blocks, None)


def block_threads() -> int:
    """Threads for long_output(): as many as BLAS would use (OPENBLAS_NUM_THREADS,
    OMP_NUM_THREADS and the cores this process may run on, at most MAX_THREADS)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        given = os.environ.get(name, "")
        if given.isdigit() and int(given) > 0:
            return max(1, min(int(given), cores or 1))
    return max(1, min(cores or 1, MAX_THREADS))


def block_rows(t_k: int, itemsize: int, threads: int = 1) -> int:
    """Queries per block: BEST_BLOCK_ROWS (measured: the products of a block are most
    efficient near 128 rows at T = 8,000 … 32,000; benchmarks/scaling.py --rows), halved
    while a block of rows × T_k scores passes BLOCK_BYTES, at least MIN_BLOCK_ROWS, and
    never more than the 2 × BLOCK_ROWS rows in all that reading/check/sizes.py counts on."""
    rows = BEST_BLOCK_ROWS
    while rows > MIN_BLOCK_ROWS and (
        rows * t_k * itemsize > BLOCK_BYTES or rows * threads > 2 * BLOCK_ROWS
    ):
        rows //= 2
    return rows


def aligned(allowed: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A mask of [T_q, T_k] or [B, T_q, T_k] broadcast to scores of `shape`: [T_q, T_k],
    [h or B, T_q, T_k] or [B, h, T_q, T_k] (a batch's mask is per sequence)."""
    if allowed.ndim == 3 and len(shape) == 4:
        allowed = allowed[:, None, :, :]
    return np.broadcast_to(allowed, shape)


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
) -> Attention:
    """attend(), or with grids false only the output, in row blocks (telling `progress`);
    the score and weight grids are then empty arrays."""
    if grids:
        return attend(queries, keys, values, divisor, allowed, bias)
    divisor = chosen_divisor(keys, divisor)
    output = blocked_output(queries, keys, values, divisor, allowed, bias=bias, progress=progress)
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
        return attend_or_block(queries, keys, values, divisor, allowed, grids, bias, progress)
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
                              told)  # fmt: skip
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
    `rope_frequencies` θ_i, by those (a model's, scaled as its config says). With
    `kv_heads` G, K and V hold G heads, each read by heads / G query heads (grouped-query:
    transformers' repeat_kv, kv head g for query heads g·n … g·n + n − 1).
    """
    # [T_q, d_model], [T_k, d_model], W^Q, W^K [d_model, h·d_k], W^V [d_model, h·d_v],
    # W^O [h·d_v, d_model] -> Attention (with a head axis when heads is given)
    queries = project(x_q, params["w_q"], params.get("b_q"))
    keys = project(x_kv, params["w_k"], params.get("b_k"))
    values = project(x_kv if x_v is None else x_v, params["w_v"], params.get("b_v"))
    if "bias_k" in params:
        keys, values = append_row(keys, params["bias_k"]), append_row(values, params["bias_v"])
    if heads is not None:
        queries = split_heads(queries, heads)
        keys, values = (split_heads(a, kv_heads or heads) for a in (keys, values))
    unrotated = None
    if rope_base is not None or rope_frequencies is not None:
        from attncli.core.rotary import BASE, rotate

        base = BASE if rope_base is None else rope_base
        unrotated = (queries, keys)
        queries = rotate(queries, base, theta=rope_frequencies)
        keys = rotate(keys, base, theta=rope_frequencies)
    if heads is not None and kv_heads is not None and kv_heads != heads:
        group = heads // kv_heads  # repeat_kv: each key/value head for its group of queries
        keys, values = np.repeat(keys, group, axis=-3), np.repeat(values, group, axis=-3)
        if unrotated is not None:
            unrotated = (unrotated[0], np.repeat(unrotated[1], group, axis=-3))
    if zero_attn:
        keys = append_row(keys, np.zeros(keys.shape[-1], dtype=keys.dtype))
        values = append_row(values, np.zeros(values.shape[-1], dtype=values.dtype))
    attend_all = attend_batch if x_q.ndim == 3 else attend_or_block  # a batch: B × T × d
    result = attend_all(queries, keys, values, divisor, allowed, grids, bias, progress)
    result.unrotated = unrotated
    if heads is None:
        return result
    result.concat = join_heads(result.output)  # [T_q, h * d_v]
    result.output = result.concat
    if "w_o" in params:
        result.output = project(result.concat, params["w_o"], params.get("b_o"))
    return result
