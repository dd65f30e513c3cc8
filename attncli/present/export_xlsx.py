"""--export FILE.xlsx: an exercise as a worksheet whose cells compute, the way courses built
on spreadsheets work a problem: the givens in cells, every step a formula
(=SUMPRODUCT($B$3:$C$3,B7:C7), =EXP(H7), =I7/SUM(I$7:I$9), =$J7*F7), so that a student who
changes a key sees the whole chain move. Every kind of sheet attn exercise makes has its
spreadsheet: every score method's (present/method_looks), rotary positions, self-attention,
the online softmax, and a class set (a worksheet per sheet). With --blank (or --answers)
the student's cells are left empty and boxed, and the formulas wait in the key's
worksheets, after the sheets.

Each group of cells is a defined name of its worksheet, named as the JSON document names
what it holds (query, keys, scores, weights, output…; the steps the JSON leaves out:
dots, powers, mixed…), so that a reader finds each step by its name.

Written with openpyxl (the spreadsheet extra), imported here only. Any other output is
refused in one line before anything is written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import OptionError
from attncli.messages import Message, _
from attncli.present.method_looks import looks

if TYPE_CHECKING:
    from attncli.present.format import Format
    from attncli.results.exercise import ExerciseResult, SelfAttnExercise
    from attncli.results.inference import OnlineSoftmaxResult


def check_xlsx(result: Any, path: str) -> None:
    """Refuse, before any work is written, what a spreadsheet does not hold, and a missing
    openpyxl."""
    from attncli.results.inference import OnlineSoftmaxResult

    kind, asking = type(result).__name__, getattr(result, "row", None)
    other_row = kind == "SelfAttnExercise" and asking not in (None, len(result.tokens) - 1)
    online = isinstance(result, OnlineSoftmaxResult)
    unheld = (  # what a spreadsheet cannot hold, and why: the first that applies is refused
        (online and not _holds(result),
         Message(_("the spreadsheet of an online softmax works one row of finite scores (a "
                   "masked score, −∞, is no number a cell can hold); give one row without "
                   "masked scores"))),
        (other_row,
         Message(_("a spreadsheet works the last token's row of a layer, and this sheet "
                   "works «{token}»'s"), token=result.tokens[asking] if other_row else "")),
        (kind in ("QuestionSheet", "QuestionCheck"),
         Message(_("a spreadsheet's cells compute an exercise's numbers, and the questions "
                   "are words"))),
        (not online and not _holds(result),
         Message(_("a spreadsheet holds an exercise (attn exercise --export {path})"),
                 path=path)),
    )  # fmt: skip
    for failed, why in unheld:
        if failed:
            raise OptionError(
                _("--export {path}: {why}; name a .tex, .html, .svg, .png, .md or .txt file "
                  "instead"), path=path, why=why)  # fmt: skip
    from attncli.present.written import check_installed

    check_installed("openpyxl", "--export", path)


def _holds(result: Any) -> bool:
    """An exercise of any kind, a class set of them, or one row of finite scores through
    the online softmax (attn exercise --online) as its sheet works it."""
    import numpy as np

    from attncli.results.exercise import ExerciseResult, ExerciseSet, SelfAttnExercise
    from attncli.results.inference import OnlineSoftmaxResult

    if isinstance(result, ExerciseResult | SelfAttnExercise | ExerciseSet):
        return True
    return (
        isinstance(result, OnlineSoftmaxResult)
        and result.single
        and bool(np.isfinite(result.score_grid).all())
    )


def workbook_bytes(result: Any, fmt: Format, blank: bool) -> bytes:
    """The exercise as an .xlsx workbook: a worksheet per sheet (the student's cells empty
    when `blank`) and, when blank, a key per sheet with every formula after them."""
    import io

    from openpyxl import Workbook

    from attncli.results.exercise import ExerciseSet

    if isinstance(result, ExerciseSet):
        sheets = list(result.sheets)
        blank = blank and not result.key_only
        sheet_titles = [f"{fmt.say('worksheet')} {n}" for n in range(1, len(sheets) + 1)]
        key_titles = [f"{fmt.say('answers')} {n}" for n in range(1, len(sheets) + 1)]
        if result.key_only:
            sheet_titles = key_titles
    else:
        sheets = [result]
        sheet_titles, key_titles = [fmt.say("worksheet")], [fmt.say("answers")]
    book = Workbook()
    book.remove(book.active)
    pages = [(title, sheet, not blank) for title, sheet in zip(sheet_titles, sheets, strict=True)]
    if blank:
        pages += [(title, sheet, True) for title, sheet in zip(key_titles, sheets, strict=True)]
    for title, sheet, formulas in pages:
        grid = _Grid(book.create_sheet(_title(title)), fmt, formulas)
        _write(grid, sheet)
        _page_setup(grid)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _title(text: str) -> str:
    """A worksheet's name: at most 31 characters, none of []:*?/\\."""
    return "".join(char for char in text if char not in "[]:*?/\\")[:31]


