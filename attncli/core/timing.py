"""Wall-clock timing of a function, benchmark-style: warm-up, repeats, median and spread."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Timing:
    """Seconds per call over `runs` timed calls after the warm-up."""

    median: float
    fastest: float
    slowest: float
    runs: int


def time_call(function: Callable[[], object], repeat: int, warmup: int = 1) -> Timing:
    """Call `function` `warmup` times untimed (caches, allocation), then `repeat` times timed."""
    for _ in range(warmup):
        function()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return Timing(statistics.median(samples), min(samples), max(samples), repeat)
