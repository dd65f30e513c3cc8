"""How each score method looks: its columns in the hand-worked tables (--steps), in the
backward pass's table, and its formula cells in the spreadsheet export, by the method's
name in core.methods; and every method's words (its name, its tables' headings) as the
phrases present/language.py joins. The arithmetic is the method's own (core.methods).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attncli.core.methods import METHODS

# Each method's words, from its object: compare-scores' column, the score table's heading,
# the backward table's heading and its note.
METHOD_PHRASES: dict[str, str] = {
    f"{key}.{name}": getattr(scoring, attribute)
    for name, scoring in METHODS.items()
    for key, attribute in (
        ("method", "title"),
        ("scores", "heading"),
        ("grad_score", "grad_heading"),
        ("grad_score_note", "grad_note"),
    )
}


def _none(*_given: Any) -> None:
    return None


def _dot_cells(cells: Any) -> None:
    """q · k: the query's cells against the key's."""
    cells.dot(f"=SUMPRODUCT({cells.query},{cells.key})")


def _general_cells(cells: Any) -> None:
    """W_a k, a cell per number (a row of W_a against the key), then q · (W_a k)."""
    for i in range(cells.width):
        cells.mapped(i, f"=SUMPRODUCT({cells.parameter_row('w_a', i)},{cells.key})")
    cells.dot(f"=SUMPRODUCT({cells.query},{cells.mapped_span()})")


def _additive_cells(cells: Any) -> None:
    """tanh(W_1 q + W_2 k), a cell per row of W_1 and W_2, then v_a · tanh(…)."""
    for a in range(cells.width):
        w_1, w_2 = cells.parameter_row("w_1", a), cells.parameter_row("w_2", a)
        both = f"SUMPRODUCT({w_1},{cells.query})+SUMPRODUCT({w_2},{cells.key})"
        cells.mapped(a, f"=TANH({both})")
    cells.dot(f"=SUMPRODUCT({cells.parameter_row('v_a', 0)},{cells.mapped_span()})")


def _cosine_cells(cells: Any) -> None:
    """‖q‖ ‖k‖ (each the root of its sum of squares), then q · k, which it divides."""
    cells.mapped(0, f"=SQRT(SUMSQ({cells.query}))*SQRT(SUMSQ({cells.key}))")
    _dot_cells(cells)


@dataclass(frozen=True)
class Looks:
    """One method's columns and cells.

    mapped: the heading of the column of what the query is dotted with (W_a · key, tanh(…)),
    given whether the additive score's biases are in; product: the heading of the summed
    products; plain_terms: its sums pair the query's numbers with the key's (a long one is
    cut, and the note says so); grad_columns: the backward table's own columns; to_query:
    the heading of what ∂ℓ/∂e sends to the query (given the divisor, as written);
    summed: the phrase of how ∂ℓ/∂q sums it; shared: the name of the vector every key's row
    uses; sheet_width: the spreadsheet's cells of the mapped column, from d and the
    parameters; sheet_name: their defined name; cells: the row's formulas.
    """

    mapped: Callable[[Callable[..., str], bool], str | None] = _none
    product: Callable[[Callable[..., str]], str] = lambda say: say("query_key")
    plain_terms: bool = False
    grad_columns: Callable[[Callable[..., str]], list[str]] = lambda say: []
    to_query: Callable[[Callable[..., str], str], str] = lambda say, divisor: (
        "∂ℓ/∂e × " + say("key_short")
    )
    summed: str = "grad_query_sum"
    shared: str | None = None
    sheet_width: Callable[[int, dict[str, Any]], int] = lambda d, parameters: 0
    sheet_name: str | None = None
    cells: Callable[[Any], None] = _dot_cells
    divided: Callable[[Any], str] = lambda cells: ""  # the score cell's division of the product
    lengths: str | None = None  # the heading of the column of ‖q‖ ‖k‖, which divides
    sheet_heading: str | None = (
        None  # the spreadsheet's heading of its mapped cells, if not `mapped`'s
    )


LOOKS: dict[str, Looks] = {
    "dot": Looks(plain_terms=True),
    "scaled": Looks(
        plain_terms=True,
        to_query=lambda say, divisor: "∂ℓ/∂e × " + say("key_short") + f" ÷ {divisor}",
        divided=lambda cells: f"/SQRT({cells.d})",
    ),
    "general": Looks(
        mapped=lambda say, biased: say("w_a_key"),
        product=lambda say: say("query_w_a_key"),
        grad_columns=lambda say: [say("w_a_key")],
        to_query=lambda say, divisor: "∂ℓ/∂e × W_a k",
        shared="W_aᵀ q",
        sheet_width=lambda d, parameters: d,
        sheet_name="w_a_keys",
        cells=_general_cells,
    ),
    "additive": Looks(
        mapped=lambda say, biased: (
            "tanh(W_1 q + b_1 + W_2 k + b_2)" if biased else "tanh(W_1 q + W_2 k)"
        ),
        product=lambda say: "v_a · tanh(…)",
        grad_columns=lambda say: ["tanh(W_1 q + W_2 k)", "1 − tanh²"],
        to_query=lambda say, divisor: "δ = ∂ℓ/∂e (1 − tanh²) ⊙ v_a",
        summed="grad_query_additive",
        shared="v_a",
        sheet_width=lambda d, parameters: len(parameters.get("v_a", [])),
        sheet_name="hidden",
        cells=_additive_cells,
    ),
    "cosine": Looks(
        plain_terms=True,
        lengths="‖q‖ ‖k‖",
        to_query=lambda say, divisor: "∂ℓ/∂e (k ÷ ‖k‖ − e q ÷ ‖q‖) ÷ ‖q‖",
        sheet_width=lambda d, parameters: 1,
        sheet_name="lengths",
        sheet_heading="‖q‖ ‖k‖",
        cells=_cosine_cells,
        divided=lambda cells: f"/{cells.mapped_cell(0)}",
    ),
}


def looks(method: str) -> Looks:
    """The looks of the method of that name."""
    return LOOKS[method]
