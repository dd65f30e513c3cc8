"""Training speed: 300 iterations on the 6-token headline sentence, and the corpus.

Times attn.train in-process (the training loop: forward pass, the layer's backward pass
and the update, 300 times) and the whole `attn train … --json` command as a user runs it
(start-up and writing the document included); the median of several runs each. Target:
the 300 iterations on the headline within 1 s. The 80-sentence sample corpus is timed
too, for the README.

    python benchmarks/train.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET = 1.0  # seconds for 300 iterations on the headline sentence
HEADLINE = "las llaves del coche están ahí"
CORPUS = Path(__file__).resolve().parent.parent / "samples" / "concordancia-entreno.txt"


def attn_command() -> list[str]:
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def median_time(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    import attncli as attn

    attn.train(HEADLINE, want="están=llaves", iterations=1)  # imports, once
    loop = median_time(lambda: attn.train(HEADLINE, want="están=llaves"), repeat)
    command = [*attn_command(), "train", HEADLINE, "--want", "están=llaves", "--json"]
    environment = {**os.environ, "COLUMNS": "100"}

    def whole() -> None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=environment)

    cli = median_time(whole, repeat)
    corpus_command = [
        *attn_command(),
        "train",
        "--corpus",
        str(CORPUS),
        "--d-model",
        "32",
        "--json",
    ]

    def corpus() -> None:
        subprocess.run(corpus_command, check=True, stdout=subprocess.DEVNULL, env=environment)

    on_corpus = median_time(corpus, max(1, repeat // 3))
    print("run                                                median  target")
    verdict = "ok" if loop <= TARGET else "SLOW"
    print(
        f"attn.train, 300 iterations, 6 tokens              {loop:6.3f}s  {TARGET:.0f}s {verdict}"
    )
    verdict = "ok" if cli <= TARGET else "SLOW"
    print(f"attn train … --json (the whole command)           {cli:6.3f}s  {TARGET:.0f}s {verdict}")
    print(f"attn train --corpus (80 sentences, d_model 32)    {on_corpus:6.3f}s")


if __name__ == "__main__":
    main()
