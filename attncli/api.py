"""The operations of attncli: array-likes in, checked inputs, the core, a result out.

Each operation has two doors: keyword arguments for Python (`score(query=..., keys=...)`)
and a document (`score_document({...})`), which is what the CLI reads from JSON. Both
go through the same checks (attncli.reading), so a mistake gets the same message in a
notebook as on the command line. Nothing here reads files or prints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.core import attention
from attncli.errors import InputError, OptionError
from attncli.reading.inputs import carried_values, mix_input, score_input, softmax_input
from attncli.reading.values import Document
from attncli.results import (
    ExerciseResult,
    GradResult,
    MixResult,
    Result,
    ScoreResult,
    SelfAttnResult,
    SoftmaxResult,
)

if TYPE_CHECKING:
    from attncli.reading.selfattn_inputs import SelfAttnSettings

ArrayLike = Any  # a list of numbers, a list of rows, a numpy array


def _document(**fields: Any) -> Document:
    """Keyword arguments as a document: None means not given; tuples read as lists."""
    return {name: _plain(value) for name, value in fields.items() if value is not None}


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _finite(array: np.ndarray, field: str, masked: np.ndarray | None = None) -> np.ndarray:
    """Refuse a result that overflowed float64 (±inf, or NaN from inf − inf), naming the
    first cell; -inf is allowed only where `masked` is True (a real mask)."""
    overflowed = ~np.isfinite(array)
    if masked is not None:
        overflowed &= ~(masked & np.isneginf(array))
    bad = np.argwhere(overflowed)
    if bad.size:
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        raise InputError(
            f"{field} overflow float64 at ({where}): the inputs are too large; numbers up to "
            "about 1e150 are safe",
            f"{field} desborda float64 en ({where}): las entradas son demasiado grandes; "
            "números hasta unos 1e150 son seguros",
        )
    return array


def _chained(previous: Result | ArrayLike, field: str) -> Document:
    """The document of an earlier result, or a bare array taken as `field`."""
    if isinstance(previous, Result):
        return previous.to_document()
    return {field: _plain(previous)}


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
    d_a: int | None = None,
    seed: int = 0,
) -> ScoreResult:
    """Score each key against the query (or each query): dot, scaled, general or additive.

    Parameters of the learned scores left out are drawn from `seed`, the same on every
    machine. `values` and `tokens` travel with the result, for mix.

    >>> s = score(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["tren", "va", "lleno"])
    >>> s.scores
    array([2., 0., 1.])
    >>> score(queries=[[1, 0], [0, 1]], keys=[[2, 1], [0, 2]], method="scaled").scores.round(3)
    array([[1.414, 0.   ],
           [0.707, 1.414]])
    """
    document = _document(
        query=query,
        queries=queries,
        keys=keys,
        values=values,
        tokens=tokens,
        w_a=w_a,
        w_1=w_1,
        w_2=w_2,
        v_a=v_a,
    )
    return score_document(document, method, seed, d_a)


def score_document(
    document: Document, method: str = "dot", seed: int = 0, d_a: int | None = None
) -> ScoreResult:
    """score() on a document: query or queries, keys, and any other fields to carry."""
    if method not in attention.METHODS:
        raise OptionError(
            f"method {method!r} is not one of {', '.join(attention.METHODS)}",
            f"el método {method!r} no es ninguno de {', '.join(attention.METHODS)}",
        )
    checked = score_input(document, method, seed, d_a)
    rows = checked.queries
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        grid = attention.score(method, rows.matrix, checked.keys, checked.parameters)
    _finite(grid, "scores")
    return ScoreResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, checked.keys.shape[0]),
        method=method,
        queries=rows.matrix,
        keys=checked.keys,
        grid=grid,
        parameters=checked.parameters,
        drawn=tuple(checked.drawn),
        seed=seed,
    )


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
    document = _chained(scores, "scores")
    if tokens is not None:
        document["tokens"] = list(tokens)
    return softmax_document(document, temperature)


def check_temperature(temperature: float) -> None:
    """A softmax temperature must be a positive finite number."""
    if not temperature > 0 or temperature == float("inf"):
        raise OptionError(
            f"--temperature {temperature} must be a positive number (try 0.5, 1 or 2)",
            f"--temperature {temperature} debe ser un número positivo (prueba 0.5, 1 o 2)",
        )


def softmax_document(document: Document, temperature: float = 1.0) -> SoftmaxResult:
    """softmax() on a document with scores (a row or a grid)."""
    check_temperature(temperature)
    rows = softmax_input(document)
    return SoftmaxResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, rows.matrix.shape[1]),
        score_grid=rows.matrix,
        weight_grid=attention.softmax(rows.matrix, temperature),
        temperature=temperature,
    )


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
    document = _chained(weights, "weights")
    document.update(_document(values=values, tokens=tokens))
    return mix_document(document)


def mix_document(document: Document) -> MixResult:
    """mix() on a document with weights (a row or a grid) and values."""
    rows, values = mix_input(document)
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        output = attention.mix(rows.matrix, values)
    return MixResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=dict(document),
        weight_grid=rows.matrix,
        values=values,
        output_grid=_finite(output, "output"),
    )


def selfattn(
    sentence: str | None = None,
    *,
    x: ArrayLike | None = None,
    queries: ArrayLike | None = None,
    keys: ArrayLike | None = None,
    values: ArrayLike | None = None,
    tokens: Sequence[str] | None = None,
    w_q: ArrayLike | None = None,
    w_k: ArrayLike | None = None,
    w_v: ArrayLike | None = None,
    w_o: ArrayLike | None = None,
    x_q: ArrayLike | None = None,
    x_kv: ArrayLike | None = None,
    context: str | None = None,
    b_q: ArrayLike | None = None,
    b_k: ArrayLike | None = None,
    b_v: ArrayLike | None = None,
    b_o: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    d_model: int | None = None,
    d_k: int | None = None,
    d_v: int | None = None,
    norm: float | None = None,
    seed: int = 0,
    heads: int | None = None,
    projections: bool = True,
    out_proj: bool = True,
    scale: bool = True,
    scale_by: float | None = None,
    causal: bool = False,
    valid_len: int | None = None,
    grad_output: ArrayLike | None = None,
    target: ArrayLike | None = None,
) -> SelfAttnResult:
    """Self-attention over a sentence (seeded embeddings) or a given X; or attention over
    given queries, keys and values. W as d_in × d_out, applied as x @ W (from torch's
    nn.Linear, pass weight.T); biases b_q, b_k, b_v, b_o are optional (zero when left
    out). With `heads`, d_k and d_v are the sizes per head (d_model / h by default), and
    the heads are joined through W^O unless `out_proj` is false. `mask` is 1 (or True)
    where query i may look at key j (torch's boolean attn_mask is the opposite);
    `valid_len` masks the keys from that count on (padding); `scale_by` divides the
    scores by a number of your choosing instead of √d_k. Cross-attention: the queries
    from `sentence` (or `x_q`), the keys and values from `context` (or `x_kv`).
    With `grad_output` (∂ℓ/∂output) or a `target` (for ℓ = ½‖output − target‖²) the
    result also holds the backward pass: `grads` has grad_x and grad_w_q, grad_w_k,
    grad_w_v (grad_w_o with W^O, grad_b_… for each bias given), or grad_queries,
    grad_keys, grad_values when Q, K, V were given.

    >>> a = selfattn("en las llaves del coche", seed=0)
    >>> a.weights.shape, a.params
    ((5, 5), 192)
    >>> bool(abs(a.weights.sum(axis=1) - 1).max() < 1e-12)
    True
    """
    document = _document(
        x=x,
        queries=queries,
        keys=keys,
        values=values,
        tokens=tokens,
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
        w_o=w_o,
        x_q=x_q,
        x_kv=x_kv,
        b_q=b_q,
        b_k=b_k,
        b_v=b_v,
        b_o=b_o,
        mask=mask,
        grad_output=grad_output,
        target=target,
    )
    from attncli.reading.selfattn_inputs import SelfAttnSettings

    options = SelfAttnSettings(
        d_model, d_k, d_v, norm, seed, heads, projections, out_proj, valid_len, context
    )
    return selfattn_document(document, sentence, options, scale, causal, scale_by)


def selfattn_document(
    document: Document,
    sentence: str | None,
    options: SelfAttnSettings,
    scale: bool = True,
    causal: bool = False,
    scale_by: float | None = None,
) -> SelfAttnResult:
    """selfattn() on a document (x and projections, or queries, keys and values).

    The scores are divided by √d_k (per head), by `scale_by` when given, or not at all
    when `scale` is false.
    """
    from attncli.reading.selfattn_inputs import selfattn_input

    checked = selfattn_input(document, sentence, options)
    masked = checked.masked
    if causal:
        from attncli.core.attention import causal_mask

        later = ~causal_mask(len(checked.query_labels), len(checked.key_labels))
        masked = later if masked is None else masked | later
    divisor = _divisor(scale, scale_by, checked, options)
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        run = _run_selfattn(checked, options.heads, divisor, masked)
    _finite(run.scores, "scores", masked=masked)
    _finite(run.output, "output")
    result_divisor = float(np.sqrt(run.keys.shape[-1])) if divisor is None else divisor
    with np.errstate(all="ignore"):
        loss, grads = _selfattn_backward(document, checked, run, result_divisor)
    for name, gradient in grads.items():
        _finite(gradient, name)
    return SelfAttnResult(
        loss=loss,
        grads=grads,
        query_labels=tuple(checked.query_labels),
        tokens=tuple(checked.key_labels),
        x=checked.x,
        x_kv=checked.x_kv,
        projections=checked.weights,
        drawn=tuple(checked.drawn),
        attention=run,
        heads=options.heads,
        scale=scale,
        divisor=result_divisor,
        causal=causal,
        masked=masked,
        norm=checked.norm,
        seed=options.seed,
    )


def _divisor(scale: bool, scale_by: float | None, checked: Any, options: Any) -> float | None:
    """What the scores are divided by: None for √d_k (the core's default), 1, or --scale S."""
    if scale_by is None:
        return None if scale else 1.0
    if not scale:
        raise OptionError(
            "--scale S and --no-scale both set the divisor; give one",
            "--scale S y --no-scale fijan los dos el divisor; da uno",
        )
    if not (math.isfinite(scale_by) and scale_by > 0):
        raise OptionError(
            f"--scale is {scale_by}; the divisor must be a positive number",
            f"--scale es {scale_by}; el divisor debe ser un número positivo",
        )
    return float(scale_by)


def _run_selfattn(
    checked: Any, heads: int | None, divisor: float | None, masked: np.ndarray | None
) -> Any:
    """Attention on the given Q, K, V; on X itself (no projections); or the attention layer
    on X, in one head or several."""
    from attncli.core import selfattn as core

    if checked.direct is not None:
        queries, keys, values = checked.direct
        return core.attend(queries, keys, values, divisor, masked)
    x_q = checked.x
    x_kv = checked.x if checked.x_kv is None else checked.x_kv
    if not checked.weights:
        return core.attend(x_q, x_kv, x_kv, divisor, masked)
    return core.attention_layer(x_q, x_kv, checked.weights, heads, divisor, masked)


def _selfattn_backward(
    document: Document, checked: Any, run: Any, divisor: float
) -> tuple[float | None, dict[str, np.ndarray]]:
    """The loss and gradients of a self-attention run, when the document gives an
    upstream gradient."""
    if document.get("grad_output") is None and document.get("target") is None:
        return None, {}
    from attncli.core import gradients
    from attncli.reading.grad_inputs import upstream_gradient

    name, upstream = upstream_gradient(document, run.output.shape, required=False)
    if upstream is None:
        return None, {}
    loss = None
    if name == "target":
        loss, upstream = gradients.squared_error(run.output, upstream)
    x = checked.x if checked.direct is None else None
    grads = gradients.selfattn_backward(
        x,
        checked.x_kv,
        checked.weights,
        run.queries,
        run.keys,
        run.values,
        run.weights,
        run.concat,
        upstream,
        divisor,
    )
    return loss, {"grad_output": upstream, **grads}


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
    progress: Callable[[str], None] | None = None,
) -> Any:
    """Additive against multiplicative scoring on a T_y × T_x grid: counts, time, checks.
    Every method is timed with `threads` BLAS threads, the repeats interleaved.

    >>> c = compare_scores(tx=6, ty=4, d_h=8, d_a=8, repeat=1, d_ks=[8])
    >>> [(cost.method, cost.tanh) for cost in c.costs]
    [('additive', 192), ('general', 0), ('dot', 0), ('scaled', 0)]
    """
    from attncli.comparison import Sizes, check_sizes, compare

    sizes = Sizes(tx, ty, d_h, d_a, seed, repeat, list(d_ks), threads)
    check_sizes(sizes)
    return compare(sizes, progress)


def exercise(seed: int = 0, size: int = 3, dim: int = 2) -> ExerciseResult:
    """A fresh small problem with whole numbers, as in the course, and its answers.

    >>> e = exercise(seed=7)
    >>> e.tokens, e.query.tolist()
    (('coche', 'están', 'ahí'), [1.0, 0.0])
    """
    from attncli.core.exercise import make_exercise

    problem = make_exercise(seed, size, dim)
    query = np.array(problem["query"], dtype=np.float64)
    keys = np.array(problem["keys"], dtype=np.float64)
    values = np.array(problem["values"], dtype=np.float64)
    scores = attention.dot_scores(query[None, :], keys)[0]
    weights = attention.softmax(scores)
    return ExerciseResult(
        seed=seed,
        tokens=tuple(problem["tokens"]),
        query=query,
        keys=keys,
        values=values,
        scores=scores,
        weights=weights,
        output=attention.mix(weights, values),
    )


def grad(
    query: ArrayLike | None = None,
    keys: ArrayLike | None = None,
    values: ArrayLike | None = None,
    *,
    queries: ArrayLike | None = None,
    grad_output: ArrayLike | None = None,
    target: ArrayLike | None = None,
    tokens: Sequence[str] | None = None,
    method: str | None = None,
    w_a: ArrayLike | None = None,
    w_1: ArrayLike | None = None,
    w_2: ArrayLike | None = None,
    v_a: ArrayLike | None = None,
    d_a: int | None = None,
    seed: int = 0,
    temperature: float | None = None,
) -> GradResult:
    """The backward pass: every gradient of the chain score → softmax → mix.

    Give the gradient arriving at the output (`grad_output`, ∇_c ℓ) or a `target`, for
    ℓ = ½‖c − target‖². Anything a forward result carries can be chained in with
    `grad_document(result.to_document() | {"target": ...})`.

    >>> g = grad(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], values=[[10, 0], [0, 10], [5, 5]],
    ...          target=[8, 2])
    >>> g.grad_output.round(3), round(g.loss, 4)
    (array([-0.124,  0.124]), 0.0154)
    >>> float(abs(g.grad_scores.sum())) < 1e-15
    True
    """
    document = _document(
        query=query,
        queries=queries,
        keys=keys,
        values=values,
        grad_output=grad_output,
        target=target,
        tokens=tokens,
        w_a=w_a,
        w_1=w_1,
        w_2=w_2,
        v_a=v_a,
    )
    return grad_document(document, method, seed, d_a, temperature)


def grad_document(
    document: Document,
    method: str | None = None,
    seed: int = 0,
    d_a: int | None = None,
    temperature: float | None = None,
) -> GradResult:
    """grad() on a document: what score, softmax and mix read, plus grad_output or target.

    The method and temperature default to the document's (as piped from the forward
    chain), else dot and 1; null cells in its `scores` stay masked.
    """
    from attncli.reading.grad_inputs import grad_input

    chosen_method = method or str(document.get("method") or "dot")
    chosen_temperature = temperature
    if chosen_temperature is None:
        given = document.get("temperature")
        chosen_temperature = float(given) if isinstance(given, (int, float)) else 1.0
    check_temperature(chosen_temperature)
    checked = grad_input(document, chosen_method, seed, d_a)
    rows = checked.scores.queries
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        run, loss, found = _grad_run(checked, chosen_method, chosen_temperature)
    _finite(run.scores, "scores", masked=checked.mask)
    _finite(run.output, "output")
    _finite_gradients(found)
    return GradResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=dict(document),
        method=chosen_method,
        queries=rows.matrix,
        keys=checked.scores.keys,
        values=checked.values,
        parameters=checked.scores.parameters,
        drawn=tuple(checked.scores.drawn),
        seed=seed,
        temperature=chosen_temperature,
        forward=run,
        target=checked.target,
        loss=loss,
        gradients=found,
    )


def _grad_run(checked: Any, method: str, temperature: float) -> tuple[Any, float | None, Any]:
    """Forward and backward through score → softmax → mix: the run, the loss, the gradients."""
    from attncli.core import gradients

    rows = checked.scores.queries
    run = gradients.forward(
        method,
        rows.matrix,
        checked.scores.keys,
        checked.values,
        checked.scores.parameters,
        temperature,
        checked.mask,
    )
    loss = None
    grad_out = checked.grad_output
    if checked.target is not None:
        loss, grad_out = gradients.squared_error(run.output, checked.target)
    assert grad_out is not None
    found = gradients.backward(
        method,
        rows.matrix,
        checked.scores.keys,
        checked.values,
        checked.scores.parameters,
        run,
        grad_out,
        temperature,
    )
    return run, loss, found


def _finite_gradients(found: Any) -> None:
    """Refuse gradients that overflowed float64, naming the first such gradient and cell."""
    for name, value in {**vars(found), **vars(found.score)}.items():
        if isinstance(value, np.ndarray):
            _finite(value, name)
