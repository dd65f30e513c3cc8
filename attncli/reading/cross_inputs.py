"""The sequences of cross-attention: x_q for the queries, x_kv for the keys and values
(one d_model), or x_k and x_v of their own widths (torch's forward(query, key, value) with
kdim and vdim)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.reading.settings import SelfAttnSettings
from attncli.reading.values import Document, is_batch, require, to_batch, to_matrix

if TYPE_CHECKING:
    import numpy as np


def cross_matrices(
    document: Document, settings: SelfAttnSettings
) -> tuple[np.ndarray, np.ndarray, int]:
    """x_q (the queries' sequence) and x_kv (the keys' and values'), of one d_model."""
    if document.get("x") is not None:
        raise InputError(
            "give x (self-attention) or x_q and x_kv (cross-attention), not both",
            "da x (autoatención) o x_q y x_kv (atención cruzada), no las dos cosas",
        )
    hint = ("cross-attention needs x_q and x_kv", "la atención cruzada necesita x_q y x_kv")
    x_q, x_kv = sequences(document, ("x_q", "x_kv"), hint)
    if x_q.shape[-1] != x_kv.shape[-1]:
        raise ShapeError(
            f"x_q has {x_q.shape[-1]} columns but x_kv has {x_kv.shape[-1]} (one d_model for both)",
            f"x_q tiene {x_q.shape[-1]} columnas pero x_kv tiene {x_kv.shape[-1]} (un mismo "
            "d_model para las dos)",
        )
    _check_d_model(x_q, settings)
    return x_q, x_kv, int(x_q.shape[-1])


def separate_matrices(
    document: Document, settings: SelfAttnSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """x_q, x_k and x_v: the keys and the values each from a sequence of its own width
    (kdim, vdim), one row per key in both."""
    if document.get("x") is not None or document.get("x_kv") is not None:
        other = "x" if document.get("x") is not None else "x_kv"
        raise InputError(
            f"give x_k and x_v (keys and values of their own), or {other}, not both",
            f"da x_k y x_v (claves y valores propios), o {other}, no las dos cosas",
        )
    hint = (
        "keys and values of their own widths need x_q, x_k and x_v",
        "claves y valores de anchos propios necesitan x_q, x_k y x_v",
    )
    x_q, x_k, x_v = sequences(document, ("x_q", "x_k", "x_v"), hint)
    if x_k.shape[-2] != x_v.shape[-2]:
        raise ShapeError(
            f"x_k has {x_k.shape[-2]} rows but x_v has {x_v.shape[-2]} (one key and one value "
            "per token)",
            f"x_k tiene {x_k.shape[-2]} filas pero x_v tiene {x_v.shape[-2]} (una clave y un "
            "valor por token)",
        )
    _check_d_model(x_q, settings)
    return x_q, x_k, x_v, int(x_q.shape[-1])


def sequences(
    document: Document, names: tuple[str, ...], hint: tuple[str, str]
) -> list[np.ndarray]:
    """The named sequences, each T × d, or each a batch B × T × d of one B."""
    found = []
    for name in names:
        value = require(document, name, hint)
        found.append(to_batch(value, name) if is_batch(value) else to_matrix(value, name))
    if len({array.shape[:-2] for array in found}) > 1:
        shapes = ", ".join(
            f"{name} {' × '.join(map(str, a.shape))}" for name, a in zip(names, found, strict=True)
        )
        raise ShapeError(
            f"{shapes}: give every one as one sequence (T × d) or every one as a batch "
            "of the same B (B × T × d)",
            f"{shapes}: da todas como una secuencia (T × d) o todas como un lote del mismo B "
            "(B × T × d)",
        )
    return found


def _check_d_model(x_q: np.ndarray, settings: SelfAttnSettings) -> None:
    """x_q's width is d_model: a --d-model that differs is refused."""
    if settings.d_model is not None and settings.d_model != x_q.shape[-1]:
        raise ShapeError(
            f"x_q has {x_q.shape[-1]} columns but --d-model is {settings.d_model} (drop --d-model)",
            f"x_q tiene {x_q.shape[-1]} columnas pero --d-model es {settings.d_model} "
            "(quita --d-model)",
        )
