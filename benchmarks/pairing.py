"""What every benchmark here shares: paired, alternating runs of attn and its baseline.

Each benchmark runs attn and a baseline doing the same work in fresh processes, A B, B A,
A B … (the order flipped each round, so that a slow moment of a shared machine falls on
both sides alike), and reports each side's median and range and the ratio of the pairs'
medians with the range of the per-pair ratios. The machine's load average is read before
and after, and printed beside the figures.

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from both sides' environment: some
machines set them for old OpenBLAS builds, they slow a current numpy's bundled OpenBLAS and
not torch (which brings its own BLAS), and a user's machine has neither.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def clean_env(threads: int | None = None, **extra: str) -> dict[str, str]:
    """This environment without UNSET, and with `threads` BLAS and OpenMP threads if given."""
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    if threads:
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    env.update(extra)
    return env


def load() -> str:
    """The 1-minute load average and the cores, as `uptime` says them."""
    return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def run_json(command: Sequence[str], env: dict[str, str]) -> dict:
    """Run a child that prints one JSON object on its last line; that object."""
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"a benchmark's child failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def process_figures(command: Sequence[str], env: dict[str, str]) -> dict:
    """One fresh process, its output thrown away: its wall time ("seconds"), its CPU time
    (user + system) and its peak memory (max RSS, bytes)."""
    import time

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env)  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        assert process.stderr is not None
        sys.exit(f"{' '.join(command)} failed:\n{process.stderr.read().decode()}")
    return {"seconds": elapsed, "cpu": usage.ru_utime + usage.ru_stime,
            "memory": usage.ru_maxrss * 1024}  # fmt: skip


@dataclass
class Paired:
    """Each side's figures over the rounds, in the order they ran."""

    names: tuple[str, str]
    seconds: dict[str, list[float]] = field(default_factory=dict)
    extra: dict[str, list[dict]] = field(default_factory=dict)
    loads: list[float] = field(default_factory=list)

    def median(self, name: str) -> float:
        return statistics.median(self.seconds[name])

    def ratio(self) -> tuple[float, float, float]:
        """attn / baseline: the ratio of medians, and the smallest and largest pair's."""
        ours, theirs = (self.seconds[name] for name in self.names)
        pairs = [a / b for a, b in zip(ours, theirs, strict=True)]
        return self.median(self.names[0]) / self.median(self.names[1]), min(pairs), max(pairs)

    def spread(self, name: str) -> str:
        """`median (min–max)` in seconds."""
        times = self.seconds[name]
        return f"{self.median(name):.2f} s ({min(times):.2f}–{max(times):.2f})"


def alternate(sides: dict[str, Callable[[], dict]], runs: int, progress: bool = True) -> Paired:
    """Run the two sides `runs` times each, the order flipped each round; each side returns a
    dict with at least "seconds"."""
    names = tuple(sides)
    assert len(names) == 2
    paired = Paired(names)  # type: ignore[arg-type]
    for name in names:
        paired.seconds[name], paired.extra[name] = [], []
    for round_ in range(runs):
        paired.loads.append(os.getloadavg()[0])
        order = names if round_ % 2 == 0 else names[::-1]
        for name in order:
            figures = sides[name]()
            paired.seconds[name].append(figures["seconds"])
            paired.extra[name].append(figures)
        if progress:
            print(
                f"  round {round_ + 1}/{runs}: "
                + ", ".join(f"{name} {paired.seconds[name][-1]:.2f} s" for name in names),
                file=sys.stderr,
            )
    paired.loads.append(os.getloadavg()[0])
    return paired


def loads_said(paired: Paired) -> str:
    return f"{min(paired.loads):.1f}–{max(paired.loads):.1f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, ready for docs/performance.md."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