def _write(grid: _Grid, sheet: Any) -> None:
    from attncli.results.exercise import ExerciseResult, SelfAttnExercise

    if isinstance(sheet, ExerciseResult):
        _score_chain(grid, sheet)
    elif isinstance(sheet, SelfAttnExercise):
        _selfattn(grid, sheet)
    else:
        _online(grid, sheet)


def cell(row: int, column: int, fixed: str = "") -> str:
    """A cell's reference: cell(6, 2) is B6; `fixed` "r", "c" or "rc" pins its row, its
    column or both ($B6, B$6, $B$6)."""
    from openpyxl.utils import get_column_letter

    column_mark = "$" if "c" in fixed else ""
    row_mark = "$" if "r" in fixed else ""
    return f"{column_mark}{get_column_letter(column)}{row_mark}{row}"


def span(row: int, column: int, last_row: int, last_column: int, fixed: str = "") -> str:
    """A range's reference, B6:C8 (pinned as `cell` pins)."""
    return f"{cell(row, column, fixed)}:{cell(last_row, last_column, fixed)}"


FORMULA_MARKS = ("=", "+", "-", "@")  # what a spreadsheet reads as the start of a formula


class _Grid:
    """One worksheet being written: the givens as numbers, each step a formula or, on the
    student's sheet (`formulas` false), an empty boxed cell; each group of cells named."""

    def __init__(self, sheet: Any, fmt: Format, formulas: bool) -> None:
        from openpyxl.styles import Border, Font, Side

        self.sheet, self.fmt, self.formulas = sheet, fmt, formulas
        line = Side(style="thin", color="808080")
        self.box = Border(left=line, right=line, top=line, bottom=line)
        self.bold = Font(bold=True)

    def text(self, row: int, column: int, text: str, bold: bool = False) -> None:
        """Text, never a formula: a token such as =HYPERLINK(…) is the user's data, written
        as a string cell with the quote prefix a spreadsheet keeps when it is edited."""
        written = self.sheet.cell(row, column, text)
        written.data_type = "s"  # openpyxl takes a text that starts with = for a formula
        if text.startswith(FORMULA_MARKS):
            written.quotePrefix = True
        if bold:
            written.font = self.bold

    def given(self, row: int, column: int, value: float) -> None:
        """A number the sheet gives, whole as the exercise's are."""
        number = float(value)
        self.sheet.cell(row, column, int(number) if number.is_integer() else number)

    def givens(self, row: int, column: int, values: Any) -> None:
        """A vector along a row, or a matrix a row of cells per row."""
        rows = values.tolist() if hasattr(values, "tolist") else values
        for r, numbers in enumerate(rows if isinstance(rows[0], list) else [rows]):
            for c, value in enumerate(numbers):
                self.given(row + r, column + c, value)

    def step(self, row: int, column: int, formula: str, digits: int | None = None) -> None:
        """A student's cell: its formula, or on the student's sheet left empty in a box."""
        written = self.sheet.cell(row, column, formula if self.formulas else None)
        written.number_format = "0." + "0" * (self.fmt.other if digits is None else digits)
        if not self.formulas:
            written.border = self.box

    def name(self, name: str, row: int, column: int, last_row: int, last_column: int) -> None:
        """The cells' defined name, kept to this worksheet."""
        from openpyxl.workbook.defined_name import DefinedName

        title = "'" + self.sheet.title.replace("'", "''") + "'"
        where = f"{title}!{span(row, column, last_row, last_column, 'rc')}"
        self.sheet.defined_names[name] = DefinedName(name, attr_text=where)


