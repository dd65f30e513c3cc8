"""Results and steps as rich renderables; nothing here prints.

Numbers are formatted as a hand-worked table writes them: whole numbers bare
(2, 10), other scores, powers and products to 2 decimals, weights to 3, with a
decimal comma in Spanish. Text that came from the user (tokens, labels) is data,
never markup. A worksheet (blank) keeps the givens and leaves empty every cell
a student computes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Union

from rich import box
from rich.console import Console, Group, RenderableType
from rich.containers import Lines
from rich.table import Table
from rich.text import Text

from attncli.present.drawn import PlainTable
from attncli.present.format import (
    ELLIPSIS,
    VECTOR_ITEMS,
    Format,
    shown_indices,
)
from attncli.present.language import printable
from attncli.present.method_looks import looks
from attncli.present.printed import BareMatrix
from attncli.present.printed import Hint as Hint
from attncli.present.printed import NamedRows as NamedRows
from attncli.present.printed import NameLine as NameLine
from attncli.present.printed import PageBreak as PageBreak

if TYPE_CHECKING:
    import numpy as np

    from attncli.explain.calculator import MixSteps, ProjectionSteps, ScoreSteps, SoftmaxSteps

# A grid of numbers: nested lists, or a numpy array indexed the same way.
Matrix = Union[Sequence[Sequence[float]], "np.ndarray"]


def safe_label(text: str) -> Text:
    """A user's token as plain text: no markup, control characters shown as escapes."""
    return Text(printable(text))


def _table() -> Table:
    return PlainTable(box=box.SIMPLE_HEAVY)


def _titled(title: str, table: Table, notes: list[str] | None = None) -> RenderableType:
    """A heading above the table and notes below it, as lines of their own: a table's title
    and caption would wrap at the table's width."""
    below = [Line("   ".join(notes))] if notes else []
    return Group(Line(title, style="bold"), table, *below)


def _factor(value: float, fmt: Format) -> str:
    text = fmt.number(value)
    return f"({text})" if text.startswith("-") else text


T = TypeVar("T")
LIST_ROWS = 20  # a longer list of tokens shows its first and last rows around "…"


def _listed(items: Sequence[T], table: Table, fmt: Format) -> Iterator[T]:
    """The items to draw as rows: all of a short list; of a long one the first and last,
    with a "…" row added to `table` between them."""
    for index in shown_indices(len(items), LIST_ROWS):
        if index is None:
            table.add_row(*(ELLIPSIS for _ in table.columns))
            continue
        yield items[index]


def _list_notes(count: int, fmt: Format) -> list[str]:
    """The note under a list that was cut."""
    if count <= LIST_ROWS:
        return []
    return [fmt.say("elided_rows", mark=ELLIPSIS, rows=LIST_ROWS, all_rows=count)]


LONG_SUM = 2 * VECTOR_ITEMS  # a sum of more terms keeps only its first two and its last


def dot_terms(terms: list[tuple[float, float]], fmt: Format) -> str:
    """'1×2 + 0×1', negatives in brackets as on paper: '1.17×(-0.84)'; a long sum keeps its
    first and last terms around '…', a very long one (a real model's 32 or 64) its first two
    and last around how many are left out, so a row stays a few lines at 80 columns."""

    def term(index: int) -> str:
        return f"{_factor(terms[index][0], fmt)}×{_factor(terms[index][1], fmt)}"

    if len(terms) > LONG_SUM:  # the note under the table says how many "…" stands for
        return " + ".join([term(0), term(1), ELLIPSIS, term(len(terms) - 1)])
    return " + ".join(
        ELLIPSIS if index is None else term(index)
        for index in shown_indices(len(terms), VECTOR_ITEMS)
    )


def _key_text(key: Sequence[float], fmt: Format) -> str:
    """A key as the course writes it; a very long one as its first two and last numbers."""
    if len(key) > LONG_SUM:
        return fmt.joined([fmt.number(key[0]), fmt.number(key[1]), ELLIPSIS, fmt.number(key[-1])])
    return fmt.vector(key)


