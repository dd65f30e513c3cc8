"""JSON values and option text to float64 arrays, checked, with the position of any fault.

Every check happens here, once, and fails with an InputError or ShapeError that names
the field, the row and what was expected. What leaves this module is well-formed:
finite float64 arrays (-inf only where a masked score is allowed) of agreeing shapes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError, count
from attncli.reading.json_text import JsonConstant, kind_of, valid_text

if TYPE_CHECKING:
    import numpy as np

Document = dict[str, Any]


def parse_tokens(value: Any, source: str = "tokens") -> list[str]:
    """Token labels: a JSON list of strings, or 'a,b,c' from an option."""
    if isinstance(value, str):
        value = [valid_text(part.strip()) for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise InputError(
            f"{source}: expected a non-empty list of token names, found {kind_of(value)}",
            f"{source}: se espera una lista de nombres de token, hay {kind_of(value, 'es')}",
        )
    for position, token in enumerate(value, 1):
        if not isinstance(token, str):
            raise InputError(
                f"{source}: item {position} is {kind_of(token)}; expected a string",
                f"{source}: el elemento {position} es {kind_of(token, 'es')}; se espera un texto",
            )
    return list(value)


def _where(field: str, row: int | None, item: int | None) -> tuple[str, str]:
    """'keys: row 2, item 1' in English and in Spanish."""
    english, spanish = field, field
    if row is not None:
        english, spanish = f"{english}: row {row}", f"{spanish}: fila {row}"
    if item is not None:
        english, spanish = f"{english}, item {item}", f"{spanish}, elemento {item}"
    return english, spanish


def _number(value: Any, where: tuple[str, str], allow_masked: bool) -> float:
    """One validated JSON number; null or -Infinity mean a masked cell where allowed."""
    en, es = where
    hint_en = " (null or -Infinity marks a masked cell)" if allow_masked else ""
    hint_es = " (null o -Infinity marcan una celda enmascarada)" if allow_masked else ""
    if isinstance(value, bool) or not isinstance(value, (int, float, JsonConstant)):
        if value is None and allow_masked:
            return -math.inf
        if isinstance(value, list):
            raise InputError(
                f"{en} is a list, nested too deep; expected a number",
                f"{es} es una lista, con un nivel de más; se espera un número",
            )
        raise InputError(
            f"{en} is {kind_of(value)}; expected a number{hint_en}",
            f"{es} es {kind_of(value, 'es')}; se espera un número{hint_es}",
        )
    if isinstance(value, JsonConstant):
        if value.literal == "-Infinity" and allow_masked:
            return -math.inf
        raise InputError(
            f"{en} is {value.literal}; expected a finite number{hint_en}",
            f"{es} es {value.literal}; se espera un número finito{hint_es}",
        )
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if number == -math.inf and allow_masked:
        return number
    if not math.isfinite(number):
        raise InputError(
            f"{en} is a number too large for a 64-bit float (overflow; at most about 1.8e308)",
            f"{es} es un número demasiado grande para un float de 64 bits (desbordamiento; "
            "como mucho unos 1.8e308)",
        )
    return number


def _vector_values(value: Any, field: str, row: int | None, allow_masked: bool) -> list[float]:
    en, es = _where(field, row, None)
    if not isinstance(value, list):
        expected = (
            ("a list of numbers", "una lista de números")
            if row is None
            else ("a row of numbers", "una fila de números")
        )
        raise InputError(
            f"{en} is {kind_of(value)}; expected {expected[0]}",
            f"{es} es {kind_of(value, 'es')}; se espera {expected[1]}",
        )
    if not value:
        raise InputError(
            f"{en} is empty; expected at least one number",
            f"{es} está vacía; se espera al menos un número",
        )
    return [
        _number(item, _where(field, row, position), allow_masked)
        for position, item in enumerate(value, 1)
    ]


def _checked_array(value: Any, field: str, ndim: int) -> np.ndarray:
    """An array read from .npy/.npz: numeric, of the expected rank, every number finite."""
    import numpy as np

    names = {
        1: ("a vector", "un vector"),
        2: ("a matrix", "una matriz"),
        3: ("a batch of matrices", "un lote de matrices"),
    }
    if value.dtype.kind not in "iuf":
        raise InputError(
            f"{field}: holds {value.dtype} data; expected numbers (int or float)",
            f"{field}: contiene datos {value.dtype}; se esperan números (int o float)",
        )
    if value.ndim != ndim:
        raise ShapeError(
            f"{field}: has {value.ndim} dimensions {value.shape}; expected {names[ndim][0]}",
            f"{field}: tiene {value.ndim} dimensiones {value.shape}; se espera {names[ndim][1]}",
        )
    if value.size == 0:
        raise InputError(
            f"{field} is empty; expected at least one number",
            f"{field} está vacío; se espera al menos un número",
        )
    array = value.astype(np.float64)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        found = array[tuple(bad[0])]
        raise InputError(
            f"{field}: the number at ({where}) is {found}; expected a finite number",
            f"{field}: el número en ({where}) es {found}; se espera un número finito",
        )
    return array


_NUMBER_TYPES = frozenset({int, float})


def _plain_numbers(value: Any, ndim: int) -> np.ndarray | None:
    """The float64 array when `value` is a list (of rows) of plain finite numbers, checked in
    bulk; None sends it to the item-by-item path, which finds and names the fault."""
    import numpy as np

    if not isinstance(value, list) or not value:
        return None
    rows = [value] if ndim == 1 else value
    for row in rows:
        # bool is not int here: type() is exact, and True must not pass as 1.
        if not isinstance(row, list) or not _NUMBER_TYPES.issuperset(map(type, row)):
            return None
    try:
        array = np.array(value, dtype=np.float64)
    except (ValueError, OverflowError):  # ragged rows, integers past float64
        return None
    if array.ndim != ndim or array.size == 0 or not np.isfinite(array).all():
        return None
    return array


def as_array(value: Any) -> Any:
    """A torch tensor (CPU, with or without grad) or another array-like as a numpy array,
    read by duck type (.detach().cpu().numpy(), or __array__): torch is never imported.
    Anything else is returned as it is."""
    import numpy as np

    if isinstance(value, (np.ndarray, list, tuple, str, dict)) or value is None:
        return value
    try:
        if callable(getattr(value, "detach", None)) and hasattr(value, "numpy"):
            return np.asarray(value.detach().cpu().numpy())
        if hasattr(value, "__array__"):
            return np.asarray(value)
    except (TypeError, RuntimeError, ValueError) as error:
        text = str(error).strip()
        reason = text.splitlines()[0] if text else type(error).__name__
        raise InputError(
            f"a {type(value).__name__} that attn cannot read as numbers ({reason}); pass "
            "tensor.detach().cpu().double().numpy()",
            f"un {type(value).__name__} que attn no puede leer como números ({reason}); pasa "
            "tensor.detach().cpu().double().numpy()",
        ) from None
    return value


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as messages write it: 3 × 2."""
    return " × ".join(map(str, shape))


