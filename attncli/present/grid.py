"""A labelled grid of numbers drawn for the console it lands on.

Two things about a grid depend on where it is printed, so they are decided at render
time: how many columns fit the width (a 40-token weight grid on 80 columns), and which
colours shade the weights. A ramp is only honest if lighter always means more weight in
the colours the terminal can show: a truecolor ramp downsampled to 256 colours is not
monotone, so each colour system gets a ramp of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.table import Table
from rich.text import Text

from attncli.core.saturation import SATURATED, saturated_rows
from attncli.present.drawn import PlainTable, natural_width
from attncli.present.format import (
    ELLIPSIS,
    MASKED,
    ROW_MAX_MARK,
    SATURATED_MARK,
    Format,
    shown_indices,
    vanishes,
)
from attncli.present.language import printable

if TYPE_CHECKING:
    Matrix = Sequence[Sequence[float]] | Any

LABEL_LIMIT = 12  # longer token names are cut to a prefix that still tells them apart
MIN_COLUMNS = 2
EXPORT_COLUMNS = 16  # a page holds no more; a wider grid is exported with its … column

# Ramps from dark (least weight) to light (most), each monotone in lightness in its system.
_TRUECOLOR_DARK = (22, 32, 64)
_TRUECOLOR_LIGHT = (250, 226, 150)  # every channel rises, so luminance rises with the level
_GREYS_256 = range(235, 256)  # xterm's grey ramp, darkest to lightest
_STANDARD = ("black", "bright_black", "white", "bright_white")
# A printed page: from white (least weight) to a light blue (most), every cell light enough
# for black digits and the page mostly paper; lightness falls with the level.
PRINTED = "printed"  # the colour system of a console that draws a page to print
_PRINTED_LEAST = (255, 255, 255)
_PRINTED_MOST = (150, 185, 230)
CURSOR_STYLE = "reverse bold"


def heat_style(level: float, color_system: str | None) -> str:
    """The style of a weight cell at `level` (0 = the grid's least weight, 1 = its most)."""
    level = min(max(level, 0.0), 1.0)
    if color_system is None:
        return ""
    if color_system == PRINTED:
        red, green, blue = (
            round(least + level * (most - least))
            for least, most in zip(_PRINTED_LEAST, _PRINTED_MOST, strict=True)
        )
        return f"#000000 on #{red:02x}{green:02x}{blue:02x}"
    foreground = "black" if level > 0.55 else "white"
    if color_system == "truecolor":
        red, green, blue = (
            round(dark + level * (light - dark))
            for dark, light in zip(_TRUECOLOR_DARK, _TRUECOLOR_LIGHT, strict=True)
        )
        # Black or white as themselves, not a theme's "white" (grey on a light page).
        ink = "#000000" if level > 0.55 else "#ffffff"
        return f"{ink} on #{red:02x}{green:02x}{blue:02x}"
    if color_system == "256":
        grey = _GREYS_256[round(level * (len(_GREYS_256) - 1))]
        return f"{foreground} on color({grey})"
    background = _STANDARD[min(int(level * len(_STANDARD)), len(_STANDARD) - 1)]
    foreground = "black" if background in ("white", "bright_white") else "bright_white"
    return f"{foreground} on {background}"


def short_labels(labels: Sequence[str], limit: int = LABEL_LIMIT) -> list[str]:
    """Labels cut to `limit` terminal cells ("treinta…", "日本語日本…"), longer where a cut
    would make two alike."""
    shown = [printable(label) for label in labels]
    cut = [text if cell_len(text) <= limit else _cut(text, limit - 1) + ELLIPSIS for text in shown]
    seen: dict[str, int] = {}
    for text in cut:
        seen[text] = seen.get(text, 0) + 1
    return [full if seen[short] > 1 else short for short, full in zip(cut, shown, strict=True)]


def _cut(text: str, cells: int) -> str:
    """The longest start of `text` that takes at most `cells` terminal cells."""
    taken = 0
    for index, character in enumerate(text):
        taken += cell_len(character)
        if taken > cells:
            return text[:index]
    return text


@dataclass
class NumberGrid:
    """A grid with labelled rows and columns; large grids show their corners.

    With heat, cells are weights: shaded on the grid's range, each row's largest marked,
    and when columns are left out a last column names each row's largest, so no row
    loses it. -inf cells, and cells where `mask` is true, are shown as masked.
    """

    title: str
    row_labels: Sequence[str]
    column_labels: Sequence[str] | None
    grid: Matrix
    fmt: Format
    heat: bool = False
    max_rows: int = 16
    max_columns: int = 8
    mask: Matrix | None = None
    matrix: bool = False  # a matrix (X, Q, W^Q …): exported as a bmatrix, without its d1 … dn
    # An interactive grid (attn explore): the cell under the cursor, kept in sight when
    # columns are left out; with `clickable`, each cell's (row, column) and each row label's
    # row travel in its style's meta, for a click to read.
    cursor: tuple[int, int] | None = None
    clickable: bool = False

    def blocks(self) -> list[Any]:
        """The title, the table and its notes for an export, where no width or colour
        applies: every column up to max_columns (and EXPORT_COLUMNS), no shading."""
        shown = _Shown(self, None)
        limit = min(self.max_columns, EXPORT_COLUMNS, len(self.grid[0]))
        table, columns = self._table(shown, limit)
        table.show_header = table.show_header and not self.matrix
        notes = self._notes(shown, columns)
        return [Text(self.title), table, *([Text("   ".join(notes))] if notes else [])]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # NO_COLOR: rich keeps a colour system but draws no colour, so no ramp to explain.
        system = PRINTED if getattr(console, "printed", False) else console.color_system
        shown = _Shown(self, None if console.no_color else system)
        limit = min(self.max_columns, len(self.grid[0]))
        # Fewer columns until the table fits: a number is never cut, a column is left out.
        # The most that fit is worked out from the cells' widths (as the table is drawn),
        # then the table is drawn once; if it still does not fit (a cell that is not one
        # line), the most that fit are found by halving: a table with fewer columns of the
        # same grid is never wider.
        widths = _Widths(self, shown)
        # A column takes at least four cells (a character, a space each side, a divider):
        # more than a quarter of the width never fits, and a long sentence's T columns are
        # not tried one by one.
        limit = max(min(limit, options.max_width // 4), MIN_COLUMNS)
        while limit > MIN_COLUMNS and widths.total(limit) > options.max_width:
            limit -= 1
        table, columns = self._table(shown, limit)
        if limit > MIN_COLUMNS and self._width(console, options, table) > options.max_width:
            low, high = MIN_COLUMNS, limit - 1  # the answer is in [low, high]; low if none fit
            while low < high:
                middle = (low + high + 1) // 2
                tried, _ = self._table(shown, middle, measured=True)
                if self._width(console, options, tried) <= options.max_width:
                    low = middle
                else:
                    high = middle - 1
            table, columns = self._table(shown, low)
        yield Text(self.title, style="bold")
        yield table
        notes = self._notes(shown, columns)
        line = "   ".join(notes)
        if line:  # on one line when it fits, else a note per line
            yield Text(line if len(line) <= options.max_width else "\n".join(notes))

    @staticmethod
    def _width(console: Console, options: ConsoleOptions, table: Table) -> int:
        # Worked out from the cells when the table is plain (it is drawn the same way);
        # otherwise measured by rich, without the console's limit, which a measurement is
        # clamped to.
        width = natural_width(table, console, options)
        if width is not None:
            return width
        unlimited = options.update(width=10_000, max_width=10_000)
        return Measurement.get(console, unlimited, table).maximum

    def _columns(self, limit: int) -> list[int | None]:
        """The columns shown with `limit` at most: the corners, or around the cursor."""
        columns = shown_indices(len(self.grid[0]), limit)
        if self.cursor is not None and self.cursor[1] not in columns:
            columns = _window(len(self.grid[0]), limit, self.cursor[1])
        return columns

    def _table(
        self, shown: _Shown, limit: int, measured: bool = False
    ) -> tuple[Table, list[int | None]]:
        """The table with `limit` columns at most; `measured`: only to be measured, so
        without what does not change its width (the cursor, the clicks' meta)."""
        fmt = self.fmt
        columns = self._columns(limit)
        elided = None in columns
        table = PlainTable(box=box.SIMPLE_HEAVY, show_header=self.column_labels is not None)
        table.add_column("", no_wrap=True)
        labels = short_labels(self.column_labels) if self.column_labels is not None else None
        # A weight cell ends in its mark ("0.464*", "0.243 "): laid out from the left, as
        # rich would strip the space on the right and put the decimals out of line.
        justify: JustifyMethod = "left" if self.heat else "right"
        for j in columns:
            header = ELLIPSIS if j is None or labels is None else labels[j]
            # A Text, not a str: a token is data, never markup ("[red]x").
            table.add_column(Text(header, justify="right"), justify=justify, no_wrap=True)
        largest_column = self.heat and elided
        if largest_column:
            table.add_column(fmt.say("largest_column"), no_wrap=True)
        row_names = short_labels(self.row_labels)
        for i in shown.rows:
            if i is None:
                table.add_row(*(ELLIPSIS for _ in table.columns))
                continue
            largest, at = shown.largest[i]
            cells: list[Any] = [Text(row_names[i])]
            cells += [
                Text(ELLIPSIS, justify="right")
                if j is None
                else self._text(shown.values[i][j], shown.mark(i, shown.values[i][j]), shown)
                for j in columns
            ]
            if not measured and (self.clickable or self.cursor is not None):
                self._interactive(cells, i, columns)
            if largest_column:
                name = "" if at is None or labels is None else f"{labels[at]} "
                cells.append(Text(name + fmt.weight_number(largest if largest is not None else 0)))
            table.add_row(*cells)
        return table, columns

    def _text(self, value: float, mark: str, shown: _Shown) -> Text:
        fmt = self.fmt
        value = float(value)
        if not self.heat:
            return Text(shown.number(value, fmt))
        if math.isinf(value):
            return Text(MASKED + " ", justify="right")
        low, high = shown.span
        level = (value - low) / (high - low) if high > low else 1.0
        return Text(fmt.weight_number(value) + mark, style=heat_style(level, shown.color_system))

    def _interactive(self, cells: list[Any], i: int, columns: list[int | None]) -> None:
        """Row i's label and cells made clickable, and the cursor's cell marked."""
        if self.clickable:
            cells[0].stylize(Style(meta={"row": i}))
        for cell, j in zip(cells[1:], columns, strict=False):
            if j is None:
                continue
            if self.clickable:
                cell.stylize(Style(meta={"cell": (i, j)}))
            if self.cursor == (i, j):
                cell.stylize(CURSOR_STYLE)

    def _notes(self, shown: _Shown, columns: list[int | None]) -> list[str]:
        fmt = self.fmt
        rows = shown.rows
        notes = []
        if self.heat:
            notes.append(fmt.say("row_max", mark=ROW_MAX_MARK))
            if any(i in shown.saturated for i in rows):
                rule = fmt.number(SATURATED, 2, whole_bare=False)
                notes.append(fmt.say("row_saturated", mark=SATURATED_MARK, rule=rule))
            low, high = (fmt.weight_number(end) for end in shown.span)
            if shown.color_system is not None:
                legend = "legend_printed" if shown.color_system == PRINTED else "legend"
                notes.append(
                    fmt.say("legend_flat", weight=high)
                    if shown.flat
                    else fmt.say(legend, low=low, high=high)
                )
        if shown.scientific:
            example = fmt.scientific(shown.tiniest)
            notes.append(fmt.say("scientific", digits=fmt.other, example=example))
        shown_rows = [i for i in rows if i is not None]
        shown_columns = [j for j in columns if j is not None]
        if any(np.isinf(shown.values[i][shown_columns]).any() for i in shown_rows):
            notes.append(fmt.say("masked", mark=MASKED))
        if None in rows or None in columns:
            notes.append(
                fmt.say(
                    # A grid with a cursor shows the others as the cursor reaches them.
                    "elided" if self.cursor is None else "elided_cursor",
                    mark=ELLIPSIS,
                    rows=len(shown_rows),
                    all_rows=len(self.grid),
                    columns=sum(j is not None for j in columns),
                    all_columns=len(self.grid[0]),
                )
            )
        return notes


class _Widths:
    """Each column's width in terminal cells, worked out once from the texts its cells will
    hold, so that how many columns fit is arithmetic rather than a drawing per try. The
    total is the plain table's (drawn.natural_width): every column its widest cell plus a
    space on each side, an edge on each side and a divider between."""

    def __init__(self, grid: NumberGrid, shown: _Shown) -> None:
        fmt = grid.fmt
        self.grid = grid
        self.shown = shown
        rows = [i for i in shown.rows if i is not None]
        elided_rows = None in shown.rows
        labels = short_labels(grid.column_labels) if grid.column_labels is not None else None
        names = short_labels(grid.row_labels)
        self.rows, self.elided_rows, self.labels = rows, elided_rows, labels
        self.label = max([cell_len(names[i]) for i in rows] + [1 if elided_rows else 0])
        self.columns: dict[int, int] = {}  # column -> its width, worked out when first tried
        self.largest = 0
        if grid.heat:
            cells = []
            for i in rows:
                largest, at = shown.largest[i]
                name = "" if at is None or labels is None else f"{labels[at]} "
                cells.append(name + fmt.weight_number(largest if largest is not None else 0))
            heading = cell_len(fmt.say("largest_column"))
            self.largest = max([heading, *map(cell_len, cells), 1 if elided_rows else 0])

    def _cell(self, value: float, largest: float | None) -> str:
        fmt = self.grid.fmt
        value = float(value)
        if not self.grid.heat:
            return self.shown.number(value, fmt)
        if math.isinf(value):
            return MASKED + " "
        return fmt.weight_number(value) + (ROW_MAX_MARK if value == largest else " ")

    def column(self, j: int) -> int:
        """Column j's width: its widest cell or its heading."""
        if j not in self.columns:
            shown, labels = self.shown, self.labels
            texts = [self._cell(shown.values[i][j], shown.largest[i][0]) for i in self.rows]
            header = cell_len(labels[j]) if labels is not None and self.grid.column_labels else 0
            self.columns[j] = max([header, *map(cell_len, texts), 1 if self.elided_rows else 0])
        return self.columns[j]

    def total(self, limit: int) -> int:
        """The table's width with `limit` columns at most."""
        columns = self.grid._columns(limit)
        widths = [self.label] + [1 if j is None else self.column(j) for j in columns]
        if self.grid.heat and None in columns:
            widths.append(self.largest)
        return sum(widths) + 3 * len(widths) + 1


def _window(count: int, limit: int, focus: int) -> list[int | None]:
    """`limit` neighbouring indices of `count` around `focus`, with None where some are left
    out before or after: the columns shown when the cursor is in the elided middle."""
    width = max(limit - 1, 1)
    start = min(max(focus - width // 2, 0), count - width)
    shown: list[int | None] = list(range(start, start + width))
    return [*([None] if start > 0 else []), *shown, *([None] if start + width < count else [])]


class _Shown:
    """What a grid's drawing reads, worked out once however many widths are tried: the rows
    shown, their numbers (-inf where masked), each one's largest number and where it is,
    and the range the colours span (the whole grid's). Only the shown rows are copied."""

    def mark(self, i: int, value: float) -> str:
        """What follows a weight of row i: * for the row's largest, ! for the largest of a
        saturated row, else a space."""
        if value != self.largest[i][0]:
            return " "
        return SATURATED_MARK if i in self.saturated else ROW_MAX_MARK

    def __init__(self, grid: NumberGrid, color_system: str | None) -> None:
        values = np.asarray(grid.grid, dtype=np.float64)  # [rows, columns], not copied
        self.color_system = color_system
        self.rows = shown_indices(len(values), grid.max_rows)
        self.values: dict[int, np.ndarray] = {}  # shown row -> its numbers, -inf where masked
        self.largest: dict[int, tuple[float | None, int | None]] = {}
        self.saturated: set[int] = set()  # shown rows of weights that no longer mix
        for i in self.rows:
            if i is None:
                continue
            row = values[i].copy()
            if grid.mask is not None:
                row[np.asarray(grid.mask[i], dtype=bool)] = -np.inf
            self.values[i] = row
            finite = np.isfinite(row)
            if not finite.any():
                self.largest[i] = (None, None)
                continue
            at = int(np.argmax(np.where(finite, row, -np.inf)))
            self.largest[i] = (float(row[at]), at)
            if grid.heat and saturated_rows(np.where(finite, row, 0.0), finite)[()]:
                self.saturated.add(i)
        # A grid whose every number would print as 0.00 (a freshly initialised layer's)
        # is written in scientific notation instead, and says so.
        self.scientific, self.tiniest = False, 0.0
        # Reductions `where=` the cells count, not over a copy of them: a long sentence's
        # grid holds tens of millions.
        if not grid.heat:
            largest = float(np.max(np.abs(values), where=np.isfinite(values), initial=0.0))
            if vanishes(largest, grid.fmt.other):
                self.scientific, self.tiniest = True, largest
        self.span, self.flat = (0.0, 1.0), False
        if grid.heat and color_system is not None:
            allowed = np.isfinite(values)
            if grid.mask is not None:  # the zeros behind a mask are not shades of the ramp
                allowed &= ~np.asarray(grid.mask, dtype=bool)
            if allowed.any():
                least = float(np.min(values, where=allowed, initial=np.inf))
                self.span = (least, float(np.max(values, where=allowed, initial=-np.inf)))
            # Weights alike to the digits shown (0.333 everywhere, a layer of tiny numbers)
            # get one shade: the ramp would tell apart what the digits cannot.
            low, high = (grid.fmt.weight_number(end) for end in self.span)
            self.flat = low == high
            if self.flat:
                self.span = (self.span[1], self.span[1])

    def number(self, value: float, fmt: Format) -> str:
        """A number of a grid that is not of weights, as its cell writes it."""
        if self.scientific and math.isfinite(value) and value != 0:
            return fmt.scientific(value)
        return fmt.number(value)
