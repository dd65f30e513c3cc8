"""Additive against multiplicative scoring: the size check, the counts, the timing, the
loop check and the scaling sweep, gathered in a Comparison (a result like the others)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from attncli.core import costs
from attncli.core.timing import Timing, time_interleaved
from attncli.errors import OptionError
from attncli.limits import check_fits, check_repeat
from attncli.results.base import Result

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attncli.present.format import Format

LOOP_CHECK_PAIRS = 10_000  # pairs scored one by one; beyond that a seeded sample
SWEEP_ROWS = 2_000  # random queries per d_k in the scaling sweep


@dataclass
class Sizes:
    """The options that size the comparison."""

    t_x: int
    t_y: int
    d_h: int
    d_a: int
    seed: int
    repeat: int
    d_ks: list[int] = field(default_factory=lambda: [8, 64, 512])
    threads: int = 1  # BLAS threads every method is timed with


@dataclass(frozen=True, repr=False)
class Comparison(Result):
    """Everything compare-scores found."""

    sizes: Sizes
    costs: list[costs.Cost]
    timings: dict[str, Timing]
    loop_checks: dict[str, tuple[int, float]]  # method -> (pairs checked, largest difference)
    sweep: list[tuple[int, float, float]]  # (d_k, largest weight unscaled, scaled)

    @property
    def busy(self) -> bool:
        """True when some method's runs spread so widely that the ratios are unreliable."""
        return any(timing.spread_is_wide for timing in self.timings.values())

    def __repr__(self) -> str:
        s = self.sizes
        return f"Comparison(tx={s.t_x}, ty={s.t_y}, d_h={s.d_h}, d_a={s.d_a})"

    def to_document(self) -> dict[str, Any]:
        """The JSON document: sizes, per method every figure, the loop check and the sweep."""
        sizes = self.sizes
        methods = []
        for cost in self.costs:
            timing = self.timings[cost.method]
            entry: dict[str, Any] = {
                "method": cost.method,
                "params": cost.params,
                "mult_adds": cost.mult_adds,
                "elementwise": cost.elementwise,
                "tanh": cost.tanh,
                "intermediate_numbers": cost.intermediate_numbers,
                "intermediate_bytes": cost.intermediate_bytes,
                "seconds": timing.median,
                "seconds_fastest": timing.fastest,
                "seconds_slowest": timing.slowest,
            }
            if cost.method in self.loop_checks:
                checked, difference = self.loop_checks[cost.method]
                entry["loop_check"] = {
                    "pairs": checked,
                    "max_difference": difference,
                    "agrees": agrees(difference),
                }
            methods.append(entry)
        fastest = min(entry["seconds"] for entry in methods)
        for entry in methods:
            entry["ratio_to_fastest"] = entry["seconds"] / fastest
        return {
            "tx": sizes.t_x,
            "ty": sizes.t_y,
            "d_h": sizes.d_h,
            "d_a": sizes.d_a,
            "seed": sizes.seed,
            "repeat": sizes.repeat,
            "threads": sizes.threads,
            "busy": self.busy,
            "methods": methods,
            "scaling": [
                {
                    "d_k": d_k,
                    "keys_per_row": 6,
                    "largest_weight": unscaled,
                    "largest_weight_scaled": scaled,
                }
                for d_k, unscaled, scaled in self.sweep
            ],
            "additive_slower_than_general": (
                self.timings["additive"].median > self.timings["general"].median
            ),
        }

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.comparison_view import comparison_view

        return comparison_view(self, fmt)


def parse_dks(text: str) -> list[int]:
    """'8,64,512' to [8, 64, 512], each at least 1."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise OptionError(
            f"--d-k {text!r}: expected whole numbers separated by commas, e.g. 8,64,512",
            f"--d-k {text!r}: se esperan enteros separados por comas, p. ej. 8,64,512",
        ) from None
    if not values or min(values) < 1:
        raise OptionError(
            f"--d-k {text!r}: every d_k must be 1 or more, e.g. 8,64,512",
            f"--d-k {text!r}: cada d_k debe ser 1 o más, p. ej. 8,64,512",
        )
    return values


def _peak_numbers(sizes: Mapping[str, int]) -> int:
    """The most float64 numbers held at once: the grids' stage or the sweep's largest d_k."""
    grids = costs.peak_numbers(sizes["--tx"], sizes["--ty"], sizes["--d-h"], sizes["--d-a"])
    return max(grids, costs.sweep_numbers(sizes["--d-k"], 6, SWEEP_ROWS))


def check_sizes(sizes: Sizes, memory: int | None = None) -> None:
    """Refuse sizes below 1, and sizes whose arrays would not fit, before allocating anything."""
    for name in ("t_x", "t_y", "d_h", "d_a"):
        value = getattr(sizes, name)
        if value < 1:
            option = {"t_x": "tx", "t_y": "ty"}.get(name, name).replace("_", "-")
            raise OptionError(
                f"--{option} is {value}; it must be 1 or more",
                f"--{option} es {value}; debe ser 1 o más",
            )
    check_repeat(sizes.repeat)
    if sizes.threads < 1:
        raise OptionError(
            f"--threads is {sizes.threads}; it must be 1 or more",
            f"--threads es {sizes.threads}; debe ser 1 o más",
        )
    asked = {
        "--tx": sizes.t_x,
        "--ty": sizes.t_y,
        "--d-h": sizes.d_h,
        "--d-a": sizes.d_a,
        "--d-k": max(sizes.d_ks),
    }
    shown = " ".join(f"{option} {value}" for option, value in asked.items())
    check_fits(_peak_numbers, asked, tuple(asked), (shown, shown), memory)


def compare(sizes: Sizes, progress: Callable[[str], None] | None = None) -> Comparison:
    """Count, time and check the four scoring methods, then run the scaling sweep.

    `progress` hears each stage as a phrase key of attncli.present.language, with its fields
    already in the key's text: "progress_timing:additive".
    """
    report = progress or (lambda _: None)
    import numpy as np

    problem = costs.make_problem(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a, sizes.seed)
    report(f"progress_timing:{', '.join(costs.METHODS)}")
    # Every method under the same number of BLAS threads: by default one, so that the matrix
    # products of general do not get two cores while additive's tanh runs on one.
    with _thread_limit(sizes.threads):
        grids = {method: costs.grid(problem, method) for method in costs.METHODS}  # warm-up
        scorers = {method: partial(costs.grid, problem, method) for method in costs.METHODS}
        timings = time_interleaved(scorers, sizes.repeat, warmup=0)
    checks = {}
    pairs = costs.check_pairs(sizes.t_x, sizes.t_y, LOOP_CHECK_PAIRS, sizes.seed)
    rows, columns = np.array(pairs).T
    for method in ("general", "additive"):
        report(f"progress_loop:{method}")
        looped = costs.pairwise(problem, method, pairs)
        checks[method] = (len(pairs), float(np.max(np.abs(looped - grids[method][rows, columns]))))
    report("progress_sweep:")
    sweep = [(d_k, *costs.largest_weight(d_k, 6, SWEEP_ROWS, sizes.seed)) for d_k in sizes.d_ks]
    return Comparison(
        sizes, costs.score_costs(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a), timings, checks, sweep
    )


@contextmanager
def _thread_limit(threads: int) -> Iterator[None]:
    """BLAS and OpenMP limited to `threads` threads inside the block (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):
        yield


def agrees(largest_difference: float) -> bool:
    """Loop and matrix form agree to rounding: float64 sums of a few hundred terms."""
    return largest_difference <= 1e-9
