"""Start-up latency of `attn` against the numpy one-liner a course would type instead.

Runs each command N times, interleaved (A, B, C, A, B, C, ...) so that machine noise
falls on all of them alike, and prints the median wall time and the ratio to the
baseline. Targets: --json within 1.5x, --format table within 1.8x.

    python benchmarks/startup.py [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

BASELINE = (
    "import numpy as np; K = np.array([[2, 1], [0, 2], [1, 1]]); s = K @ np.array([1, 0]); "
    "w = np.exp(s) / np.exp(s).sum(); print(s.tolist(), w.round(3).tolist())"
)
TARGETS = {"--json": 1.5, "--format table": 1.8}


def attn_command() -> list[str]:
    """The installed console script, else the module, run by this interpreter's environment."""
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    commands = {
        "numpy one-liner": [sys.executable, "-c", BASELINE],
        "--json": [*attn_command(), "softmax", "2", "0", "1", "--json"],
        "--format table": [*attn_command(), "softmax", "2", "0", "1", "--format", "table"],
    }
    environment = {**os.environ, "COLUMNS": "100"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm the file cache and .pyc files
        subprocess.run(command, check=True, capture_output=True, env=environment)
    for _ in range(args.runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=environment)
            times[name].append(time.perf_counter() - start)
    baseline = statistics.median(times["numpy one-liner"])
    failed = False
    print(f"{'command':<18} {'median':>9} {'ratio':>7} {'target':>7}")
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / baseline
        target = TARGETS.get(name)
        verdict = "" if target is None else ("ok" if ratio <= target else "SLOW")
        failed |= verdict == "SLOW"
        target_text = f"{target:.1f}x" if target else ""
        print(f"{name:<18} {median * 1000:7.1f}ms {ratio:6.2f}x {target_text:>7} {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
