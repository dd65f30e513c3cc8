"""A result as an HTML table, for notebooks (`_repr_html_`); no rich involved.

Numbers are written as in the terminal tables (Format); text from the user is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

import numpy as np

from attncli.present.format import MASKED, Format

if TYPE_CHECKING:
    from attncli.results.base import Result


def _table(
    caption: str,
    header: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join(
        f"<tr><th>{escape(label)}</th>{''.join(f'<td>{escape(c)}</td>' for c in cells)}</tr>"
        for label, cells in rows
    )
    return (
        f"<table><caption>{escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _grid(
    caption: str,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    grid: np.ndarray,
    write: object,
) -> str:
    """A labelled grid; -inf cells are masked."""
    rows = [
        (label, [MASKED if np.isneginf(v) else write(float(v)) for v in row])  # type: ignore[operator]
        for label, row in zip(row_labels, grid, strict=True)
    ]
    return _table(caption, ["", *column_labels], rows)


def html_of(result: Result, fmt: Format | None = None) -> str:
    """The main table of a result: scores, weights, outputs, or the self-attention grid."""
    from attncli.results.calculator import (
        ExerciseResult,
        MixResult,
        Rowwise,
        ScoreResult,
        SoftmaxResult,
    )
    from attncli.results.selfattn import SelfAttnResult

    fmt = fmt or Format()
    if isinstance(result, Rowwise):
        labels = [fmt.say("query")] if result.single else list(result.row_labels)
    if isinstance(result, ScoreResult):
        return _grid(fmt.say("scores"), labels, result.column_labels, result.grid, fmt.number)
    if isinstance(result, SoftmaxResult):
        return _grid(
            fmt.say("weights"), labels, result.column_labels, result.weight_grid, fmt.weight_number
        )
    if isinstance(result, MixResult):
        header = [f"d{j}" for j in range(1, result.output_grid.shape[1] + 1)]
        return _grid(fmt.say("output"), labels, header, result.output_grid, fmt.number)
    if isinstance(result, SelfAttnResult):
        weights = result.weights if result.weights.ndim == 2 else result.weights[0]
        return _grid(
            fmt.say("weights_who"),
            result.query_labels,
            result.tokens,
            weights,
            fmt.weight_number,
        )
    if isinstance(result, ExerciseResult):
        problem = [
            (token, [fmt.vector(key.tolist()), fmt.vector(value.tolist())])
            for token, key, value in zip(result.tokens, result.keys, result.values, strict=True)
        ]
        caption = fmt.say(
            "exercise_intro",
            query=f"({fmt.vector(result.query.tolist())})",
            count=len(result.tokens),
        )
        return _table(caption, ["", fmt.say("key"), fmt.say("value")], problem)
    from attncli.results.model import HeadsResult

    if isinstance(result, HeadsResult):
        ranked = [
            (str(rank), [str(e.layer), str(e.head), fmt.number(e.weight, 3, whole_bare=False)])
            for rank, e in enumerate(result.ranking[: result.shown], start=1)
        ]
        header = ["", fmt.say("heads_layer"), fmt.say("heads_head"), fmt.say("heads_weight")]
        return _table(f"{result.model}: {result.asked}", header, ranked)
    document = result.to_document()
    figures = [
        (str(entry["method"]), [fmt.count(entry[k]) for k in ("params", "mult_adds", "tanh")])
        for entry in document["methods"]
    ]
    return _table(
        "compare-scores",
        ["", fmt.say("parameters"), fmt.say("mult_adds"), fmt.say("tanh")],
        figures,
    )
