"""One iteration of attn train worked by hand, as data: the loss, ∂ℓ/∂α, through the
softmax to ∂ℓ/∂e, through the score to ∂ℓ/∂Q and ∂ℓ/∂K, into ∂ℓ/∂W^Q and ∂ℓ/∂W^K (shapes,
and one entry of each worked), then the update. Every number comes from the layer's
forward pass and its backward pass (core.gradients); nothing is derived a second time
except the sums a student writes out, which add up to the backward pass's entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.gradients import attention_backward, softmax_backward
from attncli.core.training import Evaluation, loss_grad_weights, wanted_counts


@dataclass
class WantedKeyRow:
    """One key of a query row that wants something."""

    token: str
    weight: float  # α_ij
    wanted: float  # c_ij: 1 for the wanted key, 0 for the others
    grad_weight: float  # ∂ℓ/∂α_ij = −c_ij / α_ij
    grad_score: float  # ∂ℓ/∂e_ij = α_ij Σ_k c_ik − c_ij
    key: float  # k_j in the worked column b: what ∂ℓ/∂e_ij multiplies for ∂ℓ/∂Q_ib


@dataclass
class WantedRow:
    """A query row of the grid that has a wanted key."""

    token: str
    row: int  # 0-based
    loss: float  # −Σ_j c_ij log α_ij
    keys: list[WantedKeyRow]
    grad_query: float  # ∂ℓ/∂Q_ib = Σ_j ∂ℓ/∂e_ij k_jb ÷ divisor, in the worked column


@dataclass
class EntryTerm:
    """One term of a worked entry of ∂ℓ/∂W: x_ia × (∂ℓ/∂Q or ∂ℓ/∂K)_ib."""

    token: str
    x: float
    grad: float
    grad_score: float | None = None  # for ∂ℓ/∂K with one asking row: ∂ℓ/∂e[asker, t]


@dataclass
class WorkedEntry:
    """One entry (a, b) of ∂ℓ/∂W worked as the sum over the tokens, and its update."""

    name: str  # w_q or w_k
    row: int  # a, 0-based: a coordinate of the embedding
    column: int  # b, 0-based: a column of Q or K
    terms: list[EntryTerm]  # the tokens whose ∂ℓ/∂Q_ib (∂ℓ/∂K_ib) is not 0
    gradient: float  # the backward pass's entry: the sum of the terms
    before: float  # W_ab before the update
    step: float  # what the update subtracts: lr × gradient (SGD) or Adam's step
    after: float  # W_ab after the update
    # ∂ℓ/∂K with one asking row i: ∂ℓ/∂K[t, b] = ∂ℓ/∂e[i, t] × Q[i, b] ÷ divisor
    asker: str | None = None
    query: float | None = None  # Q[i, b]


@dataclass
class TrainSteps:
    """Iteration `iteration` of a training run, worked by hand."""

    iteration: int  # 1-based
    optimizer: str
    lr: float
    divisor: float
    loss: float
    loss_after: float
    rows: list[WantedRow]
    sizes: dict[str, int]  # T, d_model, d_k
    entries: list[WorkedEntry]
    wanted_before: list[float]  # every wanted weight before the update
    wanted_after: list[float]  # and after it


def explain_iteration(
    *,
    iteration: int,
    tokens: list[str],
    x: np.ndarray,  # [T, d_model]
    params: dict[str, np.ndarray],  # the parameters before the update
    updated: dict[str, np.ndarray],  # and after it
    wanted: tuple[tuple[int, int], ...],
    evaluation: Evaluation,  # of `params`: its loss, forward pass and gradients
    loss_after: float,
    wanted_after: list[float],
    optimizer: str,
    lr: float,
) -> TrainSteps:
    """The tables of one iteration (one sentence, one head)."""
    run = evaluation.runs[0]
    counts = wanted_counts(len(tokens), wanted)
    grad_weights = loss_grad_weights(run.weights, counts)  # [T, T]
    grad_scores = softmax_backward(run.weights, grad_weights)  # [T, T], before ÷ divisor
    # ∂ℓ/∂Q and ∂ℓ/∂K as the layer's backward pass gives them (the loss reads no output).
    grad_q, grad_k, _ = attention_backward(
        run.queries, run.keys, run.values, run.weights, np.zeros_like(run.output),
        run.divisor, grad_weights,
    )  # fmt: skip
    askers = sorted({row for row, _ in wanted})
    entries = []
    for name, through in (("w_q", grad_q), ("w_k", grad_k)):
        gradient = evaluation.grads[f"grad_{name}"]
        a, b = np.unravel_index(int(np.argmax(np.abs(gradient))), gradient.shape)
        one = name == "w_k" and len(askers) == 1
        terms = [
            EntryTerm(
                tokens[i],
                float(x[i, a]),
                float(through[i, b]),
                float(grad_scores[askers[0], i]) if one else None,
            )  # fmt: skip
            for i in range(len(tokens))
            if through[i, b] != 0.0
        ]
        before, after = float(params[name][a, b]), float(updated[name][a, b])
        entries.append(
            WorkedEntry(
                name,
                int(a),
                int(b),
                terms,
                float(gradient[a, b]),
                before,
                before - after,
                after,
                tokens[askers[0]] if one else None,
                float(run.queries[askers[0], b]) if one else None,
            )  # fmt: skip
        )
    column = entries[0].column  # the column of ∂ℓ/∂Q the W^Q entry needs
    rows = []
    for i in askers:
        with np.errstate(divide="ignore"):
            row_loss = -float(
                np.sum(counts[i][counts[i] > 0] * np.log(run.weights[i][counts[i] > 0]))
            )
        keys = [
            WantedKeyRow(
                tokens[j],
                float(run.weights[i, j]),
                float(counts[i, j]),
                float(grad_weights[i, j]),
                float(grad_scores[i, j]),
                float(run.keys[j, column]),
            )  # fmt: skip
            for j in range(len(tokens))
        ]
        rows.append(WantedRow(tokens[i], i, row_loss, keys, float(grad_q[i, column])))
    return TrainSteps(
        iteration=iteration,
        optimizer=optimizer,
        lr=lr,
        divisor=float(run.divisor),
        loss=evaluation.loss,
        loss_after=loss_after,
        rows=rows,
        sizes={"T": len(tokens), "d_model": int(x.shape[1]), "d_k": int(run.queries.shape[1])},
        entries=entries,
        wanted_before=[float(w) for w in evaluation.wanted[:, 0]],
        wanted_after=wanted_after,
    )
