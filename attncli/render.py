"""Results and steps as rich renderables; nothing here prints.

Numbers are formatted as a hand-worked table writes them: whole numbers bare
(2, 10), other scores, powers and products to 2 decimals, weights to 3.
Text that came from the user (tokens, labels) is data, never markup.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    import numpy as np

    from attncli.explain import MixSteps, ScoreSteps, SoftmaxSteps, Step

# A grid of numbers: nested lists, or a numpy array indexed the same way.
Matrix = Union[Sequence[Sequence[float]], "np.ndarray"]

MASKED = "—"
ROW_MAX_MARK = "*"


@dataclass(frozen=True)
class Digits:
    """Decimals shown: weights get more because they are the numbers the course compares."""

    weight: int = 3
    other: int = 2

    @classmethod
    def uniform(cls, digits: int | None) -> Digits:
        """--digits N sets every kind of number to N decimals; None keeps the defaults."""
        return cls() if digits is None else cls(digits, digits)


def safe_label(text: str) -> Text:
    """A user's token as plain text: no markup, control characters shown as escapes."""
    cleaned = "".join(
        char if unicodedata.category(char)[0] != "C" else repr(char)[1:-1] for char in text
    )
    return Text(cleaned)


def number(value: float, digits: int, whole_bare: bool = True) -> str:
    """One number as a table writes it: 2 not 2.00 for whole numbers, else fixed decimals."""
    if math.isinf(value):
        return MASKED if value < 0 else "∞"
    if whole_bare and value == round(value) and abs(value) < 1e15:
        return str(int(round(value)))
    text = f"{value:.{digits}f}"
    # -0.00 reads as a sign error to a student checking by hand.
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def vector(values: Sequence[float], digits: int) -> str:
    """A vector as the course writes it: '10, 0'."""
    return ", ".join(number(value, digits) for value in values)


def _table() -> Table:
    return Table(box=box.SIMPLE_HEAVY)


def _titled(title: str, table: Table, notes: list[str] | None = None) -> RenderableType:
    """A heading above the table and notes below it, as lines of their own: a table's title
    and caption would wrap at the table's width."""
    below = [Text("   ".join(notes))] if notes else []
    return Group(Text(title, style="bold"), table, *below)


def _factor(value: float, digits: int) -> str:
    text = number(value, digits)
    return f"({text})" if text.startswith("-") else text


def _dot_terms(terms: list[tuple[float, float]], digits: int) -> str:
    """'1×2 + 0×1', negatives in brackets as on paper: '1.17×(-0.84)'."""
    return " + ".join(f"{_factor(a, digits)}×{_factor(b, digits)}" for a, b in terms)


def score_steps_table(steps: ScoreSteps, digits: Digits) -> RenderableType:
    """Per key: the key, the products summed, and the score (÷√d_k when scaled)."""
    query = vector(steps.query, digits.other)
    titles = {
        "dot": f"Scores: {steps.query_label} ({query}) · each key",
        "scaled": f"Scaled scores: {steps.query_label} ({query}) · each key ÷ √d_k",
        "general": f"General scores: {steps.query_label} ({query}) · (W_a · key)",
        "additive": f"Additive scores: v_a · tanh(W_1 · {steps.query_label} + W_2 · key)",
    }
    heading = titles[steps.method]
    table = _table()
    table.add_column("Token")
    table.add_column("Key")
    if steps.method == "general":
        table.add_column("W_a · key")
    if steps.method == "additive":
        table.add_column("tanh(W_1 q + W_2 k)")
    products_header = {"additive": "v_a · tanh(…)", "dot": "Query · key", "scaled": "Query · key"}
    table.add_column(products_header.get(steps.method, "Query · (W_a · key)"))
    if steps.divisor:
        table.add_column(f"÷ √{len(steps.query)} = {number(steps.divisor, digits.other)}")
    table.add_column("Score", justify="right")
    for row in steps.rows:
        cells: list[RenderableType] = [safe_label(row.token), vector(row.key, digits.other)]
        if row.transformed is not None:
            cells.append(vector(row.transformed, digits.other))
        cells.append(f"{_dot_terms(row.terms, digits.other)} = {number(row.total, digits.other)}")
        if steps.divisor:
            cells.append(
                f"{number(row.total, digits.other)} ÷ {number(steps.divisor, digits.other)}"
            )
        cells.append(number(row.score, digits.other))
        table.add_row(*cells)
    return _titled(heading, table)


