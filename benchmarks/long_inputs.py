"""Long inputs: attn's output-only self-attention against torch's scaled_dot_product_attention.

For each T and dtype, a fresh process per run computes Q = X W^Q, K = X W^K, V = X W^V and
softmax(Q K^T / √d) V for X of T × 64 (the same seeded X and W on both sides), output only:
attn through its core layer (attention_layer(..., grids=False), which `attn selfattn
--fields output` runs), torch through F.scaled_dot_product_attention on 4-D tensors
[1, 1, T, 64] (given 3-D tensors, torch falls back to its plain path, which holds T × T
grids). Both sides get the same threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and
torch.set_num_threads), OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (benchmarks/pairing.py),
and alternate over --runs rounds. Reported: each side's median (min–max) seconds of the
computation, the ratio of medians (min–max of the pairs), attn's rate in GFLOP/s (4 T² d
flops) and the memory each computation adds to its process (O(T) for both).

torch is a baseline only, never a dependency of attn: run this with a Python that has
both, e.g.

    python3 -m venv ../bench-venv
    ../bench-venv/bin/pip install torch==2.13.0 numpy orjson typer rich threadpoolctl
    ../bench-venv/bin/pip install --no-deps -e .
    ../bench-venv/bin/python benchmarks/long_inputs.py --tokens 20000,32000 --runs 5

Targets: attn / torch ≤ 0.9 at T = 20,000 and 32,000, in float64 and in float32.

--parts also says where attn's time goes: a fresh process runs the long path's steps on one
thread, block after block and tile after tile as core.long_inputs.key_tiles takes them
(the shift-free loop), and times each kind of step in CPU seconds: the two products
(Q K^T of a tile, and the tile's weights times V), e^x in place and the row sums. Their
total is attn's CPU time for the whole computation; beside it, torch's whole CPU time
from the paired rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairing import alternate, clean_env, load, loads_said, run_json, table  # noqa: E402

WIDTH = 64
TARGET = 0.9

SETUP = f"""
import json, resource, sys, time
import numpy as np
tokens, dtype, threads = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(0)
x = rng.standard_normal((tokens, {WIDTH})).astype(dtype)
w = {{n: (rng.standard_normal(({WIDTH}, {WIDTH})) / {WIDTH} ** 0.5).astype(dtype)
     for n in ("w_q", "w_k", "w_v")}}
def peak():  # this process's own high-water mark (ru_maxrss keeps the forking parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
"""

ATTN = (
    SETUP
    + """
from attncli.core import selfattn
from attncli.core.selfattn import attention_layer
if sys.argv[4] == "blocks":  # every input in blocks of 512 as attend() computes them
    selfattn.LONG_CELLS = 1 << 62
attention_layer(x[:64], x[:64], w, grids=False)  # warm: imports, BLAS started
before, spent = peak(), cpu()
start = time.perf_counter()
out = attention_layer(x, x, w, grids=False).output
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "added": peak() - before, "cpu": cpu() - spent,
                  "dtype": str(out.dtype),
                  "check": float(np.abs(out).sum())}))
"""
)

TORCH = (
    SETUP
    + """
import torch
import torch.nn.functional as F
torch.set_num_threads(threads)
t = {n: torch.from_numpy(a) for n, a in w.items()}
xt = torch.from_numpy(x)
def run(x):
    q, k, v = (x @ t[n] for n in ("w_q", "w_k", "w_v"))
    return F.scaled_dot_product_attention(q[None, None], k[None, None], v[None, None])[0, 0]
with torch.inference_mode():
    run(xt[:64])
    before, spent = peak(), cpu()
    start = time.perf_counter()
    out = run(xt)
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "added": peak() - before, "cpu": cpu() - spent,
                  "dtype": str(out.dtype),
                  "check": float(out.abs().sum())}))
"""
)


PARTS = (
    SETUP
    + """
