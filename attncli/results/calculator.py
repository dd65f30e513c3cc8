"""The calculator's results (score, softmax, mix): frozen dataclasses of arrays
and labels.

A result knows its JSON document (`to_document()`, what the CLI writes and the next
command reads) and its hand-worked steps (`steps()`, plain data). How it looks is
attncli.present's business (see results.base).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Rowwise, shaped

if TYPE_CHECKING:
    from attncli.explain.steps import Step

__all__ = ["MixResult", "ScoreResult", "SoftmaxResult"]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ScoreResult(Rowwise):
    """Scores of each query against each key (row = query, column = key)."""

    method: str
    queries: np.ndarray  # [T_q, d_q]
    keys: np.ndarray  # [T_k, d_k]
    grid: np.ndarray  # [T_q, T_k]
    parameters: dict[str, np.ndarray]  # w_a; w_1, w_2, v_a
    drawn: tuple[str, ...]  # the parameters drawn from the seed
    seed: int

    @property
    def scores(self) -> np.ndarray:
        """[T_k] for one query, [T_q, T_k] for several."""
        return shaped(self.grid, self.single)

    def to_document(self) -> dict[str, Any]:
        document = {k: v for k, v in self.carried.items() if k not in ("weights", "output")}
        document.update(method=self.method, **self.parameters, scores=self.scores)
        if self.drawn:
            document["seed"] = self.seed
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        from attncli.explain.calculator import explain_scores

        index, label = self._row(row, token)
        return [
            explain_scores(
                self.method,
                label,
                self.queries[index],
                self.keys,
                list(self.column_labels),
                self.parameters,
            )
        ]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SoftmaxResult(Rowwise):
    """Weights from scores, row by row; a masked score (-inf) has weight 0."""

    score_grid: np.ndarray  # [T_q, T_k]
    weight_grid: np.ndarray  # [T_q, T_k]
    temperature: float

    @property
    def scores(self) -> np.ndarray:
        return shaped(self.score_grid, self.single)

    @property
    def weights(self) -> np.ndarray:
        """[T_k] for one row of scores, [T_q, T_k] for a grid."""
        return shaped(self.weight_grid, self.single)

    @property
    def masked(self) -> np.ndarray:
        """True where a score was masked: [T_q, T_k]."""
        return np.isneginf(self.score_grid)

    def to_document(self) -> dict[str, Any]:
        document = {k: v for k, v in self.carried.items() if k != "output"}
        document.update(scores=self.scores, temperature=self.temperature, weights=self.weights)
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        from attncli.explain.calculator import explain_softmax

        index, label = self._row(row, token)
        return [
            explain_softmax(
                label,
                self.score_grid[index],
                self.weight_grid[index],
                list(self.column_labels),
                self.temperature,
            )
        ]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class MixResult(Rowwise):
    """The weighted sum of the value rows, a row per row of weights."""

    weight_grid: np.ndarray  # [T_q, T_k]
    values: np.ndarray  # [T_k, d_v]
    output_grid: np.ndarray  # [T_q, d_v]

    @property
    def weights(self) -> np.ndarray:
        return shaped(self.weight_grid, self.single)

    @property
    def output(self) -> np.ndarray:
        """[d_v] for one row of weights, [T_q, d_v] for a grid."""
        return shaped(self.output_grid, self.single)

    def to_document(self) -> dict[str, Any]:
        document = dict(self.carried)
        document.update(weights=self.weights, output=self.output)
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        from attncli.explain.calculator import explain_mix

        index, label = self._row(row, token)
        return [explain_mix(label, self.weight_grid[index], self.values, list(self.column_labels))]
