"""What each operation returns: frozen dataclasses of arrays and labels.

A result knows its JSON document (`to_document()`, what the CLI writes and the next
command reads), its hand-worked steps (`steps()`, plain data) and how it looks: in rich
(`__rich__`) and in a notebook (`_repr_html_`). The looks are built by attncli.present,
imported only when asked for, so holding a result costs no rich import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.reading.inputs import pick_row
from attncli.results.base import Result

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attncli.core.gradients import Forward, Gradients
    from attncli.explain.calculator import Step
    from attncli.present.format import Format

__all__ = ["ExerciseResult", "GradResult", "MixResult", "Result", "ScoreResult", "SoftmaxResult"]


def _shaped(array: np.ndarray, single: bool) -> np.ndarray:
    """A per-row array back in the input's form: a vector when there was one row."""
    return array[0] if single else array


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class Rowwise(Result):
    """A result with a row per query (one row when the input was a single vector)."""

    single: bool  # the input held one vector, so the result is one vector too
    row_labels: tuple[str, ...]  # a label per query row
    column_labels: tuple[str, ...]  # a label per key
    carried: dict[str, Any] = field(default_factory=dict, compare=False)  # input fields

    def _row(self, row: int | None, token: str | None) -> tuple[int, str | None]:
        """The 0-based row --steps explains and its label (None for a single query)."""
        index = pick_row(self.row_labels, row, token)
        return index, None if self.single else self.row_labels[index]

    def __repr__(self) -> str:
        shapes = ", ".join(
            f"{name}={value.shape}"
            for name, value in vars(self).items()
            if isinstance(value, np.ndarray)
        )
        return f"{type(self).__name__}({shapes}, tokens={list(self.column_labels)})"


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
        return _shaped(self.grid, self.single)

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

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.views import score_view

        return score_view(self, fmt)


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SoftmaxResult(Rowwise):
    """Weights from scores, row by row; a masked score (-inf) has weight 0."""

    score_grid: np.ndarray  # [T_q, T_k]
    weight_grid: np.ndarray  # [T_q, T_k]
    temperature: float

    @property
    def scores(self) -> np.ndarray:
        return _shaped(self.score_grid, self.single)

    @property
    def weights(self) -> np.ndarray:
        """[T_k] for one row of scores, [T_q, T_k] for a grid."""
        return _shaped(self.weight_grid, self.single)

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

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.views import softmax_view

        return softmax_view(self, fmt)


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class MixResult(Rowwise):
    """The weighted sum of the value rows, a row per row of weights."""

    weight_grid: np.ndarray  # [T_q, T_k]
    values: np.ndarray  # [T_k, d_v]
    output_grid: np.ndarray  # [T_q, d_v]

    @property
    def weights(self) -> np.ndarray:
        return _shaped(self.weight_grid, self.single)

    @property
    def output(self) -> np.ndarray:
        """[d_v] for one row of weights, [T_q, d_v] for a grid."""
        return _shaped(self.output_grid, self.single)

    def to_document(self) -> dict[str, Any]:
        document = dict(self.carried)
        document.update(weights=self.weights, output=self.output)
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        from attncli.explain.calculator import explain_mix

        index, label = self._row(row, token)
        return [explain_mix(label, self.weight_grid[index], self.values, list(self.column_labels))]

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.views import mix_view

        return mix_view(self, fmt)


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ExerciseResult(Result):
    """A small problem to work by hand, and its answers."""

    seed: int
    tokens: tuple[str, ...]
    query: np.ndarray  # [d]
    keys: np.ndarray  # [T, d]
    values: np.ndarray  # [T, d]
    scores: np.ndarray  # [T]
    weights: np.ndarray  # [T]
    output: np.ndarray  # [d]

    def __repr__(self) -> str:
        return f"ExerciseResult(seed={self.seed}, tokens={list(self.tokens)})"

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        """The problem as attn score reads it; with `answers`, the results too."""
        document: dict[str, Any] = {
            "tokens": list(self.tokens),
            "query": _whole(self.query),
            "keys": _whole(self.keys),
            "values": _whole(self.values),
        }
        if answers:
            document.update(scores=self.scores, weights=self.weights, output=self.output)
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """The whole chain: score, softmax and mix of the one query."""
        from attncli.explain.calculator import explain_chain

        return explain_chain(
            "dot",
            None,
            self.query,
            self.keys,
            self.values,
            self.scores,
            self.weights,
            list(self.tokens),
        )

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.views import exercise_view

        return exercise_view(self, fmt)


