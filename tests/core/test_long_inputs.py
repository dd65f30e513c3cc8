"""The long-input path (core.long_inputs.long_output, which core.selfattn.blocked_output takes from
LONG_CELLS score cells on) against the whole-grid one (attend).

What is held, and how closely:
- a block computed with the row max subtracted (a bias is added, or a row's scores may pass
  shift_free_bound()), as one block of keys that fit one tile, with one BLAS thread: the
  scores, e^(score − max) and the row sums are attend()'s bit for bit (over several tiles
  the running max rescales, to a few units in the last place): with V the identity, the
  output is the weights themselves, and it must equal attend()'s weights exactly (a
  product with 1 and sums with 0 are exact);
- a shift-free block: e^score ÷ Σ e^score, the same function; with V the identity, the
  weights to WEIGHT_ULPS ε (1 + max_j |s_ij|) of the row's largest weight (2.3 at most);
- the output differs because the division by the row sum moves after the mix (a change of
  summation order), because the keys are taken a tile at a time, and, in blocks of other
  sizes or one BLAS thread per block, because BLAS orders a product's sums by the shape it
  is given. A score s_ij summed in another order moves by a few ε |s_ij|, and e^s_ij by as
  much relatively, so the rounding a row can take grows with its scores: per row,
  ‖blocked − attend‖ ≤ ULPS ε (1 + max_j |s_ij|) ‖Σ_j α_ij |v_j|‖, ε the unit in the last
  place of the dtype (norm-wise, a few units in the last place of the row's scale times its
  largest score; 0.84 of the bound at most on an AVX2 machine);
- float32 in is float32 throughout and out; the threads sharing the blocks change no number.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from attncli.core import long_inputs as long
from attncli.core import selfattn as core

ULPS = 4
WEIGHT_ULPS = 8


def _inputs(dtype, tokens=700, width=12, heads=None, seed=3, scale=3.0):
    rng = np.random.default_rng(seed)
    q, k, v = (scale * rng.standard_normal((tokens, width)) for _ in range(3))
    if heads:
        q, k, v = (core.split_heads(a, heads) for a in (q, k, v))
    return q.astype(dtype), k.astype(dtype), v.astype(dtype)


def _mask_and_bias(tokens, seed=4):
    rng = np.random.default_rng(seed)
    allowed = rng.random((tokens, tokens)) > 0.3
    allowed[5] = False  # a row that may look nowhere: zero weights, zero output
    return allowed, rng.standard_normal((tokens, tokens))


def _sizes(whole):
    """1 + max_j |s_ij| per row: the row's largest score (before any mask), whose rounding in
    another summation order moves e^score relatively by as much."""
    queries, keys = (a.astype(np.float64) for a in (whole.queries, whole.keys))
    scores = queries @ np.swapaxes(keys, -1, -2) / whole.divisor
    return 1.0 + np.abs(scores).max(axis=-1)


def _row_ulps(fast, whole):
    """‖fast − whole‖ per row over ε (1 + max_j |s_ij|) ‖Σ_j α_ij |v_j|‖, the scale of the
    row's rounding."""
    scale = np.linalg.norm(
        whole.weights.astype(np.float64) @ np.abs(whole.values.astype(np.float64)), axis=-1
    )
    gap = np.linalg.norm(fast.astype(np.float64) - whole.output.astype(np.float64), axis=-1)
    return gap / np.where(scale > 0, scale, 1.0) / _sizes(whole) / np.finfo(fast.dtype).eps


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("heads", [None, 3])
@pytest.mark.parametrize("divisor", [None, 8.0, 1.7, 1.0])
@pytest.mark.parametrize("masked", [False, True])
def test_the_output_is_the_whole_grids_to_a_few_units_in_the_last_place(
    dtype, heads, divisor, masked
):
    q, k, v = _inputs(dtype, heads=heads)
    allowed, bias = _mask_and_bias(q.shape[-2]) if masked else (None, None)
    whole = core.attend(q, k, v, divisor, allowed, bias)
    for rows in (None, 7, 64):
        fast = long.long_output(q, k, v, divisor, allowed, rows=rows, bias=bias)
        assert fast.dtype == dtype and fast.shape == whole.output.shape
        assert _row_ulps(fast, whole).max() <= ULPS
    if masked:
        assert not fast[..., 5, :].any()  # the row with nothing allowed


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("divisor", [None, 8.0, 1.7])
def test_a_shifted_block_s_scores_and_exponentials_are_the_whole_grids_bit_for_bit(
    monkeypatch, dtype, divisor
):
    q, k, _ = _inputs(dtype, tokens=300, width=64 if divisor is None else 12)
    identity = np.eye(300, dtype=dtype)
    allowed, bias = _mask_and_bias(300)
    monkeypatch.setattr(long, "shift_free_bound", lambda kind: -1.0)  # every row shifted
    for mask, add in ((None, None), (allowed, bias)):
        with threadpool_limits(1, user_api="blas"):  # as long_output multiplies
            weights = core.attend(q, k, identity, divisor, mask, add).weights
        fast = long.long_output(q, k, identity, divisor, mask, rows=300, bias=add)  # one block
        assert np.array_equal(fast, weights)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("divisor", [None, 8.0, 1.7])
