"""Problems to work by hand: a score chain (attn exercise), a self-attention layer
(attn exercise --selfattn), and a teacher's class set of either, each sheet numbered with
its seed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Result

if TYPE_CHECKING:
    from attncli.explain.steps import Step
    from attncli.results.selfattn import SelfAttnResult


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ExerciseResult(Result):
    """A small problem to work by hand, and its answers: one query scored against every
    key by `method` (with its parameters), then softmax and mix."""

    seed: int | None  # None: a lesson's own problem, read from a file
    tokens: tuple[str, ...]
    method: str = "dot"
    query: np.ndarray  # [d]
    keys: np.ndarray  # [T, d]
    values: np.ndarray  # [T, d]
    # the learned score's: w_a [d, d] (general); w_1, w_2 [d_a, d] and v_a [d_a] (additive)
    parameters: dict[str, np.ndarray] = field(default_factory=dict)
    scores: np.ndarray  # [T]
    weights: np.ndarray  # [T]
    output: np.ndarray  # [d]
    # rotary positions (--positions rope): the query and keys as given, before each was
    # turned by its position · 90° (query and keys are then the turned ones, which are scored)
    given_query: np.ndarray | None = None  # [2], of the last token, at position T − 1
    given_keys: np.ndarray | None = None  # [T, 2], key j at position j

    def __repr__(self) -> str:
        return (
            f"ExerciseResult(seed={self.seed}, method={self.method!r}, tokens={list(self.tokens)})"
        )

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        """The problem as attn score reads it (its method too, unless dot); with `answers`,
        the results too."""
        document: dict[str, Any] = {"tokens": list(self.tokens)}
        if self.method != "dot":
            document["method"] = self.method
        document.update(query=_whole(self.query), keys=_whole(self.keys))
        if self.given_query is not None and self.given_keys is not None:
            # scored as attn score reads them: query and keys turned; the sheet's givens beside
            document.update(
                positions="rope",
                degrees_per_position=90,
                query_position=len(self.tokens) - 1,
                given_query=_whole(self.given_query),
                given_keys=_whole(self.given_keys),
            )
        document.update({name: _whole(value) for name, value in self.parameters.items()})
        document["values"] = _whole(self.values)
        if answers:
            document.update(scores=self.scores, weights=self.weights, output=self.output)
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """The whole chain: score, softmax and mix of the one query (after its rotary turns,
        with --positions rope)."""
        from attncli.explain.calculator import explain_chain

        turns: list[Step] = []
        if self.given_query is not None and self.given_keys is not None:
            from attncli.explain.rotary import explain_quarter_turns

            position = len(self.tokens) - 1
            turns = [
                explain_quarter_turns(self.given_query, self.given_keys, position, [*self.tokens])
            ]
        chain = [
            *explain_chain(
                self.method,
                None,
                self.query,
                self.keys,
                self.values,
                self.scores,
                self.weights,
                list(self.tokens),
                parameters=self.parameters,
            )
        ]
        if turns:
            from attncli.explain.calculator import ScoreSteps

            scored = chain[0]
            assert isinstance(scored, ScoreSteps)
            scored.carried_inputs = True  # the student's own turned q and k; values as given
        return [*turns, *chain]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SelfAttnExercise(Result):
    """A self-attention layer to work by hand: X and W^Q, W^K, W^V given; every token's
    query, key and value, then the scores, weights and output of the last token (the one
    the course works, «lleno»), or of `row` (0-based) for a lesson's own layer. `layer`
    holds the answers, computed by the layer itself."""

    seed: int | None  # None: a lesson's own layer, read from a file
    layer: SelfAttnResult
    row: int | None = None

    @property
    def asking(self) -> int:
        """The row the sheet works: `row`, else the last token's."""
        return len(self.tokens) - 1 if self.row is None else self.row

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.layer.tokens

    def __repr__(self) -> str:
        return f"SelfAttnExercise(seed={self.seed}, tokens={list(self.tokens)})"

    def problem(self) -> dict[str, Any]:
        """What the sheet gives: the tokens, X and the three projections, as whole numbers."""
        assert self.layer.x is not None  # the exercise gives X
        given = {name: self.layer.projections[name] for name in ("w_q", "w_k", "w_v")}
        return {
            "tokens": list(self.tokens),
            "x": _whole(self.layer.x),
            **{name: _whole(value) for name, value in given.items()},
        }

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        """The problem as attn selfattn reads it; with `answers`, the whole layer's result
        (which attn selfattn reads back and computes again)."""
        if not answers:
            return self.problem()
        return {**self.layer.to_document(), **self.problem()}

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """Every token's projections, then the chain of the last token."""
        from attncli.explain.calculator import explain_chain, explain_projections

        layer = self.layer
        assert layer.x is not None
        last = self.asking
        projections = explain_projections(
            self.tokens, layer.x, layer.queries, layer.keys, layer.values
        )
        chain = explain_chain(
            "scaled",
            self.tokens[last],
            layer.queries[last],
            layer.keys,
            layer.values,
            layer.scores[last],
            layer.weights[last],
            list(self.tokens),
            layer.divisor,
            carried_inputs=True,
        )
        return [projections, *chain]


Sheet = ExerciseResult | SelfAttnExercise


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ExerciseSet(Result):
    """Sheets of seeds seed, seed + 1, …; `key_only` when the answer keys alone were asked
    for (printed apart from the sheets, each key numbered as its sheet)."""

    sheets: tuple[Sheet, ...]
    key_only: bool = False

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        """A problem per sheet (with its seed), with its results when `answers` or the keys
        alone were asked for."""
        with_answers = answers or self.key_only
        return {
            "sheets": [
                {"sheet": number, "seed": sheet.seed, **sheet.to_document(answers=with_answers)}
                for number, sheet in enumerate(self.sheets, 1)
            ]
        }

    def __repr__(self) -> str:
        seeds = [sheet.seed for sheet in self.sheets]
        return f"ExerciseSet(sheets={len(seeds)}, seeds={seeds[0]}..{seeds[-1]})"


def _whole(array: np.ndarray) -> Any:
    """An exercise's numbers as the whole numbers they are: 1, not 1.0; a lesson's own
    problem may hold others (1.5), kept as they are."""
    array = np.asarray(array)
    if np.all(array == np.round(array)):
        return array.astype(int).tolist()
    return array.tolist()