def _score_chain(grid: _Grid, result: ExerciseResult) -> None:
    """One query against every key: the givens (query, parameters), then a row per token
    with its key (turned, with rotary positions), value, the score's steps, e^score, the
    weight and weight × value; a last row of totals and the output."""
    from attncli.present import render

    fmt, say = grid.fmt, grid.fmt.say
    rope = result.given_query is not None and result.given_keys is not None
    query_given = result.given_query if rope else result.query
    assert query_given is not None
    count, d = result.keys.shape
    d_v = result.values.shape[1]
    query = f"({fmt.vector(query_given.tolist())})"
    grid.text(1, 1, say("exercise_intro", query=query, count=count), bold=True)
    if rope:
        grid.text(2, 1, say("rope_exercise", position=count - 1))
    query_row = 3
    grid.text(query_row, 1, say("query").capitalize(), bold=True)
    grid.givens(query_row, 2, query_given)
    # the columns of a token's row, left to right
    keys = 2
    column = keys + d
    if rope:
        position, angle, cos_sin, turned = column, column + 1, column + 2, column + 4
        column += 6
    values = column
    column += d_v
    parameters = {name: value for name, value in result.parameters.items()}
    given_at: dict[str, int] = {}
    row = query_row + 1
    for name, matrix in parameters.items():
        label = render.notation(name)
        grid.text(row, 1, label, bold=True)
        grid.givens(row, 2, matrix)
        given_at[name] = row
        height = 1 if matrix.ndim == 1 else matrix.shape[0]
        grid.name(name, row, 2, row + height - 1, 1 + (matrix.shape[-1]))
        row += height
    header, first = row + 1, row + 2
    last = first + count - 1
    query_cells = span(query_row, keys, query_row, keys + d - 1, "rc")
    grid.name("given_query" if rope else "query", query_row, keys, query_row, keys + d - 1)
    grid.name("given_keys" if rope else "keys", first, keys, last, keys + d - 1)
    grid.name("values", first, values, last, values + d_v - 1)
    heads = {1: say("token"), keys: say("key"), values: say("value")}
    if rope:
        heads.update({position: say("rope_position"), angle: "θ", cos_sin: say("rope_cos_sin"),
                      turned: "(x′, y′)"})  # fmt: skip
        rows = [(query_row, count - 1), *((first + t, t) for t in range(count))]
        for at, where in rows:
            grid.given(at, position, where)
            grid.given(at, angle, 90 * where)
            theta = f"RADIANS({cell(at, angle)})"
            grid.step(at, cos_sin, f"=COS({theta})")
            grid.step(at, cos_sin + 1, f"=SIN({theta})")
            x, y = cell(at, keys), cell(at, keys + 1)
            cos, sin = cell(at, cos_sin), cell(at, cos_sin + 1)
            grid.step(at, turned, f"={x}*{cos}-{y}*{sin}")
            grid.step(at, turned + 1, f"={x}*{sin}+{y}*{cos}")
        grid.name("query_position", query_row, position, query_row, angle)
        grid.name("key_positions", first, position, last, angle)
        grid.name("query_cos_sin", query_row, cos_sin, query_row, cos_sin + 1)
        grid.name("key_cos_sin", first, cos_sin, last, cos_sin + 1)
        grid.name("query", query_row, turned, query_row, turned + 1)
        grid.name("keys", first, turned, last, turned + 1)
        query_cells = span(query_row, turned, query_row, turned + 1, "rc")
    shown = looks(result.method)
    width = shown.sheet_width(d, parameters)
    mapped, dot = column, column + width
    score = dot + 1
    mapped_heading = shown.sheet_heading or shown.mapped(say, False)
    if mapped_heading is not None:
        heads[mapped] = mapped_heading
    heads[dot] = shown.product(say)
    for t, token in enumerate(result.tokens):
        at = first + t
        grid.text(at, 1, token)
        grid.givens(at, keys, result.given_keys[t] if rope else result.keys[t])  # type: ignore[index]
        grid.givens(at, values, result.values[t])
        key_cells = span(at, turned, at, turned + 1) if rope else span(at, keys, at, keys + d - 1)
        row_cells = _RowCells(grid, at, query_cells, key_cells, given_at, parameters, width,
                              mapped, dot, d)  # fmt: skip
        shown.cells(row_cells)
        grid.step(at, score, f"={cell(at, dot)}{shown.divided(row_cells)}")
    if shown.sheet_name is not None:
        grid.name(shown.sheet_name, first, mapped, last, mapped + width - 1)
    grid.name("dots", first, dot, last, dot)
    _softmax_and_mix(grid, heads, header, first, last, score, values, d_v)


