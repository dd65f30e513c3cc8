"""What a printed export tells apart that a screen draws alike: where a page ends
(PageBreak, pages), a matrix of numbers alone (BareMatrix), rows of names and their values
(NamedRows). present/latex.py and present/html.py read them; render and its companions
make them."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text


class PageBreak:
    """Where a printed page ends (between a class set's sheets, before a worksheet's key):
    \\newpage in .tex, a page break in .html, a form feed in .txt, --- in .md, a rule on a
    terminal."""

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.rule import Rule

        yield Text("")
        yield Rule(style="dim")


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
