"""What compare-scores found: the sizes it ran at, the counts, the timings, the loop check
and the scaling sweep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from attncli.core import costs
from attncli.core.timing import Timing
from attncli.results.base import Result


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
    # method -> each row's largest weight at initialisation: (mean, least, most)
    peaks: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    # (d_k, largest weight unscaled, scaled) of one seeded row of 6 keys
    draws: list[tuple[int, float, float]] = field(default_factory=list)
    # method -> the spread of a row's scores at initialisation (core.costs.score_spread)
    spreads: dict[str, float] = field(default_factory=dict)

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
                "projected_states": cost.projected,
                "projected_numbers": cost.projected * cost.projected_width,
                "seconds": timing.median,
                "seconds_fastest": timing.fastest,
                "seconds_slowest": timing.slowest,
            }
            if cost.method in self.peaks:
                mean, least, most = self.peaks[cost.method]
                entry["largest_weight_at_init"] = {
                    "mean": mean,
                    "min": least,
                    "max": most,
                    "uniform": 1 / sizes.t_x,
                }
            if cost.method in self.spreads:
                entry["score_spread_at_init"] = self.spreads[cost.method]
            if cost.method in self.loop_checks:
                checked, difference = self.loop_checks[cost.method]
                entry["loop_check"] = {
                    "pairs": checked,
                    "max_difference": difference,
                    "agrees": agrees(difference),
                }
            methods.append(entry)
        fastest = min(entry["seconds"] for entry in methods)
        general = self.timings["general"].median
        for entry in methods:
            entry["ratio_to_general"] = entry["seconds"] / general
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
            "scaling_one_draw": [
                {"d_k": d_k, "largest_weight": unscaled, "largest_weight_scaled": scaled}
                for d_k, unscaled, scaled in self.draws
            ],
            # The lesson's comparison: additive against general.
            "additive_to_general": self.timings["additive"].median / general,
            "additive_slower_than_general": (
                self.timings["additive"].median > self.timings["general"].median
            ),
        }


def agrees(largest_difference: float) -> bool:
    """Loop and matrix form agree to rounding: float64 sums of a few hundred terms."""
    return largest_difference <= 1e-9
