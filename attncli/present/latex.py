"""--export FILE.tex: what the terminal shows as LaTeX, a whole document that `pdflatex`
compiles as it is, or (--tex-fragment) the body alone to paste into one's own.

Mathematics is typeset as mathematics: W^{Q}, d_k, √d_k, a real minus sign (−2,11), an
option in typewriter type (\texttt{-{}-steps}); a printed sheet carries no command-line
advice (printed.Hint). Tables with a header become tabular environments, the labels'
column and columns of words on the left, columns of numbers right-aligned so that they
line up on their last digit, a worksheet's empty cells as lines as long as the answer they
expect, in rows tall enough to write in; headerless tables (X, Q, K, V, outputs) become
bmatrix matrices with their row labels in a comment, their decimal commas written `{,}` so
that math mode does not space them as a list. A table's title is kept on the page of its
table, and a table wider than the page is set smaller until it fits. Latin Modern in T1,
so the PDF is vector and searchable; only packages of a basic LaTeX installation
(texlive-latex-base, with lmodern) are used: amsmath, amssymb, fontenc, inputenc, lmodern,
geometry, graphicx. A character of the user's text those cannot set (日本, 🙂) is written
as its code point, [U+65E5], so that the document still compiles.
"""

from __future__ import annotations

import re
from typing import Any

from attncli.present.format import BLANK, Blank
from attncli.present.printed import (
    LEAST_BLANK,
    BareMatrix,
    Hint,
    NamedRows,
    NameLine,
    PageBreak,
    blank_characters,
    blank_room,
    has_blanks,
)

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
    "ε": r"$\varepsilon$",
    "θ": r"$\theta$",
    "π": r"$\pi$",
    "Δ": r"$\Delta$",
    "′": r"$'$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "←": r"$\leftarrow$",
    "↔": r"$\leftrightarrow$",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "ᵀ": r"$^{\top}$",
    "‖": r"$\|$",
    "ℓ": r"$\ell$",
    # attn check's marks: a tick (amssymb's, in the AMS fonts of a basic installation) and
    # a bold X, neither to be read as the √ of √d_k or the × of weight × value
    "✓": r"$\checkmark$",
    "✗": r"\textsf{\bfseries X}",
    "→": r"$\rightarrow$",
    "∂": r"$\partial$",
    "∇": r"$\nabla$",
    "⊙": r"$\odot$",
    "█": r"\rule{0.6em}{0.8em}",
    "◆": r"$\blacklozenge$",  # a compared pair's largest changes (amssymb)
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # After \\ (a table's row, a line's end) LaTeX reads [ as the start of a length.
    "[": "{[}",
    # A file's path breaks after any of its slashes, where a long one ran past the margin
    # (\emergencystretch lets the line before the break stretch to it).
    "/": r"/\allowbreak{}",
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

# A box no wider than the line: a table or matrix wider than the page is scaled to fit it
# (the last resort, after a smaller type size; attn's own tables fit at 11 pt).
FIT = r"""\ifdefined\attnbox\else\newsavebox{\attnbox}\fi
\providecommand{\attnfit}[1]{\sbox{\attnbox}{#1}%
  \ifdim\wd\attnbox>\linewidth\resizebox{\linewidth}{!}{\usebox{\attnbox}}%
  \else\usebox{\attnbox}\fi}"""
_PREAMBLE = (
    r"""\documentclass[a4paper,11pt]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage{amsmath}
\usepackage{amssymb}
\usepackage{graphicx}
\usepackage[margin=2cm]{geometry}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.6em}
\renewcommand{\arraystretch}{1.2}
\setlength{\emergencystretch}{3em}
"""
    + FIT
    + r"""
\begin{document}
"""
)


