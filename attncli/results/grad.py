"""The result of the backward pass of score → softmax → mix: the forward run and every
gradient."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Rowwise, shaped

if TYPE_CHECKING:
    from attncli.core.gradients import Forward, Gradients
    from attncli.explain.steps import Step


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
        return shaped(array, self.single)

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
        run, found = self.forward, self.gradients
        return [
            explain_grad(
                method=self.method,
                label=label,
                labels=list(self.column_labels),
                query=self.queries[index],
                keys=self.keys,
                values=self.values,
                parameters=self.parameters,
                weights=run.weights[index],
                output=run.output[index],
                grad_output=found.grad_output[index],
                grad_weights=found.grad_weights[index],
                grad_scores=found.grad_scores[index],
                temperature=self.temperature,
                target=None if self.target is None else self.target[index],
                loss=self.loss,
            )
        ]

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
        masked = np.isneginf(self.forward.scores)
        upstream = self.gradients.grad_output

        def loss() -> float:
            run = g.forward(
                self.method,
                inputs[query_name],
                inputs["grad_keys"],
                inputs["grad_values"],
                {name: inputs[f"grad_{name}"] for name in self.parameters},
                self.temperature,
                ~masked if masked.any() else None,
            )
            if self.target is not None:
                return g.squared_error(run.output, self.target)[0]
            return float(np.sum(upstream * run.output))

        return {
            name: g.relative_difference(analytic, g.central_differences(loss, inputs[name]))
            for name, (_, analytic) in pairs.items()
        }
