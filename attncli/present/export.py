"""--export FILE: what the terminal shows, written to a file whose extension picks the kind.

.svg, .html and .txt come from a recording rich console; .md and .tex are built by
walking the same renderables (groups, tables, lines of text), so every command
exports without code of its own.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from attncli.errors import OptionError

KINDS = (".svg", ".html", ".txt", ".md", ".tex")
WIDTH = 100


def check_export_path(path: str) -> None:
    """Refuse an unknown extension or a missing folder before any work is done."""
    suffix = Path(path).suffix.lower()
    if suffix not in KINDS:
        raise OptionError(
            f"--export {path}: unknown kind {suffix or '(no extension)'}; "
            f"name a file ending in {', '.join(KINDS)}",
            f"--export {path}: tipo desconocido {suffix or '(sin extensión)'}; "
            f"usa un fichero que acabe en {', '.join(KINDS)}",
        )
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise OptionError(
            f"--export {path}: the folder {folder} does not exist",
            f"--export {path}: la carpeta {folder} no existe",
        )


def export(renderables: list[Any], path: str) -> None:
    """Write the renderables to `path` in the kind its extension names."""
    suffix = Path(path).suffix.lower()
    if suffix == ".md":
        text = markdown(renderables)
    elif suffix == ".tex":
        text = latex(renderables)
    else:
        text = _recorded(renderables, suffix)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise OptionError(
            f"--export {path}: cannot write it: {error.strerror}",
            f"--export {path}: no se puede escribir: {error.strerror}",
        ) from None


def _recorded(renderables: list[Any], suffix: str) -> str:
    from rich.console import Console

    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True)
    for renderable in renderables:
        console.print(renderable)
    if suffix == ".svg":
        return console.export_svg(title="attn")
    if suffix == ".html":
        return console.export_html(inline_styles=True)
    return console.export_text()


def _blocks(renderable: Any) -> list[Any]:
    """Groups flattened into their tables and lines of text, in order."""
    from rich.console import Group

    if isinstance(renderable, Group):
        return [block for inner in renderable.renderables for block in _blocks(inner)]
    if hasattr(renderable, "blocks"):  # a grid drawn for its console: its plain parts
        return list(renderable.blocks())
    return [renderable]


def _table_cells(table: Any) -> tuple[list[str], list[list[str]]]:
    """A rich table's header and rows as plain strings."""
    headers = [str(column.header) for column in table.columns]
    columns = [[str(cell) for cell in column.cells] for column in table.columns]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return headers, rows


def markdown(renderables: list[Any]) -> str:
    """Tables as Markdown tables, lines of text as paragraphs."""
    from rich.table import Table

    out: list[str] = []
    for block in (b for renderable in renderables for b in _blocks(renderable)):
        if isinstance(block, Table):
            headers, rows = _table_cells(block)
            if not block.show_header:
                headers = [""] * len(headers)
            out.append("| " + " | ".join(_md(cell) for cell in headers) + " |")
            out.append("|" + "|".join(" --- " for _ in headers) + "|")
            out.extend("| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows)
            out.append("")
        else:
            text = str(block).strip()
            if text:
                out.extend([_md(text), ""])
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    for char in "\\|*_`[]<>":
        text = text.replace(char, "\\" + char)
    return text


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "×": r"$\times$",
    "÷": r"$\div$",
    "√": r"$\surd$",
    "≈": r"$\approx$",
    "Σ": r"$\Sigma$",
    "·": r"$\cdot$",
    "—": "---",
    "…": r"\ldots{}",
    "−": "$-$",
    "²": r"$^2$",
    "∞": r"$\infty$",
    "–": "--",
    "\u202f": r"\,",
}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def latex(renderables: list[Any]) -> str:
    """Tables with a header as tabular environments, headerless ones (X, Q, K, V, outputs)
    as bmatrix matrices with their row labels in a comment; lines of text as paragraphs.
    Needs amsmath for bmatrix."""
    from rich.table import Table

    out = ["% attn export; \\usepackage{amsmath} for the matrices", ""]
    for block in (b for renderable in renderables for b in _blocks(renderable)):
        if isinstance(block, Table):
            headers, rows = _table_cells(block)
            if block.show_header:
                out.append("\\begin{tabular}{" + "l" * len(headers) + "}")
                out.append("\\hline")
                out.append(" & ".join(_tex(cell) for cell in headers) + " \\\\")
                out.append("\\hline")
                out.extend(" & ".join(_tex(cell) for cell in row) + " \\\\" for row in rows)
                out.append("\\hline")
                out.append("\\end{tabular}")
            else:
                labels = ", ".join(row[0] for row in rows)
                out.append(f"% rows: {labels}")
                out.append("\\[")
                out.append("\\begin{bmatrix}")
                out.extend(" & ".join(_tex(cell) for cell in row[1:]) + " \\\\" for row in rows)
                out.append("\\end{bmatrix}")
                out.append("\\]")
            out.append("")
        else:
            text = str(block).strip()
            if text:
                out.extend([_tex(text) + "\\par", ""])
    return "\n".join(out).rstrip() + "\n"