def score_steps_table(steps: ScoreSteps, fmt: Format) -> RenderableType:
    """Per key: the key, the products summed, and the score (÷√d_k when scaled)."""
    query = fmt.say("query") if steps.query_label is None else steps.query_label
    # From a projection step before, the query and keys are the student's own results.
    given = fmt.carried if steps.carried_inputs else str
    vector = given(fmt.vector(steps.query))
    heading = fmt.say(f"scores.{steps.method}", query=query, vector=vector)
    d_k = len(steps.query)
    root_of = d_k if steps.root_of is None else steps.root_of
    if (
        steps.method == "scaled"
        and steps.divisor
        and (not math.isclose(steps.divisor, math.sqrt(d_k), rel_tol=1e-12) or steps.root_name)
    ):  # ÷ something else than √d_k, or a root of its own name: the heading says what
        divisor = _divided_by(steps.divisor, root_of, steps.root_name, fmt)
        heading = fmt.say("scores.scaled_by", query=query, vector=vector, divisor=divisor)
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("key"))
    method = looks(steps.method)
    mapped = method.mapped(fmt.say, steps.biased)
    if mapped is not None:
        table.add_column(mapped)
    # The product is asked for on its own where a step follows it (÷ √d_k); else the score
    # is that product, and attn check's sheet shows the score alone.
    lengths = method.lengths is not None and any(row.lengths for row in steps.rows)
    divided = bool(steps.divisor) or lengths
    product_shown = fmt.working or divided
    working = fmt.working
    if product_shown:
        table.add_column(method.product(fmt.say))
    if lengths:  # ‖q‖ ‖k‖, which divides the product: a step of its own
        table.add_column(str(method.lengths))
    if steps.divisor and working:
        root = math.isclose(steps.divisor, math.sqrt(root_of), rel_tol=1e-12)
        divisor = fmt.stated(steps.divisor)
        shown = f"√{fmt.number(root_of)} = {divisor}"
        table.add_column(f"÷ {shown if root else divisor}")
    biased = any(row.bias is not None for row in steps.rows)
    if biased:  # a float attn_mask, added to the scores before the softmax
        table.add_column(f"+ {steps.bias_name}", justify="right")
    table.add_column(fmt.say("score"), justify="right")
    for row in _listed(steps.rows, table, fmt):
        cells: list[RenderableType] = [safe_label(row.token), given(_key_text(row.key, fmt))]
        if row.transformed is not None:
            cells.append(fmt.computed(fmt.vector(row.transformed)))
        if product_shown:
            cells.append(fmt.computed(f"{dot_terms(row.terms, fmt)} = {fmt.number(row.total)}"))
        if lengths:
            norm_q, norm_k = row.lengths or (0.0, 0.0)
            both = f"{fmt.number(norm_q)} × {fmt.number(norm_k)} = {fmt.number(norm_q * norm_k)}"
            cells.append(fmt.computed(both))
        if steps.divisor and working:
            cells.append(fmt.computed(f"{fmt.number(row.total)} ÷ {fmt.stated(steps.divisor)}"))
        if biased:
            added = row.bias or 0.0
            sign = "−" if added < 0 else "+"
            cells.append(
                "" if row.score == -math.inf else fmt.computed(f"{sign} {fmt.number(abs(added))}")
            )
        cells.append(fmt.computed(fmt.number(row.score)))
        table.add_row(*cells)
    notes = _list_notes(len(steps.rows), fmt)
    if len(steps.query) > LONG_SUM and method.plain_terms:
        notes.append(fmt.say("more_terms", count=len(steps.query) - 3, total=len(steps.query)))
    return _titled(heading, table, notes)


def _divided_by(divisor: float, root_of: float, name: str | None, fmt: Format) -> str:
    """What scores are divided by, when it is not √d_k: √24 (query_pre_attn_scalar), or
    the number itself (--scale S)."""
    if not math.isclose(divisor, math.sqrt(root_of), rel_tol=1e-12):
        return fmt.stated(divisor)
    said = f"√{fmt.number(root_of)}"
    return f"{said} ({name})" if name else said


