"""The sequences of cross-attention: x_q for the queries, x_kv for the keys and values
(one d_model), or x_k and x_v of their own widths (torch's forward(query, key, value) with
kdim and vdim)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.layer import SelfAttnSettings
from attncli.messages import Message, _
from attncli.reading.values import Document, is_batch, require, to_batch, to_matrix

if TYPE_CHECKING:
    import numpy as np


def cross_matrices(
    document: Document, settings: SelfAttnSettings
) -> tuple[np.ndarray, np.ndarray, int]:
    """x_q (the queries' sequence) and x_kv (the keys' and values'), of one d_model."""
    if document.get("x") is not None:
        raise InputError(
            _("give x (self-attention) or x_q and x_kv (cross-attention), not both"),
        )
    hint = Message(_("cross-attention needs x_q and x_kv"))
    x_q, x_kv = sequences(document, ("x_q", "x_kv"), hint)
    if x_q.shape[-1] != x_kv.shape[-1]:
        raise ShapeError(
            _("x_q has {q_columns} columns but x_kv has {kv_columns} (one d_model for both)"),
            q_columns=x_q.shape[-1],
            kv_columns=x_kv.shape[-1],
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
            _("give x_k and x_v (keys and values of their own), or {other}, not both"),
            other=other,
        )
    hint = Message(_("keys and values of their own widths need x_q, x_k and x_v"))
    x_q, x_k, x_v = sequences(document, ("x_q", "x_k", "x_v"), hint)
    if x_k.shape[-2] != x_v.shape[-2]:
        raise ShapeError(
            _("x_k has {k_rows} rows but x_v has {v_rows} (one key and one value per token)"),
            k_rows=x_k.shape[-2],
            v_rows=x_v.shape[-2],
        )
    _check_d_model(x_q, settings)
    return x_q, x_k, x_v, int(x_q.shape[-1])


def sequences(document: Document, names: tuple[str, ...], hint: Message) -> list[np.ndarray]:
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
            _(
                "{shapes}: give every one as one sequence (T × d) or every one as a batch of "
                "the same B (B × T × d)"
            ),
            shapes=shapes,
        )
    return found


def _check_d_model(x_q: np.ndarray, settings: SelfAttnSettings) -> None:
    """x_q's width is d_model: a --d-model that differs is refused."""
    if settings.d_model is not None and settings.d_model != x_q.shape[-1]:
        raise ShapeError(
            _("x_q has {columns} columns but --d-model is {d_model} (drop --d-model)"),
            columns=x_q.shape[-1],
            d_model=settings.d_model,
        )
