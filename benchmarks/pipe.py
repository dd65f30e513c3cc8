"""A long document through the pipe: score, softmax and mix against numpy + orjson.

Writes a document with a 1 × 512 query and 10,000 × 512 keys and values (about 200 MB of
JSON), then times each stage of `attn score | attn softmax | attn mix` reading the
previous stage's file, against a numpy + orjson script doing the same stage (parse, check
every number is finite, compute, write the same fields). Each stage runs --runs rounds of
attn and the script, the order flipped each round, from the same input file (attn's own
previous stage), and reports each side's median (min–max), the ratio of medians (min–max of
the pairs) and the load average. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset on both
sides (benchmarks/pairing.py). Target: each stage ≤ 1.0× numpy + orjson.

    python benchmarks/pipe.py [--keys 10000] [--dim 512] [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from pairing import alternate, clean_env, load, loads_said, table  # noqa: E402

TARGET = 1.0

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


def timed(command: list[str], output: Path) -> dict:
    start = time.perf_counter()
    with output.open("wb") as sink:
        subprocess.run(command, check=True, stdout=sink, env={**clean_env(), "COLUMNS": "100"})
    return {"seconds": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Example: python benchmarks/pipe.py --runs 5 (prints a Markdown table for "
        "docs/performance.md)",
    )
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds per stage")
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
        print(f"document: {source.stat().st_size / 1e6:.0f} MB; load average before: {load()}")
        rows = []
        given = source
        for stage in ("score", "softmax", "mix"):
            lean_out, attn_out = here / f"lean-{stage}.json", here / f"attn-{stage}.json"
            lean = [sys.executable, "-c", LEAN, stage, str(given), str(lean_out)]
            ours = [*attn(), stage, "-i", str(given), "--json"]
            paired = alternate(
                {"attn": partial(timed, ours, attn_out), "numpy": partial(timed, lean, lean_out)},
                args.runs,
            )
            ratio, low, high = paired.ratio()
            verdict = "ok" if ratio <= TARGET else "over"
            rows.append((stage, paired.spread("numpy"), paired.spread("attn"),
                         f"{ratio:.2f}× ({low:.2f}–{high:.2f}) {verdict}",
                         loads_said(paired)))  # fmt: skip
            given = attn_out  # the next stage reads what attn wrote
        print(table(["stage", "numpy + orjson", "attn", f"attn / numpy (target ≤ {TARGET})",
                     "load"], rows))  # fmt: skip
        print(f"{args.runs} alternating rounds per stage; load average after: {load()}")


if __name__ == "__main__":
    main()
