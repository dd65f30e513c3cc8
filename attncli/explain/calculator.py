"""Computations laid out as steps, as plain data.

Each function takes arrays that the core already computed (or computes the few
intermediates a hand-worked table shows) and returns dataclasses: a row per token
with the numbers a student writes down. Nothing here knows about colours, tables
or languages, so the same steps become a terminal table, JSON or a worksheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attncli.core.methods import method as score_method

# Powers e^s stay readable up to about e^20; beyond that the table shows e^(s - max).
_LARGEST_PLAIN_EXPONENT = 20.0


@dataclass
class ScoreRow:
    """One key's score: the products that are summed, the sum, and the score after any scaling."""

    token: str
    key: list[float]
    # The vector the query is dotted with: W_a·key (general), tanh(W_1 s + W_2 h) (additive).
    transformed: list[float] | None
    terms: list[tuple[float, float]]  # pairs whose products are summed
    total: float
    score: float
    bias: float | None = None  # a float attn_mask's number, added after any scaling
    # ‖q‖ and ‖k‖, whose product divides the sum (a score of directions); None: not divided
    lengths: list[float] | None = None


@dataclass
class ScoreSteps:
    """How one query was scored against every key."""

    method: str
    query_label: str | None  # None for the one query of a single row
    query: list[float]
    divisor: float | None  # sqrt(d_k) for scaled scores
    rows: list[ScoreRow]
    biased: bool = False  # the additive score's b_1, b_2 are in the tanh
    bias_name: str = "attn_mask"  # what the bias column adds: attn_mask, ALiBi, or both
    # The query and keys are results of a step before in this explanation (the projections
    # of a self-attention worksheet): on a worksheet, the student's own, so empty too.
    carried_inputs: bool = False
    # A divisor that is the root of another number than d_k, and that number's name: Gemma's
    # √query_pre_attn_scalar (24, "query_pre_attn_scalar"); None: √d_k, or a plain number
    root_of: float | None = None
    root_name: str | None = None


@dataclass
class SoftmaxRow:
    """One score turned into a weight: e^(score/T - shift) / total."""

    token: str
    score: float  # -inf for a masked cell
    scaled: float  # score / T
    power: float
    weight: float

    @property
    def masked(self) -> bool:
        return bool(np.isneginf(self.score))


@dataclass
class SoftmaxSteps:
    """How a row of scores became weights."""

    row_label: str | None  # None for a single row of scores
    temperature: float
    shift: float  # subtracted from every score/T before e^; 0 when the plain powers are readable
    rows: list[SoftmaxRow]
    total: float
    weight_total: float
    # the last row is a sink's column (gpt-oss), dropped after the softmax: its name
    sink: str | None = None

    @property
    def kept(self) -> float:
        """What the rows left after a sink's is dropped sum to: 1 − the sink's weight."""
        return 1.0 - self.rows[-1].weight if self.sink is not None else self.weight_total


@dataclass
class MixRow:
    """One value row scaled by its weight."""

    token: str
    weight: float
    value: list[float]
    product: list[float]


@dataclass
class MixSteps:
    """How the weighted value rows add up to the output."""

    row_label: str | None  # None for a single row of weights
    rows: list[MixRow]
    output: list[float]
    carried_inputs: bool = False  # the values are results of a step before


@dataclass
class ProjectionRow:
    """One token's embedding and what W^Q, W^K and W^V make of it."""

    token: str
    x: list[float]
    query: list[float]  # x W^Q
    key: list[float]  # x W^K
    value: list[float]  # x W^V


@dataclass
class ProjectionSteps:
    """Each token's query, key and value: its row of X times W^Q, W^K and W^V."""

    rows: list[ProjectionRow]


CalculatorStep = ScoreSteps | SoftmaxSteps | MixSteps | ProjectionSteps


