"""Additive against multiplicative scoring as an operation: the size check, the counts,
the timing, the loop check and the scaling sweep, gathered in a Comparison."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial

from attncli.api.scaling import check_d_ks
from attncli.core import costs
from attncli.core.saturation import ONE_ROW, largest_weight
from attncli.core.timing import time_interleaved
from attncli.errors import OptionError, count
from attncli.limits import MAX_REPEAT, check_fits
from attncli.messages import Message, OnSurface, Setting, _
from attncli.results.comparison import Comparison, Sizes

LOOP_CHECK_PAIRS = 10_000  # pairs scored one by one; beyond that a seeded sample
SWEEP_ROWS = 2_000  # random queries per d_k in the scaling sweep


def _peak_numbers(sizes: Mapping[str, int]) -> int:
    """The most float64 numbers held at once: the grids' stage or the sweep's largest d_k."""
    grids = costs.peak_numbers(sizes["--tx"], sizes["--ty"], sizes["--d-h"], sizes["--d-a"])
    return max(grids, costs.sweep_numbers(sizes["--d-k"], 6, SWEEP_ROWS))


def check_sizes(sizes: Sizes, memory: int | None = None) -> None:
    """Refuse sizes below 1, and sizes whose arrays would not fit, before allocating anything."""
    from attncli.settings import Whole, check_range

    # each size 1 or more; the timed runs at most MAX_REPEAT, so a comparison's time is bounded
    ranges = {"t_x": Whole(1), "t_y": Whole(1), "d_h": Whole(1), "d_a": Whole(1),
              "threads": Whole(1), "repeat": Whole(1, MAX_REPEAT)}  # fmt: skip
    for name, whole in ranges.items():
        keyword = {"t_x": "tx", "t_y": "ty"}.get(name, name)
        check_range(Setting(keyword, getattr(sizes, name)), whole)
    check_d_ks(sizes.d_ks, Setting("d_ks", option="--d-k"))
    cores = os.cpu_count() or 1
    if sizes.threads > cores:  # more would be reported, not run
        raise OptionError(
            _("{threads}: this machine has {cores}; give 1 to {most}"),
            threads=Setting("threads", sizes.threads),
            cores=count(cores, "core"),
            most=cores,
        )
    asked = {
        "--tx": sizes.t_x,
        "--ty": sizes.t_y,
        "--d-h": sizes.d_h,
        "--d-a": sizes.d_a,
        "--d-k": max(sizes.d_ks),
    }
    # Each size as the surface that refuses it names it: --d-k 512, the largest of d_ks.
    settings = {option: Setting(option[2:].replace("-", "_")) for option in asked}
    settings["--d-k"] = Setting("d_ks", option="--d-k")
    given = {**{name: getattr(sizes, field) for name, field in
                (("tx", "t_x"), ("ty", "t_y"), ("d_h", "d_h"), ("d_a", "d_a"))},
             "d_ks": list(sizes.d_ks)}  # fmt: skip
    shown = Message(
        "{value}",
        value=OnSurface(
            " ".join(f"{option} {value}" for option, value in asked.items()),
            ", ".join(Setting(name, value).written("python") for name, value in given.items()),
        ),
    )
    check_fits(_peak_numbers, asked, tuple(asked), shown, memory, settings)


def compare(sizes: Sizes, progress: Callable[[str, int, int], None] | None = None) -> Comparison:
    """Count, time and check the four scoring methods, then run the scaling sweep.

    `progress` hears (stage, done, total) as the work goes: the stage under way a phrase key
    of attncli.present.language with its field already in the key's text
    ("progress_loop:additive"), done and total counted in grids scored (the warm-up's,
    every timed repeat's, the two loop checks and the sweep).
    """
    import numpy as np

    methods = costs.compared_names()
    checked_pairwise = costs.looped_names()
    total = len(methods) * (1 + sizes.repeat) + len(checked_pairwise) + 1
    done = 0

    def tell(stage: str, advance: int = 1) -> None:
        nonlocal done
        done += advance
        if progress is not None:
            progress(stage, done, total)

    timing = f"progress_timing:{', '.join(methods)}"
    tell(timing, 0)
    problem = costs.make_problem(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a, sizes.seed)
    # Every method under the same number of BLAS threads: by default one, so that the matrix
    # products of general do not get two cores while additive's tanh runs on one.
    with _thread_limit(sizes.threads):
        grids = {}
        for method in methods:  # the warm-up, whose grids the loop check compares with
            grids[method] = costs.grid(problem, method)
            tell(timing)
        scorers = {method: partial(costs.grid, problem, method) for method in methods}
        timings = time_interleaved(scorers, sizes.repeat, warmup=0, after=lambda _: tell(timing))
    checks = {}
    pairs = costs.check_pairs(sizes.t_x, sizes.t_y, LOOP_CHECK_PAIRS, sizes.seed)
    rows, columns = np.array(pairs).T
    for method in checked_pairwise:
        tell(f"progress_loop:{method}", 0)
        looped = costs.pairwise(problem, method, pairs)
        assert looped is not None
        checks[method] = (len(pairs), float(np.max(np.abs(looped - grids[method][rows, columns]))))
        tell(f"progress_loop:{method}")
    tell("progress_sweep:", 0)
    sweep = [(d_k, *largest_weight(d_k, 6, SWEEP_ROWS, sizes.seed)) for d_k in sizes.d_ks]
    # the same seeded row as attn scaling's
    draws = [(d_k, *largest_weight(d_k, 6, 1, sizes.seed, ONE_ROW)) for d_k in sizes.d_ks]
    tell("progress_sweep:")
    peaks = {method: costs.peak_weights(grids[method]) for method in methods}
    spreads = {method: costs.score_spread(grids[method]) for method in methods}
    return Comparison(
        sizes,
        costs.score_costs(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a),
        timings,
        checks,
        sweep,
        peaks,
        draws,
        spreads,
    )


@contextmanager
def _thread_limit(threads: int) -> Iterator[None]:
    """BLAS and OpenMP limited to `threads` threads inside the block (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):
        yield
