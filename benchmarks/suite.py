"""How long the test suite takes: the README's test command (`pytest`, every core) and the
quick run (`pytest -m 'not slow'`), each timed end to end as a developer waits for it,
with the load average before and after, the number of tests and pytest's own slowest
ones. The targets: the whole suite within 4 minutes, the quick run within 90 seconds, on a
2-core machine.

    python benchmarks/suite.py [--runs 1] [--slowest 10]

Run it from a checkout whose test extra is installed (pip install -e ".[test]"), on a
machine doing nothing else: the suite uses every core. Python writes its bytecode, as it
does by default, unless --no-bytecode: with PYTHONDONTWRITEBYTECODE set, pytest rewrites
every test file's assertions in every worker on every run (about 9 s of collection
against 2 s) and each `attn` process compiles attncli from source.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# name: (pytest's arguments beyond the configured ones, target in seconds)
RUNS = {
    "pytest": ([], 240.0),
    "pytest -m 'not slow'": (["-m", "not slow"], 90.0),
}
SUMMARY = re.compile(r"(\d+) passed")


def timed(arguments: list[str], slowest: int, bytecode: bool) -> tuple[float, str, list[str]]:
    """One run: its wall time, its closing line and its slowest tests."""
    environment = dict(os.environ)
    if bytecode:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [sys.executable, "-m", "pytest", *arguments, f"--durations={slowest}", "-o",
               "console_output_style=classic"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    lines = done.stdout.splitlines()
    last = lines[-1] if lines else ""
    closing = next((line for line in reversed(lines) if SUMMARY.search(line)), last)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n" + "\n".join(lines[-20:]))
    durations = [line for line in lines if re.match(r"^\d+\.\d+s (call|setup|teardown)", line)]
    return seconds, closing.strip("= "), durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each command")
    parser.add_argument("--slowest", type=int, default=10, help="slowest tests to list")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run with PYTHONDONTWRITEBYTECODE=1 (no .pyc written or reused)",
    )
    options = parser.parse_args()
    bytecode = "not written (PYTHONDONTWRITEBYTECODE=1)" if options.no_bytecode else "written"
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} before; bytecode "
          f"{bytecode}")  # fmt: skip
    print(f"{'command':24} {'wall':>8} {'target':>8}  closing line")
    for name, (arguments, target) in RUNS.items():
        for _ in range(options.runs):
            seconds, closing, durations = timed(arguments, options.slowest, not options.no_bytecode)
            verdict = "ok" if seconds <= target else "over"
            print(f"{name:24} {seconds:7.1f}s {target:7.0f}s  {closing} ({verdict}; load "
                  f"{os.getloadavg()[0]:.2f})")  # fmt: skip
        for line in durations:
            print(f"    {line}")


if __name__ == "__main__":
    main()