def _is_array(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "ndim")


def to_vector(value: Any, field: str, allow_masked: bool = False) -> np.ndarray:
    """A JSON list of numbers (or a 1-D array from .npz) to a float64 vector."""
    import numpy as np

    # -> [n]
    if _is_array(value):
        return _checked_array(value, field, 1)
    fast = _plain_numbers(value, 1)
    if fast is not None:
        return fast
    if isinstance(value, list) and value and isinstance(value[0], list):
        raise InputError(
            f"{field}: expected one vector such as [1, 0], found a matrix",
            f"{field}: se espera un vector como [1, 0], hay una matriz",
        )
    return np.array(_vector_values(value, field, None, allow_masked), dtype=np.float64)


def to_matrix(value: Any, field: str, allow_masked: bool = False) -> np.ndarray:
    """A JSON list of equal-length rows to a float64 matrix."""
    import numpy as np

    # -> [rows, columns]
    if _is_array(value):
        return _checked_array(value, field, 2)
    fast = _plain_numbers(value, 2)
    if fast is not None:
        return fast
    if not isinstance(value, list):
        raise InputError(
            f"{field} is {kind_of(value)}; expected a matrix such as [[2, 1], [0, 2]]",
            f"{field} es {kind_of(value, 'es')}; se espera una matriz como [[2, 1], [0, 2]]",
        )
    if not value:
        raise InputError(
            f"{field} is empty; expected at least one row",
            f"{field} está vacía; se espera al menos una fila",
        )
    if not isinstance(value[0], list):
        raise InputError(
            f"{field}: expected a matrix, a row per token, such as [[2, 1], [0, 2]]; "
            "found a single list (wrap it in [ ] for one row)",
            f"{field}: se espera una matriz, una fila por token, como [[2, 1], [0, 2]]; "
            "hay una sola lista (rodéala de [ ] para una fila)",
        )
    rows = [_vector_values(row, field, index, allow_masked) for index, row in enumerate(value, 1)]
    for index, row in enumerate(rows[1:], 2):
        if len(row) != len(rows[0]):
            raise ShapeError(
                f"{field}: row {index} has {count(len(row), 'number')}, row 1 has {len(rows[0])} "
                "(every row must have the same length)",
                f"{field}: la fila {index} tiene {count(len(row), 'number', 'es')}, la fila 1 "
                f"tiene {len(rows[0])} (todas las filas deben tener la misma longitud)",
            )
    return np.array(rows, dtype=np.float64)


