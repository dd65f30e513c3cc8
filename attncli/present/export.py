"""--export FILE: what the terminal shows, written to a file whose extension picks the kind.

.svg, .html and .txt come from a console that records in full colour whatever the terminal
(present.html), on a light, print-friendly page unless --theme dark; .md and .tex
(present.latex) are built by walking the same renderables (groups, tables, lines of text),
so every command exports without code of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

KINDS = (".svg", ".html", ".txt", ".md", ".tex", ".png", ".xlsx")
THEMED = (".svg", ".html", ".png")  # the kinds --theme colours (cli/options refuses it else)


def check_export_path(path: str) -> None:
    """Refuse an unknown extension or a missing folder before any work is done."""
    from attncli.present.written import check_installed, check_kind

    if check_kind(path, "--export", KINDS) == ".png":
        check_installed("matplotlib", "--export", path)


def export(
    renderables: list[Any], path: str, theme: str | None = None, fragment: bool = False
) -> None:
    """Write the renderables to `path` in the kind its extension names."""
    from attncli.present import html, latex
    from attncli.present.printed import for_print, without_hints

    suffix = Path(path).suffix.lower()
    from attncli.present.written import write_file

    if suffix == ".png":
        from attncli.present.export_png import png_bytes

        write_file(path, png_bytes(renderables, theme or "light"), "--export")
        return
    if suffix == ".md":  # text to edit further: its blanks stay the screen's
        renderables = without_hints(renderables)
    elif suffix == ".txt":  # .tex, .html and .svg size blanks and leave hints out themselves
        renderables = for_print(renderables)
    if suffix == ".md":
        text = markdown(renderables)
    elif suffix == ".tex":
        text = latex.latex(renderables, fragment)
    elif suffix == ".html":
        text = html.page(renderables, theme or "light")
    elif suffix == ".svg":
        text = html.svg(renderables, theme or "light")
    else:  # .txt: a form feed between pages, which a printer of plain text obeys
        from attncli.present.printed import pages

        text = "\f".join(html.recorded(page).export_text() for page in pages(renderables))
    write_file(path, text, "--export")


def markdown(renderables: list[Any]) -> str:
    """Tables as Markdown tables, lines of text as paragraphs."""
    from rich.table import Table

    from attncli.present.latex import blocks, table_cells

    out: list[str] = []
    from attncli.present.printed import PageBreak

    for block in (b for renderable in renderables for b in blocks(renderable)):
        if isinstance(block, PageBreak):
            out.extend(["---", ""])
        elif isinstance(block, Table):
            headers, rows = table_cells(block)
            if not block.show_header:
                headers = [""] * len(headers)
            out.append("| " + " | ".join(_md(cell) for cell in headers) + " |")
            out.append("|" + "|".join(" --- " for _column in headers) + "|")
            out.extend("| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows)
            out.append("")
        else:
            text = str(block).strip()
            if text:  # a block's own lines (a question and its choices) kept apart: "\"
                out.extend([_md(text).replace("\n", "\\\n"), ""])
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    for char in "\\|*_`[]<>":
        text = text.replace(char, "\\" + char)
    return text
