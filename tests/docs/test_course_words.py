"""attn speaks the course's vocabulary in its own sentences: the Spanish catalog uses the
lessons' terms (encoder, decoder, auto-atención, a row that saturates, the dot product, a
standard deviation as «desviación típica») and repeats no run of seven words of a lesson,
which tests/docs/lesson_shingles.txt holds as fingerprints (tools/lesson_shingles.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lesson_shingles  # noqa: E402

CATALOG = ROOT / "attncli" / "locale" / "es" / "LC_MESSAGES" / "attncli.po"
PRINTS = ROOT / "tests" / "docs" / "lesson_shingles.txt"
# Words the course does not use, each with the one it does.
NOT_THE_COURSE = {
    r"one-hot": "a row that picks one key is «saturada»",
    r"\bsembrados\)": "weights before training are «recién inicializados»",
    r"dispersi[oó]n": "a standard deviation is a «desviación típica»",
    r"\b(de)?codificador": "the lessons say encoder and decoder",
    r"puntuación dot": "the score without a matrix is «el producto escalar»",
    r"\bautoatenci[oó]n": "the lessons write «auto-atención»",
    r"se parecen": "a score says how well a key «encaja» with the query",
}


def _spanish() -> list[tuple[str, str]]:
    from babel.messages.pofile import read_po

    with CATALOG.open("rb") as handle:
        catalog = read_po(handle)
    said = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        key = message.id if isinstance(message.id, str) else message.id[0]
        said += [(key, string) for string in strings if string]
    return said


def _shared(text: str, prints: set[str]) -> list[str]:
    """The runs of `text` a lesson has too."""
    runs = lesson_shingles.runs(text)
    return [" ".join(run) for run in runs if lesson_shingles.fingerprint(run) in prints]


def _prose(run: str) -> bool:
    """A run of mostly words; one of mostly numbers (a worked table's keys and values,
    which attn must reproduce) is the course's data, not its prose."""
    return sum(not word.isdigit() for word in run.split()) >= 3


def _repeated(text: str, prints: set[str]) -> list[str]:
    """The runs of prose of `text` a lesson has too."""
    return [run for run in _shared(text, prints) if _prose(run)]


def test_no_spanish_sentence_repeats_a_lesson():
    prints = set(PRINTS.read_text(encoding="utf-8").split())
    assert len(prints) > 3000  # the three lessons' runs
    repeated = {key[:60]: runs for key, text in _spanish() if (runs := _repeated(text, prints))}
    assert repeated == {}


def test_the_check_finds_what_a_lesson_says():
    """It can fail: the worked example's keys, which lesson 002 writes too, are found (and
    set apart as data); a run of prose whose fingerprint is held is found as prose."""
    prints = set(PRINTS.read_text(encoding="utf-8").split())
    assert _shared("keys '[[2,1],[0,2],[1,1]]'", prints) == ["keys 2 1 0 2 1 1"]
    assert _repeated("keys '[[2,1],[0,2],[1,1]]'", prints) == []
    own = "la diagonal gana en cada fila cuando no hay proyecciones"
    assert _repeated(own, prints) == []
    held = {lesson_shingles.fingerprint(run) for run in lesson_shingles.runs(own)}
    assert _repeated(f"así: {own}.", held) == [" ".join(r) for r in lesson_shingles.runs(own)]


@pytest.mark.parametrize("pattern", sorted(NOT_THE_COURSE))
def test_the_catalog_says_the_course_s_word(pattern):
    found = [key[:60] for key, text in _spanish() if re.search(pattern, text, re.IGNORECASE)]
    assert found == [], NOT_THE_COURSE[pattern]
