"""attncli.samples: the samples installed with attncli, each with what it holds and a
command that reads it (`-i NAME` finds it from any folder).

>>> import attncli as attn
>>> [s.name for s in attn.samples().samples][-1]
'tren'
"""

from __future__ import annotations

import json
from typing import Any

from attncli.messages import Message, _
from attncli.reading.parse.samples import LAYER_HEADS, LESSON, Sample, installed
from attncli.results.samples import SampleEntry, SamplesResult

# A sample whose point needs an option to be seen, and the command that shows it.
EXAMPLES = {"longitudes": "attn selfattn -i longitudes --no-proj"}
# What the course's own samples hold, said in a sentence (their fields follow it).
DESCRIBED = {
    "tren": _("«el tren va lleno»: one query against three keys, with their values ({fields})"),
    "tren-grid": _("«el tren va lleno»: a query per token, the whole grid ({fields})"),
    "longitudes": _(
        "vectors of lengths of their own: without projections the longest takes every row "
        "({fields})"
    ),
    "llaves": _(
        "«las llaves del coche están ahí» with W set by hand so that «están» looks for "
        "«llaves» ({fields})"
    ),
}


def _shape(shape: Any) -> str:
    return " × ".join(str(n) for n in shape)


def _arrays(sample: Sample) -> list[tuple[str, Any]]:
    """The names and shapes a .npy or .safetensors sample holds, read from its header (the
    safetensors format's documented header: 8 bytes of length, then JSON), no array loaded."""
    if sample.file.endswith(".npy"):
        import numpy as np

        return [("x", np.load(sample.path, mmap_mode="r", allow_pickle=False).shape)]
    with open(sample.path, "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    return [(name, entry["shape"]) for name, entry in header.items() if name != "__metadata__"]


def _weights_entry(sample: Sample) -> SampleEntry:
    """A layer's input (.npy: x) or its weights (.safetensors: a state dict), with the
    command that runs the layer on them."""
    layer = {"mha_x": "mha"}.get(sample.name, sample.name)
    command = f"attn selfattn -i {layer}_x --weights {layer} --heads {LAYER_HEADS[layer]}"
    held = ", ".join(f"{name} {_shape(shape)}" for name, shape in _arrays(sample))
    heads = LAYER_HEADS[layer]
    if sample.file.endswith(".npy"):
        said = Message(_("{arrays} (a token per row)"), arrays=held)
    else:
        said = Message(
            _("nn.MultiheadAttention.state_dict(): {arrays}; num_heads={heads}"),
            arrays=held,
            heads=heads,
        )
    return SampleEntry(
        sample.name, sample.file, sample.path, str(said), command, said.said("es"), said
    )


def _entry(sample: Sample) -> SampleEntry:
    if sample.file.endswith((".npy", ".safetensors")):
        return _weights_entry(sample)
    with open(sample.path, encoding="utf-8") as handle:
        text = handle.read()
    if sample.file.endswith(".txt"):
        comments = [line.lstrip("# ").strip() for line in text.splitlines() if line[:1] == "#"]
        # A test set says so in a comment of its own, with the command that reads it; the
        # Spanish of the first comment is a comment of its own too.
        tried = [c.split(": ", 1)[1] for c in comments if c.startswith("A test set: attn ")]
        spanish = [c.removeprefix("es: ") for c in comments if c.startswith("es: ")]
        return SampleEntry(
            sample.name,
            sample.file,
            sample.path,
            comments[0] if comments else "text",
            tried[0] if tried else f"attn train --corpus {sample.name}",
            spanish[0] if spanish else "",
        )
    document = json.loads(text)
    fields = list(document)
    if "trained_by" in document:  # a layer attn train learned, for a sentence of one's own
        said = Message(_("W^Q, W^K, W^V learned by {command}"), command=document["trained_by"])
        command = f'attn selfattn "{LESSON}" -i {sample.name}'  # its positions in the file
        return SampleEntry(
            sample.name, sample.file, sample.path, str(said), command, said.said("es"), said
        )
    command = "selfattn" if "x" in fields else "score" if "keys" in fields else "softmax"
    example = EXAMPLES.get(sample.name, f"attn {command} -i {sample.name}")
    if sample.name in DESCRIBED:
        told = Message(DESCRIBED[sample.name], fields=", ".join(fields))
        return SampleEntry(
            sample.name, sample.file, sample.path, str(told), example, told.said("es"), told
        )
    return SampleEntry(sample.name, sample.file, sample.path, ", ".join(fields), example)


def samples() -> SamplesResult:
    """Every sample installed with attncli."""
    return SamplesResult(samples=tuple(_entry(sample) for sample in installed()))