# Mathematics inside a line of text: an option, a square root, a letter with a sub- or
# superscript (W^Q, d_k, d_model, e^score), a negative number.
_INLINE = re.compile(
    r"(?P<option>(?<![\w-])--[a-z][a-z0-9-]*)"
    r"|√\s?(?P<radicand>[A-Za-z](?:[_^][A-Za-z0-9]+)?|\d+(?:[.,]\d+)?)"
    r"|(?<![\w\\])(?P<base>[A-Za-zℓ∇Σ]|\d{1,3}(?:[,\u202f]\d{3})+|\d+(?:[.,]\d+)?)(?P<op>[_^])"
    r"(?P<script>\{[^{}]*\}|\((?:[^()]|\([^()]*\))*\)|[^\W_ᵀ]+|…)"  # K_1ᵀ: ᵀ after
    r"|(?<![\w.,)\]])(?P<negative>[-−]\d+(?:[.,]\d+)?(?:e[-+]?\d+)?)"
)


_MATH_LETTERS = {"ℓ": r"\ell ", "∇": r"\nabla ", "Σ": r"\Sigma "}
# A script in parentheses, e^(m_old − m) or e^((s − m) ÷ T), written as mathematics.
_EXPRESSION = {"−": "-", "÷": r"\div ", "×": r"\times ", "·": r"\cdot ", ",": "{,}",
               "∞": r"\infty ", **_MATH_LETTERS}  # fmt: skip
_SCRIPTED = re.compile(r"(?<![A-Za-z])([A-Za-zℓ])_([A-Za-z0-9]+)")
_WORD = re.compile(r"(?<![\\{\w])[^\W\d_]{2,}(?![\w}])")  # not \text's own name, nor a script


def _script(base: str, op: str, script: str) -> str:
    r"""W^Q as W^{Q}; a word of a script upright: d_{\text{model}}; ℓ_old as \ell_{\text{old}};
    e^(m_old − m) as e^{(m_{\text{old}} - m)}."""
    base = _MATH_LETTERS.get(base, base).strip()
    if base[0].isdigit():  # 10,000^(−2i/8): the rotary base, its thousands mark kept
        base = _math_number(base).replace("\u202f", r"\,")
    if script.startswith("("):
        inner = _SCRIPTED.sub(lambda m: _script(m[1], "_", m[2]), script)
        # a word in it upright, as \text (puntuación, score); single letters stay variables
        inner = _WORD.sub(lambda m: r"\text{" + m[0] + "}", inner)
        script = "".join(_EXPRESSION.get(char, char) for char in inner)
        return f"{base}{op}{{{script}}}"
    script = script.strip("{}").replace("…", r"\ldots")
    if len(script) > 1 and script.isalpha():
        script = r"\text{" + script + "}"
    return f"{base}{op}{{{script}}}"


def _math_number(text: str) -> str:
    return text.replace("−", "-").replace(",", "{,}")


def _inline(match: re.Match[str]) -> str:
    if match["option"]:
        return r"\texttt{" + match["option"].replace("--", "-{}-", 1) + "}"
    if match["radicand"]:
        inner = match["radicand"]
        scripted = re.fullmatch(r"([A-Za-z])([_^])(\w+)", inner)
        inner = _script(*scripted.groups()) if scripted else _math_number(inner)
        return r"$\sqrt{" + inner + "}$"
    if match["base"]:
        return "$" + _script(match["base"], match["op"], match["script"]) + "$"
    return "$" + _math_number(match["negative"]) + "$"


_BARRED = re.compile("([A-Za-z])\u0304")  # a letter and a combining macron: h̄, H̄
# What pdflatex sets from UTF-8 in T1 with a basic installation: ASCII, Latin-1 and Latin
# Extended-A but for a few letters T1 has no glyph for. Any other character of the user's
# text (日本, 🙂, Ħ) is written as its code point, [U+65E5], where it stopped pdflatex.
_UNSET_LATIN = frozenset("ĦħĸĿŀŉŦŧſ")


def _character(char: str) -> str:
    mapped = _TEXT.get(char)
    if mapped is not None:
        return mapped
    if char < "\u0180" and char not in _UNSET_LATIN:
        return char
    return rf"\texttt{{[U+{ord(char):04X}]}}"


