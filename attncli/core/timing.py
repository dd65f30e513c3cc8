"""Wall-clock timing, benchmark-style: warm-up, repeats, median and spread.

Several functions compared are timed interleaved (A, B, C, A, B, C, …), so that a
machine busy for a moment slows all of them alike instead of one.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

BUSY_SPREAD = 3.0  # slowest > 3 × fastest: the machine was busy, the ratios are unreliable


@dataclass
class Timing:
    """Seconds per call over `runs` timed calls after the warm-up."""

    median: float
    fastest: float
    slowest: float
    runs: int

    @property
    def spread_is_wide(self) -> bool:
        """True when the slowest run took more than BUSY_SPREAD times the fastest."""
        return self.slowest > BUSY_SPREAD * self.fastest


def time_interleaved(
    functions: Mapping[str, Callable[[], object]],
    repeat: int,
    warmup: int = 1,
    after: Callable[[str], None] | None = None,
) -> dict[str, Timing]:
    """Each function warmed up, then timed `repeat` times in turn with the others; `after`
    hears the name of each function as a timed call of it ends (outside the timing)."""
    for function in functions.values():
        for _ in range(warmup):
            function()
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - start)
            if after is not None:
                after(name)
    return {
        name: Timing(statistics.median(times), min(times), max(times), repeat)
        for name, times in samples.items()
    }
