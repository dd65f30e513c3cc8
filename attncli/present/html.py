"""A result as HTML: what the terminal shows (heat colours, row-maximum marks, masked cells,
one grid per head, the header lines), drawn by a recording console in full colour and
written with inline styles, so a notebook cell, a browser and a printer show the same.

The same recording serves --export .svg/.html; `LIGHT` is the theme of a page printed on
white, `DARK` today's terminal look. A file on the light page is drawn to be printed: its
weight grids in a light ramp (black digits, mostly paper), a worksheet's rows with room to
write in, an SVG without a terminal window's frame.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich._export_format import CONSOLE_SVG_FORMAT
from rich.terminal_theme import SVG_EXPORT_THEME, TerminalTheme

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from attncli.present.format import Format
    from attncli.results.base import Result

# Black on white; the eight colours darkened enough to read (and print) on white paper.
LIGHT = TerminalTheme(
    (255, 255, 255),
    (0, 0, 0),
    [
        (0, 0, 0),
        (160, 20, 20),
        (0, 110, 0),
        (130, 90, 0),
        (20, 60, 170),
        (130, 30, 140),
        (0, 110, 120),
        (90, 90, 90),
    ],
    [
        (60, 60, 60),
        (200, 40, 40),
        (0, 140, 0),
        (160, 110, 0),
        (40, 80, 200),
        (160, 50, 170),
        (0, 130, 140),
        (40, 40, 40),
    ],
)
DARK = SVG_EXPORT_THEME
THEMES = {"light": LIGHT, "dark": DARK}
WIDTH = 100  # columns a notebook cell or a page holds

# A notebook cell: the console's lines in a <pre> of their own, no page around them.
_CELL = (
    "<pre style=\"font-family:Menlo,'DejaVu Sans Mono',consolas,'Courier New',monospace;"
    'line-height:1.25;color:{foreground};background-color:{background};padding:0.5em">'
    "{code}</pre>"
)


# A <pre> per printed page; each after the first starts a new page (with the older
# page-break-before beside break-before, for engines that know only that). A worksheet's
# room to write in is the line printed_blanks leaves between its rows, not a taller line
# everywhere (which ran a self-attention sheet onto a second page).
_SHEET = (
    "<pre style=\"font-family:Menlo,'DejaVu Sans Mono',consolas,'Courier New',monospace;"
    'line-height:1.25;color:{foreground};background-color:{background}{break_before}">'
    "{code}</pre>"
)
PAGE_BREAK = ";break-before:page;page-break-before:always"
# On a screen, where a page break does not show, a dashed line between the pages. On paper
# a sheet's 100 columns in 11 px type: a sheet of the longest kind (additive, self-attention)
# with its room to write in fits a page of Letter, the shorter paper.
_PAGES = """<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<style>
body {{ background-color: {background}; }}
@media screen {{ pre + pre {{ border-top: 1px dashed #999999; padding-top: 1em; }} }}
@media print {{ pre {{ font-size: 11px; }} }}
</style>
</head>
<body>
{sheets}
</body>
</html>
"""


def recording(width: int = WIDTH, printed: bool = False) -> Console:
    """A console that records in full colour, whatever the terminal (TERM, COLORTERM,
    NO_COLOR, COLUMNS) or the notebook it runs in: a file shows every shade of the ramp;
    `printed`, the light ramp of a page to print (present/grid)."""
    from rich.console import Console

    console = Console(
        record=True,
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        force_jupyter=False,
        force_interactive=False,
        color_system="truecolor",
        no_color=False,
        legacy_windows=False,
        _environ={},
    )
    console.printed = printed  # type: ignore[attr-defined]
    return console


def recorded(renderables: list[Any], width: int = WIDTH, printed: bool = False) -> Console:
    console = recording(width, printed)
    for renderable in renderables:
        console.print(renderable)
    return console


def page(renderables: list[Any], theme: str = "light") -> str:
    """A whole HTML page of the renderables (--export .html): each of a class set's sheets
    starts a printed page; a worksheet's blanks as long as their answers, its lines far
    enough apart to write in; no command-line advice."""
    from attncli.present.printed import for_print, pages

    chosen = THEMES[theme]
    sheets = []
    for number, part in enumerate(pages(renderables)):
        code_format = _SHEET.replace("{break_before}", PAGE_BREAK if number else "")
        sheets.append(
            recorded(for_print(part), printed=theme == "light").export_html(
                inline_styles=True,
                theme=chosen,
                code_format=code_format,
            )
        )
    background = "#{:02x}{:02x}{:02x}".format(*chosen.background_color)
    return _PAGES.format(background=background, sheets="\n".join(sheets))


# An exported SVG is a picture of the page, not of a terminal window: no frame, no title
# bar, no three dots; the page's colour behind it.
_SVG = CONSOLE_SVG_FORMAT.replace(
    "{chrome}", '<rect x="0" y="0" width="{width}" height="{height}" fill="BACKGROUND"/>'
)


def svg(renderables: list[Any], theme: str = "light") -> str:
    """The renderables as an SVG picture (--export .svg), light and to print by default."""
    from attncli.present.printed import for_print

    chosen = THEMES[theme]
    background = "#{:02x}{:02x}{:02x}".format(*chosen.background_color)
    console = recorded(for_print(renderables), printed=theme == "light")
    return console.export_svg(theme=chosen, code_format=_SVG.replace("BACKGROUND", background))


def cell(renderables: list[RenderableType]) -> str:
    """The renderables as one <pre> with inline styles, light, for a notebook cell: no
    command-line advice, which a notebook cannot type."""
    from attncli.present.printed import without_hints

    return recorded(without_hints(renderables)).export_html(
        inline_styles=True, theme=LIGHT, code_format=_CELL
    )


def html_of(result: Result, fmt: Format) -> str:
    """A result as its terminal view, in a notebook cell."""
    from attncli.present.views import view_of

    return cell(view_of(result, fmt))