from threadpoolctl import threadpool_limits
from attncli.core import long_inputs as long
kind = np.dtype(dtype).type
q, k, v = (x @ w[n] for n in ("w_q", "w_k", "w_v"))
q = q / kind(8.0)  # ÷ √64 falls on Q, exact, as long_output does
keys_t = np.ascontiguousarray(k.T)
rows = long.block_rows(tokens, q.itemsize, threads)
tile = long.key_tile(rows, q.itemsize)
scores, part = np.empty((rows, tile), kind), np.empty((rows, v.shape[1]), kind)
sums, out = np.empty((rows, 1), kind), np.empty((rows, v.shape[1]), kind)
spent = {"products": 0.0, "exp": 0.0, "sums": 0.0}
clock = time.thread_time
with threadpool_limits(1, user_api="blas"), np.errstate(over="ignore"):
    for start in range(0, tokens, rows):
        block = q[start : start + rows]
        count = block.shape[0]
        out[:count] = 0.0
        for first in range(0, tokens, tile):
            tiled = scores[:count, : min(tile, tokens - first)]
            t0 = clock()
            np.matmul(block, keys_t[:, first : first + tile], out=tiled)
            t1 = clock()
            np.exp(tiled, out=tiled)
            t2 = clock()
            np.sum(tiled, axis=1, keepdims=True, out=sums[:count])
            t3 = clock()
            out[:count] += np.matmul(tiled, v[first : first + tile], out=part[:count])
            t4 = clock()
            spent["products"] += (t1 - t0) + (t4 - t3)
            spent["exp"] += t2 - t1
            spent["sums"] += t3 - t2
print(json.dumps(spent))
"""
)


def side(script: str, tokens: int, dtype: str, threads: int, path: str = "long"):
    env = clean_env(threads)
    command = [sys.executable, "-c", script, str(tokens), dtype, str(threads), path]
    return lambda: run_json(command, env)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Example: ../bench-venv/bin/python benchmarks/long_inputs.py "
        "--tokens 20000,32000 --runs 5 (prints a Markdown table for docs/performance.md)",
    )
    parser.add_argument("--tokens", default="20000,32000", help="T values, comma-separated")
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--runs", type=int, default=5, help="rounds of attn and torch each")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument(
        "--path",
        choices=("long", "blocks"),
        default="long",
        help="attn's long-input path (long), or its blocks of 512 as attend() computes "
        "them (blocks: the path long inputs took before long_output)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="also time each kind of step of attn's long path on one thread (see above)",
    )
    arguments = parser.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("torch is the baseline here: run with a Python that has it (see --help)")
    print(f"attn's path: {arguments.path}; load average before: {load()}; "
          f"{arguments.threads} threads on both sides; "
          "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset on both sides")  # fmt: skip
    rows, parts = [], []
    for tokens in (int(t) for t in arguments.tokens.split(",")):
        for dtype in arguments.dtypes.split(","):
            paired = alternate(
                {
                    "attn": side(ATTN, tokens, dtype, arguments.threads, arguments.path),
                    "torch": side(TORCH, tokens, dtype, arguments.threads),
                },
                arguments.runs,
            )
            ours, theirs = paired.extra["attn"][0], paired.extra["torch"][0]
            assert ours["dtype"] == dtype, ours
            gap = abs(ours["check"] - theirs["check"]) / theirs["check"]
            assert gap < (1e-3 if dtype == "float32" else 1e-9), (ours, theirs)
            ratio, low, high = paired.ratio()
            rate = 4 * tokens * tokens * WIDTH / paired.median("attn") / 1e9
            added = [max(e["added"] for e in paired.extra[n]) / 2**20 for n in paired.names]
            verdict = "ok" if ratio <= TARGET else "over"
            cpu = [statistics.median(e["cpu"] for e in paired.extra[n]) for n in paired.names]
            rows.append((f"{tokens:,}", dtype, paired.spread("attn"), paired.spread("torch"),
                         f"{ratio:.2f}× ({low:.2f}–{high:.2f}) {verdict}", f"{rate:.0f}",
                         f"{cpu[0]:.2f} / {cpu[1]:.2f} s",
                         f"{added[0]:.0f} / {added[1]:.0f}", loads_said(paired)))  # fmt: skip
            if arguments.parts:
                steps = side(PARTS, tokens, dtype, arguments.threads)()
                parts.append((f"{tokens:,}", dtype, *(f"{steps[n]:.2f} s" for n in steps),
                              f"{sum(steps.values()):.2f} s", f"{cpu[0]:.2f} s",
                              f"{cpu[1]:.2f} s",
                              f"{steps['products'] / cpu[1]:.2f}×"))  # fmt: skip
    print(table(["T", "dtype", "attn", "torch SDPA 4-D", f"attn / torch (target ≤ {TARGET})",
                 "attn GFLOP/s", "CPU time (attn / torch)", "memory added, MiB (attn / torch)",
                 "load"], rows))  # fmt: skip
    print(
        f"{arguments.runs} alternating rounds, d = {WIDTH}, output only; load average after: "
        f"{load()}"
    )
    if parts:
        print("\nWhere attn's CPU time goes (its steps on one thread, CPU seconds):\n")
        print(table(["T", "dtype", "the two products", "e^x", "row sums", "steps in all",
                     "attn's whole run", "torch's whole run", "products / torch's whole"],
                    parts))  # fmt: skip


if __name__ == "__main__":
    main()
