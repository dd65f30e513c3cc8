"""torch's attn_mask, read in torch's sense and turned into attn's: a boolean attn_mask is
True where a query may NOT look (attn's `allowed` is its opposite); a float attn_mask is
added to the scores before the softmax, -inf (or null) where a query may not look, any
finite number an additive bias (ALiBi's −m·|i − j|, transformers' extended mask).

Shapes as torch's scaled_dot_product_attention broadcasts them to the scores
[B, h, T_q, T_k] (numpy's rules: counted from the right, each axis of that size or 1;
transformers' extended mask B × 1 × 1 × T_k, 1 × T_k, T_q × 1, h × T_q × T_k, …), and
nn.MultiheadAttention's B·h × T_q × T_k, one grid per sequence and head. attn's own `mask`
(reading/masks.py) is fitted by the same rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError
from attncli.messages import _
from attncli.reading.json_text import JsonConstant
from attncli.reading.values import shape_text

if TYPE_CHECKING:
    import numpy as np


def scores_shape(t_q: int, t_k: int, heads: int | None, batch: int | None) -> tuple[int, ...]:
    """The shape of the layer's scores: [B,] [h,] T_q, T_k."""
    lead = tuple(size for size in (batch, heads) if size is not None)
    return (*lead, t_q, t_k)


def cell_text(index: tuple[Any, ...]) -> str:
    """A cell as messages name it, counted from 1: (1, 2)."""
    return "(" + ", ".join(str(int(i) + 1) for i in index) + ")"


