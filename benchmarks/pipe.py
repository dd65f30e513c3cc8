"""A long document through the pipe: score, softmax and mix against numpy + orjson.

Writes a document with a 1 × 512 query and 10,000 × 512 keys and values (about 200 MB of
JSON), then times each stage of `attn score | attn softmax | attn mix` reading the
previous stage's file, against a numpy + orjson script doing the same stage (parse, check
every number is finite, compute, write). Target: each stage within 1.5x.

    python benchmarks/pipe.py [--keys 10000] [--dim 512]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET = 1.5

LEAN = """
import sys, numpy as np, orjson
stage, source, target = sys.argv[1:]
document = orjson.loads(open(source, "rb").read())
def checked(name):
    array = np.array(document[name], dtype=np.float64)
    assert np.isfinite(array).all()
    return array
if stage == "score":
    document["scores"] = checked("keys") @ checked("query")
elif stage == "softmax":
    scores = checked("scores")
    weights = np.exp(scores - scores.max())
    document["weights"] = weights / weights.sum()
else:
    document["output"] = checked("weights") @ checked("values")
open(target, "wb").write(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY))
"""


def attn() -> list[str]:
    script = shutil.which("attn")
    return [script] if script else [sys.executable, "-m", "attncli"]


def timed(command: list[str], output: Path) -> float:
    start = time.perf_counter()
    with output.open("wb") as sink:
        subprocess.run(command, check=True, stdout=sink, env={**os.environ, "COLUMNS": "100"})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=512)
    args = parser.parse_args()
    import orjson

    rng = np.random.default_rng(0)
    document = {
        "query": rng.standard_normal(args.dim) / np.sqrt(args.dim),
        "keys": rng.standard_normal((args.keys, args.dim)),
        "values": rng.standard_normal((args.keys, args.dim)),
    }
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        source = here / "document.json"
        source.write_bytes(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY))
        print(f"document: {source.stat().st_size / 1e6:.0f} MB")
        print(f"{'stage':<8} {'numpy':>8} {'attn':>8} {'ratio':>6}  target {TARGET}x")
        attn_in = lean_in = source
        for stage in ("score", "softmax", "mix"):
            lean_out, attn_out = here / f"lean-{stage}.json", here / f"attn-{stage}.json"
            lean = timed([sys.executable, "-c", LEAN, stage, str(lean_in), str(lean_out)], lean_out)
            ours = timed([*attn(), stage, "-i", str(attn_in), "--json"], attn_out)
            print(f"{stage:<8} {lean:7.2f}s {ours:7.2f}s {ours / lean:5.2f}x")
            attn_in, lean_in = attn_out, lean_out


if __name__ == "__main__":
    main()
