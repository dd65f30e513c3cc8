"""Long inputs near the machine's limit: softmax(Q K^T / divisor + bias) V for the output
alone, in blocks of queries shared among threads, each with one BLAS thread; most blocks
without the row max (shift_free_bound()) and over the keys a cache-sized tile at a time.
core.selfattn.blocked_output() takes this path from LONG_CELLS score cells on; the
numbers it holds to are in long_output()'s docstring and tests/core/test_long_inputs.py."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator

import numpy as np

from attncli.core.attention import aligned, chosen_divisor

BLOCK_ROWS = 512  # at most this many queries per block, in all threads together, when only
# the output is wanted (reading/check/sizes.py counts two such blocks)
BEST_BLOCK_ROWS = 128  # measured, see block_rows()
MIN_BLOCK_ROWS = 16
BLOCK_BYTES = 64 << 20  # rows × T_k scores past this halve block_rows() (measured with it)
KEY_TILE_BYTES = 1 << 20  # a block's tile of scores, per thread (key_tile())
MAX_THREADS = 32


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

    Each block is FlashAttention's loop, key_tiles(): the keys KEY_TILE_BYTES at a time
    (a tile of scores stays in the core's cache), Q K^T into a reused tile, e^x in place,
    the tile's row sums (numpy's pairwise sums: a column of ones beside V would have BLAS
    add them in a line, several units in the last place worse at T = 700) and the tile
    times V added up; the output rows are divided by the sums at the end (T × d divisions
    instead of T × T_k). Most blocks need no running max: when Cauchy–Schwarz bounds every
    score of a row, |q_i · k_j| ≤ |q_i| max_j |k_j|, within shift_free_bound() of zero,
    e^score can neither overflow nor leave the normal numbers, and softmax is the same
    function with or without the shift. A block with a row past the bound, or any block
    when a bias is added, keeps the running max and rescales, as attn selfattn --tiles
    shows it.

    float32 stays float32 throughout. The output differs from attend()'s by a few units in
    the last place of the row's scale, Σ_j α_ij |v_j|, norm-wise, times 1 + the row's
    largest |score| (a score summed in another order moves by a few ε of its size, and
    e^score as much relatively): the division moves after the mix, the shift goes, and
    BLAS orders a product's sums by the shape it is given (tests/core/test_long_inputs.py
    holds it); the threads change no number.
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
        # per thread, reused for every block it takes: the score tile, the mix of a tile,
        # and a row's m and ℓ
        buffers = TileBuffers(rows, min(tile, t_k), d_v, kind)
        with np.errstate(over="ignore"):
            while (item := _next_block(blocks, lock)) is not None:
                head, start = item
                span = slice(start, min(start + rows, t_q))
                count = span.stop - start
                key_tiles(
                    scaled[head][span],
                    keys_t[head],
                    values[head],
                    tile,
                    work[head][span],
                    buffers,
                    divisor=kind(divisor) if divided else None,
                    allowed=None if masked is None else masked[head][span],
                    bias=None if added is None else added[head][span],
                    # no max to subtract where Cauchy–Schwarz bounds every score of the rows
                    shift=not free[head][span].all(),
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


class TileBuffers:
    """One thread's buffers for key_tiles(), reused for every block it takes: a tile of
    scores [rows, tile], a tile's mix [rows, d_v], and per row m, ℓ, a tile's sum and the
    rescaling factor [rows, 1]."""

    def __init__(self, rows: int, tile: int, d_v: int, kind: type[np.floating]) -> None:
        self.scores = np.empty((rows, tile), dtype=kind)
        self.part = np.empty((rows, d_v), dtype=kind)
        self.running_max, self.running_sum, self.tile_sum, self.factor = (
            np.empty((rows, 1), dtype=kind) for _ in range(4)
        )


def key_tiles(
    queries: np.ndarray,
    keys_t: np.ndarray,
    values: np.ndarray,
    tile: int,
    out: np.ndarray,
    buffers: TileBuffers,
    *,
    divisor: np.floating | float | None = None,
    allowed: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    shift: bool = True,
    trace: Callable[[int, np.ndarray, TileBuffers], None] | None = None,
) -> None:
    """FlashAttention's loop (Dao et al. 2022, algorithm 1) for a block of query rows: the
    keys `tile` at a time, the scores Q K^T ÷ divisor (+ bias, −∞ where not allowed) of a
    tile, e^(s − m), ℓ += their sum and the accumulator (`out`) += e^(s − m) V; at the end
    the accumulator ÷ ℓ (zero for a row with every key masked). With `shift`, m is the
    running max and a tile that raises it rescales ℓ and the accumulator by e^(m_old − m);
    without, m stays 0 and nothing is rescaled, which the caller may ask only where every
    score is bounded within shift_free_bound(). `trace(start, scores, buffers)` sees each
    tile's scores before e^x and m, ℓ, the factor and `out` after it (attn selfattn
    --tiles shows one row's). One code for the long-input path and the tiled view.
    """
    # [R, d_k], [d_k, T_k], [T_k, d_v] -> out [R, d_v]; allowed, bias [R, T_k]
    count, t_k = queries.shape[0], keys_t.shape[1]
    running_max, running_sum = buffers.running_max[:count], buffers.running_sum[:count]
    tile_sum, factor = buffers.tile_sum[:count], buffers.factor[:count]
    running_max.fill(-np.inf if shift else 0.0)
    running_sum.fill(0.0)
    factor.fill(1.0)
    out.fill(0.0)
    for first in range(0, t_k, tile):
        keys_in = slice(first, min(first + tile, t_k))
        scores = buffers.scores[:count, : keys_in.stop - first]
        np.matmul(queries, keys_t[:, keys_in], out=scores)
        if divisor is not None:
            scores /= divisor
        if bias is not None:
            scores += bias[:, keys_in]
        if allowed is not None:
            np.copyto(scores, -np.inf, where=~allowed[:, keys_in])
        seen = None if trace is None else scores.copy()
        if shift:
            new_max = np.maximum(running_max, scores.max(axis=1, keepdims=True))
            with np.errstate(invalid="ignore"):  # −∞ − −∞: a row masked so far
                np.subtract(running_max, new_max, out=factor)
            np.exp(factor, out=factor)
            factor[np.isneginf(new_max)] = 1.0  # nothing summed yet
            running_max[...] = new_max
            # a row every key of which is masked so far subtracts 0: its powers stay 0
            np.subtract(scores, np.where(np.isneginf(new_max), 0.0, new_max), out=scores)
            running_sum *= factor
            out *= factor
        np.exp(scores, out=scores)
        running_sum += np.sum(scores, axis=1, keepdims=True, out=tile_sum)
        out += np.matmul(scores, values[keys_in], out=buffers.part[:count])
        if trace is not None:
            assert seen is not None
            trace(first, seen, buffers)
    running_sum[running_sum == 0.0] = 1.0  # a fully masked row: zero weights, zero output
    out /= running_sum


def shift_free_bound(kind: type[np.floating]) -> float:
    """How far from zero every score of a row may be for softmax without the max
    subtracted: half the exponent's range (354 in float64, 44 in float32), so that T_k
    terms of e^score neither overflow nor fall below the normal numbers."""
    return float(np.log(np.finfo(kind).max)) / 2


def key_tile(rows: int, itemsize: int) -> int:
    """Keys per tile in long_output()'s blocks: a rows × keys tile of
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