class _RowCells:
    """One token's row of the score's cells, as a method's looks write them
    (present/method_looks): the query's and the key's cells, a given parameter's row, the
    mapped cells (W_a · key, tanh(…)) and the summed product."""

    def __init__(self, grid: _Grid, at: int, query: str, key: str, given_at: dict[str, int],
                 parameters: dict[str, Any], width: int, mapped_at: int, dot_at: int,
                 d: int) -> None:  # fmt: skip
        self.grid, self.at, self.query, self.key = grid, at, query, key
        self.given_at, self.parameters, self.width = given_at, parameters, width
        self.mapped_at, self.dot_at, self.d = mapped_at, dot_at, d

    def parameter_row(self, name: str, row: int) -> str:
        """Row `row` of the given parameter `name` (a vector is its row 0), pinned."""
        first = self.given_at[name] + row
        return span(first, 2, first, 1 + self.parameters[name].shape[-1], "rc")

    def mapped(self, index: int, formula: str) -> None:
        self.grid.step(self.at, self.mapped_at + index, formula)

    def mapped_cell(self, index: int) -> str:
        return cell(self.at, self.mapped_at + index)

    def mapped_span(self) -> str:
        return span(self.at, self.mapped_at, self.at, self.mapped_at + self.width - 1)

    def dot(self, formula: str) -> None:
        self.grid.step(self.at, self.dot_at, formula)


def _softmax_and_mix(
    grid: _Grid,
    heads: dict[int, str],
    header: int,
    first: int,
    last: int,
    score: int,
    values: int,
    d_v: int,
) -> None:
    """The columns every chain ends with, from its scores in column `score`: e^score, the
    weight (÷ the total), weight × value; then the totals' row and the output."""
    fmt, say = grid.fmt, grid.fmt.say
    power, weight, mixed = score + 1, score + 2, score + 3
    heads.update({score: say("score"), power: say("power"), weight: say("weight"),
                  mixed: say("weight_value")})  # fmt: skip
    for column, text in heads.items():
        grid.text(header, column, text, bold=True)
    powers = span(first, power, last, power, "r")
    for at in range(first, last + 1):
        grid.step(at, power, f"=EXP({cell(at, score)})")
        grid.step(at, weight, f"={cell(at, power)}/SUM({powers})", fmt.weight)
        for i in range(d_v):
            grid.step(at, mixed + i, f"={cell(at, weight, 'c')}*{cell(at, values + i)}")
    total = last + 1
    grid.text(total, 1, f"{say('total')} · {say('output')}", bold=True)
    for column, digits in ((power, fmt.other), (weight, fmt.weight)):
        grid.step(total, column, f"=SUM({span(first, column, last, column)})", digits)
    for i in range(d_v):
        grid.step(total, mixed + i, f"=SUM({span(first, mixed + i, last, mixed + i)})")
    for name, column, width in (("scores", score, 1), ("powers", power, 1),
                                ("weights", weight, 1), ("mixed", mixed, d_v)):  # fmt: skip
        grid.name(name, first, column, last, column + width - 1)
    grid.name("power_total", total, power, total, power)
    grid.name("weight_total", total, weight, total, weight)
    grid.name("output", total, mixed, total, mixed + d_v - 1)


def _selfattn(grid: _Grid, result: SelfAttnExercise) -> None:
    """X and W^Q, W^K, W^V given; a row per token with its x, its q, k and v (each number
    x's products with a column of W summed), and against the last token's query its score
    ÷ √d_k, e^score, weight and weight × value."""
    say = grid.fmt.say
    layer, problem = result.layer, result.problem()
    count = len(result.tokens)
    d_model, d_k, d_v = len(problem["x"][0]), len(problem["w_q"][0]), len(problem["w_v"][0])
    grid.text(1, 1, say("selfattn_exercise_intro", count=count, token=result.tokens[-1]), True)
    grid.text(3, 1, say("projections_given"), bold=True)
    column, at_column = 2, {}
    for name, title in (("w_q", "W^Q"), ("w_k", "W^K"), ("w_v", "W^V")):
        grid.text(4, column, title, bold=True)
        grid.givens(5, column, problem[name])
        width = len(problem[name][0])
        grid.name(name, 5, column, 4 + d_model, column + width - 1)
        at_column[name] = column
        column += width + 1
    for i in range(d_model):
        grid.text(5 + i, 1, str(i + 1))
    header = 6 + d_model
    first = header + 1
    last = first + count - 1
    x, queries = 2, 2 + d_model
    keys, values = queries + d_k, queries + 2 * d_k
    dot = values + d_v
    score = dot + 1
    heads = {1: say("token"), x: "x", queries: "q = x W^Q", keys: "k = x W^K",
             values: "v = x W^V", dot: say("query_key")}  # fmt: skip
    for t, token in enumerate(result.tokens):
        at = first + t
        grid.text(at, 1, token)
        grid.givens(at, x, problem["x"][t])
        for name, start, width in (("w_q", queries, d_k), ("w_k", keys, d_k), ("w_v", values, d_v)):
            for j in range(width):
                terms = (
                    f"{cell(at, x + i)}*{cell(5 + i, at_column[name] + j, 'rc')}"
                    for i in range(d_model)
                )
                grid.step(at, start + j, "=" + "+".join(terms))
    query = span(last, queries, last, queries + d_k - 1, "rc")
    divisor = float(layer.divisor) if layer.divisor else 1.0
    divided = f"/SQRT({d_k})" if abs(divisor * divisor - d_k) < 1e-12 else f"/{divisor!r}"
    for t in range(count):
        at = first + t
        grid.step(at, dot, f"=SUMPRODUCT({query},{span(at, keys, at, keys + d_k - 1)})")
        grid.step(at, score, f"={cell(at, dot)}{divided if layer.divisor else ''}")
    for name, start, width in (("x", x, d_model), ("queries", queries, d_k),
                               ("keys", keys, d_k), ("values", values, d_v),
                               ("dots", dot, 1)):  # fmt: skip
        grid.name(name, first, start, last, start + width - 1)
    _softmax_and_mix(grid, heads, header, first, last, score, values, d_v)


