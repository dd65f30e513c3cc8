"""The operations of attncli: array-likes in, checked inputs, the core, a result out.

Each operation has two doors: keyword arguments for Python (`score(query=..., keys=...)`)
and a document (`score_document({...})`), which is what the CLI reads from JSON. Both
go through the same checks (attncli.reading), so a mistake gets the same message in a
notebook as on the command line. Nothing here reads files or prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import SEED, OneOf, keywords
from attncli.core import attention, methods
from attncli.core.methods import NAMES
from attncli.errors import InputError
from attncli.messages import Setting, _
from attncli.reading.check.calculator import (
    carried_values,
    chosen_method,
    mix_input,
    score_input,
    softmax_input,
)
from attncli.reading.parse.values import Document, as_array
from attncli.results.base import Result

if TYPE_CHECKING:
    # Imported where they are made, so that the layer (api_selfattn) and the backward
    # pass, which use this module's helpers, do not build the calculator's result classes.
    from attncli.results.calculator import MixResult, ScoreResult, SoftmaxResult

ArrayLike = Any  # a list of numbers, a list of rows, a numpy array
METHOD = OneOf(NAMES)  # a score method by name: method='general', as --method's choices


def as_document(**fields: Any) -> Document:
    """Keyword arguments as a document: None means not given; tuples read as lists."""
    return {name: plain(value) for name, value in fields.items() if value is not None}


def plain(value: Any, inside: bool = False) -> Any:
    """A value given in Python as the checks read it: a tuple or a range as a list, a numpy
    scalar as a number, any other array-like (a torch tensor) as an array; `inside` a list,
    an array as the nested lists it holds ([np.array(row) for row in x] is a matrix)."""
    if isinstance(value, (tuple, list, range)):
        return [plain(item, inside=True) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    if not isinstance(value, (np.ndarray, str, dict)):
        value = as_array(value)
    if inside and isinstance(value, np.ndarray):
        return value.tolist()
    return value


def check_finite(array: np.ndarray, field: str, allowed: np.ndarray | None = None) -> np.ndarray:
    """Refuse a result that overflowed float64 (±inf, or NaN from inf − inf), naming the
    first cell; -inf is accepted only where a mask keeps the query from looking (where
    `allowed` is False)."""
    overflowed = ~np.isfinite(array)
    if allowed is not None:
        overflowed &= ~(~allowed & np.isneginf(array))
    bad = np.argwhere(overflowed)
    if bad.size:
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        raise InputError(
            _(
                "{field} overflow float64 at ({where}): the inputs are too large; numbers up to "
                "about 1e150 are safe"
            ),
            field=field,
            where=where,
        )
    return array


def chained_document(previous: Result | ArrayLike, field: str) -> Document:
    """The document of an earlier result, or a bare array taken as `field`."""
    if isinstance(previous, Result):
        return previous.to_document()
    return {field: plain(previous)}


@keywords(seed=SEED, method=METHOD)
def score(
    query: ArrayLike | None = None,
    keys: ArrayLike | None = None,
    *,
    queries: ArrayLike | None = None,
    values: ArrayLike | None = None,
    tokens: Sequence[str] | None = None,
    method: str = "dot",
    w_a: ArrayLike | None = None,
    w_1: ArrayLike | None = None,
    w_2: ArrayLike | None = None,
    v_a: ArrayLike | None = None,
    b_1: ArrayLike | None = None,
    b_2: ArrayLike | None = None,
    d_a: int | None = None,
    seed: int = 0,
) -> ScoreResult:
    """Score each key against the query (or each query) by `method`, a name of
    core.methods' registry: dot, scaled, general, additive, ….

    Parameters of the learned scores left out are drawn from `seed`, the same on every
    machine; the additive score's biases b_1, b_2 are optional (zero when left out).
    `values` and `tokens` travel with the result, for mix.

    >>> s = score(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["tren", "va", "lleno"])
    >>> s.scores
    array([2., 0., 1.])
    >>> score(queries=[[1, 0], [0, 1]], keys=[[2, 1], [0, 2]], method="scaled").scores.round(3)
    array([[1.414, 0.   ],
           [0.707, 1.414]])
    """
    document = as_document(
        query=query,
        queries=queries,
        keys=keys,
        values=values,
        tokens=tokens,
        w_a=w_a,
        w_1=w_1,
        w_2=w_2,
        v_a=v_a,
        b_1=b_1,
        b_2=b_2,
    )
    return score_document(document, method, seed, d_a)


# What a self-attention result's scores went through that attn score does not do: scored
# again, its queries and keys would give other scores without a word.
LAYER_SCORING = ("mask", "attn_mask", "key_padding_mask", "window", "alibi", "rope_base")


def refuse_layer_result(document: Document) -> None:
    """A result of attn selfattn piped into attn score: its scores were scaled, masked or
    biased by the layer, which a dot product of its queries and keys would not repeat. Its
    `scores` are already there, for softmax; refused, saying so, rather than scored again."""
    if "output" not in document or "scores" not in document:
        return
    scoring = [name for name in LAYER_SCORING if document.get(name) not in (None, False)]
    if document.get("causal") is True:
        scoring.insert(0, "causal")
    divisor = document.get("divisor")
    if isinstance(divisor, (int, float)) and divisor != 1:
        scoring.append("divisor")
    if scoring:
        raise InputError(
            _(
                "{field}: the input is a self-attention result whose scores depend on its "
                "{field}, which attn score does not apply to queries and keys (it would give "
                "other scores); its scores are in the document already: pipe it to attn "
                "softmax, or lay the step out with attn selfattn --steps"
            ),
            field=scoring[0],
        )


@keywords(seed=SEED, method=METHOD)
def score_document(
    document: Document, method: str | None = None, seed: int = 0, d_a: int | None = None
) -> ScoreResult:
    """score() on a document: query or queries, keys, and any other fields to carry; the
    method defaults to the document's own (an exercise's), else dot."""
    refuse_layer_result(document)
    method = chosen_method(document, method)
    checked = score_input(document, method, seed, d_a)
    rows = checked.queries
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        grid = methods.score(method, rows.matrix, checked.keys, checked.parameters)
    check_finite(grid, "scores")
    from attncli.results.calculator import ScoreResult

    return ScoreResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, checked.keys.shape[0], {"keys": checked.keys}),
        method=method,
        queries=rows.matrix,
        keys=checked.keys,
        grid=grid,
        parameters=checked.parameters,
        drawn=tuple(checked.drawn),
        seed=seed,
    )


@keywords()
def softmax(
    scores: ScoreResult | ArrayLike,
    *,
    tokens: Sequence[str] | None = None,
    temperature: float = 1.0,
) -> SoftmaxResult:
    """Weights from scores, row by row, computed stably; -inf (or None) masks a cell.

    >>> softmax([2, 0, 1]).weights.round(3)
    array([0.665, 0.09 , 0.245])
    >>> softmax([2, None, 1]).weights.round(3)
    array([0.731, 0.   , 0.269])
    """
    document = chained_document(scores, "scores")
    if tokens is not None:
        document["tokens"] = list(tokens)
    return softmax_document(document, temperature)


def check_temperature(temperature: float) -> None:
    """A softmax temperature must be a positive finite number (not a text, nor True), as
    every other real setting is held to its Real; its refusal says one to try."""
    from attncli.api.keywords import TEMPERATURE, hold

    hold(Setting("temperature", temperature), TEMPERATURE)


def input_temperature(document: Document, temperature: float | None) -> float:
    """The temperature asked for, else the document's own (written by hand, or piped), else
    1: a number as a float, anything else as it is, for check_temperature to refuse."""
    if temperature is not None:
        return temperature
    given = document.get("temperature", 1.0)
    number = isinstance(given, (int, float)) and not isinstance(given, bool)
    return float(given) if number else given


def softmax_document(document: Document, temperature: float = 1.0) -> SoftmaxResult:
    """softmax() on a document with scores (a row or a grid)."""
    check_temperature(temperature)
    rows = softmax_input(document)
    from attncli.results.calculator import SoftmaxResult

    return SoftmaxResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, rows.matrix.shape[1]),
        score_grid=rows.matrix,
        weight_grid=attention.softmax(rows.matrix, temperature),
        temperature=temperature,
    )


@keywords()
def mix(
    weights: SoftmaxResult | ArrayLike,
    values: ArrayLike | None = None,
    *,
    tokens: Sequence[str] | None = None,
) -> MixResult:
    """The weighted sum of the value rows: output = Σ_j weight_j × value_j.

    >>> mix([0.5, 0.5], values=[[10, 0], [0, 10]]).output
    array([5., 5.])
    """
    document = chained_document(weights, "weights")
    document.update(as_document(values=values, tokens=tokens))
    return mix_document(document)


def mix_document(document: Document) -> MixResult:
    """mix() on a document with weights (a row or a grid) and values."""
    rows, values = mix_input(document)
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        output = attention.mix(rows.matrix, values)
    from attncli.results.calculator import MixResult

    return MixResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, values.shape[0], {"values": values}),
        weight_grid=rows.matrix,
        values=values,
        output_grid=check_finite(output, "output"),
    )


@keywords(seed=SEED)
def compare_scores(
    tx: int = 60,
    ty: int = 60,
    d_h: int = 256,
    d_a: int = 256,
    *,
    seed: int = 0,
    repeat: int = 9,
    d_ks: Sequence[int] = (8, 64, 512),
    threads: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
) -> Any:
    """Additive against multiplicative scoring on a T_y × T_x grid: counts, time, checks.
    Every method is timed with `threads` BLAS threads, the repeats interleaved.

    >>> c = compare_scores(tx=6, ty=4, d_h=8, d_a=8, repeat=1, d_ks=[8])
    >>> [(cost.method, cost.tanh) for cost in c.costs]
    [('additive', 192), ('general', 0), ('dot', 0), ('scaled', 0)]
    """
    from attncli.api.comparison import check_sizes, compare
    from attncli.results.comparison import Sizes

    sizes = Sizes(tx, ty, d_h, d_a, seed, repeat, list(d_ks), threads)
    check_sizes(sizes)
    return compare(sizes, progress)