def softmax_steps_table(steps: SoftmaxSteps, digits: Digits) -> RenderableType:
    """Per key: the score, e^score, and the weight = e^score / total, with a total row."""
    title = "Softmax" + (f" of {steps.row_label}" if steps.row_label != "query" else "")
    heading = title
    table = _table()
    total = number(steps.total, digits.other, whole_bare=False)
    scaled = steps.temperature != 1.0
    table.add_column("Token")
    table.add_column("Score", justify="right")
    if scaled:
        table.add_column(f"Score ÷ T ({number(steps.temperature, digits.other)})", justify="right")
    exponent = "score ÷ T" if scaled else "score"
    if steps.shift:
        exponent = f"{exponent} − {number(steps.shift, digits.other)}"
    table.add_column(f"e^({exponent})" if " " in exponent else "e^score", justify="right")
    table.add_column(f"Weight = e^… ÷ {total}", justify="right")
    for row in steps.rows:
        cells: list[RenderableType] = [safe_label(row.token), number(row.score, digits.other)]
        if scaled:
            cells.append(number(row.score / steps.temperature, digits.other))
        cells.append(number(row.power, digits.other, whole_bare=False) if not row.masked else "0")
        cells.append(number(row.weight, digits.weight, whole_bare=False))
        table.add_row(*cells)
    table.add_section()
    blanks = [""] * (2 if scaled else 1)
    table.add_row(
        "Total", *blanks, total, number(steps.weight_total, digits.weight, whole_bare=False)
    )
    return _titled(heading, table)


def mix_steps_table(steps: MixSteps, digits: Digits) -> RenderableType:
    """Per key: the weight, the value, weight × value, and the output row."""
    title = "Mix" + (f" for {steps.row_label}" if steps.row_label != "query" else "")
    heading = title
    table = _table()
    table.add_column("Token")
    table.add_column("Weight", justify="right")
    table.add_column("Value")
    table.add_column("Weight × value")
    for row in steps.rows:
        table.add_row(
            safe_label(row.token),
            number(row.weight, digits.weight, whole_bare=False),
            vector(row.value, digits.other),
            vector(row.product, digits.other),
        )
    table.add_section()
    table.add_row("Output", "", "", "≈ " + vector(steps.output, digits.other))
    return _titled(heading, table)


def explanation(steps: list[Step], digits: Digits) -> RenderableType:
    """Every part of an explanation, one table each, in order."""
    renderers = {
        "ScoreSteps": score_steps_table,
        "SoftmaxSteps": softmax_steps_table,
        "MixSteps": mix_steps_table,
    }
    return Group(*(renderers[type(part).__name__](part, digits) for part in steps))  # type: ignore[operator]


def vector_rows(
    title: str, row_labels: list[str], rows: Matrix, digits: int, header: str
) -> RenderableType:
    """A labelled list of vectors: keys, values, outputs."""
    heading = title
    table = _table()
    table.add_column("Token")
    table.add_column(header)
    for label, row in zip(row_labels, rows, strict=True):
        table.add_row(safe_label(label), vector(row, digits))
    return _titled(heading, table)


def shown_indices(count: int, limit: int) -> list[int | None]:
    """Indices to show of `count`: all when they fit, else the first and last with None between."""
    if count <= limit:
        return list(range(count))
    head = (limit + 1) // 2
    return [*range(head), None, *range(count - (limit - head), count)]


ELLIPSIS = "…"