def _online(grid: _Grid, result: OnlineSoftmaxResult) -> None:
    """The scores given, a row per token; a row per block: its max, m, e^(m_old − m), the
    block's Σ e^(s − m) and ℓ; then each e^(s − m) and weight with the last m and ℓ. With a
    temperature T, its cell under the rule and every exponent ÷ T, as the screen says."""
    fmt, say = grid.fmt, grid.fmt.say
    scores = result.score_grid[0].tolist()
    tokens = result.column_labels
    count, block = len(scores), result.block
    scaled = result.temperature != 1.0
    over_t = "_t" if scaled else ""  # the labels that say ÷ T
    grid.text(1, 1, say("online_exercise_intro", scores=fmt.vector(scores), block=block), True)
    grid.text(2, 1, say("online_start"))
    grid.text(3, 1, say("online_rule" + over_t))
    over = ""
    if scaled:
        grid.text(4, 1, "T")
        grid.given(4, 2, result.temperature)
        grid.name("temperature", 4, 2, 4, 2)
        over = f"/{cell(4, 2, 'rc')}"
    header = 5
    first = header + 1
    last = first + count - 1
    for column, text in enumerate((say("token"), say("score"), say("online_power" + over_t),
                                   say("weight")), 1):  # fmt: skip
        grid.text(header, column, text, bold=True)
    blocks_header = last + 2
    starts = list(result.blocks.starts)
    ends = [*starts[1:], count]
    heads = ("online_block", "online_tokens", "online_block_max", "online_m",
             "online_factor" + over_t, "online_block_sum" + over_t, "online_l")  # fmt: skip
    for column, key in enumerate(heads, 1):
        grid.text(blocks_header, column, say(key), bold=True)
    top = blocks_header + 1
    for b, (start, end) in enumerate(zip(starts, ends, strict=True)):
        at = top + b
        grid.text(at, 1, str(b + 1))
        grid.text(at, 2, ", ".join(tokens[start:end]))
        in_block = span(first + start, 2, first + end - 1, 2)
        grid.step(at, 3, f"=MAX({in_block})")
        m = cell(at, 4)
        if b == 0:  # from m = −∞ and ℓ = 0: nothing to rescale yet
            grid.step(at, 4, f"={cell(at, 3)}")
            grid.step(at, 5, "=0")
            grid.step(at, 7, f"={cell(at, 6)}")
        else:
            grid.step(at, 4, f"=MAX({cell(at - 1, 4)},{cell(at, 3)})")
            grid.step(at, 5, f"=EXP(({cell(at - 1, 4)}-{m}){over})")
            grid.step(at, 7, f"={cell(at - 1, 7)}*{cell(at, 5)}+{cell(at, 6)}")
        powers = "+".join(f"EXP(({cell(first + j, 2)}-{m}){over})" for j in range(start, end))
        grid.step(at, 6, "=" + powers)
    bottom = top + len(starts) - 1
    final_m, final_l = cell(bottom, 4, "rc"), cell(bottom, 7, "rc")
    for t, token in enumerate(tokens):
        at = first + t
        grid.text(at, 1, token)
        grid.given(at, 2, scores[t])
        grid.step(at, 3, f"=EXP(({cell(at, 2)}-{final_m}){over})")
        grid.step(at, 4, f"={cell(at, 3)}/{final_l}", fmt.weight)
    grid.name("scores", first, 2, last, 2)
    grid.name("shifted", first, 3, last, 3)
    grid.name("weights", first, 4, last, 4)
    for name, column in (("block_max", 3), ("running_max", 4), ("factor", 5),
                         ("block_sum", 6), ("running_sum", 7)):  # fmt: skip
        grid.name(name, top, column, bottom, column)


