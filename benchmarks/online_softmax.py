"""The online softmax of one long row, block by block: attn.online_softmax's CPU time.

    python benchmarks/online_softmax.py [--scores 1000000] [--runs 5]

Each run computes the block history (m, ℓ and the factors after every block) and the
weights of N seeded scores, with blocks of 1 (a step per score, the most steps a row can
take), 128 and 4,096; reported: the median (min–max) seconds of each. Target: 10^6 scores in
blocks of one under 2 s (a Python loop over the blocks took 21 s).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    from attncli.core.inference import online_softmax

    scores = np.random.default_rng(0).normal(size=(1, arguments.scores)) * 4
    for block in (1, 128, 4096):
        seconds = []
        for _ in range(arguments.runs):
            start = time.process_time()
            online_softmax(scores, block)
            seconds.append(time.process_time() - start)
        print(
            f"{arguments.scores:,} scores, block {block:>5}: "
            f"{statistics.median(seconds):.3f} s ({min(seconds):.3f}–{max(seconds):.3f})"
        )


if __name__ == "__main__":
    main()
