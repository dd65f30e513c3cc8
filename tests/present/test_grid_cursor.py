"""The grid's interactive parts (attn explore): the cursor's cell marked and kept in sight,
cells that answer a click, and the column fitting that finds the most columns that fit."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from attncli.present.format import Format
from attncli.present.grid import CURSOR_STYLE, NumberGrid


def _grid(size: int, **drawing) -> NumberGrid:
    rng = np.random.default_rng(size)
    weights = rng.dirichlet(np.ones(size), size=size)
    labels = [f"t{i}" for i in range(size)]
    return NumberGrid("W", labels, labels, weights, Format(), heat=True,
                      max_rows=size, max_columns=size, **drawing)  # fmt: skip


def _segments(grid: NumberGrid, width: int):
    console = Console(width=width, file=io.StringIO(), color_system="truecolor")
    return list(console.render(grid, console.options.update(width=width)))


def _text(grid: NumberGrid, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(grid)
    return console.export_text()


def _linear_fit(grid: NumberGrid, width: int) -> int:
    """The most columns that fit, found one column at a time (as the grid did before)."""
    from attncli.present.grid import MIN_COLUMNS, _Shown

    console = Console(width=width, file=io.StringIO(), color_system=None)
    options = console.options.update(width=width)
    shown = _Shown(grid, None)
    limit = min(grid.max_columns, len(grid.grid[0]))
    table, _ = grid._table(shown, limit)
    while limit > MIN_COLUMNS and grid._width(console, options, table) > width:
        limit -= 1
        table, _ = grid._table(shown, limit)
    return limit


@pytest.mark.parametrize("size", [3, 9, 12, 40])
@pytest.mark.parametrize("width", [50, 64, 80, 97, 120, 200])
def test_halving_finds_the_same_columns_as_one_at_a_time(size, width):
    grid = _grid(size)
    header = _text(grid, width).splitlines()[2]
    shown = len(header.split()) - ("largest" in header)
    limit = _linear_fit(grid, width)
    assert shown == limit + (limit < size)  # the elided columns' "…" counts as one


def test_the_cursor_cell_is_marked_and_only_it():
    grid = _grid(5, cursor=(2, 3))
    marked = [s.text.strip() for s in _segments(grid, 80) if s.style and s.style.reverse]
    assert marked == [
        f"{grid.grid[2][3]:.3f}" + ("*" if grid.grid[2][3] == max(grid.grid[2]) else "")
    ]
    assert CURSOR_STYLE == "reverse bold"


def test_a_cursor_in_the_elided_middle_is_kept_in_sight():
    grid = _grid(40, cursor=(0, 20))
    header = _text(grid, 80).splitlines()[2].split()
    assert "t20" in header and header[0] == "…" and "…" in header[1:]


def test_clickable_cells_carry_their_row_and_column():
    grid = _grid(4, clickable=True)
    metas = [s.style.meta for s in _segments(grid, 80) if s.style and s.style.meta]
    cells = {meta["cell"] for meta in metas if "cell" in meta}
    rows = {meta["row"] for meta in metas if "row" in meta}
    assert cells == {(i, j) for i in range(4) for j in range(4)} and rows == {0, 1, 2, 3}


def test_a_plain_grid_has_neither():
    segments = _segments(_grid(4), 80)
    assert not any(s.style and (s.style.meta or s.style.reverse) for s in segments)


def test_an_elided_grid_says_where_the_other_columns_are():
    """attn selfattn's points at --json; the explorer's grid, at its cursor."""
    assert "--json has them all" in _text(_grid(40), 80)
    with_cursor = " ".join(_text(_grid(40, cursor=(0, 0)), 80).split())
    assert "the cursor brings the others into sight" in with_cursor
    assert "--json" not in with_cursor
