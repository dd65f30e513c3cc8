"""Validated inputs for attn grad: the forward chain's inputs and the gradient that arrives
at the output (grad_output, or a target for ½‖c − target‖²)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from attncli.errors import ShapeError, count, shape_text
from attncli.messages import Setting, _
from attncli.reading.check.calculator import ScoreInput, score_input
from attncli.reading.check.reader import as_given, check_need, check_same_size
from attncli.reading.inputs import GRAD, GRAD_OUTPUT, SCORES, TARGET, both_given
from attncli.reading.parse.values import (
    Document,
    kind_of,
    to_batch,
    to_matrix,
    to_vector,
    to_vector_or_matrix,
    typed_fields,
)

if TYPE_CHECKING:
    import numpy as np

UPSTREAM = ("target", "grad_output")  # the pair of which attn grad reads one


@dataclass
class GradInput:
    """What attn grad computes on."""

    scores: ScoreInput  # queries, keys and the score's parameters
    values: np.ndarray  # [T_k, d_v]
    allowed: np.ndarray | None  # [T_q, T_k], False where masked (null in the given scores)
    grad_output: np.ndarray | None  # [T_q, d_v]
    target: np.ndarray | None  # [T_q, d_v]


def upstream_gradient(
    grad_output: object,
    target: object,
    expected: tuple[int, ...],
    required: bool = True,
    typed: frozenset[str] = frozenset(),
) -> tuple[str, np.ndarray | None]:
    """The grad_output or the target given (None: not given; without `required`, nothing),
    of the output's shape: (its name, the array); a fault in it said of the field as it was
    given (`typed`: the fields an option typed)."""
    offered = {"grad_output": grad_output, "target": target}
    given = [name for name, value in offered.items() if value is not None]
    if required or given:  # one of the two, as attn grad's reader holds them
        check_need(GRAD, offered, UPSTREAM)
    if not given:
        return "", None
    name = given[0]
    value = offered[name]
    # an array (reader.read_layer reads the layer's in its own rank) of the output's
    # rank is checked as one; of another, it is refused below for its shape
    readers = {1: to_vector, 2: to_matrix, 3: to_batch}
    if not hasattr(value, "shape"):  # a batch's output is B × T × d, and so is its gradient
        upstream = to_batch(value, name) if len(expected) == 3 else to_vector_or_matrix(value, name)
    elif getattr(value, "ndim", None) == len(expected):
        upstream = readers[len(expected)](value, name)
    else:
        upstream = cast("np.ndarray", value)
    if upstream.shape != expected:
        raise _not_the_output(as_given(name, typed), upstream, expected)
    return name, upstream


def _not_the_output(
    name: str | Setting, upstream: np.ndarray, expected: tuple[int, ...]
) -> ShapeError:
    """The upstream gradient (or target) of another shape than the output's; one
    sequence's T × d for a batch's B × T × d output said so, since torch's backward takes a
    gradient of the output's own shape (not broadcast)."""
    wanted = shape_text(expected)
    if len(expected) == 3 and upstream.ndim == 2:
        return ShapeError(
            _("{name} is {shown}, one sequence's, but x is a batch and the output is {wanted}: "
              "give {name} as B × T × d ({wanted} here), a T × d matrix per sequence"),
            name=name,
            shown=shape_text(upstream.shape),
            wanted=wanted,
        )  # fmt: skip
    # a single number shows itself: "target is 3 but the output is 3 × 2"
    shown = shape_text(upstream.shape) if upstream.ndim else kind_of(upstream.item())
    return ShapeError(
        _("{name} is {shown} but the output is {wanted} (give one number per number of the "
          "output)"),
        name=name,
        shown=shown,
        wanted=wanted,
    )  # fmt: skip


def one_upstream(
    grad_output: object, target: object, named: tuple[object, object] = ("grad_output", "target")
) -> None:
    """The gradient at the output or a target to make it from, not both; `named` as the
    input names them (a document's fields, or the command line's options as Settings)."""
    if grad_output is not None and target is not None:
        raise both_given(GRAD_OUTPUT, TARGET, named)


def _pair(upstream: tuple[str, np.ndarray]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """attn grad's upstream as read, (its name, the array), as (grad_output, target)."""
    name, array = upstream
    return (array, None) if name == "grad_output" else (None, array)


def grad_input(document: Document, method: str, seed: int, d_a: int | None) -> GradInput:
    """Validated inputs; the upstream gradient must have the output's shape."""
    import numpy as np

    # the upstream's sizes bound too; the scores given, a mask where they hold null or -inf
    scored = score_input(document, method, seed, d_a, GRAD.with_fields(SCORES))
    rows, values = scored.queries, scored.values
    assert values is not None and scored.upstream is not None  # attn grad needs them
    # a row for one query, a grid for several
    expected = (values.shape[1],) if rows.single else (rows.matrix.shape[0], values.shape[1])
    name, upstream = upstream_gradient(
        *_pair(scored.upstream), expected, typed=typed_fields(document)
    )
    assert upstream is not None  # attn grad needs one (its reader has held it)
    upstream = upstream.reshape(rows.matrix.shape[0], values.shape[1])
    allowed = None
    if scored.scores is not None:  # read as score's are, their T_k held to the keys'
        grid = scored.scores[None, :] if scored.scores.ndim == 1 else scored.scores
        # one row of scores is one query's: both are T_q (a query vector or a row of scores
        # leaves it to the other, so the reader has not held them to each other)
        typed, queries = typed_fields(document), rows.matrix.shape[0]
        check_same_size("T_q", (as_given("scores", typed), grid.shape[0],
                                count(grid.shape[0], "row")),
                        (as_given("query" if rows.single else "queries", typed), queries,
                         count(queries, "row")))  # fmt: skip
        allowed = ~np.isneginf(grid) if np.isneginf(grid).any() else None
    return GradInput(
        scored,
        values,
        allowed,
        upstream if name == "grad_output" else None,
        upstream if name == "target" else None,
    )