def softmax_steps_table(steps: SoftmaxSteps, fmt: Format) -> RenderableType:
    """Per key: the score, e^score, and the weight = e^score / total, with a total row."""
    single = steps.row_label is None
    heading = fmt.say("softmax") if single else fmt.say("softmax_of", row=steps.row_label)
    table = _table()
    total = fmt.number(steps.total, whole_bare=False)
    scaled = steps.temperature != 1.0
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("score"), justify="right")
    if scaled:
        table.add_column(fmt.say("score_over_t", t=fmt.number(steps.temperature)), justify="right")
    if steps.shift:
        exponent = fmt.say("exponent_over_t" if scaled else "exponent")
        power = fmt.say("power_shifted", exponent=exponent, shift=fmt.number(steps.shift))
    else:
        power = fmt.say("power_over_t" if scaled else "power")
    table.add_column(power, justify="right")
    # the total the weights divide by: on attn check's sheet, the one asked in the total row
    divisor = fmt.computed(total) if fmt.working else fmt.say("check.total_divisor")
    table.add_column(fmt.say("weight_is", total=divisor), justify="right")
    for row in _listed(steps.rows, table, fmt):
        cells: list[RenderableType] = [safe_label(row.token), fmt.carried(fmt.number(row.score))]
        if scaled:
            cells.append(fmt.computed(fmt.number(row.scaled)))
        power_text = fmt.number(row.power, whole_bare=False) if not row.masked else "0"
        cells.append(fmt.computed(power_text))
        cells.append(fmt.computed(fmt.weight_number(row.weight)))
        table.add_row(*cells)
    table.add_section()
    blanks = [""] * (2 if scaled else 1)
    table.add_row(
        fmt.say("total"),
        *blanks,
        fmt.computed(total),
        fmt.computed(fmt.weight_number(steps.weight_total)) if fmt.working else "",
    )
    notes = _list_notes(len(steps.rows), fmt)
    if steps.sink is None:
        return _titled(heading, table, notes)
    notes.append(fmt.say("sink_dropped", sink=steps.sink, row=steps.row_label or "",
                         weight=fmt.weight_number(steps.rows[-1].weight),
                         kept=fmt.weight_number(steps.kept)))  # fmt: skip
    return Group(_titled(heading, table, notes), Text(""))


def mix_steps_table(steps: MixSteps, fmt: Format) -> RenderableType:
    """Per key: the weight, the value, weight × value, and the output row."""
    single = steps.row_label is None
    heading = fmt.say("mix") if single else fmt.say("mix_for", row=steps.row_label)
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("weight"), justify="right")
    table.add_column(fmt.say("value"))
    table.add_column(fmt.say("weight_value"))
    for row in _listed(steps.rows, table, fmt):
        table.add_row(
            safe_label(row.token),
            fmt.carried(fmt.weight_number(row.weight)),
            fmt.carried(fmt.vector(row.value)) if steps.carried_inputs else fmt.vector(row.value),
            fmt.computed(fmt.vector(row.product)),
        )
    table.add_section()
    output = fmt.computed(fmt.say("about", vector=fmt.vector(steps.output)))
    table.add_row(fmt.say("output"), "", "", output)
    return _titled(heading, table, _list_notes(len(steps.rows), fmt))


def projection_steps_table(steps: ProjectionSteps, fmt: Format) -> RenderableType:
    """Per token: its embedding x, and q = x W^Q, k = x W^K, v = x W^V to work out."""
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column("x")
    for column in ("q = x W^Q", "k = x W^K", "v = x W^V"):
        table.add_column(column)
    for row in _listed(steps.rows, table, fmt):
        worked = (fmt.computed(fmt.vector(part)) for part in (row.query, row.key, row.value))
        table.add_row(safe_label(row.token), fmt.vector(row.x), *worked)
    return _titled(fmt.say("projection_steps"), table, _list_notes(len(steps.rows), fmt))


def vector_rows(
    title: str, row_labels: Sequence[str], rows: Matrix, fmt: Format, header: str
) -> RenderableType:
    """A labelled list of vectors: keys, values, outputs."""
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(header)
    for index in _listed(range(len(rows)), table, fmt):
        table.add_row(safe_label(row_labels[index]), fmt.vector(rows[index]))
    return _titled(title, table, _list_notes(len(rows), fmt))


def vector_columns(
    title: str, row_labels: Sequence[str], columns: dict[str, Matrix], fmt: Format
) -> RenderableType:
    """Matrices of as many rows side by side, each row written as a vector: W^Q, W^K, W^V."""
    table = _table()
    table.add_column("")
    for header in columns:
        table.add_column(header)
    for index, label in enumerate(row_labels):
        table.add_row(label, *(fmt.vector(rows[index]) for rows in columns.values()))
    return _titled(title, table)


def number_grid(
    title: str,
    row_labels: Sequence[str],
    column_labels: Sequence[str] | None,
    grid: Matrix,
    fmt: Format,
    heat: bool = False,
    max_rows: int = 16,
    max_columns: int = 8,
    mask: Matrix | None = None,
    matrix: bool = False,
) -> RenderableType:
    """A grid of numbers with labelled rows (and columns), fitted to the console it is
    printed on; with heat, a shaded weight grid (see attncli.present.grid)."""
    from attncli.present.grid import NumberGrid

    return NumberGrid(
        title, row_labels, column_labels, grid, fmt, heat, max_rows, max_columns, mask, matrix
    )


