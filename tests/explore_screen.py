"""Reading the explorer's screen in tests: what the terminal would show, as text, and the
numbers of its grid and side panel."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from rich.console import Console

from attncli.core.saturation import SATURATED
from attncli.present.format import Format

NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?[*!]?|—")


def screen_lines(app: Any) -> list[str]:
    """Every line of the screen as the terminal shows it (no colour)."""
    width, height = app.size
    console = Console(
        width=width, height=height, color_system=None, file=io.StringIO(), record=True
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()[:height]


def region_lines(app: Any, selector: str) -> list[str]:
    """The lines a widget covers on the screen, cut to its columns."""
    widget = app.screen.query_one(selector)
    region = widget.region
    lines = screen_lines(app)
    return [line[region.x : region.x + region.width] for line in lines[region.y : region.bottom]]


def grid_cells(app: Any, tokens: list[str]) -> dict[str, list[str]]:
    """The grid's rows as shown: the row's label → its cells' texts, in order."""
    rows: dict[str, list[str]] = {}
    labels = set(tokens)
    for line in region_lines(app, "#grid"):
        parts = line.split()
        if len(parts) > 1 and parts[0] in labels and parts[0] not in rows:
            cells = parts[1:]
            if all(NUMBER.fullmatch(cell) or cell == "…" for cell in cells):
                rows[parts[0]] = cells
    return rows


def run_app(app: Any, size: tuple[int, int], script: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run `app` headless at `size` and return what `script(pilot)` returns."""

    async def main() -> Any:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await script(pilot)

    return asyncio.run(main())


def expected_cells(result: Any, state: Any) -> dict[str, list[str]]:
    """The grid's cells as attn writes them, from a result computed here."""
    fmt = Format(lang=state.lang)
    # A model's head is computed alone: the result holds that one head.
    _q, _k, _v, scores, weights = result.head(state.head if result.heads is not None else 1)
    rows = {}
    for i, label in enumerate(result.query_labels):
        if label in rows:  # a repeated token: the screen is read by its first row
            continue
        if state.grid == "scores":
            rows[label] = [fmt.number(value) for value in scores[i]]
            continue
        finite = np.where(np.isneginf(scores[i]), -np.inf, weights[i])
        largest = weights[i][int(np.argmax(finite))]
        # a row that no longer mixes (largest weight ≥ 0.95 among two or more keys) has !
        looked = ~np.isneginf(scores[i])
        mark = "!" if largest >= SATURATED and looked.sum() >= 2 else "*"
        rows[label] = [
            "—"
            if np.isneginf(scores[i][j])
            else fmt.weight_number(value) + (mark if value == largest else "")
            for j, value in enumerate(weights[i])
        ]
    return rows
