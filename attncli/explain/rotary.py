"""Rotary positions laid out as steps: each coordinate pair of a query or key turned by
its angle, with the numbers a student writes down, and the property that makes them
rotary: the same q and k moved by n positions give the same score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.rotary import frequencies, rotate_by


@dataclass
class RotaryRow:
    """One pair of coordinates (i, i + d/2, counted from 1) turned by θ = position · θ_i."""

    first: int
    second: int
    frequency: float  # θ_i = base^(−2i/d), radians per position
    angle: float  # position · θ_i, radians
    x: float
    y: float
    cos: float
    sin: float
    turned_x: float  # x cos θ − y sin θ
    turned_y: float  # x sin θ + y cos θ


@dataclass
class RelativeCheck:
    """q at i and k at j scored, and the same q and k at i + n and j + n: equal scores."""

    query_token: str
    key_token: str
    query_position: int
    key_position: int
    shift: int
    score: float
    shifted_score: float
    names: tuple[str, str] = ("q", "k")  # ("q^R", "k^R"): a latent layer's rotary parts
    divisor: float = 1.0  # what both scores were divided by


@dataclass
class RotarySteps:
    """How one vector (a token's query or key) was turned by its position."""

    vector: str  # "q" or "k"
    token: str
    position: int  # counted from 0, as transformers' position_ids
    base: float
    rows: list[RotaryRow]
    relative: RelativeCheck | None = None  # after the query's table
    scaled: bool = False  # turned by a scaling's θ_i (its table above), not base^(−2i/d)
    factor: float = 1.0  # the scaling's attention factor, in cos and sin


def rotary_rows(
    vector: np.ndarray,
    position: int,
    base: float,
    theta: np.ndarray | None = None,
    factor: float = 1.0,
) -> list[RotaryRow]:
    """Each pair of `vector` at `position`, before and after its turn; by the frequencies
    `theta` when given (a scaling's), with cos and sin multiplied by its attention `factor`
    as transformers multiplies them."""
    # [d] -> a row per pair
    half = vector.shape[-1] // 2
    theta = frequencies(vector.shape[-1], base) if theta is None else theta
    turned = rotate_by(vector[None, :], position * theta[None, :])[0] * factor
    rows = []
    for i in range(half):
        angle = float(position * theta[i])
        rows.append(
            RotaryRow(
                first=i + 1,
                second=i + half + 1,
                frequency=float(theta[i]),
                angle=angle,
                x=float(vector[i]),
                y=float(vector[i + half]),
                cos=float(np.cos(angle)) * factor,
                sin=float(np.sin(angle)) * factor,
                turned_x=float(turned[i]),
                turned_y=float(turned[i + half]),
            )
        )
    return rows


def relative_check(
    query: np.ndarray,
    key: np.ndarray,
    positions: tuple[int, int],
    shift: int,
    base: float,
    divisor: float,
    labels: tuple[str, str],
    theta: np.ndarray | None = None,
    factor: float = 1.0,
    names: tuple[str, str] = ("q", "k"),
) -> RelativeCheck:
    """The score of unturned `query` at positions[0] against unturned `key` at positions[1],
    and again with both moved by `shift`: (R_i q)·(R_j k) depends on i − j alone (turned
    by `theta` and multiplied by `factor` when a scaling gives them; `names` what the two
    are called, a latent layer's q^R and k^R)."""
    # [d], [d] -> RelativeCheck
    d = query.shape[-1]
    theta = frequencies(d, base) if theta is None else theta

    def score(i: int, j: int) -> float:
        q = rotate_by(query[None, :], i * theta[None, :])[0] * factor
        k = rotate_by(key[None, :], j * theta[None, :])[0] * factor
        return float(q @ k) / divisor

    i, j = positions
    return RelativeCheck(
        labels[0], labels[1], i, j, shift, score(i, j), score(i + shift, j + shift), names,
        divisor,
    )  # fmt: skip


def explain_rotary(
    queries: np.ndarray,
    keys: np.ndarray,
    row: int,
    base: float,
    divisor: float,
    query_labels: list[str],
    key_labels: list[str],
    weights: np.ndarray,
    theta: np.ndarray | None = None,
    factor: float = 1.0,
    names: tuple[str, str] = ("q", "k"),
) -> list[RotarySteps]:
    """The asked query's turn and its own key's (same token, same position), with the
    relative check against the key it weighs most; by a scaling's `theta` and `factor`
    when given; `names` what the vectors are called (a latent layer's q^R and k^R, whose
    turned product is one part of the score)."""
    # [T_q, d], [T_k, d] (unturned), row, weights [T_k] -> the two tables
    scaled = theta is not None
    q, k = names
    turned = rotary_rows(queries[row], row, base, theta, factor)
    steps = [RotarySteps(q, query_labels[row], row, base, turned, None, scaled, factor)]
    if row < keys.shape[0]:
        turned = rotary_rows(keys[row], row, base, theta, factor)
        steps.append(RotarySteps(k, key_labels[row], row, base, turned, None, scaled, factor))
    strongest = int(np.argmax(weights)) if weights.size else 0
    steps[0].relative = relative_check(
        queries[row],
        keys[strongest],
        (row, strongest),
        max(len(key_labels), 1),
        base,
        divisor,
        (query_labels[row], key_labels[strongest]),
        theta,
        factor,
        names,
    )
    return steps


@dataclass
class TurnRow:
    """One vector of a worksheet (d = 2: one pair) turned by its position · 90°."""

    vector: str  # "q" or "k"
    token: str
    position: int
    degrees: int
    x: float
    y: float
    cos: float
    sin: float
    turned_x: float
    turned_y: float


@dataclass
class QuarterTurnSteps:
    """A worksheet's rotary step: the query and every key turned by a quarter turn per
    position, before they are scored."""

    rows: list[TurnRow]


def explain_quarter_turns(
    query: np.ndarray, keys: np.ndarray, position: int, labels: list[str]
) -> QuarterTurnSteps:
    """The query at `position` and key j at j, each turned by its position · 90°."""
    # [2], [T, 2] -> a row per vector
    from attncli.core.rotary import QUARTER_COS, QUARTER_SIN, quarter_turned

    def row(vector: str, token: str, at: int, given: np.ndarray) -> TurnRow:
        turned = quarter_turned(given, at)
        return TurnRow(
            vector, token, at, 90 * at, float(given[0]), float(given[1]),
            float(QUARTER_COS[at % 4]), float(QUARTER_SIN[at % 4]),
            float(turned[0]), float(turned[1]),
        )  # fmt: skip

    rows = [row("q", labels[position], position, query)]
    rows += [row("k", labels[j], j, key) for j, key in enumerate(keys)]
    return QuarterTurnSteps(rows)