# The score parameters as the steps' columns and formulas write them (W_a · key,
# tanh(W_1 q + W_2 k)); their JSON fields keep the lower-case names.
PARAMETER_NOTATION = {"w_a": "W_a", "w_1": "W_1", "w_2": "W_2"}


def notation(name: str) -> str:
    """A score parameter's name as a formula writes it: w_a → W_a; v_a, b_1 stay."""
    return PARAMETER_NOTATION.get(name, name)


def parameter_block(
    parameters: dict[str, list], drawn: list[str], seed: int, fmt: Format
) -> RenderableType:
    """The score parameters used, each a titled grid, saying which were drawn from the seed."""
    parts: list[RenderableType] = []
    for name, value in parameters.items():
        shown = notation(name)
        title = fmt.say("drawn", name=shown, seed=seed) if name in drawn else shown
        rows = value if value and isinstance(value[0], list) else [value]
        columns = shown_indices(len(rows[0]), VECTOR_ITEMS)
        table = BareMatrix(box=None, show_header=False, padding=(0, 1, 0, 2))
        for _ in columns:
            table.add_column(justify="right")
        for i in shown_indices(len(rows), 2 * VECTOR_ITEMS):
            if i is None:
                table.add_row(*(ELLIPSIS for _ in columns))
                continue
            table.add_row(*(ELLIPSIS if j is None else fmt.number(rows[i][j]) for j in columns))
        parts.extend([Text(title, style="bold"), table, Text("")])
    return Group(*parts)


def matrix_block(
    title: str, row_labels: Sequence[str], matrix: Matrix, fmt: Format
) -> RenderableType:
    """A matrix with a label per row and d1 … dn over its columns, its corners when large."""
    columns = [f"d{j + 1}" for j in range(len(matrix[0]))]
    return number_grid(
        title, row_labels, columns, matrix, fmt, max_rows=12, max_columns=8, matrix=True
    )


def shapes_table(shapes: list[tuple[str, tuple[int, ...], str]], fmt: Format) -> RenderableType:
    """Each matrix with its shape and what it holds."""
    table = _table()
    table.add_column(fmt.say("matrix"))
    table.add_column(fmt.say("shape"), justify="right")
    table.add_column(fmt.say("holds"))
    for name, shape, meaning in shapes:
        table.add_row(name, " × ".join(map(str, shape)), meaning)
    return _titled(fmt.say("shapes"), table)


def score_weight_rows(
    title: str,
    labels: Sequence[str],
    scores: Sequence[float],
    weights: Sequence[float],
    fmt: Format,
) -> RenderableType:
    """One row of softmax: each token's score and weight."""
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("score"), justify="right")
    table.add_column(fmt.say("weight"), justify="right")
    for index in _listed(range(len(labels)), table, fmt):
        table.add_row(
            safe_label(labels[index]), fmt.number(scores[index]), fmt.weight_number(weights[index])
        )
    return _titled(title, table, _list_notes(len(labels), fmt))


def heading(text: str) -> RenderableType:
    """A section heading: Worksheet, Answers."""
    return Group(Text(""), Text(text.upper(), style="bold underline"), Text(""))


# Stand-ins rich does not see as spaces, one per kind of space kept, so that it can be put back.
_KEPT_SPACES = {" ": "\ue000", "\u202f": "\ue001", "\u00a0": "\ue002"}
_PUT_BACK = {stand_in: space for space, stand_in in _KEPT_SPACES.items()}


