"""A rich Table that draws itself line by line when it is plain: the same characters in
the same styles as rich's own drawing, in a fraction of the time.

rich draws a table cell by cell through its general layout (measure, pad, wrap, justify,
crop, restyle), about 80 µs a cell: a third of a selfattn screen's time. The tables attn
draws are plain: one line per cell, a box, one space of padding, no title, narrower than
the console. Then each column is as wide as its widest cell, and the drawing is a few
string operations per cell. A table that is not plain, or that does not fit, is drawn by
rich as ever; tests/present/test_drawn.py holds the two drawings to the same characters and styles.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.table import Column, Table
from rich.text import Text

_PADDING = (0, 1, 0, 1)
_LINES = Text("\n")


class PlainTable(Table):
    """A rich Table, drawn line by line when plain (see the module's docstring)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        drawn = _drawn(self, console, options)
        if drawn is None:
            yield from super().__rich_console__(console, options)
        else:
            yield from drawn


def _is_plain(table: Table) -> bool:
    """Drawn exactly by _drawn: a box with edges, one space of padding, no title, caption,
    footer, lines between rows, styles of rows or columns, nor set widths."""
    return (
        table.box is not None
        and table.show_edge
        and table.pad_edge
        and not table.collapse_padding
        and table.padding == _PADDING
        and not (table.show_footer or table.show_lines or table.leading)
        and not (table.title or table.caption)
        and table.width is None
        and table.min_width is None
        and not table.expand
        and not table.row_styles
        and table.style in (None, "", "none")
        and table.border_style in (None, "", "none")
        and all(row.style is None and not row.end_section for row in table.rows)
        and all(_is_plain_column(column) for column in table.columns)
    )


def _is_plain_column(column: Column) -> bool:
    return (
        column.justify in ("left", "right")
        and column.style in (None, "", "none")
        and column.header_style in (None, "", "none")
        and column.width is None
        and column.min_width is None
        and column.max_width is None
        and column.ratio is None
    )


def natural_width(table: Table, console: Console, options: ConsoleOptions) -> int | None:
    """The width rich draws a plain table at when nothing limits it: each column its widest
    cell in terminal cells (« » and 日本 count as they show) plus its padding, and the
    edges and dividers; None when the table is not plain or a cell is not one line."""
    laid_out = _laid_out(table, console, options)
    return None if laid_out is None else _total(laid_out[1])


def _total(widths: list[int]) -> int:
    # One space of padding on each side of a cell, an edge on each side, a divider between.
    return sum(widths) + 3 * len(widths) + 1


def _laid_out(
    table: Table, console: Console, options: ConsoleOptions
) -> tuple[list[list[Text]], list[int]] | None:
    """Each column's cells (its header first) as the Text rich would draw, and the width of
    its widest cell; None when the table is not plain or a cell is not one line."""
    if not _is_plain(table):
        return None
    columns: list[list[Text]] = []
    for column in table.columns:
        cells = [column.header] if table.show_header else []
        cells += list(column.cells)
        texts = [_text(console, cell, column.highlight, options) for cell in cells]
        if any(text is None for text in texts):
            return None
        columns.append(texts)  # type: ignore[arg-type]
    return columns, [max(cell_len(text.plain) for text in texts) for texts in columns]


def _drawn(table: Table, console: Console, options: ConsoleOptions) -> list[Segment] | None:
    """The table's segments, or None when it is not plain, a cell is not one line of text
    or the table is wider than the console (rich then wraps or shrinks columns)."""
    laid_out = _laid_out(table, console, options)
    if laid_out is None or _total(laid_out[1]) > options.max_width:
        return None
    columns, widths = laid_out
    header_style = console.get_style(table.header_style or "")
    padded = [width + 2 for width in widths]  # rich's column widths include the padding
    box = table.box.substitute(options, safe=console.safe_box)  # type: ignore[union-attr]
    box = box if table.show_header else box.get_plain_headed_box()
    null = Style.null()
    new_line = Segment.line()
    segments = [Segment(box.get_top(padded), null), new_line]
    rows = list(zip(*columns, strict=True))
    for index, row in enumerate(rows):
        header = table.show_header and index == 0
        style = header_style if header else null
        if index == 0:
            left, right, divider = box.head_left, box.head_right, box.head_vertical
        elif index == len(rows) - 1:
            left, right, divider = box.foot_left, box.foot_right, box.foot_vertical
        else:
            left, right, divider = box.mid_left, box.mid_right, box.mid_vertical
        segments.append(Segment(left, null))
        for number, (text, column, width) in enumerate(
            zip(row, table.columns, widths, strict=True)
        ):
            if number:
                segments.append(Segment(divider, null))
            segments += _cell(console, text, column.justify, width, style)
        segments += [Segment(right, null), new_line]
        if header:
            segments += [Segment(box.get_row(padded, "head", edge=True), null), new_line]
    segments += [Segment(box.get_bottom(padded), null), new_line]
    return segments


def _text(console: Console, cell: object, highlight: bool, options: ConsoleOptions) -> Text | None:
    """A cell as the Text rich would draw, if it is one line without tabs."""
    if isinstance(cell, str):
        cell = console.render_str(cell, highlight=highlight, markup=options.markup)
    if not isinstance(cell, Text) or "\n" in cell.plain or "\t" in cell.plain:
        return None
    if cell.justify not in (None, "left", "right") or cell.end != "\n":
        return None
    return cell


def _cell(
    console: Console, text: Text, justify: str, width: int, style: Style
) -> Iterator[Segment]:
    """A cell's padding and content, `width` wide, justified as rich does: on the right
    after stripping trailing spaces, on the left by padding."""
    justify = text.justify if text.justify in ("left", "right") else justify
    line = text.copy()
    if justify == "right":
        line.rstrip()
        line.pad_left(width - cell_len(line.plain))
    else:
        line.truncate(width, pad=True)
    yield Segment(" ", style)
    # Joined as rich joins a cell's lines, which makes the text's own style a span.
    for segment in _LINES.join([line]).render(console):
        yield Segment(segment.text, style + segment.style)
    yield Segment(" ", style)
