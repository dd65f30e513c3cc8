"""Start-up latency of `attn` against the numpy one-liner a course would type instead.

Measures an installed copy, as a user has it: the script makes a temporary virtual
environment, `pip install .` into it (bytecode compiled), and runs each command N times
interleaved, the order reversed every other round (A, B, C, C, B, A, ...), so that machine
noise falls on all of them alike. Each command is held against a baseline doing the same
work: softmax against the numpy one-liner, selfattn against a one-liner that computes
self-attention on the sentence (seeded vectors, Q, K, V, the softmax of QK^T/√d and the
output) and prints the weight grid with rich, as attn's table does. It prints each median
and range, the ratio to its baseline and the target, and the load average. OPENBLAS_CORETYPE
and OPENBLAS_L2_SIZE are unset for every command (benchmarks/pairing.py).

    python benchmarks/startup.py [--runs 30] [--python PATH]

--python PATH measures an environment that already has attn installed instead.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairing import clean_env, load, table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASELINE = (
    "import numpy as np; K = np.array([[2, 1], [0, 2], [1, 1]]); s = K @ np.array([1, 0]); "
    "w = np.exp(s) / np.exp(s).sum(); print(s.tolist(), w.round(3).tolist())"
)
SENTENCE = "en las llaves del coche"
SELFATTN_BASELINE = (
    "import numpy as np; from rich.console import Console; from rich.table import Table; "
    f"t = {SENTENCE.split()!r}; d = 8; "
    "x = np.stack([np.random.default_rng(sum(map(ord, w))).normal(size=d) for w in t]); "
    "r = np.random.default_rng(0); q, k, v = (x @ r.uniform(-d**-.5, d**-.5, (d, d)) "
    "for _ in range(3)); s = q @ k.T / np.sqrt(d); a = np.exp(s - s.max(1, keepdims=True)); "
    "a /= a.sum(1, keepdims=True); o = a @ v; g = Table('', *t); "
    "[g.add_row(w, *(f'{c:.3f}' for c in row)) for w, row in zip(t, a)]; "
    "Console(width=100).print(g); print(o.round(3).tolist())"
)
BASELINES = {"softmax": "numpy one-liner", "selfattn": "selfattn one-liner"}
# name: (arguments after `attn`, target ratio to the baseline)
COMMANDS = {
    "softmax --json": (["softmax", "2", "0", "1", "--json"], 1.3),
    "softmax table": (["softmax", "2", "0", "1", "--format", "table"], 1.5),
    "selfattn --json": (["selfattn", SENTENCE, "--json"], 1.15),
    "selfattn table": (["selfattn", SENTENCE, "--format", "table"], 1.15),
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
    commands = {
        "numpy one-liner": [python, "-c", BASELINE],
        "selfattn one-liner": [python, "-c", SELFATTN_BASELINE],
    }
    commands.update({name: [script, *args] for name, (args, _) in COMMANDS.items()})
    environment = {**clean_env(), "COLUMNS": "100"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # the file cache and .pyc files warm
        subprocess.run(command, check=True, capture_output=True, env=environment)
    for round_ in range(runs):
        order = list(commands.items())
        for name, command in order if round_ % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=environment)
            times[name].append(time.perf_counter() - start)
    return times


def report(times: dict[str, list[float]]) -> bool:
    """Print the table; True when every target is met."""
    met = True
    rows = []
    for name, samples in times.items():
        median = statistics.median(samples)
        against = BASELINES.get(name.split()[0], name)
        ratio = median / statistics.median(times[against])
        target = COMMANDS[name][1] if name in COMMANDS else None
        verdict = "" if target is None else ("ok" if ratio <= target else "SLOW")
        met &= verdict != "SLOW"
        rows.append((name, f"{median * 1000:.1f} ms ({min(samples) * 1000:.0f}–"
                     f"{max(samples) * 1000:.0f})", "" if target is None else against,
                     f"{ratio:.2f}×", f"{target:.2f}× {verdict}" if target else ""))  # fmt: skip
    print(table(["command", "median (min–max)", "baseline", "ratio", "target"], rows))
    print(f"{len(next(iter(times.values())))} interleaved rounds; load average {load()}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Example: python benchmarks/startup.py --runs 30 (prints a Markdown table for "
        "docs/performance.md)",
    )
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
