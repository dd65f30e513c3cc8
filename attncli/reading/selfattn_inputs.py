"""Validated inputs for attn selfattn: a sentence made into X, or given matrices.

The selfattn half of the parsing layer (inputs.py holds the calculator's): it checks
the options, reads X or Q, K, V, and fills in seeded projections that were left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.limits import check_fits
from attncli.reading.inputs import (
    KEYS_HINT,
    VALUES_HINT,
    check_one_value_per_key,
    refuse_biases,
    row_labels,
)
from attncli.reading.values import Document, count, labels, require, to_matrix

if TYPE_CHECKING:
    import numpy as np


@dataclass
class SelfAttnSettings:
    """The options of attn selfattn that shape the computation."""

    d_model: int | None
    d_k: int | None
    d_v: int | None
    norm: float | None
    seed: int
    heads: int | None
    projections: bool


@dataclass
class SelfAttnInput:
    """What attn selfattn computes on: X and its projections, or Q, K, V given directly."""

    query_labels: list[str]
    key_labels: list[str]
    x: np.ndarray | None  # [T, d_model]
    weights: dict[str, np.ndarray]  # w_q, w_k, w_v and, with heads, w_o
    drawn: list[str]  # which of `weights` came from the seed
    # Q [T_q, d_k], K [T_k, d_k], V [T_k, d_v] when given instead of X
    direct: tuple[np.ndarray, np.ndarray, np.ndarray] | None
    norm: float | None  # the embeddings' length, when attn made them


def selfattn_input(
    document: Document, sentence: str | None, settings: SelfAttnSettings
) -> SelfAttnInput:
    """Validated inputs for attn selfattn, from a sentence or from given matrices."""
    import numpy as np

    from attncli.core.selfattn import embed, projections
    from attncli.reading.sentence import tokenize

    for name in ("d_model", "d_k", "d_v", "heads"):
        value = getattr(settings, name)
        if value is not None and value < 1:
            option = f"--{name.replace('_', '-')}"
            raise InputError(
                f"{option} is {value}; it must be 1 or more",
                f"{option} es {value}; debe ser 1 o más",
            )
    if settings.norm is not None and not settings.norm > 0:
        raise InputError(
            f"--norm is {settings.norm}; the embeddings' length must be positive",
            f"--norm es {settings.norm}; la longitud de los embeddings debe ser positiva",
        )
    refuse_biases(document)
    # The gradient at the output goes with either kind of input.
    data = set(document) - {"grad_output", "target"}
    if sentence is not None and data:
        raise InputError(
            "give a sentence or -i FILE, not both", "da una frase o -i FICHERO, no las dos cosas"
        )
    if sentence is None and not data:
        raise InputError(
            'nothing to attend over: give a sentence (attn selfattn "en las llaves del coche") '
            "or -i FILE with x, or with queries, keys and values",
            'no hay nada sobre lo que atender: da una frase (attn selfattn "en las llaves del '
            'coche") o -i FICHERO con x, o con queries, keys y values',
        )
    if sentence is None and any(document.get(name) is not None for name in ("queries", "keys")):
        return _direct_input(document, settings)

    norm: float | None = None
    x: np.ndarray | None = None
    if sentence is not None:
        tokens = tokenize(sentence)
        d_model = settings.d_model or 8
    else:
        x_hint = (
            "give x (a row per token) or queries/keys/values",
            "da x (una fila por token) o queries/keys/values",
        )
        x = to_matrix(require(document, "x", x_hint), "x")
        if settings.d_model is not None and settings.d_model != x.shape[1]:
            raise ShapeError(
                f"x has {x.shape[1]} columns but --d-model is {settings.d_model} (drop --d-model)",
                f"x tiene {x.shape[1]} columnas pero --d-model es {settings.d_model} "
                "(quita --d-model)",
            )
        tokens = labels(document, x.shape[0], "x", "t")
        d_model = x.shape[1]
    d_k, d_v = d_model, d_model
    if settings.projections:
        d_k, d_v = _projection_sizes(document, settings, d_model)
    check_memory(len(tokens), len(tokens), d_model, d_k, d_v, settings.heads or 1)
    if x is None:
        norm = settings.norm if settings.norm is not None else float(np.sqrt(d_model))
        x = embed(tokens, d_model, norm, settings.seed)
    weights: dict[str, np.ndarray] = {}
    drawn: list[str] = []
    if settings.projections:
        seeded = projections(
            settings.seed, d_model, d_k, d_v, with_output=settings.heads is not None
        )
        for name, default in seeded.items():
            if document.get(name) is None:
                weights[name] = default
                drawn.append(name)
                continue
            given = to_matrix(document[name], name)
            if given.shape != default.shape:
                sizes = f"d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
                raise ShapeError(
                    f"{name} is {_shape(given.shape)} but must be {_shape(default.shape)} "
                    f"here ({sizes})",
                    f"{name} es {_shape(given.shape)} pero aquí debe ser "
                    f"{_shape(default.shape)} ({sizes})",
                )
            weights[name] = given
    elif settings.heads is not None:
        raise InputError(
            "--heads needs the projections; drop --no-proj or --heads",
            "--heads necesita las proyecciones; quita --no-proj o --heads",
        )
    if settings.heads is None and document.get("w_o") is not None:
        raise InputError(
            "w_o joins the heads of --heads h; give --heads, or leave w_o out",
            "w_o junta las cabezas de --heads h; da --heads, o quita w_o",
        )
    return SelfAttnInput(tokens, tokens, x, weights, drawn, None, norm)


def _attention_numbers(sizes: Mapping[str, int]) -> int:
    """A bound on the float64 numbers one self-attention run holds, backward pass included:
    X and its projections, the weights, and six T_q × T_k grids per head."""
    t_q, t_k, heads = sizes["T_q"], sizes["tokens"], sizes["heads"]
    d_model, d_k, d_v = sizes["--d-model"], sizes["--d-k"], sizes["--d-v"]
    rows = (t_q + t_k) * (d_model + 2 * d_k + 2 * d_v)
    parameters = 2 * d_model * (d_k + d_v)
    return 2 * (rows + parameters) + 6 * heads * t_q * t_k


def check_memory(t_q: int, t_k: int, d_model: int, d_k: int, d_v: int, heads: int) -> None:
    """Refuse a run whose arrays would not fit, before any of them exists."""
    sizes = {
        "tokens": t_k,
        "T_q": t_q,
        "--d-model": d_model,
        "--d-k": d_k,
        "--d-v": d_v,
        "heads": heads,
    }
    what = f"{t_k} tokens with d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
    spanish = f"{t_k} tokens con d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
    check_fits(
        _attention_numbers,
        sizes,
        ("tokens", "--d-model", "--d-k", "--d-v"),
        (what, spanish),
        names={"tokens": ("the number of tokens", "el número de tokens")},
    )


def _shape(shape: tuple[int, ...]) -> str:
    return " × ".join(map(str, shape))


def _projection_sizes(
    document: Document, settings: SelfAttnSettings, d_model: int
) -> tuple[int, int]:
    """d_k and d_v: from --heads (d_model / h), the options, the given matrices, or d_model."""
    import numpy as np

    if settings.heads is not None:
        if d_model % settings.heads:
            divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
            raise InputError(
                f"--heads {settings.heads} does not divide d_model = {d_model}; "
                f"each head gets d_model / h columns, so h must be one of {divisors}",
                f"--heads {settings.heads} no divide d_model = {d_model}; "
                f"cada cabeza recibe d_model / h columnas, así que h debe ser uno de {divisors}",
            )
        if settings.d_k is not None or settings.d_v is not None:
            raise InputError(
                "with --heads, d_k = d_v = d_model / h; drop --d-k and --d-v",
                "con --heads, d_k = d_v = d_model / h; quita --d-k y --d-v",
            )
        return d_model, d_model  # all heads together; each gets d_model / h of the columns
    sizes = []
    for option, given_name in (("d_k", "w_q"), ("d_v", "w_v")):
        chosen = getattr(settings, option)
        given = document.get(given_name)
        if chosen is None and isinstance(given, list) and given and isinstance(given[0], list):
            chosen = len(given[0])
        elif chosen is None and isinstance(given, np.ndarray) and given.ndim == 2:
            chosen = given.shape[1]
        sizes.append(chosen if chosen is not None else d_model)
    return sizes[0], sizes[1]


def _direct_input(document: Document, settings: SelfAttnSettings) -> SelfAttnInput:
    """Attention straight from given queries, keys and values (no X, no projections)."""
    if settings.heads is not None:
        raise InputError(
            "--heads needs x and its projections, not queries/keys/values",
            "--heads necesita x y sus proyecciones, no queries/keys/values",
        )
    query_hint = ("give queries with keys and values", "da queries con keys y values")
    queries = to_matrix(require(document, "queries", query_hint), "queries")
    keys = to_matrix(require(document, "keys", KEYS_HINT), "keys")
    values = to_matrix(require(document, "values", VALUES_HINT), "values")
    if queries.shape[1] != keys.shape[1]:
        raise ShapeError(
            f"each query has {count(queries.shape[1], 'number')} but each key has "
            f"{keys.shape[1]} (Q K^T needs them equal)",
            f"cada consulta tiene {count(queries.shape[1], 'number', 'es')} pero cada clave "
            f"tiene {keys.shape[1]} (Q K^T los necesita iguales)",
        )
    check_one_value_per_key(values.shape[0], keys.shape[0])
    check_memory(queries.shape[0], keys.shape[0], 1, keys.shape[1], values.shape[1], 1)
    key_labels = labels(document, keys.shape[0], "keys", "k")
    query_labels = row_labels(document, queries.shape[0], False, "q")
    return SelfAttnInput(query_labels, key_labels, None, {}, [], (queries, keys, values), None)
