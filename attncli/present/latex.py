"""--export FILE.tex: what the terminal shows as LaTeX, a whole document that `pdflatex`
compiles as it is, or (--tex-fragment) the body alone to paste into one's own.

Tables with a header become tabular environments, the labels' column and columns of
words on the left, columns of numbers right-aligned so that they line up on their last
digit, a worksheet's empty cells as lines to write on; headerless
tables (X, Q, K, V, outputs) become bmatrix matrices with their row labels in a comment,
their decimal commas written `{,}` so that math mode does not space them as a list.
Only packages of a basic LaTeX installation are used (amsmath, fontenc, inputenc).
"""

from __future__ import annotations

import re
from typing import Any

# Characters of attn's output that pdflatex does not know in text, written the LaTeX way.
_TEXT = {
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
    "±": r"$\pm$",
    "µ": r"$\mu$",
    "½": r"$\frac{1}{2}$",
    "α": r"$\alpha$",
    "δ": r"$\delta$",
    "ᵀ": r"$^{\top}$",
    "‖": r"$\|$",
    "ℓ": r"$\ell$",
    "→": r"$\rightarrow$",
    "∂": r"$\partial$",
    "∇": r"$\nabla$",
    "⊙": r"$\odot$",
    "█": r"\rule{0.6em}{0.8em}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# In math mode (a bmatrix cell): a decimal comma is {,}, a masked cell a dash.
_MATH = {
    ",": "{,}",
    "−": "-",
    "—": r"\text{---}",
    "…": r"\cdots",
    "∞": r"\infty",
    "*": "^{*}",
    "_": r"\_",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "{": r"\{",
    "}": r"\}",
    "\\": r"\backslash ",
}
_NUMBER = re.compile(r"[-−]?(\d+([.,]\d+)?([eE][-+]?\d+)?|—|…|∞|-?∞)\*?")

_PREAMBLE = r"""\documentclass[a4paper,11pt]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{amsmath}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.6em}
\renewcommand{\arraystretch}{1.2}
\begin{document}
"""


_BLANK = "____"  # a worksheet's empty cell (format.BLANK): a line to write on


def tex_text(text: str) -> str:
    return r"\rule{2.5em}{0.4pt}".join(
        "".join(_TEXT.get(char, char) for char in part) for part in text.split(_BLANK)
    )


# A column of words with a cell longer than this wraps in a paragraph of its own width
# (the Shapes table's "what it holds"), where an l column ran past the page's margin.
LONG_WORDS = 30


def _alignment(rows: list[list[str]], count: int) -> str:
    """The labels' column on the left; a column of numbers right-aligned, one of words left,
    wrapped when its words are long."""
    spec = "l"
    for column in range(1, count):
        words = any(any(char.isalpha() for char in row[column]) for row in rows)
        long = words and max((len(row[column]) for row in rows), default=0) > LONG_WORDS
        spec += r"p{0.36\linewidth}" if long else "l" if words else "r"
    return spec


def tex_math(text: str) -> str:
    """A matrix cell in math mode: a number as it is, else the text in \\text{}."""
    if _NUMBER.fullmatch(text.strip()):
        return "".join(_MATH.get(char, char) for char in text.strip())
    return r"\text{" + tex_text(text) + "}"


def blocks(renderable: Any) -> list[Any]:
    """Groups flattened into their tables and lines of text, in order."""
    from rich.console import Group

    if isinstance(renderable, Group):
        return [block for inner in renderable.renderables for block in blocks(inner)]
    if hasattr(renderable, "blocks"):  # a grid drawn for its console: its plain parts
        return list(renderable.blocks())
    return [renderable]


def table_cells(table: Any) -> tuple[list[str], list[list[str]]]:
    """A rich table's header and rows as plain strings."""
    headers = [str(column.header) for column in table.columns]
    columns = [[str(cell) for cell in column.cells] for column in table.columns]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return headers, rows


def _is_heading(block: Any) -> bool:
    from rich.text import Text

    return isinstance(block, Text) and "underline" in str(block.style)


def latex_body(renderables: list[Any]) -> list[str]:
    """The LaTeX lines of the renderables, without a document around them."""
    from rich.table import Table

    out: list[str] = []
    from attncli.present.printed import BareMatrix, NamedRows, PageBreak

    for block in (b for renderable in renderables for b in blocks(renderable)):
        if isinstance(block, PageBreak):
            out.extend([r"\newpage", ""])
        elif isinstance(block, Table):
            headers, rows = table_cells(block)
            if isinstance(block, NamedRows):
                out.append(r"\begin{tabular}{ll}")
                out.extend(" & ".join(tex_text(cell) for cell in row) + r" \\" for row in rows)
                out.append(r"\end{tabular}")
            elif block.show_header:
                out.append(r"\begin{tabular}{" + _alignment(rows, len(headers)) + "}")
                out.append(r"\hline")
                out.append(" & ".join(tex_text(cell) for cell in headers) + r" \\")
                out.append(r"\hline")
                out.extend(" & ".join(tex_text(cell) for cell in row) + r" \\" for row in rows)
                out.append(r"\hline")
                out.append(r"\end{tabular}")
            else:
                skip = 0 if isinstance(block, BareMatrix) else 1  # the row labels' column
                if skip:
                    out.append(f"% rows: {', '.join(row[0] for row in rows)}")
                out.append(r"\[")
                out.append(r"\begin{bmatrix}")
                out.extend(
                    " & ".join(tex_math(cell) for cell in row[skip:]) + r" \\" for row in rows
                )
                out.append(r"\end{bmatrix}")
                out.append(r"\]")
            out.append("")
        else:
            text = str(block).strip()
            if not text:
                continue
            if _is_heading(block):
                out.extend([r"\section*{" + tex_text(text) + "}", ""])
            else:
                out.extend([tex_text(text).replace("\n", "\\\\\n") + r"\par", ""])
    return out


def latex(renderables: list[Any], fragment: bool = False) -> str:
    """A whole LaTeX document; with `fragment`, its body alone (needs amsmath)."""
    body = latex_body(renderables)
    if fragment:
        head = ["% attn export; needs \\usepackage{amsmath} for the matrices", ""]
        return "\n".join(head + body).rstrip() + "\n"
    return _PREAMBLE + "\n" + "\n".join(body).rstrip() + "\n\n\\end{document}\n"
