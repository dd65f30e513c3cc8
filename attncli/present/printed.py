"""What a printed export tells apart that a screen draws alike: where a page ends
(PageBreak, pages), a matrix of numbers alone (BareMatrix), rows of names and their values
(NamedRows), a line of command-line advice (Hint), which a printed sheet and a notebook
leave out (for_print), the line a student writes their name on (NameLine), which only a
printed sheet shows. present/latex.py and present/html.py read them; render and its
companions make them."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from attncli.present.format import Blank


class PageBreak:
    """Where a printed page ends (between a class set's sheets, before a worksheet's key):
    \\newpage in .tex, a page break in .html, a form feed in .txt, --- in .md, a rule on a
    terminal."""

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.rule import Rule

        yield Text("")
        yield Rule(style="dim")


NAME_ROOM = 32  # characters of the line a student writes their name on


class NameLine:
    """The line a student writes their name on ("Name: ____"), under a worksheet's heading:
    on every printed page of a sheet, never on a screen or in a notebook, where nobody
    writes (rich draws nothing of it)."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __str__(self) -> str:
        return f"{self.label} {'_' * NAME_ROOM}"

    def __rich_console__(self, console: Any, options: Any) -> Any:
        return iter(())


def pages(renderables: list[Any]) -> list[list[Any]]:
    """The renderables cut at each PageBreak: what each printed page holds."""
    cut: list[list[Any]] = [[]]
    for renderable in renderables:
        if isinstance(renderable, PageBreak):
            cut.append([])
        else:
            cut[-1].append(renderable)
    return cut


class BareMatrix(Table):
    """A matrix drawn as its numbers alone, without a column of row labels (a score
    parameter's W_a): an export writes every column of it."""


class NamedRows(Table):
    """Rows of a name and its value, without a header (c, the target, ∇_c ℓ): an export
    writes them as a table of two columns, never as a matrix."""


class Hint(Text):
    """A line of command-line advice ("--steps --token T explains a row"): on a terminal,
    where it can be typed; never on a printed sheet, nor in a notebook."""


def without_hints(renderables: list[Any], sized_blanks: bool = False) -> list[Any]:
    """The renderables without their Hint lines, groups rebuilt around what is left: what a
    notebook cell and a printed page show; with `sized_blanks`, a worksheet's tables with
    blanks as long as their answers (printed_blanks)."""
    kept: list[Any] = []
    for renderable in renderables:
        if isinstance(renderable, Hint):
            continue
        if sized_blanks and isinstance(renderable, NameLine):  # printed: drawn as text
            kept.extend([Text(str(renderable)), Text("")])
            continue
        if isinstance(renderable, Group):
            inner = without_hints(list(renderable.renderables), sized_blanks)
            if any(not isinstance(item, Hint) for item in renderable.renderables):
                kept.append(Group(*inner, fit=renderable.fit))
            continue
        if sized_blanks and isinstance(renderable, Table) and has_blanks(renderable):
            renderable = printed_blanks(renderable)
        kept.append(renderable)
    return kept


def for_print(renderables: list[Any]) -> list[Any]:
    """What a printed page of characters (.html, .svg, .txt, .md) shows: no command-line
    advice, and blanks with room for their answers."""
    return without_hints(renderables, sized_blanks=True)


HANDWRITTEN = 0.6  # em a handwritten character takes, against a printed digit's 0.5
LEAST_BLANK = 3.0  # em: the room for the shortest answer
LEAST_CHARACTERS = 6  # the same on a page drawn in characters


ROOM_STEP = 4  # characters: a column's blanks grow by this much, so a length tells little


def blank_characters(cells: list[object]) -> int:
    """How many characters every blank of a column leaves for its answer: the column's
    longest answer, rounded up to a step of ROOM_STEP. One length for the whole column, so
    that a short line does not tell which answer is short («0; 0» beside «2,11; 0,78»)."""
    longest = max((len(cell.answer) for cell in cells if isinstance(cell, Blank)), default=0)
    return -(-max(longest, 1) // ROOM_STEP) * ROOM_STEP


def blank_room(cell: object, characters: int | None = None) -> float | None:
    """How wide (in em) a blank is drawn on a printed sheet, for `characters` characters
    (its column's, blank_characters), else for the answer it expects; None for a cell that
    is not a blank."""
    if not isinstance(cell, Blank):
        return None
    length = len(cell.answer) if characters is None else characters
    return max(LEAST_BLANK, HANDWRITTEN * length + 1.0)


def has_blanks(table: Table) -> bool:
    """True for a worksheet's table, whose rows are written in by hand."""
    return any(isinstance(cell, Blank) for column in table.columns for cell in column.cells)


def printed_blanks(table: Table) -> Table:
    """A copy of `table` whose blanks are as long as the longest answer of their column
    (blank_characters; in underscores, for a page drawn in characters: .html, .svg, .txt),
    a line left between
    its rows: room to write in, where a line-height for the whole sheet spread its
    headings too and ran a sheet onto a second page."""
    import copy

    drawn = copy.copy(table)
    drawn.leading = 1
    drawn.columns = []
    for column in table.columns:
        copied = copy.copy(column)
        room = "_" * max(LEAST_CHARACTERS, blank_characters(list(column.cells)) + 2)
        copied._cells = [room if isinstance(cell, Blank) else cell for cell in column.cells]
        drawn.columns.append(copied)
    return drawn
