"""attn selfattn on long inputs against a lean numpy + orjson script doing the same work.

For T tokens (an x of T × 8 saved as .npy), times `attn selfattn -i x.npy --json` and
`--format table` against a script that computes the same Q, K, V, score grid, weights
and output in place and writes the same fields with orjson; reports the ratios, the
computation alone (attn's core layer against lean in-place numpy, in this process), the
peak memory in T × T float64 grids, and how the JSON time grows with T (T^2 is the floor:
the grid is T^2 numbers). Then --dtype: `attn selfattn -i x.npy --fields output` at
T = 20,000, d = 64 (row blocks, no T × T grid) in float64 and in float32.

    python benchmarks/long_inputs.py [--tokens 2000,4000,8000] [--dtype-tokens 20000]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

D_MODEL = 8
TARGETS = {"json": 1.3, "table": 1.5, "compute": 1.2, "float32": 0.6}
DTYPE_WIDTH = 64

LEAN = """
import sys, numpy as np, orjson
x = np.load(sys.argv[1])
rng = np.random.default_rng(0)
d = x.shape[1]
w_q, w_k, w_v = (rng.uniform(-d**-0.5, d**-0.5, (d, d)) for _ in range(3))
q, k, v = x @ w_q, x @ w_k, x @ w_v
raw_scores = q @ k.T
scores = raw_scores / np.sqrt(d)
weights = scores - scores.max(axis=1, keepdims=True)
np.exp(weights, out=weights)
weights /= weights.sum(axis=1, keepdims=True)
out = weights @ v
document = {"x": x, "w_q": w_q, "w_k": w_k, "w_v": w_v, "queries": q, "keys": k,
            "values": v, "raw_scores": raw_scores, "scores": scores, "weights": weights,
            "output": out}
sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY))
"""

PEAK = """
import resource, subprocess, sys
with open(sys.argv[1], "wb") as sink:
    subprocess.run(sys.argv[2:], check=True, stdout=sink)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def lean_compute(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray) -> None:
    """The computation alone, as lean as numpy allows: in-place scaling and softmax."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    scores /= np.sqrt(q.shape[1])
    weights = scores - scores.max(axis=1, keepdims=True)
    np.exp(weights, out=weights)
    weights /= weights.sum(axis=1, keepdims=True)
    weights @ v


def compute_ratio(x: np.ndarray) -> tuple[float, float]:
    """Seconds of attn's core layer and of lean_compute on the same X and weights (best of 3)."""
    from attncli.core.selfattn import attention_layer

    rng = np.random.default_rng(0)
    params = {name: rng.standard_normal((x.shape[1], x.shape[1])) for name in ("w_q", "w_k", "w_v")}
    ours, lean = [], []
    for _ in range(3):
        start = time.perf_counter()
        attention_layer(x, x, params)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        lean_compute(x, params["w_q"], params["w_k"], params["w_v"])
        lean.append(time.perf_counter() - start)
    return min(ours), min(lean)


def attn() -> list[str]:
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident bytes of `command`, its output thrown away."""
    start = time.perf_counter()
    peak = subprocess.run(
        [sys.executable, "-c", PEAK, os.devnull, *command],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    ).stdout
    return time.perf_counter() - start, int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", default="2000,4000,8000")
    parser.add_argument("--dtype-tokens", type=int, default=20000)
    arguments = parser.parse_args()
    sizes = [int(t) for t in arguments.tokens.split(",") if t]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for tokens in sizes:
            path = Path(folder) / f"x{tokens}.npy"
            np.save(path, np.random.default_rng(0).standard_normal((tokens, D_MODEL)))
            lean, lean_peak = run([sys.executable, "-c", LEAN, str(path)])
            as_json, json_peak = run([*attn(), "selfattn", "-i", str(path), "--json"])
            table, table_peak = run([*attn(), "selfattn", "-i", str(path), "--format", "table"])
            grid = tokens * tokens * 8
            ours_compute, lean_compute_seconds = compute_ratio(np.load(path))
            rows.append((tokens, lean, as_json, table, lean_peak / grid, json_peak / grid,
                         table_peak / grid, ours_compute / lean_compute_seconds))  # fmt: skip
    print(f"{'T':>6} {'numpy':>8} {'--json':>8} {'ratio':>6} {'table':>8} {'ratio':>6}"
          f" {'compute':>8}   peak in T×T grids: numpy, --json, table")  # fmt: skip
    for tokens, lean, as_json, table, lean_grids, json_grids, table_grids, compute in rows:
        print(
            f"{tokens:>6} {lean:7.2f}s {as_json:7.2f}s {as_json / lean:5.2f}x {table:7.2f}s "
            f"{table / lean:5.2f}x {compute:7.2f}x   "
            f"{lean_grids:.1f}, {json_grids:.1f}, {table_grids:.1f}"
        )
    if len(rows) > 1:
        (t0, _, j0, *_), (t1, _, j1, *_) = rows[0], rows[-1]
        print(f"--json grows as T^{math.log(j1 / j0) / math.log(t1 / t0):.2f} from {t0} to {t1}")
    if arguments.dtype_tokens:
        dtype_row(arguments.dtype_tokens)
    print(
        f"targets: --json within {TARGETS['json']}x of numpy, table within "
        f"{TARGETS['table']}x, the computation alone within {TARGETS['compute']}x, "
        f"float32 within {TARGETS['float32']}x of float64"
    )


def dtype_row(tokens: int) -> None:
    """--fields output at T tokens of d = 64, in float64 and in float32 (best of two each,
    interleaved)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.npy"
        np.save(path, np.random.default_rng(0).standard_normal((tokens, DTYPE_WIDTH)))
        line = [*attn(), "selfattn", "-i", str(path), "--fields", "output"]
        times: dict[str, list[float]] = {"float64": [], "float32": []}
        for _ in range(2):
            for dtype in times:
                times[dtype].append(run([*line, "--dtype", dtype])[0])
    f64, f32 = min(times["float64"]), min(times["float32"])
    print(
        f"T = {tokens}, d = {DTYPE_WIDTH}, --fields output: float64 {f64:.2f}s, "
        f"float32 {f32:.2f}s ({f32 / f64:.2f}x)"
    )


if __name__ == "__main__":
    main()
