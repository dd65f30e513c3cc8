"""Fingerprints of the course's lessons, so that a test can tell when a screen repeats a
lesson's sentence without the lessons' text being in the project.

    python tools/lesson_shingles.py LESSON.txt … > tests/docs/lesson_shingles.txt

Each run of SPAN words of a lesson (lower case, its formulas left out) becomes the first
12 hex digits of its SHA-256; one per line, sorted. A catalog string that shares a run of
SPAN words with a lesson shares a fingerprint with it (tests/docs/test_course_words.py).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator

SPAN = 7  # words: long enough that the course's own vocabulary does not count
WORD = re.compile(r"[a-záéíóúüñ0-9]+")
FORMULA = re.compile(r"\$[^$]*\$")


def words(text: str) -> list[str]:
    """The words of a text as the fingerprints read them: lower case, formulas left out."""
    return WORD.findall(FORMULA.sub(" ", text.lower()))


def runs(text: str) -> Iterator[tuple[str, ...]]:
    """Every run of SPAN words of `text`."""
    found = words(text)
    for start in range(len(found) - SPAN + 1):
        yield tuple(found[start : start + SPAN])


def fingerprint(run: tuple[str, ...]) -> str:
    """A run of words as 12 hex digits of its SHA-256."""
    return hashlib.sha256(" ".join(run).encode("utf-8")).hexdigest()[:12]


def main(paths: list[str]) -> None:
    prints = set()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            prints.update(fingerprint(run) for run in runs(handle.read()))
    sys.stdout.write("".join(f"{value}\n" for value in sorted(prints)))


if __name__ == "__main__":
    main(sys.argv[1:])
