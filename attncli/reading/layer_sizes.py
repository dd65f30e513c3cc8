"""The sizes of attn selfattn's projections (h·d_k and h·d_v, from the options or the given
matrices) and what a projection of the wrong shape is told: the sizes per head, as the
header says them, or the layer's keys and values of widths of their own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.reading.values import Document, shape_text

if TYPE_CHECKING:
    import numpy as np

    from attncli.reading.settings import SelfAttnSettings


def sizes_text(d_model: int, d_k: int, d_v: int, heads: int | None) -> str:
    """The sizes as the header says them: d_k and d_v per head, with the heads."""
    if heads is None:
        return f"d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
    return f"d_model = {d_model}, {heads} heads of d_k = {d_k // heads}, d_v = {d_v // heads}"


def own_widths(document: Document, name: str, given: np.ndarray, d_model: int) -> ShapeError:
    """W^K or W^V with rows of their own (torch's kdim, vdim) for a single x: the layer's
    keys and values have widths of their own, so it reads x_q, x_k and x_v."""
    rows = {n: rows_of(document.get(n)) for n in ("w_k", "w_v")}
    rows[name] = given.shape[0]
    widths = ", ".join(f"{n} has {r} rows" for n, r in rows.items() if r is not None)
    anchos = ", ".join(f"{n} tiene {r} filas" for n, r in rows.items() if r is not None)
    return ShapeError(
        f"{name} is {shape_text(given.shape)}: this layer's keys and values have widths of "
        f"their own ({widths}; torch's kdim, vdim), and x has {d_model} columns; give x_q "
        "(the queries' input), x_k and x_v of those widths (or x_q and x_kv when keys and "
        "values share one) instead of x",
        f"{name} es {shape_text(given.shape)}: las claves y valores de esta capa tienen "
        f"anchos propios ({anchos}; kdim, vdim de torch), y x tiene {d_model} columnas; da "
        "x_q (la entrada de las consultas), x_k y x_v de esos anchos (o x_q y x_kv cuando "
        "claves y valores comparten uno) en lugar de x",
    )


def rows_of(given: object) -> int | None:
    """The number of rows of a matrix given in the document, if it is one."""
    shape = getattr(given, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[0])
    if isinstance(given, list) and given and isinstance(given[0], list):
        return len(given)
    return None


def projection_sizes(
    document: Document, settings: SelfAttnSettings, d_model: int
) -> tuple[int, int]:
    """The columns of W^Q (and W^K) and of W^V: h·d_k and h·d_v with --heads h (each head
    d_model / h unless --d-k/--d-v give the size per head), else d_k and d_v; from the
    options, else the given matrices, else d_model."""
    heads = settings.heads or 1
    totals = []
    for option, given_name in (("d_k", "w_q"), ("d_v", "w_v")):
        chosen = getattr(settings, option)
        columns = columns_of(document.get(given_name))
        if chosen is not None:
            totals.append(heads * chosen)
        elif columns is not None:
            if columns % heads:
                raise ShapeError(
                    f"{given_name} has {columns} columns, which --heads {heads} cannot split "
                    "evenly (each head takes the same number)",
                    f"{given_name} tiene {columns} columnas, que --heads {heads} no puede "
                    "repartir por igual (cada cabeza toma las mismas)",
                )
            totals.append(columns)
        elif d_model % heads:
            divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
            raise InputError(
                f"--heads {heads} does not divide d_model = {d_model}; each head gets "
                f"d_model / h columns, so h must be one of {divisors} (or give --d-k and "
                "--d-v, the sizes per head)",
                f"--heads {heads} no divide d_model = {d_model}; cada cabeza recibe d_model / h "
                f"columnas, así que h debe ser uno de {divisors} (o da --d-k y --d-v, los "
                "tamaños por cabeza)",
            )
        else:
            totals.append(d_model)
    return totals[0], totals[1]


def columns_of(given: object) -> int | None:
    """The number of columns of a matrix given in the document, if it is one."""
    if isinstance(given, list) and given and isinstance(given[0], list):
        return len(given[0])
    shape = getattr(given, "shape", None)
    return int(shape[1]) if shape is not None and len(shape) == 2 else None
