"""A tiny Llama's forward pass end to end: attn against a transformers script doing the same.

    python benchmarks/llama.py [--runs 10] [--model tests/models/tiny-llama]
                               [--python /path/to/python-with-torch]

Each side is a fresh process, as a user has it, in paired alternating rounds
(benchmarks/pairing.py): `attn predict "<sentence>" --model M --json` (the model's own
tokenizer, every layer, the final RMSNorm and lm_head, the next token's softmax) against a
script that loads the same folder with transformers (LlamaForCausalLM through
AutoModelForCausalLM, eager attention, the dtype the folder was saved in), runs the sentence
with output_attentions=True and prints the last position's logits and every layer's
attention as JSON. The target is attn ≤ 0.1 × the script's time, as for BERT in
benchmarks/model.py. Each side's wall time is measured around its process, so it includes
the start-up and the imports a user waits for: on a model this small, that is most of it.

--python is the interpreter that has torch and transformers (by default this one): attn's
own environment needs neither.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pairing import (  # noqa: E402
    alternate,
    clean_env,
    load,
    loads_said,
    process_figures,
    table,
)

SENTENCE = "the keys to the cabinet are on the table"
TRANSFORMERS = """
import json, sys
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
folder, sentence = sys.argv[1], sys.argv[2]
tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
with torch.no_grad():
    out = model(**tokenizer(sentence, return_tensors="pt"), output_attentions=True)
print(json.dumps({"logits": out.logits[0, -1].float().tolist(),
                  "weights": [a[0].float().tolist() for a in out.attentions]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--model", default=str(HERE.parent / "tests" / "models" / "tiny-llama"))
    parser.add_argument("--python", default=sys.executable)
    options = parser.parse_args()
    attn = shutil.which("attn") or str(Path(sys.executable).parent / "attn")
    env = clean_env()
    commands = {
        "attn predict": [attn, "predict", SENTENCE, "--model", options.model, "--json"],
        "transformers": [options.python, "-c", TRANSFORMERS, options.model, SENTENCE],
    }
    for command in commands.values():  # warm the file cache and the .pyc files
        process_figures(command, env)
    before = load()
    sides = {name: partial(process_figures, command, env) for name, command in commands.items()}
    paired = alternate(sides, options.runs)
    ratio, low, high = paired.ratio()
    cpu = {name: sorted(f["cpu"] for f in paired.extra[name]) for name in commands}
    rows = [
        [name, paired.spread(name), f"{cpu[name][len(cpu[name]) // 2]:.2f} s"] for name in commands
    ]
    shown = os.path.relpath(options.model, HERE.parent)
    shown = options.model if shown.startswith("..") else shown
    print(f"model {shown}; {options.runs} alternating rounds; load before: {before}\n")
    print(table(["command", "wall time, median (range)", "CPU time, median"], rows))
    verdict = "ok" if ratio <= 0.1 else "over"
    print(f"\nattn / transformers: {ratio:.3f} ({low:.3f}–{high:.3f} by pair; target ≤ 0.1) "
          f"{verdict}; load average over the rounds {loads_said(paired)}")  # fmt: skip


if __name__ == "__main__":
    main()
