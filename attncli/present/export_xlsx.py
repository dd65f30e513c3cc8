"""--export FILE.xlsx: a worksheet whose cells compute, the way courses built on
spreadsheets work a problem: the query, keys and values in cells, every step a formula
(=SUMPRODUCT($B$3:$C$3,B6:C6), =EXP(F6), =G6/SUM(G$6:G$8), =$H6*D6), so that a student
who changes a key sees the whole chain move. With --answers the student's cells are left
empty on the sheet (a worksheet to fill), and a second worksheet, the key, holds the
formulas.

Written with openpyxl (the spreadsheet extra), imported here only. A dot or scaled
exercise of one sheet; any other output is refused in one line before anything is
written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import OptionError
from attncli.messages import _

if TYPE_CHECKING:
    from attncli.present.format import Format

METHODS = ("dot", "scaled")
QUERY_ROW = 3
HEADER_ROW = 5
FIRST_ROW = 6


def check_xlsx(result: Any, path: str) -> None:
    """Refuse, before any work is written, what a spreadsheet does not hold yet, and a
    missing openpyxl."""
    from attncli.results.exercise import ExerciseResult

    method = getattr(result, "method", None)
    if not isinstance(result, ExerciseResult) or method not in METHODS:
        raise OptionError(
            _(
                "--export {path}: a spreadsheet holds a dot or scaled exercise of one sheet "
                "(attn exercise --method scaled --export {path}); for this output name a .tex, "
                ".html, .svg, .png, .md or .txt file"
            ),
            path=path,
        )
    from importlib.util import find_spec

    if find_spec("openpyxl") is None:
        from attncli.errors import install_command

        raise OptionError(
            _("--export {path} needs openpyxl, which is not installed where attn runs: {command}"),
            path=path,
            command=install_command("openpyxl"),
        )


def workbook_bytes(result: Any, fmt: Format, blank: bool) -> bytes:
    """The exercise as an .xlsx workbook: its sheet (the student's cells empty when
    `blank`) and, when blank, a key with every formula."""
    import io

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = _title(fmt.say("worksheet"))
    _write(sheet, result, fmt, formulas=not blank)
    if blank:
        _write(book.create_sheet(_title(fmt.say("answers"))), result, fmt, formulas=True)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _title(text: str) -> str:
    """A worksheet's name: at most 31 characters, none of []:*?/\\."""
    return "".join(char for char in text if char not in "[]:*?/\\")[:31]


def _write(sheet: Any, result: Any, fmt: Format, formulas: bool) -> None:
    from openpyxl.styles import Border, Font, Side
    from openpyxl.utils import get_column_letter as letter

    bold = Font(bold=True)
    line = Side(style="thin", color="808080")
    box = Border(left=line, right=line, top=line, bottom=line)
    count, d = result.keys.shape
    d_v = result.values.shape[1]
    query = fmt.vector(result.query.tolist())
    sheet.cell(1, 1, fmt.say("exercise_intro", query=f"({query})", count=count)).font = bold
    sheet.cell(QUERY_ROW, 1, fmt.say("query").capitalize()).font = bold
    for i, value in enumerate(result.query.tolist()):
        sheet.cell(QUERY_ROW, 2 + i, value)
    q = f"${letter(2)}${QUERY_ROW}:${letter(1 + d)}${QUERY_ROW}"
    keys, values = 2, 2 + d  # first columns
    dot, score, power, weight, mixed = (values + d_v + k for k in range(5))
    last = FIRST_ROW + count - 1
    heads = {
        1: fmt.say("token"),
        keys: fmt.say("key"),
        values: fmt.say("value"),
        dot: fmt.say("query_key"),
        score: fmt.say("score"),
        power: fmt.say("power"),
        weight: fmt.say("weight"),
        mixed: fmt.say("weight_value"),
    }
    for column, text in heads.items():
        sheet.cell(HEADER_ROW, column, text).font = bold
    scaled = result.method == "scaled"

    def put(row: int, column: int, formula: str, digits: int) -> None:
        cell = sheet.cell(row, column, formula if formulas else None)
        cell.number_format = "0." + "0" * digits
        if not formulas:
            cell.border = box

    for t, token in enumerate(result.tokens):
        row = FIRST_ROW + t
        sheet.cell(row, 1, token)
        for i, value in enumerate(result.keys[t].tolist()):
            sheet.cell(row, keys + i, value)
        for i, value in enumerate(result.values[t].tolist()):
            sheet.cell(row, values + i, value)
        k = f"{letter(keys)}{row}:{letter(keys + d - 1)}{row}"
        put(row, dot, f"=SUMPRODUCT({q},{k})", fmt.other)
        divided = f"/SQRT({d})" if scaled else ""
        put(row, score, f"={letter(dot)}{row}{divided}", fmt.other)
        put(row, power, f"=EXP({letter(score)}{row})", fmt.other)
        column = letter(power)
        put(row, weight, f"={column}{row}/SUM({column}${FIRST_ROW}:{column}${last})", fmt.weight)
        for i in range(d_v):
            put(row, mixed + i, f"=${letter(weight)}{row}*{letter(values + i)}{row}", fmt.other)
    total = last + 1
    sheet.cell(total, 1, f"{fmt.say('total')} · {fmt.say('output')}").font = bold
    for column, digits in ((power, fmt.other), (weight, fmt.weight)):
        name = letter(column)
        put(total, column, f"=SUM({name}{FIRST_ROW}:{name}{last})", digits)
    for i in range(d_v):
        name = letter(mixed + i)
        put(total, mixed + i, f"=SUM({name}{FIRST_ROW}:{name}{last})", fmt.other)
    sheet.column_dimensions["A"].width = 14
    for column in range(2, mixed + d_v):
        sheet.column_dimensions[letter(column)].width = 10