def kept_spaces(text: str) -> list[int]:
    """Where a line must not break: the spaces inside an exponent's parentheses
    (e^(m_old − m), e^((s − m) ÷ T)) and every no-break space (Spanish thousands, 10 000),
    which rich would otherwise break at as at any space."""
    kept = [i for i, char in enumerate(text) if char in "\u202f\u00a0"]
    depth, start = 0, text.find("^(")
    while start != -1:
        for index in range(start + 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            if depth == 0:
                break
            if text[index] == " ":
                kept.append(index)
        depth, start = 0, text.find("^(", start + 2)
    return kept


class Line(Text):
    """A line of text that wraps between words but never inside a formula's exponent nor at
    a thousands mark (see kept_spaces)."""

    def wrap(self, console: Console, width: int, **options: Any) -> Lines:
        kept = kept_spaces(self.plain)
        if not kept:
            return super().wrap(console, width, **options)
        chars = list(self.plain)
        for index in kept:
            chars[index] = _KEPT_SPACES[chars[index]]
        swapped = self.copy()
        swapped.plain = "".join(chars)  # the same length: the styles' spans stay where they were
        wrapped = Text.wrap(swapped, console, width, **options)
        for line in wrapped:
            line.plain = "".join(_PUT_BACK.get(char, char) for char in line.plain)
        return wrapped


def lines(*texts: str | Text) -> RenderableType:
    """Plain lines of text (never markup); a Text (a Hint) kept as it is."""
    return Group(*(text if isinstance(text, Text) else Line(text) for text in texts))


def side_by_side(
    title: str, columns: list[str], rows: list[tuple[str, list[str]]], first_header: str = ""
) -> RenderableType:
    """Figures with a row per quantity and a column per method (or setting). A row's label
    is never split (its words are kept short enough for 80 columns), nor is a figure (a long
    one is laid out on two lines by its maker); on a narrow terminal the table closes up and
    a column's name longer than its figures takes two lines («producto / escalar»)."""
    import textwrap

    table = FittedTable(box=box.SIMPLE_HEAVY)
    table.add_column(first_header, no_wrap=True)
    for number, column in enumerate(columns):
        figures = [line for _, cells in rows for line in cells[number].splitlines()]
        room = max([len(figure) for figure in figures] + [len(w) for w in column.split()])
        table.add_column(safe_label(column), justify="right", no_wrap=True)
        lines = textwrap.wrap(column, room) if len(column) > room else [column]
        table.narrow_headers[number + 1] = Text("\n").join(map(safe_label, lines))
    for label, cells in rows:
        table.add_row(label, *cells)
    return _titled(title, table)


class FittedTable(PlainTable):
    """A table that fits its width before any cell is split: too wide, its columns close
    up (one space of padding between them, not two), then the columns named in
    `narrow_headers` take the lines it gives them; `give` is how many characters its
    wrappable columns (a Bar's) can give up without splitting anything. An export reads it
    as it was made."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.narrow_headers: dict[int, Text] = {}  # a column's name on several lines
        self.give = 0

    def __rich_console__(self, console: Console, options: Any) -> Any:
        full = [column.header for column in self.columns]
        narrow = [self.narrow_headers.get(n, header) for n, header in enumerate(full)]
        for collapse, headers in ((False, full), (True, full), (True, narrow)):
            self.collapse_padding = collapse
            for column, header in zip(self.columns, headers, strict=True):
                column.header = header
            width = self.__rich_measure__(console, options).maximum - self.give
            if width <= options.max_width:
                break
        try:
            yield from super().__rich_console__(console, options)
        finally:
            self.collapse_padding = False
            for column, header in zip(self.columns, full, strict=True):
                column.header = header


class Bar:
    """A bar of block characters as long as `share` (0 to 1) of its cell: BAR_LENGTH at
    most, and shorter on a narrow terminal, every bar of its column scaled alike."""

    def __init__(self, share: float) -> None:
        self.share = share

    def __str__(self) -> str:  # as an export writes it
        return "█" * self._length(BAR_LENGTH)

    def _length(self, width: int) -> int:
        return max(0, round(width * self.share)) if self.share > 0 else 0

    def __rich_measure__(self, console: Console, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement(1, BAR_LENGTH)

    def __rich_console__(self, console: Console, options: Any) -> Any:
        yield Text("█" * self._length(min(BAR_LENGTH, options.max_width)), no_wrap=True)


BAR_LENGTH = 12  # characters of the longest bar


def whole_header_words(table: FittedTable) -> FittedTable:
    """`table` whose columns' names, on a narrow terminal, take two lines between their
    words and never lose one («Puntuaci…»): no column is narrower than its name's longest
    word, and a formula («e^((m_ant − m) ÷ T)») breaks only before its ÷."""
    import textwrap

    for number, column in enumerate(table.columns):
        name = str(column.header)
        if any(mark in name for mark in "^()="):  # a formula: whole, or cut at its ÷
            before, divided, after = name.rpartition(" ÷ ")
            lines = [before, f"÷ {after}"] if divided else [name]
        else:
            room = max(max(map(len, name.split()), default=0), (len(name) + 1) // 2)
            lines = textwrap.wrap(name, room) or [name]
        column.min_width = max(map(len, lines))
        if len(lines) > 1:
            table.narrow_headers[number] = Text("\n".join(lines))
    return table
