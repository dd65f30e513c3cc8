"""A pattern given to attn heads (--pattern-file, or pattern_cells= in Python) against the
sentence it scores: one cell per pair of tokens, each between 0 and 1, none where a causal
model's token cannot look."""

from __future__ import annotations

from typing import Any

import numpy as np

from attncli.errors import InputError, ShapeError
from attncli.messages import _

PATTERN_SIZE = _(
    "{source} is {rows} × {columns}; the sentence has {count} tokens as the model reads them "
    "({tokens}), so the pattern must be {count} × {count}"
)


def checked_pattern(value: Any, tokens: tuple[str, ...], causal: bool, source: str) -> np.ndarray:
    """`value` as a T × T float64 pattern for `tokens` [T] -> [T, T]."""
    from attncli.reading.parse.values import to_matrix

    cells = to_matrix(value, source)
    count = len(tokens)
    if cells.shape != (count, count):
        rows, columns = cells.shape
        raise ShapeError(
            PATTERN_SIZE,
            source=source,
            rows=rows,
            columns=columns,
            count=count,
            tokens=" ".join(tokens),
        )
    outside = np.argwhere(~((cells >= 0) & (cells <= 1)))
    if len(outside):
        row, column = (int(i) + 1 for i in outside[0])
        raise InputError(
            _("{source}: row {row}, column {column} is {value}; a pattern's cells are 0 to 1"),
            source=source,
            row=row,
            column=column,
            value=float(cells[row - 1, column - 1]),
        )
    later = np.argwhere(np.triu(cells, k=1) > 0)
    if causal and len(later):
        row, column = (int(i) + 1 for i in later[0])
        raise InputError(
            _(
                "{source}: row {row}, column {column} is above the diagonal, and a causal "
                "model's token never sees a later one; set it to 0"
            ),
            source=source,
            row=row,
            column=column,
        )
    return cells