def test_shift_free_weights_are_the_whole_grids_to_a_few_units_in_the_last_place(dtype, divisor):
    q, k, _ = _inputs(dtype, tokens=300, width=64 if divisor is None else 12, scale=1.0)
    identity = np.eye(300, dtype=dtype)
    whole = core.attend(q, k, identity, divisor)
    weights = whole.weights
    fast = long.long_output(q, k, identity, divisor, rows=300)
    largest = weights.max(axis=-1, keepdims=True) * _sizes(whole)[:, None]
    assert not np.array_equal(fast, weights)  # the shift-free path was taken
    assert (np.abs(fast - weights) / largest).max() <= WEIGHT_ULPS * np.finfo(dtype).eps


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_past_the_bound_are_shifted_and_huge_scores_stay_finite(dtype):
    """Scores of ±10⁴ (e^score overflows) beside ordinary rows in the same blocks: the
    block with one such row takes the max shift, the others none; all within ULPS."""
    q, k, v = _inputs(dtype, tokens=700, width=12, scale=1.0)
    q[::50] *= dtype(3000.0)  # one row in 50 scores far past the bound
    whole = core.attend(q, k, v)
    for rows in (7, 64):
        fast = long.long_output(q, k, v, rows=rows)
        assert np.isfinite(fast).all()
        assert _row_ulps(fast, whole).max() <= ULPS