def attn_mask_cells(
    value: Any, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(allowed, bias), each T_q × T_k or of the scores' whole shape, or None: True where a
    query may look, and what is added to the scores where it may."""
    import numpy as np

    array, boolean = _attn_mask_array(value)
    fitted = fit_mask(array, "attn_mask", t_q, t_k, heads, batch)
    if boolean:
        allowed = ~fitted
        return (None if allowed.all() else allowed), None
    allowed = ~np.isneginf(fitted)
    bias = np.where(allowed, fitted, 0.0)
    return (None if allowed.all() else allowed), (None if not bias.any() else bias)


def fit_mask(
    array: np.ndarray, field: str, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> np.ndarray:
    """A mask broadcast as torch broadcasts it: to T_q × T_k when it has at most two axes,
    else to the scores' whole shape ([B,] [h,] T_q, T_k); a 3-D mask of B·h grids on a
    batch with heads is nn.MultiheadAttention's, one per sequence and head. Any other shape
    is refused in one line naming the shapes it may have."""
    import numpy as np

    shape = scores_shape(t_q, t_k, heads, batch)
    # a mask of more axes than the scores: the axes the scores lack must be 1
    whole = (batch or 1, heads or 1, t_q, t_k)
    if array.ndim == 3 and batch and heads and batch > 1 and array.shape[0] == batch * heads:
        array = array.reshape(batch, heads, *array.shape[1:])  # nn.MultiheadAttention's
    target = shape if array.ndim <= len(shape) else whole
    fits = 1 <= array.ndim <= len(target) and all(
        size in (1, wanted) for size, wanted in zip(array.shape[::-1], target[::-1], strict=False)
    )
    if fits and array.ndim <= 2:
        return np.ascontiguousarray(np.broadcast_to(array, (t_q, t_k)))
    if fits:
        return np.ascontiguousarray(np.broadcast_to(array, target).reshape(shape))
    raise _refused_shape(array.shape, field, t_q, t_k, heads, batch)


def _refused_shape(
    given: tuple[int, ...], field: str, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> ShapeError:
    """The one line for a mask that does not broadcast to the scores."""
    shape = scores_shape(t_q, t_k, heads, batch)
    names = " × ".join(
        name for name, size in (("B", batch), ("h", heads), ("T_q", 1), ("T_k", 1)) if size
    )
    examples = [f"{t_q} × {t_k}", f"1 × {t_k}", f"{t_q} × 1"]
    if heads is not None:
        examples.append(f"{heads} × {t_q} × {t_k}")
    if batch is not None:
        examples.append(f"{batch} × 1 × 1 × {t_k}")
    if batch is not None and heads is not None:  # a grid per sequence, for every head
        examples.append(f"{batch} × 1 × {t_q} × {t_k}")
    if batch is not None and heads is not None and batch > 1:
        examples.append(f"{batch * heads} × {t_q} × {t_k}")
    listed = ", ".join(examples)
    return ShapeError(
        _(
            "{field} is {shape} but must broadcast to the scores, {scores} ({names}), as "
            "torch broadcasts: counted from the right, each axis of that size or 1 (e.g. "
            "{listed})"
        ),
        field=field,
        shape=shape_text(given),
        scores=shape_text(shape),
        names=names,
        listed=listed,
    )


def _attn_mask_array(value: Any) -> tuple[np.ndarray, bool]:
    """The mask as booleans (torch's bool attn_mask) or as float64 with -inf; refused when
    it is neither, or when 0s and 1s leave its sense unclear."""
    import numpy as np

    if hasattr(value, "dtype") and hasattr(value, "ndim"):
        array = np.asarray(value)
        if array.dtype.kind == "b":
            return _ranked(array), True
        if array.dtype.kind == "f":
            return checked_floats(_ranked(array).astype(np.float64), "attn_mask"), False
        raise InputError(
            _(
                "attn_mask holds {dtype}; torch takes a bool attn_mask (True = may not look) "
                "or a float one (added to the scores): save it as one of the two"
            ),
            dtype=str(array.dtype),
        )
    array = _ranked(object_array(value, "attn_mask"))
    cells = array.ravel().tolist()
    if all(isinstance(cell, bool) for cell in cells):
        return array.astype(bool), True
    numbers = []
    for index, cell in enumerate(cells):
        if cell is None or (isinstance(cell, JsonConstant) and cell.literal == "-Infinity"):
            numbers.append(-np.inf)
        elif isinstance(cell, (int, float)) and not isinstance(cell, bool):
            numbers.append(finite_cell(cell, array.shape, index, "attn_mask"))
        else:
            where = cell_text(np.unravel_index(index, array.shape))
            raise InputError(
                _(
                    "attn_mask holds {cell!r:.20} at {where}; expected all true/false "
                    "(torch's bool mask, true = may not look) or all numbers (added to the "
                    "scores, -Infinity or null where a query may not look)"
                ),
                cell=cell,
                where=where,
            )
    if all(type(cell) is int for cell in cells) and set(cells) == {0}:
        raise InputError(
            _(
                "attn_mask of integer 0s only is ambiguous: in torch's senses (false, or 0.0 "
                "added) every query may look at every key, in mask's and transformers' "
                "attention_mask's (1 = may look) none may; write false or 0.0 for torch's "
                "sense, or leave attn_mask out"
            ),
        )
    if all(type(cell) is int and cell in (0, 1) for cell in cells):
        raise InputError(
            _(
                "attn_mask of integer 0s and 1s is ambiguous: 1 is may NOT look in torch's "
                "bool mask, may look in mask and transformers' attention_mask, and 1 added "
                "to the score as a float; write true/false for torch's bool sense, 0.0 and "
                "-Infinity for an additive mask, or give it as mask (1 = may look)"
            ),
        )
    return checked_floats(np.array(numbers, dtype=np.float64).reshape(array.shape),
                          "attn_mask"), False  # fmt: skip


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


def finite_cell(cell: float, shape: tuple[int, ...], index: int, field: str) -> float:
    """A number of a document's mask: ±inf there is a number past float64 (-1e400), which
    is refused; -Infinity and null are how a document writes -inf."""
    import math

    number = float(cell) if abs(cell) < 1e308 or isinstance(cell, float) else math.inf
    if math.isinf(number):
        import numpy as np

        where = cell_text(np.unravel_index(index, shape))
        raise InputError(
            _(
                "{field}: the number at {where} is past float64 (as -1e400 is); write "
                "-Infinity or null (None in Python) where a query may not look, or a finite "
                "number"
            ),
            field=field,
            where=where,
        )
    return number


def _ranked(array: np.ndarray) -> np.ndarray:
    """A mask of one axis or more, not empty (fit_mask says which shapes fit)."""
    if array.size == 0:
        raise ShapeError(
            _(
                "attn_mask is empty; expected a grid T_q × T_k (or any shape that broadcasts "
                "to the scores, B × h × T_q × T_k) of true/false or of numbers"
            ),
        )
    if array.ndim == 0:
        raise ShapeError(
            _(
                "attn_mask is a single value; expected a grid T_q × T_k (or any shape that "
                "broadcasts to the scores, B × h × T_q × T_k) of true/false or of numbers"
            ),
        )
    return array


def checked_floats(array: np.ndarray, field: str) -> np.ndarray:
    """-inf is a cell a query may not look at; NaN and +inf are refused, naming the cell."""
    import numpy as np

    bad = np.argwhere(np.isnan(array) | np.isposinf(array))
    if bad.size:
        where = cell_text(tuple(bad[0]))
        raise InputError(
            _("{field}: the number at {where} is {value}; expected a finite number or -inf"),
            field=field,
            where=where,
            value=array[tuple(bad[0])],
        )
    return array
