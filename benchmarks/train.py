"""Training speed: attn train against torch's autograd doing the same 300 updates.

The headline run, `attn train "las llaves del coche están ahí" --want están=llaves --json`
(300 SGD updates of W^Q and W^K, lr 0.1, the loss −log α(están, llaves)), a fresh process
as a user runs it, is alternated with a torch script that starts from the same X, W^Q and
W^K (read from attn's own document, written once beforehand), takes the same 300 updates
with autograd and torch.optim.SGD, and writes the trained W^Q and W^K as JSON: the same
work, start-up and the JSON out included on both sides. The trained matrices of the two
are compared (float64: equal to 1e-9) so that the two sides are known to do the same work.
Reported: each side's median (min–max), the ratio of medians with the per-pair range, the
load average. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset on both sides.

Timed too, in this process: attn.train's 300 iterations alone (target ≤ 1 s), and the
80-sentence sample corpus (`--d-model 32`), for docs/performance.md.

    python benchmarks/train.py [--runs 7]

The torch side needs torch in the same environment; without it that row is left out and
the script says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairing import alternate, clean_env, load, loads_said, table  # noqa: E402

TARGET = 1.0  # seconds for 300 iterations on the headline sentence, in-process
HEADLINE = "las llaves del coche están ahí"
WANT = ("están", "llaves")
CORPUS = Path(__file__).resolve().parent.parent / "samples" / "concordancia-entreno.txt"

TORCH = """
import json, sys
import torch
source, target, query, key = sys.argv[1:]
document = json.load(open(source))
tokens = document["tokens"]
x = torch.tensor(document["x"], dtype=torch.float64)
training = document["training"]
w_q = torch.tensor(training["w_q_before"], dtype=torch.float64, requires_grad=True)
w_k = torch.tensor(training["w_k_before"], dtype=torch.float64, requires_grad=True)
i, j = tokens.index(query), tokens.index(key)
optimizer = torch.optim.SGD([w_q, w_k], lr=training["lr"])
for _ in range(training["iterations"]):
    optimizer.zero_grad()
    scores = (x @ w_q) @ (x @ w_k).T / w_q.shape[1] ** 0.5
    loss = -torch.log_softmax(scores, dim=-1)[i, j]
    loss.backward()
    optimizer.step()
open(target, "w").write(json.dumps({"w_q": w_q.tolist(), "w_k": w_k.tolist()}))
"""


def attn_command() -> list[str]:
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def timed(command: list[str], output: Path | None = None) -> dict:
    """One fresh process's wall time; its stdout to `output` when given."""
    start = time.perf_counter()
    with open(output or "/dev/null", "wb") as sink:
        subprocess.run(command, check=True, stdout=sink, env={**clean_env(), "COLUMNS": "100"})
    return {"seconds": time.perf_counter() - start}


def median_time(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _largest_difference(ours: dict, theirs: dict) -> float:
    import numpy as np

    return max(
        float(np.max(np.abs(np.array(ours[name]) - np.array(theirs[name]))))
        for name in ("w_q", "w_k")
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Example: python benchmarks/train.py --runs 7 (prints a Markdown table for "
        "docs/performance.md)",
    )
    parser.add_argument("--runs", type=int, default=7, help="alternating rounds")
    runs = parser.parse_args().runs
    command = [*attn_command(), "train", HEADLINE, "--want", "=".join(WANT), "--json"]
    print(f"load average before: {load()}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        ours, theirs = here / "attn.json", here / "torch.json"
        timed(command, ours)  # attn's document: the torch side's starting point
        if all(importlib.util.find_spec(name) for name in ("torch",)):
            torch_side = [sys.executable, "-c", TORCH, str(ours), str(theirs), *WANT]
            paired = alternate(
                {"attn": partial(timed, command, ours), "torch": partial(timed, torch_side)},
                runs,
            )
            difference = _largest_difference(
                json.loads(ours.read_text()), json.loads(theirs.read_text())
            )
            ratio, low, high = paired.ratio()
            rows.append(("300 updates, end to end", paired.spread("torch"),
                         paired.spread("attn"), f"{ratio:.2f}× ({low:.2f}–{high:.2f})",
                         loads_said(paired)))  # fmt: skip
            print(table(["run", "torch autograd", "attn train", "attn / torch", "load"], rows))
            print(f"trained W^Q and W^K of the two differ by at most {difference:.1e}")
        else:
            print("torch is not installed here: the paired row is left out")
    import attncli as attn

    attn.train(HEADLINE, want="=".join(WANT), iterations=1)  # imports, once
    loop = median_time(lambda: attn.train(HEADLINE, want="=".join(WANT)), runs)
    corpus = [*attn_command(), "train", "--corpus", str(CORPUS), "--d-model", "32", "--json"]
    on_corpus = median_time(partial(timed, corpus), max(1, runs // 3))
    verdict = "ok" if loop <= TARGET else "SLOW"
    print(f"attn.train, 300 iterations, in this process: {loop:.3f} s "
          f"(target ≤ {TARGET:.0f} s) {verdict}")  # fmt: skip
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    sentences = sum(1 for line in lines if line.strip() and not line.startswith("#"))
    print(f"attn train --corpus ({sentences} sentences, d_model 32): {on_corpus:.3f} s")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
