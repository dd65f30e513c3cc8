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
        f"{field} is {shape_text(given)} but must broadcast to the scores, {shape_text(shape)} "
        f"({names}), as torch broadcasts: counted from the right, each axis of that size or "
        f"1 (e.g. {listed})",
        f"{field} es {shape_text(given)} pero debe difundirse a las puntuaciones, "
        f"{shape_text(shape)} ({names}), como difunde torch: contando desde la derecha, cada "
        f"eje de ese tamaño o 1 (p. ej. {listed})",
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
            f"attn_mask holds {array.dtype}; torch takes a bool attn_mask (True = may not "
            "look) or a float one (added to the scores): save it as one of the two",
            f"attn_mask contiene {array.dtype}; torch toma un attn_mask bool (True = no puede "
            "mirar) o float (sumado a las puntuaciones): guárdalo como uno de los dos",
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
                f"attn_mask holds {cell!r:.20} at {where}; expected all true/false (torch's "
                "bool mask, true = may not look) or all numbers (added to the scores, "
                "-Infinity or null where a query may not look)",
                f"attn_mask contiene {cell!r:.20} en {where}; se espera todo true/false (la "
                "máscara bool de torch, true = no puede mirar) o todo números (sumados a las "
                "puntuaciones, -Infinity o null donde una consulta no puede mirar)",
            )
    if all(type(cell) is int for cell in cells) and set(cells) == {0}:
        raise InputError(
            "attn_mask of integer 0s only is ambiguous: in torch's senses (false, or 0.0 "
            "added) every query may look at every key, in mask's and transformers' "
            "attention_mask's (1 = may look) none may; write false or 0.0 for torch's sense, "
            "or leave attn_mask out",
            "un attn_mask solo de 0 enteros es ambiguo: en los sentidos de torch (false, o 0.0 "
            "sumado) cada consulta puede mirar cada clave, en el de mask y el attention_mask "
            "de transformers (1 = puede mirar) ninguna; escribe false o 0.0 para el sentido "
            "de torch, o quita attn_mask",
        )
    if all(type(cell) is int and cell in (0, 1) for cell in cells):
        raise InputError(
            "attn_mask of integer 0s and 1s is ambiguous: 1 is may NOT look in torch's bool "
            "mask, may look in mask and transformers' attention_mask, and 1 added to the "
            "score as a float; write true/false for torch's bool sense, 0.0 and -Infinity "
            "for an additive mask, or give it as mask (1 = may look)",
            "un attn_mask de 0 y 1 enteros es ambiguo: 1 es NO puede mirar en la máscara "
            "bool de torch, puede mirar en mask y en el attention_mask de transformers, y 1 "
            "sumado a la puntuación como float; escribe true/false para el sentido bool de "
            "torch, 0.0 y -Infinity para una máscara aditiva, o dalo como mask (1 = puede "
            "mirar)",
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
        f"{field} has rows of different lengths; each row needs a cell per key",
        f"{field} tiene filas de longitudes distintas; cada fila necesita una celda por clave",
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
            f"{field}: the number at {where} is past float64 (as -1e400 is); write -Infinity "
            "or null (None in Python) where a query may not look, or a finite number",
            f"{field}: el número en {where} supera float64 (como -1e400); escribe -Infinity "
            "o null (None en Python) donde una consulta no puede mirar, o un número finito",
        )
    return number


def _ranked(array: np.ndarray) -> np.ndarray:
    """A mask of one axis or more, not empty (fit_mask says which shapes fit)."""
    if array.ndim == 0 or array.size == 0:
        shown = "empty" if array.size == 0 else "a single value"
        raise ShapeError(
            f"attn_mask is {shown}; expected a grid T_q × T_k (or any shape that broadcasts "
            "to the scores, B × h × T_q × T_k) of true/false or of numbers",
            f"attn_mask {'está vacío' if array.size == 0 else 'es un solo valor'}; se espera "
            "una rejilla T_q × T_k (o cualquier forma que se difunda a las puntuaciones, "
            "B × h × T_q × T_k) de true/false o de números",
        )
    return array


def checked_floats(array: np.ndarray, field: str) -> np.ndarray:
    """-inf is a cell a query may not look at; NaN and +inf are refused, naming the cell."""
    import numpy as np

    bad = np.argwhere(np.isnan(array) | np.isposinf(array))
    if bad.size:
        where = cell_text(tuple(bad[0]))
        raise InputError(
            f"{field}: the number at {where} is {array[tuple(bad[0])]}; expected a finite "
            "number or -inf",
            f"{field}: el número en {where} es {array[tuple(bad[0])]}; se espera un número "
            "finito o -inf",
        )
    return array
