"""Wall time of attn selfattn on long inputs: a 1,000-token sentence and a 2,000 × 64 x,
each as JSON (every number) and as a terminal table (elided).

    python benchmarks/long_inputs.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def attn() -> list[str]:
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def timed(arguments: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        [*attn(), *arguments], check=True, capture_output=True, env={**os.environ, "COLUMNS": "100"}
    )
    return time.perf_counter() - start, len(result.stdout)


def main() -> None:
    sentence = " ".join(f"palabra{i}" for i in range(1000))
    with tempfile.TemporaryDirectory() as folder:
        x_path = Path(folder) / "x.npy"
        np.save(x_path, np.random.default_rng(0).standard_normal((2000, 64)))
        cases = {
            "1,000-token sentence, --json": ["selfattn", sentence, "--json"],
            "1,000-token sentence, table": ["selfattn", sentence, "--format", "table"],
            "2,000 × 64 x, --json": ["selfattn", "-i", str(x_path), "--json"],
            "2,000 × 64 x, table": ["selfattn", "-i", str(x_path), "--format", "table"],
        }
        for name, arguments in cases.items():
            seconds, size = timed(arguments)
            print(f"{name:<32} {seconds:6.2f} s  {size / 1e6:8.1f} MB of output")


if __name__ == "__main__":
    main()
