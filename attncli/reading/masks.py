"""Which query may look at which key: a document's mask and --valid-len, as one boolean
grid (True where a query may not look)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.reading.values import Document

if TYPE_CHECKING:
    import numpy as np


def masked_cells(
    document: Document, t_q: int, t_k: int, valid_len: int | None
) -> np.ndarray | None:
    """True where query i may not look at key j: the document's `mask` (1 or true = may
    look, 0 or false = masked; torch's boolean attn_mask is the opposite) and the keys
    from --valid-len on (padding, as d2l's masked_softmax)."""
    import numpy as np

    masked = None
    if document.get("mask") is not None:
        allowed = _mask_matrix(document["mask"])
        if allowed.shape != (t_q, t_k):
            raise ShapeError(
                f"mask is {' × '.join(map(str, allowed.shape))} but must be {t_q} × {t_k} "
                "(a row per query, a column per key)",
                f"mask es {' × '.join(map(str, allowed.shape))} pero debe ser {t_q} × {t_k} "
                "(una fila por consulta, una columna por clave)",
            )
        masked = ~allowed
    if valid_len is not None:
        if not 1 <= valid_len <= t_k:
            raise InputError(
                f"--valid-len {valid_len} is out of range: there are {t_k} keys (1 to {t_k})",
                f"--valid-len {valid_len} está fuera de rango: hay {t_k} claves (de 1 a {t_k})",
            )
        padding = np.zeros((t_q, t_k), dtype=bool)
        padding[:, valid_len:] = True
        masked = padding if masked is None else masked | padding
    return masked


def _mask_matrix(value: object) -> np.ndarray:
    """A mask of booleans or 0/1 as a boolean matrix; anything else is refused."""
    import numpy as np

    hint = (
        "1 (or true) where a query may look at a key, 0 (or false) where not",
        "1 (o true) donde una consulta puede mirar una clave, 0 (o false) donde no",
    )
    if hasattr(value, "dtype"):
        array = np.asarray(value)
    elif isinstance(value, list) and all(isinstance(row, list) for row in value):
        try:
            array = np.array(value, dtype=object)
        except ValueError:
            array = np.array([], dtype=object)
    else:
        array = np.array([], dtype=object)
    cells = array.ravel().tolist() if array.ndim == 2 else []
    if not cells or any(cell not in (0, 1) or isinstance(cell, float) for cell in cells):
        raise InputError(
            f"mask: expected a matrix of {hint[0]}", f"mask: se espera una matriz de {hint[1]}"
        )
    return array.astype(bool)
