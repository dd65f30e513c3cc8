"""Start-up latency of `attn` against the numpy one-liner a course would type instead.

Measures an installed copy, as a user has it: the script makes a temporary virtual
environment, `pip install .` into it (bytecode compiled), and runs each command N times
interleaved (A, B, C, A, B, C, ...) so that machine noise falls on all of them alike. It
prints the median wall time, the ratio to the baseline and the target.

    python benchmarks/startup.py [--runs 30] [--python PATH]

--python PATH measures an environment that already has attn installed instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = (
    "import numpy as np; K = np.array([[2, 1], [0, 2], [1, 1]]); s = K @ np.array([1, 0]); "
    "w = np.exp(s) / np.exp(s).sum(); print(s.tolist(), w.round(3).tolist())"
)
SENTENCE = "en las llaves del coche"
# name: (arguments after `attn`, target ratio to the baseline)
COMMANDS = {
    "softmax --json": (["softmax", "2", "0", "1", "--json"], 1.3),
    "softmax table": (["softmax", "2", "0", "1", "--format", "table"], 1.5),
    "selfattn --json": (["selfattn", SENTENCE, "--json"], 1.4),
    "selfattn table": (["selfattn", SENTENCE, "--format", "table"], 1.7),
}


def installed_python(directory: str) -> str:
    """A fresh virtual environment in `directory` with this checkout installed in it."""
    subprocess.run([sys.executable, "-m", "venv", directory], check=True)
    python = str(Path(directory) / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
        check=True,
    )
    return python


def measure(python: str, runs: int) -> dict[str, list[float]]:
    """Wall times of every command, interleaved, after one untimed round."""
    script = str(Path(python).parent / "attn")
    commands = {"numpy one-liner": [python, "-c", BASELINE]}
    commands.update({name: [script, *args] for name, (args, _) in COMMANDS.items()})
    environment = {**os.environ, "COLUMNS": "100"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # the file cache and .pyc files warm
        subprocess.run(command, check=True, capture_output=True, env=environment)
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=environment)
            times[name].append(time.perf_counter() - start)
    return times


def report(times: dict[str, list[float]]) -> bool:
    """Print the table; True when every target is met."""
    baseline = statistics.median(times["numpy one-liner"])
    met = True
    print(f"{'command':<18} {'median':>9} {'ratio':>7} {'target':>7}")
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / baseline
        target = COMMANDS[name][1] if name in COMMANDS else None
        verdict = "" if target is None else ("ok" if ratio <= target else "SLOW")
        met &= verdict != "SLOW"
        target_text = f"{target:.1f}x" if target else ""
        print(f"{name:<18} {median * 1000:7.1f}ms {ratio:6.2f}x {target_text:>7} {verdict}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--python", help="an interpreter whose environment has attn installed")
    args = parser.parse_args()
    if args.python:
        return 0 if report(measure(args.python, args.runs)) else 1
    with tempfile.TemporaryDirectory(prefix="attn-startup-") as directory:
        print("installing attn into a temporary environment…", file=sys.stderr)
        return 0 if report(measure(installed_python(directory), args.runs)) else 1


if __name__ == "__main__":
    sys.exit(main())
