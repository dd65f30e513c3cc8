"""attncli.samples: the samples installed with attncli, each with what it holds and a
command that reads it (`-i NAME` finds it from any folder).

>>> import attncli as attn
>>> [s.name for s in attn.samples().samples][-1]
'tren'
"""

from __future__ import annotations

import json

from attncli.reading.samples import Sample, installed
from attncli.results.samples import SampleEntry, SamplesResult


def _entry(sample: Sample) -> SampleEntry:
    with open(sample.path, encoding="utf-8") as handle:
        text = handle.read()
    if sample.file.endswith(".txt"):
        comments = [line.lstrip("# ").strip() for line in text.splitlines() if line[:1] == "#"]
        # A test set says so in a comment of its own, with the command that reads it.
        tried = [c.split(": ", 1)[1] for c in comments if c.startswith("A test set: attn ")]
        return SampleEntry(
            sample.name,
            sample.file,
            sample.path,
            comments[0] if comments else "text",
            tried[0] if tried else f"attn train --corpus {sample.name}",
        )
    fields = list(json.loads(text))
    command = "selfattn" if "x" in fields else "score" if "keys" in fields else "softmax"
    return SampleEntry(
        sample.name, sample.file, sample.path, ", ".join(fields), f"attn {command} -i {sample.name}"
    )


def samples() -> SamplesResult:
    """Every sample installed with attncli."""
    return SamplesResult(samples=tuple(_entry(sample) for sample in installed()))
