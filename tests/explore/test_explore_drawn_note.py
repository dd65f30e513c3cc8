"""On a short screen the explorer says, without scrolling, that the seeded W are random and
where the lesson's «están» → «llaves» is to be seen: the hand-set sample, or attn train."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("textual")

from attncli.explore.app import Explorer
from attncli.explore.session import Source
from tests.explore_screen import grid_cells, run_app, screen_lines

SENTENCE = "las llaves del coche están ahí"
TOKENS = SENTENCE.split()
LLAVES = json.loads((Path(__file__).parents[2] / "samples" / "llaves.json").read_text())


def _flat(lines: list[str]) -> str:
    return re.sub(r"\s+", " ", " ".join(lines))


def _screens(source: Source, keys: list[str], size=(80, 24)) -> list[tuple[str, dict]]:
    """The whole screen (flattened) and the grid's rows, first and after each key."""
    app = Explorer(source)

    async def script(pilot):
        seen = [(_flat(screen_lines(app)), grid_cells(app, list(app.result.tokens)))]
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            seen.append((_flat(screen_lines(app)), grid_cells(app, list(app.result.tokens))))
        return seen

    return run_app(app, size, script)


def test_the_seeded_w_are_said_random_at_80_by_24_in_both_languages():
    english, spanish, reseeded = _screens(Source(sentence=SENTENCE), ["l", "r"])
    screen, rows = english
    assert "These W are random (seed 0), not trained: no row means anything yet." in screen
    assert "The lesson's grid: attn explore -i llaves; W learned: attn train" in screen
    assert list(rows) == TOKENS  # every row of the grid still in sight
    screen, rows = spanish
    assert "Estas W son aleatorias (semilla 0), sin entrenar" in screen
    assert "Rejilla de la lección: attn explore -i llaves; W aprendidas: attn train" in screen
    assert list(rows) == TOKENS
    assert "Estas W son aleatorias (semilla 1)" in reseeded[0]  # r: the note follows the seed


def test_no_note_where_the_w_mean_something_or_are_none():
    given = _screens(Source(document=LLAVES, path="samples/llaves.json"), [])[0][0]
    assert "random" not in given and "attn train" not in given
    without = _screens(Source(sentence=SENTENCE), ["p"])[1][0]  # Q = K = V = X: no W at all
    assert "These W are random" not in without


def test_a_wide_screen_says_it_in_the_header_once():
    screen = _screens(Source(sentence=SENTENCE), [], size=(120, 40))[0][0]
    assert screen.count("are random (seed 0)") == 1
    assert "W^Q, W^K, W^V are random (seed 0), not trained" in screen