def _plain(text: str) -> str:
    """Text without mathematics, each character the LaTeX way; a typed -- never an en dash
    (split before the characters are mapped, so that — as --- stays an em dash); a barred
    letter (the encoder's h̄, H̄) as \bar in math mode."""
    if "\u0304" in text:
        parts = _BARRED.split(text)  # the text between, and each barred letter
        return "".join(_unbarred(part) if index % 2 == 0 else r"$\bar{" + part + "}$"
                       for index, part in enumerate(parts))  # fmt: skip
    return _unbarred(text)


def _unbarred(text: str) -> str:
    """_plain's text with no barred letter: a macron left over (on a digit, 1̄) is a
    character of its own, said by its code point."""
    return "-{}-".join("".join(_character(char) for char in part) for part in text.split("--"))


def tex_text(text: str) -> str:
    """A line of attn's text as LaTeX: its mathematics in math mode, options in \texttt,
    every other character as text."""
    out: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        out.append(_plain(text[position : match.start()]))
        out.append(_inline(match))
        position = match.end()
    out.append(_plain(text[position:]))
    return "".join(out).replace(_plain(BLANK), BLANK_RULE.format(room=LEAST_BLANK))


BLANK_RULE = r"\rule{{{room:.1f}em}}{{0.4pt}}"  # a line to write on, as long as the answer
NAME_EM = 20.0  # the line a student writes their name on


def tex_cell(cell: object, characters: int | None = None) -> str:
    """A table's cell: a blank as a line as long as its column's longest answer
    (`characters`, printed.blank_characters) or its own, else its text."""
    room = blank_room(cell, characters)
    if room is not None:
        return BLANK_RULE.format(room=room)
    return tex_text(str(cell))


# A column of words with a cell longer than this wraps in a paragraph of its own width
# (the Shapes table's "what it holds"), where an l column ran past the page's margin.
LONG_WORDS = 30


def _is_words(cell: object) -> bool:
    return not isinstance(cell, Blank) and any(char.isalpha() for char in str(cell))


def _alignment(rows: list[list[object]], count: int) -> str:
    """The labels' column on the left; a column of numbers right-aligned, one of words left,
    wrapped when its words are long."""
    spec = "l"
    for column in range(1, count):
        words = any(_is_words(row[column]) for row in rows)
        long = words and max((len(str(row[column])) for row in rows), default=0) > LONG_WORDS
        spec += r"p{0.36\linewidth}" if long else "l" if words else "r"
    return spec


# The page's width in em of 11 pt (A4 less two margins of 2 cm), and what a column takes
# besides its text (\tabcolsep on each side).
PAGE_EM = 43.0
COLUMN_EM = 1.1
CHARACTER_EM = 0.5
SMALLER = ((PAGE_EM, ""), (PAGE_EM / 0.91, r"\small"), (PAGE_EM / 0.82, r"\footnotesize"))


def _type_size(headers: list[object], rows: list[list[object]]) -> str:
    """The largest type size at which the table's estimated width fits the page."""
    widths = []
    for column, header in enumerate(headers):
        cells = [row[column] for row in rows]
        characters = blank_characters(cells)
        longest = max(
            (blank_room(cell, characters) or CHARACTER_EM * len(str(cell)) for cell in cells),
            default=0.0,
        )
        head = CHARACTER_EM * len(str(header))
        long = max((len(str(cell)) for cell in cells), default=0) > LONG_WORDS
        widths.append((0.36 * PAGE_EM if long else max(longest, head)) + COLUMN_EM)
    needed = sum(widths)
    for room, size in SMALLER:
        if needed <= room:
            return size
    return SMALLER[-1][1]


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
    headers, rows = raw_cells(table)
    return [str(cell) for cell in headers], [[str(cell) for cell in row] for row in rows]


def raw_cells(table: Any) -> tuple[list[object], list[list[object]]]:
    """A rich table's header and rows as the objects added to it (a blank knows its
    answer)."""
    headers: list[object] = [column.header for column in table.columns]
    columns = [list(column.cells) for column in table.columns]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return headers, rows