def is_batch(value: Any) -> bool:
    """True for a B × T × d array, or JSON nested three deep: a batch of sequences."""
    if _is_array(value):
        return bool(value.ndim == 3)
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], list)
        and bool(value[0])
        and isinstance(value[0][0], list)
    )


def to_batch(value: Any, field: str) -> np.ndarray:
    """A batch of equal-shaped matrices (B × T × d), each checked as to_matrix checks one."""
    import numpy as np

    # -> [B, T, d]
    if _is_array(value):
        return _checked_array(value, field, 3)
    matrices = [to_matrix(item, f"{field}[{index}]") for index, item in enumerate(value, 1)]
    for index, matrix in enumerate(matrices[1:], 2):
        if matrix.shape != matrices[0].shape:
            raise ShapeError(
                f"{field}[{index}] is {shape_text(matrix.shape)} but {field}[1] is "
                f"{shape_text(matrices[0].shape)} (every sequence of a batch has one "
                "shape)",
                f"{field}[{index}] es {shape_text(matrix.shape)} pero {field}[1] es "
                f"{shape_text(matrices[0].shape)} (todas las secuencias de un lote "
                "tienen la misma forma)",
            )
    return np.stack(matrices)


def check_length(row: np.ndarray, field: str, length: int, columns_of: str) -> np.ndarray:
    """A bias's row of `length` numbers, one per column of `columns_of` (K, V, W^Q, …)."""
    if row.shape[0] != length:
        raise ShapeError(
            f"{field} has {count(row.shape[0], 'number')} but must have {length} here (one per "
            f"column of {columns_of})",
            f"{field} tiene {count(row.shape[0], 'number', 'es')} pero aquí debe tener {length} "
            f"(uno por columna de {columns_of})",
        )
    return row


def to_vector_or_matrix(value: Any, field: str, allow_masked: bool = False) -> np.ndarray:
    """A vector (one row) or a matrix (a grid), whichever the JSON holds."""
    # -> [n] or [rows, n]
    nested = isinstance(value, list) and value and isinstance(value[0], list)
    if nested or (_is_array(value) and value.ndim == 2):
        return to_matrix(value, field, allow_masked)
    return to_vector(value, field, allow_masked)


def require(document: Document, field: str, hint: tuple[str, str]) -> Any:
    """A field that must be present, with a message (English, Spanish) on how to give it."""
    if field not in document or document[field] is None:
        raise InputError(
            f"missing field '{field}': {hint[0]}", f"falta el campo '{field}': {hint[1]}"
        )
    return document[field]


def labels(document: Document, rows: int, field: str, prefix: str, unit: str = "row") -> list[str]:
    """Token names for `rows` rows (or columns: `unit`) of `field`: the document's tokens,
    or prefix1, prefix2, ..."""
    if "tokens" not in document:
        return [f"{prefix}{index}" for index in range(1, rows + 1)]
    tokens = parse_tokens(document["tokens"])
    if len(tokens) != rows:
        raise ShapeError(
            f"tokens: {count(len(tokens), 'name')} for {count(rows, unit)} of {field} "
            "(give one token name per key)",
            f"tokens: {count(len(tokens), 'name', 'es')} para {count(rows, unit, 'es')} de "
            f"{field} (da un nombre de token por clave)",
        )
    return tokens
