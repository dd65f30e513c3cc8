"""The backward pass of one query row, laid out as the course's hand-worked tables, as data.

Three stages, each a row per key: the gradient arriving at the output; through the mix
and the softmax (g · v_j, their α-weighted mean, ∂ℓ/∂e_j, and the lesson's own form
α_j gᵀ(v_j − c)); and through the score, by method. Numbers only: rendering is elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.gradients import score_backward
from attncli.core.methods import method as score_method


@dataclass
class GradMixRow:
    """One key's way back through the mix and the softmax."""

    token: str
    weight: float  # α_j
    value: list[float]  # v_j
    terms: list[tuple[float, float]]  # g and v_j, paired for g · v_j
    grad_weight: float  # ∂ℓ/∂α_j = g · v_j
    centered: float  # g · v_j − Σ_k α_k g · v_k
    grad_score: float  # ∂ℓ/∂e_j = α_j × centered ÷ T
    value_minus_output: list[float]  # v_j − c
    lesson_form: float  # α_j gᵀ(v_j − c) ÷ T, the same number


@dataclass
class GradScoreRow:
    """One key's way back through the score."""

    token: str
    grad_score: float  # ∂ℓ/∂e_j
    key: list[float]  # h_j
    # What ∂ℓ/∂e_j multiplies for ∂ℓ/∂q: k_j (dot, scaled), W_a h_j (general), δ_j (additive)
    transformed: list[float] | None  # W_a h_j (general); tanh(W_1 q + W_2 h_j) (additive)
    slope: list[float] | None  # 1 − tanh² (additive)
    to_query: list[float]  # this key's part of ∂ℓ/∂q (additive: δ_j, before W_1ᵀ)
    grad_key: list[float]  # ∂ℓ/∂h_j from this row


@dataclass
class GradSteps:
    """One query row worked backward."""

    row_label: str | None  # None for the one query of a single row
    method: str
    temperature: float
    output: list[float]  # c
    target: list[float] | None
    grad_output: list[float]  # g = ∇_c ℓ
    loss: float | None
    mix_rows: list[GradMixRow]
    mean: float  # Σ_j α_j g · v_j = g · c
    score_rows: list[GradScoreRow]
    divisor: float | None  # √d_k for scaled scores
    grad_query: list[float]  # ∂ℓ/∂q of this row
    # general: W_aᵀ q, which every ∂ℓ/∂h_j uses; additive: v_a, which every δ_j uses
    shared: list[float] | None
    grad_parameters: dict[str, list[list[float]] | list[float]]  # this row's part


def explain_grad(
    *,
    method: str,
    label: str | None,
    labels: list[str],
    query: np.ndarray,  # [d_q]
    keys: np.ndarray,  # [T_k, d_k]
    values: np.ndarray,  # [T_k, d_v]
    parameters: dict[str, np.ndarray],
    weights: np.ndarray,  # α of this row: [T_k]
    output: np.ndarray,  # c of this row: [d_v]
    grad_output: np.ndarray,  # g = ∇_c ℓ of this row: [d_v]
    grad_weights: np.ndarray,  # ∂ℓ/∂α of this row: [T_k]
    grad_scores: np.ndarray,  # ∂ℓ/∂e of this row: [T_k]
    temperature: float,
    target: np.ndarray | None,  # this row's target: [d_v]
    loss: float | None,
) -> GradSteps:
    """The tables of one query row worked backward, from that row's forward and backward
    numbers."""
    alpha, g, c, t = weights, grad_output, output, temperature
    mean = float(alpha @ grad_weights)
    mix_rows = [
        GradMixRow(
            token=labels[j],
            weight=float(alpha[j]),
            value=values[j].tolist(),
            terms=[(float(a), float(b)) for a, b in zip(g, values[j], strict=True)],
            grad_weight=float(grad_weights[j]),
            centered=float(grad_weights[j] - mean),
            grad_score=float(grad_scores[j]),
            value_minus_output=(values[j] - c).tolist(),
            lesson_form=float(alpha[j] * g @ (values[j] - c) / t),
        )
        for j in range(len(labels))
    ]
    score_rows, grad_query, shared, grad_parameters, divisor = _through_score(
        method, parameters, query, keys, grad_scores, labels
    )
    return GradSteps(
        row_label=label,
        method=method,
        temperature=t,
        output=c.tolist(),
        target=None if target is None else target.tolist(),
        grad_output=g.tolist(),
        loss=loss,
        mix_rows=mix_rows,
        mean=mean,
        score_rows=score_rows,
        divisor=divisor,
        grad_query=grad_query.tolist(),
        shared=None if shared is None else shared.tolist(),
        grad_parameters=grad_parameters,
    )


def _through_score(
    method: str,
    p: dict[str, np.ndarray],
    query: np.ndarray,
    keys: np.ndarray,
    grad_scores: np.ndarray,
    labels: list[str],
) -> tuple[list[GradScoreRow], np.ndarray, np.ndarray | None, dict, float | None]:
    """Per key: what ∂ℓ/∂e_j sends to the query, the key and the parameters."""
    # This row's share of every gradient of the score, from the core's backward pass.
    row = score_backward(method, query[None, :], keys, p, grad_scores[None, :])
    # Per key, what ∂ℓ/∂e_j multiplies on its way to the query: the column a student sums.
    back = score_method(method).worked_back(query, keys, p, grad_scores)
    transformed, slope, shared, to_query = back.transformed, back.slope, back.shared, back.to_query
    grad_parameters = {name: value.tolist() for name, value in row.parameters.items()}
    rows = [
        GradScoreRow(
            token=labels[j],
            grad_score=float(grad_scores[j]),
            key=keys[j].tolist(),
            transformed=None if transformed is None else transformed[j].tolist(),
            slope=None if slope is None else slope[j].tolist(),
            to_query=to_query[j].tolist(),
            grad_key=row.keys[j].tolist(),
        )
        for j in range(len(labels))
    ]
    return rows, row.queries[0], shared, grad_parameters, back.divisor
