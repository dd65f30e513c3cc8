"""Problems to work by hand, and their answers: attn exercise's operations.

The answers are computed by the same operations a student checks them with (the core's
score, softmax and mix; the self-attention layer), so a worksheet's key and
`attn exercise --json | attn score | attn softmax | attn mix` can never disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from attncli.api.calculator import check_method
from attncli.core import attention, methods
from attncli.errors import OptionError
from attncli.messages import Setting, _

if TYPE_CHECKING:
    from attncli.results.exercise import ExerciseResult, ExerciseSet, SelfAttnExercise

MAX_SHEETS = 100
LARGEST_SEED = 2**64 - 1  # --seed's range, as every seeded command takes it


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

    check_method(method)
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
    """A rotary worksheet turns one pair by quarter turns and scores it by the dot product:
    any other positions, score or size is refused in one line."""
    if positions is None:
        return
    if positions != "rope":
        raise OptionError(
            _("{positions}: a worksheet's positions are rope (rotary) only"),
            positions=Setting("positions", positions),
        )
    if method != "dot" or dim not in (None, 2):
        raise OptionError(
            _(
                "{rope}: the worksheet turns one pair ({pair}) by quarter turns and scores it by "
                "the dot product; leave out {method} and {dim}"
            ),
            rope=Setting("positions", "rope"),
            pair=Setting("dim", 2),
            method=Setting("method"),
            dim=Setting("dim"),
        )


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

    if not 1 <= count <= MAX_SHEETS:
        raise OptionError(
            _("--count {count}: give 1 to {most} sheets"), count=count, most=MAX_SHEETS
        )
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
        return ExerciseSet(
            sheets=tuple(selfattn_exercise(s, size, dim) for s in seeds), key_only=key_only
        )
    return ExerciseSet(
        sheets=tuple(exercise(s, size, dim, method, positions) for s in seeds), key_only=key_only
    )
