"""torch's attn_mask, read in torch's sense and turned into attn's: a boolean attn_mask is
True where a query may NOT look (attn's `allowed` is its opposite); a float attn_mask is
added to the scores before the softmax, -inf (or null) where a query may not look, any
finite number an additive bias (ALiBi's −m·|i − j|, transformers' extended mask).

Shapes as torch takes them: T_q × T_k; h × T_q × T_k (B·h × T_q × T_k for a batch, as
nn.MultiheadAttention); B × h × T_q × T_k, any of B, h given as 1 to broadcast."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError
from attncli.reading.json_text import JsonConstant
from attncli.reading.values import shape_text

if TYPE_CHECKING:
    import numpy as np


def scores_shape(t_q: int, t_k: int, heads: int | None, batch: int | None) -> tuple[int, ...]:
    """The shape of the layer's scores: [B,] [h,] T_q, T_k."""
    lead = tuple(size for size in (batch, heads) if size is not None)
    return (*lead, t_q, t_k)


def attn_mask_cells(
    value: Any, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(allowed, bias), each of the scores' shape or None: True where a query may look, and
    what is added to the scores where it may."""
    import numpy as np

    array, boolean = _attn_mask_array(value)
    shape = scores_shape(t_q, t_k, heads, batch)
    fitted = _fit(array, shape, heads, batch)
    if boolean:
        allowed = ~fitted
        return (None if allowed.all() else allowed), None
    allowed = ~np.isneginf(fitted)
    bias = np.where(allowed, fitted, 0.0)
    return (None if allowed.all() else allowed), (None if not bias.any() else bias)


def _fit(
    array: np.ndarray, shape: tuple[int, ...], heads: int | None, batch: int | None
) -> np.ndarray:
    """The mask broadcast to the scores' shape as torch broadcasts it, else one line naming
    the shapes it may have."""
    import numpy as np

    t_q, t_k = shape[-2:]
    h, b = heads or 1, batch or 1
    four: np.ndarray | None = None  # as [B or 1, h or 1, T_q, T_k]
    if array.ndim == 2:
        four = array[None, None]
    elif array.ndim == 3 and array.shape[0] == b * h:
        # torch's 3-D attn_mask is one grid per sequence and head, B·h of them
        four = array.reshape(b, h, *array.shape[1:])
    elif array.ndim == 3 and array.shape[0] == 1:
        four = array[None]
    elif array.ndim == 4 and array.shape[0] in (1, b) and array.shape[1] in (1, h):
        four = array
    if four is not None and four.shape[-2:] == (t_q, t_k):
        picked = four if batch is not None else four[0]  # drop the axes the scores lack
        if heads is None:
            picked = picked[:, 0] if batch is not None else picked[0]
        return np.ascontiguousarray(np.broadcast_to(picked, shape))
    shapes = [f"{t_q} × {t_k}"]
    if batch is not None or heads is not None:
        shapes.append(f"{b * h} × {t_q} × {t_k}")
    shapes.append(f"{b} × {h} × {t_q} × {t_k}")
    what = {
        (False, False): ("", ""),
        (True, False): (" (h × T_q × T_k)", " (h × T_q × T_k)"),
        (False, True): (" (B × T_q × T_k)", " (B × T_q × T_k)"),
        (True, True): (" (B·h × T_q × T_k, as torch's)", " (B·h × T_q × T_k, como el de torch)"),
    }[(heads is not None, batch is not None)]
    raise ShapeError(
        f"attn_mask is {shape_text(array.shape)} but must be {' or '.join(shapes)}{what[0]} "
        "(a row per query, a column per key; a 1 in front broadcasts)",
        f"attn_mask es {shape_text(array.shape)} pero debe ser {' o '.join(shapes)}{what[1]} "
        "(una fila por consulta, una columna por clave; un 1 delante se difunde)",
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
            return _checked_floats(_ranked(array).astype(np.float64)), False
        raise InputError(
            f"attn_mask holds {array.dtype}; torch takes a bool attn_mask (True = may not "
            "look) or a float one (added to the scores): save it as one of the two",
            f"attn_mask contiene {array.dtype}; torch toma un attn_mask bool (True = no puede "
            "mirar) o float (sumado a las puntuaciones): guárdalo como uno de los dos",
        )
    try:
        array = np.array(value, dtype=object)
    except ValueError:  # ragged rows
        array = np.array([], dtype=object)
    array = _ranked(array)
    cells = array.ravel().tolist()
    if cells and all(isinstance(cell, bool) for cell in cells):
        return array.astype(bool), True
    numbers = []
    for cell in cells:
        if cell is None or (isinstance(cell, JsonConstant) and cell.literal == "-Infinity"):
            numbers.append(-np.inf)
        elif isinstance(cell, (int, float)) and not isinstance(cell, bool):
            numbers.append(float(cell))
        else:
            raise InputError(
                f"attn_mask holds {cell!r:.20}; expected all true/false (torch's bool mask, "
                "true = may not look) or all numbers (added to the scores, -Infinity or null "
                "where a query may not look)",
                f"attn_mask contiene {cell!r:.20}; se espera todo true/false (la máscara bool "
                "de torch, true = no puede mirar) o todo números (sumados a las puntuaciones, "
                "-Infinity o null donde una consulta no puede mirar)",
            )
    if all(type(cell) is int and cell in (0, 1) for cell in cells):
        raise InputError(
            "attn_mask of 0s and 1s is ambiguous: write true/false for torch's boolean sense "
            "(true = may not look), 0.0 and -Infinity for an additive mask, or give mask "
            "(1 = may look)",
            "un attn_mask de 0 y 1 es ambiguo: escribe true/false para el sentido booleano de "
            "torch (true = no puede mirar), 0.0 y -Infinity para una máscara aditiva, o da "
            "mask (1 = puede mirar)",
        )
    return _checked_floats(np.array(numbers, dtype=np.float64).reshape(array.shape)), False


def _ranked(array: np.ndarray) -> np.ndarray:
    """A mask of 2 to 4 dimensions, not empty."""
    if array.ndim not in (2, 3, 4) or array.size == 0:
        raise ShapeError(
            "attn_mask: expected a grid T_q × T_k (or h × T_q × T_k, B × h × T_q × T_k) of "
            "true/false or of numbers",
            "attn_mask: se espera una rejilla T_q × T_k (o h × T_q × T_k, B × h × T_q × T_k) "
            "de true/false o de números",
        )
    return array


def _checked_floats(array: np.ndarray) -> np.ndarray:
    """-inf is a cell a query may not look at; NaN and +inf are refused, naming the cell."""
    import numpy as np

    bad = np.argwhere(np.isnan(array) | np.isposinf(array))
    if bad.size:
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        raise InputError(
            f"attn_mask: the number at ({where}) is {array[tuple(bad[0])]}; expected a finite "
            "number or -inf",
            f"attn_mask: el número en ({where}) es {array[tuple(bad[0])]}; se espera un número "
            "finito o -inf",
        )
    return array
