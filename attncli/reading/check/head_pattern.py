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
    # the rules every cell keeps, the first cell that breaks one named by its row and column
    outside = _("{source}: row {row}, column {column} is {value}; a pattern's cells are 0 to 1")
    rules = [(~((cells >= 0) & (cells <= 1)), outside)]
    if causal:
        later = _("{source}: row {row}, column {column} is above the diagonal, and a causal "
                  "model's token never sees a later one; set it to 0")  # fmt: skip
        rules.append((np.triu(cells, k=1) > 0, later))
    for broken, text in rules:
        cell = np.argwhere(broken)
        if len(cell):
            row, column = (int(i) + 1 for i in cell[0])
            value = float(cells[row - 1, column - 1])
            raise InputError(text, source=source, row=row, column=column, value=value)
    return cells
