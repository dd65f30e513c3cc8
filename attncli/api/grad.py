"""The backward pass of score → softmax → mix as an operation: every gradient, as a
GradResult. No I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.calculator import (
    METHOD,
    ArrayLike,
    as_document,
    check_finite,
    check_temperature,
    input_temperature,
)
from attncli.api.keywords import SEED, keywords
from attncli.messages import Message, Setting, _
from attncli.reading.parse.values import Document
from attncli.results.grad import GradResult

if TYPE_CHECKING:
    pass


@keywords(seed=SEED, method=METHOD)
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
    b_1: ArrayLike | None = None,
    b_2: ArrayLike | None = None,
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
    document = as_document(
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
        b_1=b_1,
        b_2=b_2,
    )
    return grad_document(document, method, seed, d_a, temperature)


@keywords(seed=SEED, method=METHOD)
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
    from attncli.reading.check.calculator import chosen_method
    from attncli.reading.check.grad import grad_input

    chosen = chosen_method(document, method)
    chosen_temperature = input_temperature(document, temperature)
    check_temperature(chosen_temperature)
    written_upstream = None
    if all(document.get(name) is not None for name in ("target", "grad_output", "loss")):
        # a result of attn grad read back: its grad_output is what its target gave (c −
        # target), an output held against the recomputation below, not a second input
        written_upstream = document["grad_output"]
        document = {name: value for name, value in document.items() if name != "grad_output"}
    checked = grad_input(document, chosen, seed, d_a)
    rows = checked.scores.queries
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        run, loss, found = _grad_run(checked, chosen, chosen_temperature)
    check_finite(run.scores, "scores", checked.allowed)
    check_finite(run.output, "output")
    if loss is not None:  # ½‖output − target‖² past float64: a target too large
        check_finite(np.array([loss]), "loss")
    _check_written(document, run, rows.single)
    if written_upstream is not None and checked.target is not None:
        from attncli.reading.check.read_back import check_outputs

        upstream = run.output - checked.target.reshape(run.output.shape)  # ∂ℓ/∂c
        computed = {"grad_output": upstream[0] if rows.single else upstream}
        check_outputs({"grad_output": written_upstream}, computed, "float64", _FIX)
    _finite_gradients(found)
    return GradResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=dict(document),
        method=chosen,
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


# The forward chain's outputs a piped result writes down (score's, softmax's, mix's): held
# against what its query, keys and values give, so that an edited one is refused, never
# silently replaced by the unedited chain's numbers.
WRITTEN = ("scores", "weights", "output")


def _check_written(document: Document, run: Any, single: bool) -> None:
    from attncli.reading.check.read_back import check_outputs

    written = {name: document[name] for name in WRITTEN if document.get(name) is not None}
    if not written:
        return
    computed = {name: getattr(run, name) for name in WRITTEN}
    if single:  # one query: the result writes its row alone
        computed = {name: value[0] for name, value in computed.items()}
    check_outputs(written, computed, "float64", _FIX)


_FIX = Message(
    _(
        "it was changed after attn wrote it, or computed with another {method} or "
        "{temperature} (give that again); to compute from changed numbers, give only the "
        "inputs (query, keys, values)"
    ),
    method=Setting("method"),
    temperature=Setting("temperature"),
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
        checked.allowed,
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
            check_finite(value, name)
