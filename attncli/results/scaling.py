"""What the √d_k experiment found: per d_k, the spread of the raw scores against √d_k, a
row's largest weight and the gradient through it, unscaled and ÷√d_k, as the mean over many
seeded rows and as one seeded row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.core.saturation import SATURATED
from attncli.results.base import Result


@dataclass(frozen=True)
class ScalingLine:
    """One d_k of the experiment (each pair: the raw scores, the scores ÷ √d_k)."""

    d_k: int
    spread: float  # the standard deviation of the raw scores q · k over every row and key
    largest: tuple[float, float]  # a row's largest weight, the mean over the rows
    largest_one: tuple[float, float]  # the same in one seeded row
    gradient: tuple[float, float]  # max α(1 − α) of a row, the mean over the rows
    gradient_one: tuple[float, float]  # the same in one seeded row
    saturated: tuple[float, float]  # the share of rows whose largest weight is ≥ SATURATED

    @property
    def root(self) -> float:
        return float(self.d_k) ** 0.5


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ScalingResult(Result):
    """The experiment at every d_k asked for."""

    keys: int  # keys in each row
    rows: int  # seeded rows averaged per d_k
    seed: int
    lines: tuple[ScalingLine, ...]

    def to_document(self) -> dict[str, Any]:
        def pair(values: tuple[float, float]) -> dict[str, float]:
            return {"unscaled": values[0], "scaled": values[1]}

        return {
            "keys": self.keys,
            "rows": self.rows,
            "seed": self.seed,
            "saturated_at": SATURATED,
            "d_k": [
                {
                    "d_k": line.d_k,
                    "sqrt_d_k": line.root,
                    "score_spread": line.spread,
                    "largest_weight": pair(line.largest),
                    "largest_weight_one_row": pair(line.largest_one),
                    "gradient": pair(line.gradient),
                    "gradient_one_row": pair(line.gradient_one),
                    "saturated_share": pair(line.saturated),
                }
                for line in self.lines
            ],
        }

    def __repr__(self) -> str:
        return f"ScalingResult(d_k={[line.d_k for line in self.lines]}, rows={self.rows})"
