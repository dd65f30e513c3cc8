"""How attn's long-input path grows with T: time, memory, the exponent and the machine's rate.

For T = 1k … 32k (X of T × 64, output only, float64 unless --dtype), each run is a fresh
process computing attn's core layer (attention_layer(..., grids=False), as `attn selfattn
--fields output`), alternated with the baseline of the same work the machine can do: a
float64 matrix product of 4,096 × 4,096 (numpy's BLAS, the same threads) that gives the
machine's measured rate in GFLOP/s. Reported per T: the median (min–max) seconds, the
memory the computation adds to its process (O(T): the output and one block of scores per
thread, never T × T), attn's rate (4 T² d flops) and its fraction of the measured matmul
rate, then the exponent of time against T fitted on the two largest T (2 is the floor) and
the load average. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset on both sides.

--rows 16,32,64,128 times the block sizes at the largest T instead (how
core.long_inputs.BEST_BLOCK_ROWS was chosen), --tiles 512,1024,2048 the keys per tile of a
block (how core.long_inputs.KEY_TILE_BYTES was chosen).

    python benchmarks/scaling.py [--tokens 1000,2000,4000,8000,16000,32000] [--runs 3]
    python benchmarks/scaling.py --tokens 20000 --rows 16,32,64,128
    python benchmarks/scaling.py --tokens 32000 --tiles 512,1024,2048

Target: at T = 32,000, at least 60% of the measured float64 matmul rate.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairing import alternate, clean_env, load, loads_said, run_json, table  # noqa: E402

WIDTH = 64
TARGET = 0.6
MATMUL = 4096

ATTN = f"""
import json, resource, sys, time
import numpy as np
from attncli.core import long_inputs, selfattn
tokens, dtype, rows, tile = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
x = rng.standard_normal((tokens, {WIDTH})).astype(dtype)
w = {{n: (rng.standard_normal(({WIDTH}, {WIDTH})) / {WIDTH} ** 0.5).astype(dtype)
     for n in ("w_q", "w_k", "w_v")}}
if rows:
    long_inputs.BEST_BLOCK_ROWS = rows
if tile:  # keys per tile for a block of BEST_BLOCK_ROWS rows of this dtype
    long_inputs.KEY_TILE_BYTES = tile * long_inputs.BEST_BLOCK_ROWS * np.dtype(dtype).itemsize
selfattn.attention_layer(x[:64], x[:64], w, grids=False)
def peak():  # this process's own high-water mark (ru_maxrss keeps the forking parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
before = peak()
start = time.perf_counter()
selfattn.attention_layer(x, x, w, grids=False)
seconds = time.perf_counter() - start
added = peak() - before
print(json.dumps({{"seconds": seconds, "added": added}}))
"""

MATRIX = f"""
import json, time
import numpy as np
a = np.random.default_rng(0).standard_normal(({MATMUL}, {MATMUL}))
a[:64] @ a
start = time.perf_counter()
a @ a
print(json.dumps({{"seconds": time.perf_counter() - start}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Example: python benchmarks/scaling.py --runs 3 (prints a Markdown table for "
        "docs/performance.md)",
    )
    parser.add_argument("--tokens", default="1000,2000,4000,8000,16000,32000")
    parser.add_argument("--dtype", default="float64")
    parser.add_argument("--runs", type=int, default=3, help="alternating rounds per T")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rows", default="", help="block sizes to time at the largest T")
    parser.add_argument("--tiles", default="", help="keys per tile to time at the largest T")
    arguments = parser.parse_args()
    env = clean_env(arguments.threads)
    sizes = [int(t) for t in arguments.tokens.split(",")]
    print(f"load average before: {load()}; {arguments.threads} threads; "
          "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset")  # fmt: skip

    def attn(tokens: int, rows: int = 0, tile: int = 0):
        command = [sys.executable, "-c", ATTN, str(tokens), arguments.dtype, str(rows), str(tile)]
        return lambda: run_json(command, env)

    def matmul():
        return run_json([sys.executable, "-c", MATRIX], env)

    flops = 2 * MATMUL**3
    if arguments.rows:
        rows = []
        for block in (int(r) for r in arguments.rows.split(",")):
            paired = alternate({"attn": attn(sizes[-1], block), "matmul": matmul}, arguments.runs)
            rows.append((str(block), paired.spread("attn"), loads_said(paired)))
        print(table([f"rows per block, T = {sizes[-1]:,}", "attn", "load"], rows))
        return
    if arguments.tiles:
        rows = []
        for keys in (int(t) for t in arguments.tiles.split(",")):
            timed = attn(sizes[-1], 0, keys)
            paired = alternate({"attn": timed, "matmul": matmul}, arguments.runs)
            rows.append((f"{keys:,}", paired.spread("attn"), loads_said(paired)))
        print(table([f"keys per tile, T = {sizes[-1]:,}", "attn", "load"], rows))
        return
    rows, medians = [], []
    for tokens in sizes:
        paired = alternate({"attn": attn(tokens), "matmul": matmul}, arguments.runs)
        seconds = paired.median("attn")
        medians.append(seconds)
        machine = flops / paired.median("matmul") / 1e9
        rate = 4 * tokens * tokens * WIDTH / seconds / 1e9
        added = max(e["added"] for e in paired.extra["attn"]) / 2**20
        verdict = ("ok" if rate / machine >= TARGET else "under") if tokens >= 32000 else ""
        rows.append((f"{tokens:,}", paired.spread("attn"), f"{added:.0f}", f"{rate:.0f}",
                     f"{machine:.0f}", f"{rate / machine:.0%} {verdict}".strip(),
                     loads_said(paired)))  # fmt: skip
    print(table(["T", "attn (median, min–max)", "memory added, MiB", "attn GFLOP/s",
                 "matmul GFLOP/s", f"fraction (target ≥ {TARGET:.0%} at 32k)", "load"],
                rows))  # fmt: skip
    if len(sizes) > 1:
        exponent = math.log(medians[-1] / medians[-2]) / math.log(sizes[-1] / sizes[-2])
        every = statistics.linear_regression([math.log(t) for t in sizes],
                                             [math.log(s) for s in medians]).slope  # fmt: skip
        print(
            f"time grows as T^{exponent:.2f} from {sizes[-2]:,} to {sizes[-1]:,} "
            f"(T^{every:.2f} fitted over every T); {arguments.dtype}, d = {WIDTH}, "
            f"{arguments.runs} alternating rounds; load average after: {load()}"
        )


if __name__ == "__main__":
    main()