def number_grid(
    title: str,
    row_labels: Sequence[str],
    column_labels: Sequence[str] | None,
    grid: Matrix,
    digits: int,
    heat: bool = False,
    max_rows: int = 16,
    max_columns: int = 8,
    mask: Matrix | None = None,
) -> RenderableType:
    """A grid of numbers with labelled rows (and columns); large grids show their corners.

    With heat, cells are shaded by weight and each row's largest weight is marked;
    -inf cells, and cells where `mask` is true, are shown as masked.
    """
    rows = shown_indices(len(grid), max_rows)
    columns = shown_indices(len(grid[0]), max_columns)
    heading = title
    table = _table()
    table.show_header = column_labels is not None
    table.add_column("")
    for j in columns:
        header = ELLIPSIS if j is None or column_labels is None else column_labels[j]
        table.add_column(safe_label(header), justify="right")
    masked = False
    for i in rows:
        if i is None:
            table.add_row(ELLIPSIS, *(ELLIPSIS for _ in columns))
            continue
        row = grid[i]
        largest = max((value for value in row if not math.isinf(value)), default=None)
        cells: list[RenderableType] = [safe_label(row_labels[i])]
        for j in columns:
            if j is None:
                cells.append(ELLIPSIS)
                continue
            value = -math.inf if mask is not None and mask[i][j] else row[j]
            masked |= math.isinf(value)
            text = number(value, digits, whole_bare=not heat)
            if heat and not math.isinf(value):
                mark = ROW_MAX_MARK if value == largest else " "
                cells.append(Text(text + mark, style=_heat_style(value)))
            else:
                cells.append(Text(text + (" " if heat else "")))
        table.add_row(*cells)
    notes = []
    if heat:
        notes.append(f"{ROW_MAX_MARK} the row's largest weight")
    if masked:
        notes.append(f"{MASKED} masked")
    if None in rows or None in columns:
        notes.append(
            f"{ELLIPSIS} showing {len(rows) - (None in rows)} of {len(grid)} rows and "
            f"{len(columns) - (None in columns)} of {len(grid[0])} columns; --json has them all"
        )
    return _titled(heading, table, notes)


def _heat_style(weight: float) -> str:
    """A background from dark (0) to bright (1), with text that stays legible on it."""
    weight = min(max(weight, 0.0), 1.0)
    red, green, blue = (int(20 + weight * 200), int(30 + weight * 120), int(60 + weight * 40))
    foreground = "black" if weight > 0.55 else "white"
    return f"{foreground} on #{red:02x}{green:02x}{blue:02x}"


def parameter_block(
    parameters: dict[str, list], drawn: list[str], seed: int, digits: int
) -> RenderableType:
    """The score parameters used, each a titled grid, saying which were drawn from the seed."""
    parts: list[RenderableType] = []
    for name, value in parameters.items():
        origin = f" (drawn from seed {seed})" if name in drawn else ""
        rows = value if value and isinstance(value[0], list) else [value]
        table = Table(box=None, show_header=False, padding=(0, 1, 0, 2))
        for _ in rows[0]:
            table.add_column(justify="right")
        for row in rows:
            table.add_row(*(number(v, digits) for v in row))
        parts.extend([Text(f"{name}{origin}", style="bold"), table, Text("")])
    return Group(*parts)


def matrix_block(
    title: str, row_labels: Sequence[str], matrix: Matrix, digits: int
) -> RenderableType:
    """A matrix with a label per row and no column header, its corners only when large."""
    return number_grid(title, row_labels, None, matrix, digits, max_rows=12, max_columns=8)


def shapes_table(shapes: list[tuple[str, tuple[int, ...], str]]) -> RenderableType:
    """Each matrix with its shape and what it holds."""
    heading = "Shapes"
    table = _table()
    table.add_column("Matrix")
    table.add_column("Shape", justify="right")
    table.add_column("What it holds")
    for name, shape, meaning in shapes:
        table.add_row(name, " × ".join(map(str, shape)), meaning)
    return _titled(heading, table)


def lines(*texts: str) -> RenderableType:
    """Plain lines of text (never markup)."""
    return Group(*(Text(text) for text in texts))


def side_by_side(
    title: str, columns: list[str], rows: list[tuple[str, list[str]]], first_header: str = ""
) -> RenderableType:
    """Figures with a row per quantity and a column per method (or setting)."""
    table = _table()
    table.add_column(first_header)
    for column in columns:
        table.add_column(safe_label(column), justify="right")
    for label, cells in rows:
        table.add_row(label, *cells)
    return _titled(title, table)