def test_threads_change_no_number(monkeypatch):
    q, k, v = _inputs(np.float64, tokens=900, heads=2)
    monkeypatch.setattr(long.os, "sched_getaffinity", lambda _: {0, 1, 2}, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert long.block_threads() == 1
    alone = long.long_output(q, k, v, rows=16)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert long.block_threads() == 3
    assert np.array_equal(long.long_output(q, k, v, rows=16), alone)
    heard: list[tuple[int, int]] = []
    long.long_output(q, k, v, rows=100, progress=lambda *told: heard.append(told))
    assert heard[-1] == (900, 900) and [done for done, _ in heard] == sorted(
        done for done, _ in heard
    )


def test_float32_stays_float32_and_mixed_inputs_compute_in_float64():
    q, k, v = _inputs(np.float32)
    assert long.long_output(q, k, v).dtype == np.float32
    mixed = long.long_output(q.astype(np.float64), k, v.astype(np.float64))
    whole = core.attend(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    assert mixed.dtype == np.float64 and _row_ulps(mixed, whole).max() <= ULPS


def test_block_rows_fit_the_cache_and_the_memory_counted():
    assert long.block_rows(20_000, 8) == 128  # 128 × 20,000 float64 scores: 20 MB
    assert long.block_rows(32_000, 4) == 128
    assert long.block_rows(100_000, 8) == 64  # 128 rows would pass BLOCK_BYTES
    assert long.block_rows(10**8, 8) == long.MIN_BLOCK_ROWS
    for threads in (1, 2, 8, long.MAX_THREADS):  # never more rows than sizes.py counts
        assert threads * long.block_rows(1000, 4, threads) <= 2 * long.BLOCK_ROWS


def test_below_long_cells_the_blocks_are_attends_to_the_bit_and_above_the_long_path(
    monkeypatch,
):
    q, k, v = _inputs(np.float64, tokens=500, heads=2)  # one block of BLOCK_ROWS
    allowed, bias = _mask_and_bias(500)
    whole = core.attend(q, k, v, 1.7, allowed, bias).output
    assert np.array_equal(core.blocked_output(q, k, v, 1.7, allowed, bias=bias), whole)
    monkeypatch.setattr(core, "LONG_CELLS", 2 * 500 * 500)  # 2 heads of 500 × 500: long
    taken = core.blocked_output(q, k, v, 1.7, allowed, bias=bias)
    assert np.array_equal(taken, long.long_output(q, k, v, 1.7, allowed, bias=bias))
    assert not np.array_equal(taken, whole)  # the long path was taken


def test_a_failure_in_a_thread_is_raised_in_the_caller(monkeypatch):
    q, k, v = _inputs(np.float64, tokens=300)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.setattr(long.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)

    def refused(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        long.long_output(q, k, v, rows=16, progress=refused)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("masked", [False, True])
def test_keys_taken_a_tile_at_a_time_add_up_to_the_whole_row(monkeypatch, dtype, masked):
    """Tiles of 256 keys (the least key_tile() gives) over 700: three tiles a row, the last
    one short; a fully masked row still gives zeros."""
    q, k, v = _inputs(dtype, scale=1.0)
    allowed = _mask_and_bias(700)[0] if masked else None
    whole = core.attend(q, k, v, None, allowed)
    monkeypatch.setattr(long, "KEY_TILE_BYTES", 1)
    assert long.key_tile(64, 8) == 256
    fast = long.long_output(q, k, v, None, allowed, rows=64)
    assert _row_ulps(fast, whole).max() <= ULPS
    if masked:
        assert not fast[5].any()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("masked", [False, True])
def test_the_running_max_over_tiles_adds_up_to_the_whole_row(monkeypatch, dtype, masked):
    """Every block shifted (FlashAttention's running max) over tiles of 256 of 700 keys: a
    tile that raises m rescales ℓ and the output so far, and the rows are the whole grid's;
    a bias added too, and a fully masked row gives zeros."""
    q, k, v = _inputs(dtype)
    allowed, bias = _mask_and_bias(700) if masked else (None, None)
    whole = core.attend(q, k, v, None, allowed, bias)
    monkeypatch.setattr(long, "KEY_TILE_BYTES", 1)
    monkeypatch.setattr(long, "shift_free_bound", lambda kind: -1.0)  # every row shifted
    fast = long.long_output(q, k, v, None, allowed, rows=64, bias=bias)
    assert _row_ulps(fast, whole).max() <= ULPS
    if masked:
        assert not fast[5].any()


def test_the_tiled_view_shows_a_row_of_the_long_path_s_own_loop():
    """attn selfattn --tiles: core.inference.tiled_row runs key_tiles on one row, and its
    m, ℓ and accumulator after each tile are that loop's (one code for both)."""
    from attncli.core import inference

    q, k, v = _inputs(np.float64, tokens=40, width=8, scale=1.0)
    row = inference.tiled_row(q[9], k, v, 2.0, 16)
    buffers = long.TileBuffers(1, 16, v.shape[1], np.float64)
    out, sums = np.empty((1, v.shape[1])), []

    def traced(_start, _scores, state):
        sums.append(float(state.running_sum[0, 0]))

    long.key_tiles(q[9:10], np.ascontiguousarray(k.T), v, 16, out, buffers, divisor=2.0,
                   trace=traced)  # fmt: skip
    assert row.starts == [0, 16, 32] and row.running_sum.tolist() == sums
    assert np.array_equal(row.output, out[0])
    # m and ℓ after each tile, by a loop of FlashAttention's algorithm 1 on the plain scores
    scores = [float(np.dot(q[9], key)) / 2.0 for key in k]
    m, total, loop_m, loop_l = -np.inf, 0.0, [], []
    for start in range(0, 40, 16):
        tile = scores[start : start + 16]
        new = max(m, *tile)
        total = total * np.exp(m - new) + sum(np.exp(s - new) for s in tile)
        m = new
        loop_m.append(m)
        loop_l.append(total)
    np.testing.assert_allclose(row.running_max, loop_m, rtol=1e-14)
    np.testing.assert_allclose(row.running_sum, loop_l, rtol=1e-14)
    whole = core.attend(q, k, v, 2.0).output[9]
    assert np.abs(row.output - whole).max() <= 8 * np.finfo(np.float64).eps * np.abs(v).max()