def explain_scores(
    method: str,
    query_label: str | None,
    query: np.ndarray,
    keys: np.ndarray,
    key_labels: list[str],
    parameters: dict[str, np.ndarray],
    masked: Sequence[bool] | None = None,
    divisor: float | None = None,
    bias: Sequence[float] | np.ndarray | None = None,
) -> ScoreSteps:
    """The products and sums behind one query's scores; a masked key's score is -inf.
    Scaled scores are divided by √d_k, or by `divisor` when given; then `bias` (a float
    attn_mask's row) is added."""
    # [d_q], [T_k, d_k] -> a row per key
    masked = masked if masked is not None else [False] * len(keys)
    scoring = score_method(method)
    if divisor is None:
        divisor = scoring.divisor(keys)
    # What the sum of products pairs up, per key: (left vector, right vector, shown transform).
    worked = scoring.worked(query, keys, parameters)
    lefts, rights, transformed = worked.lefts, worked.rights, worked.transformed
    rows = []
    for index, (label, hidden) in enumerate(zip(key_labels, masked, strict=True)):
        left, right = lefts[index], rights[index]
        total = float(left @ right)
        score = total / divisor if divisor else total
        lengths = None if worked.lengths is None else worked.lengths[index].tolist()
        if lengths is not None:
            score /= lengths[0] * lengths[1]
        added = None if bias is None else float(bias[index])
        score = score if added is None else score + added
        rows.append(
            ScoreRow(
                token=label,
                key=keys[index].tolist(),
                transformed=None if transformed is None else transformed[index].tolist(),
                terms=[(float(a), float(b)) for a, b in zip(left, right, strict=True)],
                total=total,
                score=-np.inf if hidden else score,
                bias=added,
                lengths=lengths,
            )
        )
    biased = "b_1" in parameters or "b_2" in parameters
    return ScoreSteps(method, query_label, query.tolist(), divisor, rows, biased)


def explain_softmax(
    row_label: str | None,
    scores: np.ndarray,
    weights: np.ndarray,
    labels: list[str],
    temperature: float,
) -> SoftmaxSteps:
    """The powers, their total and the division behind one row of weights."""
    # [T_k], [T_k] -> a row per key
    with np.errstate(over="ignore"):  # a tiny temperature sends scores to ±inf, as it should
        scaled = scores / temperature
    finite = scaled[np.isfinite(scaled)]
    largest = float(finite.max()) if finite.size else 0.0
    shift = largest if abs(largest) > _LARGEST_PLAIN_EXPONENT else 0.0
    with np.errstate(over="ignore"):
        powers = np.exp(scaled - shift)
    rows = [
        SoftmaxRow(label, float(score), float(over_t), float(power), float(weight))
        for label, score, over_t, power, weight in zip(
            labels, scores, scaled, powers, weights, strict=True
        )
    ]
    return SoftmaxSteps(
        row_label, temperature, shift, rows, float(powers.sum()), float(weights.sum())
    )


def explain_mix(
    row_label: str | None, weights: np.ndarray, values: np.ndarray, labels: list[str]
) -> MixSteps:
    """Each value row times its weight, and their sum."""
    # [T_k], [T_k, d_v] -> a row per key
    products = weights[:, None] * values
    rows = [
        MixRow(label, float(weight), value.tolist(), product.tolist())
        for label, weight, value, product in zip(labels, weights, values, products, strict=True)
    ]
    return MixSteps(row_label, rows, products.sum(axis=0).tolist())


def explain_chain(
    method: str,
    row_label: str | None,
    query: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
    labels: list[str],
    divisor: float | None = None,
    bias: np.ndarray | None = None,
    parameters: dict[str, np.ndarray] | None = None,
    carried_inputs: bool = False,
) -> list[CalculatorStep]:
    """One query through score, softmax and mix: the three tables of a worked example.

    A score of -inf is a masked key: it is shown as masked in the score table too.
    `parameters` are the learned score's (W_a; W_1, W_2, v_a); `carried_inputs` says the
    query, keys and values were worked out in a step before (the projections).
    """
    # [d_k], [T_k, d_k], [T_k, d_v], [T_k], [T_k] -> three steps
    masked = np.isneginf(scores).tolist()
    scored = explain_scores(
        method, row_label, query, keys, labels, parameters or {}, masked, divisor, bias
    )
    mixed = explain_mix(row_label, weights, values, labels)
    scored.carried_inputs = mixed.carried_inputs = carried_inputs
    return [scored, explain_softmax(row_label, scores, weights, labels, 1.0), mixed]


def explain_projections(
    labels: Sequence[str],
    x: np.ndarray,
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
) -> ProjectionSteps:
    """A row per token: its embedding and its query, key and value (already computed)."""
    # [T, d_model], [T, d_k], [T, d_k], [T, d_v] -> a row per token
    return ProjectionSteps(
        [
            ProjectionRow(label, *(array[index].tolist() for array in (x, queries, keys, values)))
            for index, label in enumerate(labels)
        ]
    )
