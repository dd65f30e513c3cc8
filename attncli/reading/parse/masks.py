"""A document's masks read cell by cell, each into an array whose dtype carries its sense:
attn's mask as booleans (True where a query may look); torch's attn_mask and
key_padding_mask as booleans in torch's sense (True where it may not) or as float64
added to the scores (-inf where a query may not look). Their shapes are held against the
layer's scores afterwards, by reading/check/masks.py."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError
from attncli.messages import Message, _
from attncli.reading.parse.json_text import JsonConstant
from attncli.reading.parse.values import (
    EMPTY,
    TOO_LARGE,
    WRONG,
    _minus_infinity,
    cell_text,
    check_dtype,
    kind_of,
    number_at,
)

if TYPE_CHECKING:
    import numpy as np

# What each mask holds, for the refusal of a cell or a dtype it does not take.
MASK_CELLS = _(
    "1 (or true) where a query may look at a key, 0 (or false) where not; numbers added to "
    "the scores go in attn_mask"
)
ATTN_MASK_CELLS = _(
    "all true/false (torch's bool mask, true = may not look) or all numbers (added to the "
    "scores, -Infinity or null where a query may not look)"
)
ATTN_MASK_GRID = _(
    "true/false or numbers, T_q × T_k or any shape that broadcasts to the scores "
    "(B × h × T_q × T_k)"
)
ATTN_MASK_DTYPES = _(
    "a bool attn_mask (True = may not look) or a float one (added to the scores), as torch takes it"
)
# An attn_mask of integers 0 and 1 reads one way in torch's senses and the other in mask's
# and transformers' attention_mask: refused, saying how to write each.
ONLY_ZEROS = _(
    "attn_mask of integer 0s only is ambiguous: in torch's senses (false, or 0.0 added) every "
    "query may look at every key, in mask's and transformers' attention_mask's (1 = may look) "
    "none may; write false or 0.0 for torch's sense, or leave attn_mask out"
)
ZEROS_AND_ONES = _(
    "attn_mask of integer 0s and 1s is ambiguous: 1 is may NOT look in torch's bool mask, may "
    "look in mask and transformers' attention_mask, and 1 added to the score as a float; write "
    "true/false for torch's bool sense, 0.0 and -Infinity for an additive mask, or give it as "
    "mask (1 = may look)"
)
KEY_PADDING_CELLS = _(
    "true (or 1) for a padding key, false (or 0) for a real one, or floats added to the "
    "key's scores (0.0, -Infinity)"
)
KEY_PADDING_FLOATS = _(
    "numbers added to the key's scores in a float key_padding_mask (-Infinity or null for padding)"
)


def read_mask(value: object) -> np.ndarray:
    """attn's own mask (1 or true = may look) as booleans: bool, 0/1 integers, or floats
    that are exactly 0.0 and 1.0 (np.tril(np.ones((T, T))) saved as is); anything else is
    refused, naming the first cell that is not."""
    return booleans(_cells(value, "mask"), "mask", Message(MASK_CELLS))


def read_attn_mask(value: Any) -> np.ndarray:
    """torch's attn_mask as booleans (its bool mask: True = may not look) or as float64
    with -inf (added to the scores), its sense in its dtype; refused when it is neither, or
    when 0s and 1s leave its sense unclear."""

    field, hint = "attn_mask", Message(ATTN_MASK_CELLS)
    array = _grid_of_cells(_cells(value, field), field, Message(ATTN_MASK_GRID))
    if hasattr(value, "dtype"):  # an array of integers, of text: torch takes neither
        check_dtype(array, field, "bf", Message(ATTN_MASK_DTYPES))
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind == "f":
        return floats(array, field, hint)
    cells = array.ravel().tolist()
    if all(isinstance(cell, bool) for cell in cells):
        return array.astype(bool)
    numbers = floats(array, field, hint)
    if all(type(cell) is int and cell in (0, 1) for cell in cells):
        ambiguous = ONLY_ZEROS if set(cells) == {0} else ZEROS_AND_ONES
        raise InputError(ambiguous)
    return numbers


def read_key_padding_mask(value: object) -> np.ndarray:
    """torch's key_padding_mask, its sense in its dtype: booleans, true for a padding key
    (a boolean one, or one of 0s and 1s), or float64 added to its key's column, as torch
    adds it (-Infinity or null: padding)."""
    field, hint = "key_padding_mask", Message(KEY_PADDING_CELLS)
    array = _grid_of_cells(_cells(value, field), field, hint)
    if array.dtype.kind == "f" or _is_floats(array):
        return floats(array, field, Message(KEY_PADDING_FLOATS))
    return booleans(array, field, hint)


def booleans(array: np.ndarray, field: str, hint: Message) -> np.ndarray:
    """Booleans, or numbers that are exactly 0 and 1, as a boolean array of any shape;
    anything else is refused, naming the first cell that is not one and its value."""
    import numpy as np

    _grid_of_cells(array, field, hint)
    check_dtype(array, field, "biufO", hint)
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind in "iuf":
        bad = np.argwhere((array != 0) & (array != 1) | np.isnan(array.astype(np.float64)))
        if not bad.size:
            return array.astype(bool)
        index = tuple(bad[0])
        kind: Any = f"{array[index].item()!r} ({array.dtype})"
    else:  # a document's cells
        cells = array.ravel().tolist()
        wrong = [i for i, cell in enumerate(cells) if not _zero_or_one(cell)]
        if not wrong:
            return np.array([bool(cell) for cell in cells], dtype=bool).reshape(array.shape)
        index, kind = np.unravel_index(wrong[0], array.shape), kind_of(cells[wrong[0]])
    raise InputError(WRONG, where=_cell_at(field, index), kind=kind, expected=hint)


def _cells(value: Any, field: str) -> np.ndarray:
    """A mask as an array: an array as it is, nested lists as the array of their cells."""
    import numpy as np

    return np.asarray(value) if hasattr(value, "dtype") else object_array(value, field)


def _grid_of_cells(array: np.ndarray, field: str, hint: Message) -> np.ndarray:
    """A mask holds cells: an empty one, or a single value, is refused (fit_mask says which
    shapes of one axis or more fit)."""
    grid = Message(_("a grid of {hint}"), hint=hint)
    if array.size == 0:
        raise ShapeError(EMPTY, where=field, expected=grid)
    if array.ndim == 0:
        raise ShapeError(WRONG, where=field, kind=Message(_("a single value")), expected=grid)
    return array


def _cell_at(field: str, index: tuple[Any, ...]) -> Message:
    """'mask: the cell at (1, 2)'."""
    return Message(_("{field}: the cell at {cell}"), field=field, cell=cell_text(index))


def _zero_or_one(cell: object) -> bool:
    """true/false, or a number that is exactly 0 or 1 (0.0 and 1.0 too)."""
    return isinstance(cell, bool) or (isinstance(cell, (int, float)) and cell in (0, 1))


def _is_floats(array: np.ndarray) -> bool:
    """A float key_padding_mask: with a float, -Infinity or null among its cells (integers
    other than 0 and 1 alone are refused by booleans(), as numpy's integers are: torch
    takes a bool or a float mask, and attn does not guess which)."""
    if array.dtype.kind != "O":
        return False
    cells = array.ravel().tolist()
    return any(
        cell is None or isinstance(cell, (float, JsonConstant)) for cell in cells
    ) and not any(isinstance(cell, bool) for cell in cells)


# What a float mask's cell takes where it holds NaN or +inf, or a number past float64.
FINITE_OR_MINUS_INF = _("a finite number or -inf")
PAST_FLOAT64 = _(
    "-Infinity or null (None in Python) where a query may not look, or a finite number"
)


def floats(array: np.ndarray, field: str, hint: Message) -> np.ndarray:
    """A float mask as float64, -inf where a query may not look: an array's floats as they
    are, a document's cells read (-Infinity, null and Python's -inf as -inf, as
    values._number reads a masked score). The first cell that is no number (`hint`: what
    the mask holds), a whole number past float64, NaN or +inf is refused, naming it."""
    import numpy as np

    if array.dtype.kind == "f":
        numbers = array.astype(np.float64)
    else:
        cells = array.ravel().tolist()
        numbers = np.array([_float_cell(cell) for cell in cells], np.float64).reshape(array.shape)
    bad = np.isnan(numbers) | np.isposinf(numbers)
    if not bad.any():
        return numbers
    at = tuple(np.argwhere(bad)[0])
    cell = array[at]
    where, kind, expected = number_at(field, at), cell, Message(FINITE_OR_MINUS_INF)
    document = array.dtype.kind != "f"  # an array's cell is NaN or +inf
    if document and (not isinstance(cell, (int, float)) or isinstance(cell, bool)):
        where, kind, expected = _cell_at(field, at), kind_of(cell), hint
    elif document and math.isinf(numbers[at]):  # a number past float64
        kind, expected = Message(TOO_LARGE), Message(PAST_FLOAT64)
    raise InputError(WRONG, where=where, kind=kind, expected=expected)


def _float_cell(cell: object) -> float:
    """A document's mask cell as a float: -Infinity and null as -inf, a whole number past
    float64 as +inf, NaN for a cell that is no number (floats() says which)."""
    if cell is None or _minus_infinity(cell):
        return -math.inf
    if not isinstance(cell, (int, float)) or isinstance(cell, bool):
        return math.nan
    return float(cell) if abs(cell) < 1e308 or isinstance(cell, float) else math.inf


def object_array(value: Any, field: str) -> np.ndarray:
    """Nested lists as an array of their cells, unchanged; ragged rows are refused."""
    import numpy as np

    try:
        array = np.array(value, dtype=object)
        if not any(isinstance(cell, list) for cell in array.ravel().tolist()):
            return array
    except ValueError:  # ragged rows
        pass
    raise ShapeError(
        _("{field} has rows of different lengths; each row needs a cell per key"),
        field=field,
    ) from None
