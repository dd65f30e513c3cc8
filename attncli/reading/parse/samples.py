"""The samples installed with attncli (the repository's samples/ folder, shipped as package
data): `-i tren`, or `-i samples/tren.json` where no such file exists, reads the installed
one (`-i mha_x` and `--weights mha` the same way), so that every --help example works
outside the repository too.
"""

from __future__ import annotations

import os

# os.path, not pathlib: reading a file is on every run's path, and pathlib is slow to import.
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples")
KINDS = (".json", ".txt", ".npy", ".safetensors")
PREFIX = "samples/"
# The heads of the layer each .safetensors sample holds (a state dict does not hold them;
# tests/references/make_weights.py made mha with num_heads=2); its input is NAME_x.npy.
LAYER_HEADS = {"mha": 2}
# The lesson's sentence (6 tokens; not among those attn train's corpus holds): every
# example that runs a sentence and says so in a message or on a screen takes it from here.
LESSON = "las llaves del coche están ahí"


class Sample:
    """One installed sample: its name (what -i takes), its file and where it is. A plain
    class: building a dataclass would cost every run that reads a file."""

    __slots__ = ("name", "file", "path")

    def __init__(self, name: str, file: str, path: str) -> None:
        self.name, self.file, self.path = name, file, path


def installed() -> list[Sample]:
    """Every installed sample, by name."""
    if not os.path.isdir(FOLDER):
        return []
    return [
        Sample(os.path.splitext(file)[0], file, os.path.join(FOLDER, file))
        for file in sorted(os.listdir(FOLDER))
        if os.path.splitext(file)[1] in KINDS and os.path.isfile(os.path.join(FOLDER, file))
    ]


def sample_for(path: str) -> str | None:
    """The installed sample that `path` names, when no file `path` exists: 'tren',
    'tren.json' or 'samples/tren.json'; None otherwise."""
    if not path or os.path.exists(path):
        return None
    name = path[len(PREFIX) :] if path.startswith(PREFIX) else path
    if "/" in name or os.sep in name or name.startswith("."):
        return None
    for sample in installed():
        if name in (sample.name, sample.file):
            return sample.path
    return None


def located(path: str) -> str:
    """`path`, or the installed sample it names when there is no such file."""
    return sample_for(path) or path