def _whole(array: np.ndarray) -> Any:
    """An exercise's numbers as the whole numbers they are: 1, not 1.0."""
    return array.astype(int).tolist()


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class GradResult(Rowwise):
    """The backward pass of score → softmax → mix: the forward results and every gradient."""

    method: str
    queries: np.ndarray  # [T_q, d_q]
    keys: np.ndarray  # [T_k, d_k]
    values: np.ndarray  # [T_k, d_v]
    parameters: dict[str, np.ndarray]
    drawn: tuple[str, ...]
    seed: int
    temperature: float
    forward: Forward
    target: np.ndarray | None  # [T_q, d_v]
    loss: float | None  # ½‖c − target‖², when a target was given
    gradients: Gradients

    def _shaped(self, array: np.ndarray) -> np.ndarray:
        return _shaped(array, self.single)

    output = property(lambda self: self._shaped(self.forward.output), doc="c")
    weights = property(lambda self: self._shaped(self.forward.weights), doc="α")
    scores = property(lambda self: self._shaped(self.forward.scores), doc="e; -inf masked")
    grad_output = property(lambda self: self._shaped(self.gradients.grad_output), doc="∇_c ℓ")
    grad_weights = property(lambda self: self._shaped(self.gradients.grad_weights), doc="∂ℓ/∂α")
    grad_scores = property(lambda self: self._shaped(self.gradients.grad_scores), doc="∂ℓ/∂e")
    grad_values = property(lambda self: self.gradients.grad_values, doc="∂ℓ/∂V: [T_k, d_v]")
    grad_keys = property(lambda self: self.gradients.score.keys, doc="∂ℓ/∂K: [T_k, d_k]")

    @property
    def grad_queries(self) -> np.ndarray:
        """∂ℓ/∂q: [d_q] for one query, [T_q, d_q] for several."""
        return self._shaped(self.gradients.score.queries)

    @property
    def grad_parameters(self) -> dict[str, np.ndarray]:
        """grad_w_a, or grad_w_1, grad_w_2, grad_v_a."""
        return {f"grad_{name}": value for name, value in self.gradients.score.parameters.items()}

    def to_document(self) -> dict[str, Any]:
        document = dict(self.carried)
        document.update(method=self.method, **self.parameters)
        if self.drawn:
            document["seed"] = self.seed
        document.update(
            scores=self.scores,
            temperature=self.temperature,
            weights=self.weights,
            output=self.output,
        )
        if self.loss is not None:
            document["loss"] = self.loss
        document.update(
            grad_output=self.grad_output,
            grad_weights=self.grad_weights,
            grad_scores=self.grad_scores,
            grad_values=self.grad_values,
            **{"grad_query" if self.single else "grad_queries": self.grad_queries},
            grad_keys=self.grad_keys,
            **self.grad_parameters,
        )
        return document

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """One query row worked backward: upstream gradient, softmax, then the score."""
        from attncli.explain.grad import explain_grad

        index, label = self._row(row, token)
        return [explain_grad(self, index, label)]

    def check(self) -> dict[str, float]:
        """Every gradient against central finite differences: the largest relative
        difference per gradient (a few 1e-9 at most when they agree)."""
        from attncli.core import gradients as g

        score = self.gradients.score
        # gradient name -> (the input it is taken with respect to, the analytic gradient)
        query_name = "grad_query" if self.single else "grad_queries"
        pairs = {
            query_name: (self.queries, score.queries),
            "grad_keys": (self.keys, score.keys),
            "grad_values": (self.values, self.gradients.grad_values),
            **{f"grad_{n}": (v, score.parameters[n]) for n, v in self.parameters.items()},
        }
        inputs = {name: given.copy() for name, (given, _) in pairs.items()}  # nudged in place
        mask = np.isneginf(self.forward.scores)
        upstream = self.gradients.grad_output

        def loss() -> float:
            run = g.forward(
                self.method,
                inputs[query_name],
                inputs["grad_keys"],
                inputs["grad_values"],
                {name: inputs[f"grad_{name}"] for name in self.parameters},
                self.temperature,
                mask if mask.any() else None,
            )
            if self.target is not None:
                return g.squared_error(run.output, self.target)[0]
            return float(np.sum(upstream * run.output))

        return {
            name: g.relative_difference(analytic, g.central_differences(loss, inputs[name]))
            for name, (_, analytic) in pairs.items()
        }

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        from attncli.present.grad_render import gradient_view

        return gradient_view(self, fmt)