def _is_heading(block: Any) -> bool:
    from rich.text import Text

    return isinstance(block, Text) and "underline" in str(block.style)


def _tabular(block: Any) -> list[str]:
    """A table with a header (or rows of names) as a tabular, its size chosen to fit the
    page; a worksheet's rows tall enough to write in."""
    headers, rows = raw_cells(block)
    if isinstance(block, NamedRows):
        spec, shown = "ll", rows
    else:
        spec, shown = _alignment(rows, len(headers)), [headers, *rows]
    out = []
    size = _type_size(headers, rows)
    written = has_blanks(block)
    if written:
        out.append(r"{\renewcommand{\arraystretch}{2.2}%")
    out.append(r"\attnfit{" + (size + " " if size else "") + r"\begin{tabular}{" + spec + "}")
    rooms = [blank_characters([row[column] for row in rows]) for column in range(len(headers))]
    for number, row in enumerate(shown):
        if number == 0 and not isinstance(block, NamedRows):
            out.append(r"\hline")
        cells = (tex_cell(cell, room) for cell, room in zip(row, rooms, strict=True))
        out.append(" & ".join(cells) + r" \\")
        if number == 0 and not isinstance(block, NamedRows):
            out.append(r"\hline")
    if not isinstance(block, NamedRows):
        out.append(r"\hline")
    out.append(r"\end{tabular}}\par")
    if written:
        out.append("}")
    return out


def _matrix(block: Any) -> list[str]:
    """A headerless table as a bmatrix, centred, its row labels in a comment."""
    _headers, rows = table_cells(block)
    skip = 0 if isinstance(block, BareMatrix) else 1  # the row labels' column
    out = [f"% rows: {', '.join(row[0] for row in rows)}"] if skip else []
    out.append(r"{\centering\attnfit{$\displaystyle\begin{bmatrix}")
    out.extend(" & ".join(tex_math(cell) for cell in row[skip:]) + r" \\" for row in rows)
    out.append(r"\end{bmatrix}$}\par}")
    return out


def latex_body(renderables: list[Any]) -> list[str]:
    """The LaTeX lines of the renderables, without a document around them. A line of text
    just above a table is its title, kept on the table's page (\nobreak)."""
    from rich.table import Table

    out: list[str] = []
    flat = [
        block
        for renderable in renderables
        for block in blocks(renderable)
        if not isinstance(block, Hint)
    ]
    flat = [block for block in flat if isinstance(block, (PageBreak, Table)) or str(block).strip()]
    for index, block in enumerate(flat):
        after = flat[index + 1] if index + 1 < len(flat) else None
        if isinstance(block, PageBreak):
            out.extend([r"\newpage", ""])
        elif isinstance(block, NameLine):
            rule = BLANK_RULE.format(room=NAME_EM)
            out.extend([tex_text(block.label) + r"~" + rule + r"\par\medskip", ""])
        elif isinstance(block, Table):
            is_tabular = isinstance(block, NamedRows) or block.show_header
            out.extend(_tabular(block) if is_tabular else _matrix(block))
            out.append("")
        else:
            text = str(block).strip()
            if _is_heading(block):
                out.extend([r"\section*{" + tex_text(text) + "}", ""])
            elif isinstance(after, Table):
                out.extend([r"\textbf{" + tex_text(text) + r"}\par\nobreak", ""])
            else:
                out.extend([tex_text(text).replace("\n", "\\\\\n") + r"\par", ""])
    return out


def latex(renderables: list[Any], fragment: bool = False) -> str:
    """A whole LaTeX document; with `fragment`, its body alone (and the lines its preamble
    needs, to copy into one's own)."""
    body = latex_body(renderables)
    if fragment:
        head = ["% attn export; needs \\usepackage{amsmath,amssymb,graphicx}", FIT, ""]
        return "\n".join(head + body).rstrip() + "\n"
    return _PREAMBLE + "\n" + "\n".join(body).rstrip() + "\n\n\\end{document}\n"
