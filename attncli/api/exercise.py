"""Problems to work by hand, and their answers: attn exercise's operations.

The answers are computed by the same operations a student checks them with (the core's
score, softmax and mix; the self-attention layer), so a worksheet's key and
`attn exercise --json | attn score | attn softmax | attn mix` can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.calculator import METHOD
from attncli.api.keywords import SEED, SHEETS, OneOf, keywords
from attncli.core import attention, methods
from attncli.errors import OptionError
from attncli.messages import Message, Setting, _

if TYPE_CHECKING:
    from attncli.results.exercise import ExerciseResult, ExerciseSet, SelfAttnExercise, Sheet

WORKSHEET_POSITIONS = OneOf((None, "rope"))  # the positions a worksheet turns by hand
# Why a self-attention sheet takes no score method and no positions: attn exercise's
# --selfattn, attn check's and their functions' alike
SELFATTN_SHEET = _("the self-attention problem scores as attn selfattn does (q·k ÷ √d_k) and "
                   "turns no positions; leave out {option}")  # fmt: skip
LARGEST_SEED = SEED.most  # --seed's range, as every seeded command takes it


@keywords(seed=SEED, method=METHOD, positions=WORKSHEET_POSITIONS)
def exercise(
    seed: int = 0,
    size: int = 3,
    dim: int | None = None,
    method: str = "dot",
    positions: str | None = None,
) -> ExerciseResult:
    """A fresh small problem with whole numbers, as in the course, and its answers; the
    score by `method` (a name of core.methods' registry). `dim` defaults to the course's 2,
    or 4 for scaled, so that √d_k = 2. `positions="rope"`: rotary positions by hand, the
    last token's query and key j turned by their positions · 90° before the dot score.

    >>> e = exercise(seed=7)
    >>> e.tokens, e.query.tolist()
    (('coche', 'están', 'ahí'), [1.0, 0.0])
    >>> exercise(seed=7, method="general").parameters["w_a"].tolist()
    [[0.0, 1.0], [-1.0, 1.0]]
    """
    from attncli.core.exercise import default_dim, make_exercise
    from attncli.results.exercise import ExerciseResult

    _check_rotary(positions, method, dim)
    problem = make_exercise(seed, size, default_dim(method) if dim is None else dim, method)
    query, keys, values = (
        np.array(problem[name], dtype=np.float64) for name in ("query", "keys", "values")
    )
    given_query = given_keys = None
    if positions == "rope":
        from attncli.core.rotary import quarter_turned

        given_query, given_keys = query, keys
        query = quarter_turned(query, len(keys) - 1)  # the last token's, at T − 1
        keys = np.stack([quarter_turned(key, j) for j, key in enumerate(keys)])
    parameters: dict[str, np.ndarray] = {
        name: np.array(problem[name], dtype=np.float64)
        for name in methods.parameter_names()
        if name in problem
    }
    scores = methods.score(method, query[None, :], keys, parameters)[0]
    weights = attention.softmax(scores)
    return ExerciseResult(
        seed=seed,
        tokens=tuple(problem["tokens"]),
        method=method,
        query=query,
        keys=keys,
        values=values,
        parameters=parameters,
        scores=scores,
        weights=weights,
        output=attention.mix(weights, values),
        given_query=given_query,
        given_keys=given_keys,
    )


def _check_rotary(positions: str | None, method: str, dim: int | None) -> None:
    """A rotary worksheet (its positions are rope alone: the keywords' WORKSHEET_POSITIONS)
    turns one pair by quarter turns and scores it by the dot product: another score or
    size is refused beside it in one line."""
    from attncli.api.refusals import refuse_beside

    if positions is not None:
        given = {Setting("method", method): method != "dot",
                 Setting("dim", dim): dim not in (None, 2)}  # fmt: skip
        refuse_beside(given, Setting("positions", positions),
                      _("the worksheet turns one pair ({pair}) by quarter turns and scores it "
                        "by the dot product; leave out {option}"),
                      pair=Setting("dim", 2))  # fmt: skip


def check_selfattn_sheet(method: str | None, positions: str | None = None) -> None:
    """A self-attention sheet scores as attn selfattn does and turns no positions: a score
    `method` given beside it (None: none given; the keywords' default dot is none) or
    `positions` is refused, never ignored, by this one check for attn exercise's and attn
    check's --selfattn (where --method dot, given, is refused too) and their keywords."""
    from attncli.api.refusals import refuse_beside

    given = {Setting("method", method): method, Setting("positions", positions): positions}
    refuse_beside(given, Setting("selfattn", True), SELFATTN_SHEET)


def selfattn_exercise(seed: int = 0, size: int = 3, dim: int | None = None) -> SelfAttnExercise:
    """A self-attention layer to work by hand: X of 0s and 1s and small whole W^Q, W^K, W^V;
    its answers are the layer's own (scores ÷ √d_k, as attn selfattn computes them).

    >>> e = selfattn_exercise(seed=7)
    >>> e.tokens, e.layer.x.tolist()
    (('coche', 'están', 'ahí'), [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    """
    from attncli.api.selfattn import selfattn
    from attncli.core.exercise import make_selfattn_exercise
    from attncli.results.exercise import SelfAttnExercise

    problem = make_selfattn_exercise(seed, size, 2 if dim is None else dim)
    return SelfAttnExercise(seed=seed, layer=selfattn(**problem))


@keywords(seed=SEED, count=SHEETS, method=METHOD, positions=WORKSHEET_POSITIONS)
def exercise_set(
    seed: int = 0,
    size: int = 3,
    dim: int | None = None,
    count: int = 1,
    key_only: bool = False,
    method: str = "dot",
    selfattn: bool = False,
    positions: str | None = None,
) -> ExerciseSet:
    """`count` different exercises, of seeds seed, seed + 1, …: a class set; `key_only`
    for their answer keys alone; `selfattn` for self-attention sheets.

    >>> [sheet.seed for sheet in exercise_set(seed=7, count=3).sheets]
    [7, 8, 9]
    """
    from attncli.results.exercise import ExerciseSet

    if seed + count - 1 > LARGEST_SEED:  # the sheets' seeds must all be seeds
        raise OptionError(
            _(
                "--seed {seed} --count {count}: the sheets take the seeds {seed} to {last}, "
                "past the largest seed {largest}; give a smaller --seed"
            ),
            seed=seed,
            count=count,
            last=seed + count - 1,
            largest=LARGEST_SEED,
        )
    seeds = range(seed, seed + count)
    if selfattn:
        check_selfattn_sheet(None if method == "dot" else method, positions)
        return ExerciseSet(
            sheets=tuple(selfattn_exercise(s, size, dim) for s in seeds), key_only=key_only
        )
    return ExerciseSet(
        sheets=tuple(exercise(s, size, dim, method, positions) for s in seeds), key_only=key_only
    )


# A lesson's own problem, read from a file (attn exercise -i, attn check -i): the fields of
# the score chain (samples/tren.json) or of the self-attention layer (samples/llaves.json).
CHAIN_FIELDS = ("tokens", "query", "queries", "keys", "values")
LAYER_FIELDS = ("tokens", "x", "w_q", "w_k", "w_v")


def lesson_sheet(
    document: Mapping[str, Any], row: int | None = None, token: str | None = None
) -> Sheet:
    """The sheet of a lesson's own problem: a query (or a grid of queries, and the row of
    `token` or `row`, 1-based) against keys and values, scored by the dot product as the
    lesson works «el tren va lleno»; or x and W^Q, W^K, W^V, the self-attention sheet of one
    row of the grid (the last unless `token` or `row` names another), as the lesson's
    «llaves». Its numbers are checked as attn score and attn selfattn check them; a field of
    neither kind is refused.

    >>> tren = lesson_sheet({"tokens": ["tren", "va", "lleno"], "query": [1, 0],
    ...                      "keys": [[2, 1], [0, 2], [1, 1]],
    ...                      "values": [[10, 0], [0, 10], [5, 5]]})
    >>> tren.tokens, tren.weights.round(3).tolist()
    (('tren', 'va', 'lleno'), [0.665, 0.09, 0.245])
    """
    from attncli.errors import InputError

    names = set(document)
    layer = names - set(LAYER_FIELDS)
    if {"x", "w_q", "w_k", "w_v"} <= names and not layer:
        return _layer_sheet(document, row, token)
    chain = names - set(CHAIN_FIELDS)
    if {"keys", "values"} <= names and names & {"query", "queries"} and not chain:
        return _chain_sheet(document, row, token)
    other = sorted(chain if names & {"query", "queries", "keys"} else layer)
    raise InputError(
        _(
            "a lesson's sheet is a query (or queries), keys and values, as samples/tren.json "
            "holds them, or x, w_q, w_k and w_v, as samples/llaves.json; {fields}"
        ),
        fields=Message(_("this one holds {names}"), names=", ".join(other or sorted(names))),
    )


def _chain_sheet(document: Mapping[str, Any], row: int | None, token: str | None) -> Sheet:
    """One query's row of a problem as attn score reads it, worked as the lesson's tables."""
    from attncli.api.calculator import mix, score_document, softmax
    from attncli.results.exercise import ExerciseResult
    from attncli.results.rows import pick_row

    scored = score_document(dict(document), "dot")
    if scored.single and (row is not None or token is not None):
        raise OptionError(
            _("{option}: the problem has one query; leave it out"),
            option=Setting("row") if row is not None else Setting("token", token),
        )
    index = pick_row(scored.row_labels, row, token)
    weighed = softmax(scored.grid[index], tokens=list(scored.column_labels))
    mixed = mix(weighed, values=document["values"])
    return ExerciseResult(
        seed=None,
        tokens=tuple(scored.column_labels),
        method="dot",
        query=scored.queries[index],
        keys=scored.keys,
        values=np.asarray(mixed.values, dtype=np.float64),
        scores=scored.grid[index],
        weights=weighed.weights,
        output=mixed.output,
    )


def _layer_sheet(document: Mapping[str, Any], row: int | None, token: str | None) -> Sheet:
    """One row of a self-attention layer given whole (x and its three W)."""
    from attncli.api.selfattn import selfattn
    from attncli.results.exercise import SelfAttnExercise
    from attncli.results.rows import pick_row

    layer = selfattn(**{name: document[name] for name in LAYER_FIELDS if name in document})
    return SelfAttnExercise(seed=None, layer=layer, row=pick_row(layer.query_labels, row, token))