# How a worksheet prints: A4, one page wide, landscape when its columns are wider than a
# portrait page holds (in characters of the default font), the header row on every page.
PORTRAIT_CHARACTERS = 90
INTRO_CHARACTERS = 24  # a line longer than this, alone in its row, spills over: no width
LEAST_WIDTH, MOST_WIDTH = 6, 40


def _page_setup(grid: _Grid) -> None:
    """The worksheet as it prints: each column as wide as its content (a header wraps at
    its words, a student's empty cell leaves room for its number), one page wide, landscape
    when that is wider than a portrait page, the table's header row repeated on every page
    and, on a student's sheet, a line for their name in the page's header."""
    from openpyxl.styles import Alignment
    from openpyxl.utils import get_column_letter

    sheet = grid.sheet
    header = _header_row(sheet)
    widths: dict[int, int] = {}
    for row in sheet.iter_rows():
        filled = [cell for cell in row if cell.value is not None]
        for cell in row:
            value = cell.value
            if isinstance(value, str) and not value.startswith("="):
                if len(filled) == 1 and len(value) > INTRO_CHARACTERS:
                    continue  # a line of the intro, over the empty cells beside it
                if cell.row == header or "\n" in value:
                    cell.alignment = Alignment(wrap_text=True, vertical="top")
                    needed = max(len(word) for word in value.split())  # wrapped at its words
                else:
                    needed = len(value)
            elif value is None and not cell.border.left.style:
                continue
            else:  # a number, a formula or a student's box: room for the number it holds
                needed = _number_room(cell)
            widths[cell.column] = max(widths.get(cell.column, 0), needed + 2)
    for column, width in widths.items():
        clamped = min(max(width, LEAST_WIDTH), MOST_WIDTH)
        sheet.column_dimensions[get_column_letter(column)].width = clamped
    if header is not None:  # tall enough for its wrapped headings: a spreadsheet won't say
        lines = max(
            _wrapped_lines(str(cell.value), widths.get(cell.column, LEAST_WIDTH) - 2)
            for cell in sheet[header]
            if cell.value is not None
        )
        sheet.row_dimensions[header].height = LINE_POINTS * lines + 2
    setup = sheet.page_setup
    setup.paperSize = sheet.PAPERSIZE_A4
    wide = sum(min(max(width, LEAST_WIDTH), MOST_WIDTH) for width in widths.values())
    setup.orientation = "landscape" if wide > PORTRAIT_CHARACTERS else "portrait"
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    setup.fitToWidth, setup.fitToHeight = 1, 0  # one page wide, as many pages down as needed
    if header is not None:
        sheet.print_title_rows = f"{header}:{header}"
    if not grid.formulas:
        sheet.oddHeader.right.text = f"{grid.fmt.say('name_line')} " + "_" * 24


LINE_POINTS = 14  # a line of the default 11-point font


def _wrapped_lines(text: str, width: int) -> int:
    """How many lines `text` takes wrapped at its words in `width` characters."""
    lines, used = 1, 0
    for word in text.split():
        if used and used + 1 + len(word) > width:
            lines, used = lines + 1, len(word)
        else:
            used += (1 if used else 0) + len(word)
    return lines


def _header_row(sheet: Any) -> int | None:
    """The row of the table's column headings: the first with bold words in three or more
    cells."""
    for row in sheet.iter_rows():
        bold = [cell for cell in row if isinstance(cell.value, str) and cell.font.b]
        if len(bold) >= 3:
            return int(row[0].row)
    return None


def _number_room(cell: Any) -> int:
    """The characters a number cell takes: its written value, or for a formula or an empty
    box, a number of its format (0.000: a sign, two digits before the mark, the decimals)."""
    value = cell.value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return len(f"{value:g}")
    decimals = len(str(cell.number_format).partition(".")[2])
    return 4 + decimals
