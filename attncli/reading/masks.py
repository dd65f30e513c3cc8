"""Which query may look at which key: a document's mask, torch's attn_mask and
key_padding_mask, and --valid-len, as one boolean grid in attn's one sense (True where a
query may look), and the additive bias of a float attn_mask."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.reading.values import Document, shape_text

if TYPE_CHECKING:
    import numpy as np


def layer_masks(
    document: Document,
    t_q: int,
    t_k: int,
    valid_len: int | None,
    batch: int | None,
    heads: int | None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(allowed, bias) for the attention layer: allowed_cells with torch's attn_mask laid
    over it (allowed then of the scores' shape, [B,] [h,] T_q, T_k), and the finite part of
    a float attn_mask, added to the scores (None when there is none)."""
    allowed = allowed_cells(document, t_q, t_k, valid_len, batch)
    if document.get("attn_mask") is None:
        return allowed, None
    from attncli.core.selfattn import aligned
    from attncli.reading.torch_masks import attn_mask_cells, scores_shape

    torch_allowed, bias = attn_mask_cells(document["attn_mask"], t_q, t_k, heads, batch)
    if torch_allowed is not None:
        shape = scores_shape(t_q, t_k, heads, batch)
        allowed = torch_allowed if allowed is None else aligned(allowed, shape) & torch_allowed
    return allowed, bias


def allowed_cells(
    document: Document, t_q: int, t_k: int, valid_len: int | None, batch: int | None = None
) -> np.ndarray | None:
    """True where query i may look at key j (attn's one mask convention): [T_q, T_k], or
    [B, T_q, T_k] when a batch has a key_padding_mask per sequence; None when every cell
    may. From the document's `mask` (the same sense: 1 or true = may look, 0 or false =
    masked; torch's boolean attn_mask is the opposite), its
    `key_padding_mask` (as torch's: 1 or true = padding, ignored; [T_k] or [B, T_k]) and
    the keys from --valid-len on (padding, as d2l's masked_softmax)."""
    import numpy as np

    allowed = None
    if document.get("mask") is not None:
        allowed = _mask_matrix(document["mask"])
        if allowed.shape != (t_q, t_k):
            raise ShapeError(
                f"mask is {shape_text(allowed.shape)} but must be {t_q} × {t_k} "
                "(a row per query, a column per key)",
                f"mask es {shape_text(allowed.shape)} pero debe ser {t_q} × {t_k} "
                "(una fila por consulta, una columna por clave)",
            )
    if valid_len is not None:
        if not 1 <= valid_len <= t_k:
            raise InputError(
                f"--valid-len {valid_len} is out of range: there are {t_k} keys (1 to {t_k})",
                f"--valid-len {valid_len} está fuera de rango: hay {t_k} claves (de 1 a {t_k})",
            )
        real = np.ones((t_q, t_k), dtype=bool)
        real[:, valid_len:] = False
        allowed = real if allowed is None else allowed & real
    if document.get("key_padding_mask") is not None:
        allowed = _key_padding(document["key_padding_mask"], allowed, t_q, t_k, batch)
    return allowed


def _key_padding(
    value: object, allowed: np.ndarray | None, t_q: int, t_k: int, batch: int | None
) -> np.ndarray:
    """The mask with torch's key_padding_mask laid over it: a key that is padding is masked
    for every query (of its sequence, when there is one row per sequence)."""
    import numpy as np

    hint = ("1 (or true) for a padding key", "1 (o true) para una clave de relleno")
    padding = _booleans(value, "key_padding_mask", (1, 2), hint)
    expected = (t_k,) if padding.ndim == 1 else (batch or 1, t_k)
    if padding.shape != expected or (padding.ndim == 2 and batch is None):
        shapes = f"{t_k}" + (f" or {batch} × {t_k}" if batch else "")
        raise ShapeError(
            f"key_padding_mask is {shape_text(padding.shape)} but must be {shapes} "
            "(a number per key, per sequence of a batch)",
            f"key_padding_mask es {shape_text(padding.shape)} pero debe ser {shapes} "
            "(un número por clave, por secuencia de un lote)",
        )
    base = np.ones((t_q, t_k), dtype=bool) if allowed is None else allowed
    if padding.ndim == 1:
        return base & ~padding[None, :]
    return base[None, :, :] & ~padding[:, None, :]  # [B, T_q, T_k]


def _mask_matrix(value: object) -> np.ndarray:
    """A mask of booleans or 0/1 as a boolean matrix; anything else is refused."""
    hint = (
        "1 (or true) where a query may look at a key, 0 (or false) where not",
        "1 (o true) donde una consulta puede mirar una clave, 0 (o false) donde no",
    )
    return _booleans(value, "mask", (2,), hint)


def _booleans(
    value: object, field: str, dims: tuple[int, ...], hint: tuple[str, str]
) -> np.ndarray:
    """Booleans or 0/1 in an array of one of `dims` dimensions; anything else is refused."""
    import numpy as np

    try:
        array = np.asarray(value) if hasattr(value, "dtype") else np.array(value, dtype=object)
    except ValueError:  # ragged rows
        array = np.array([], dtype=object)
    cells = array.ravel().tolist() if array.ndim in dims else []
    if not cells or any(cell not in (0, 1) or isinstance(cell, float) for cell in cells):
        kind = (
            ("a matrix", "una matriz")
            if dims == (2,)
            else ("a list or a matrix", "una lista o una matriz")
        )
        raise InputError(
            f"{field}: expected {kind[0]} of {hint[0]}",
            f"{field}: se espera {kind[1]} de {hint[1]}",
        )
    return array.astype(bool)


def bias_kv(document: Document, d_k: int, d_v: int) -> dict[str, np.ndarray]:
    """torch's add_bias_kv: bias_k (h·d_k numbers) and bias_v (h·d_v), the key and value
    rows appended after the projection; both or neither."""
    import numpy as np

    from attncli.reading.values import to_vector

    given = [name for name in ("bias_k", "bias_v") if document.get(name) is not None]
    if not given:
        return {}
    if len(given) == 1:
        other = "bias_v" if given == ["bias_k"] else "bias_k"
        raise InputError(
            f"{given[0]} without {other}: torch's add_bias_kv appends a key row and a value "
            "row; give both",
            f"{given[0]} sin {other}: el add_bias_kv de torch añade una fila de clave y una de "
            "valor; da las dos",
        )
    found = {}
    for name, length in (("bias_k", d_k), ("bias_v", d_v)):
        row = to_vector(np.ravel(document[name]) if hasattr(document[name], "shape")
                        else document[name], name)  # fmt: skip
        if row.shape[0] != length:
            raise ShapeError(
                f"{name} has {row.shape[0]} numbers but must have {length} here (one per "
                f"column of {'K' if name == 'bias_k' else 'V'})",
                f"{name} tiene {row.shape[0]} números pero aquí debe tener {length} (uno por "
                f"columna de {'K' if name == 'bias_k' else 'V'})",
            )
        found[name] = row
    return found
