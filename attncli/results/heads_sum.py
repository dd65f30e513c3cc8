"""Several heads against one, on the same W: each head's products Q_h K_hᵀ, their sum, the
one-head grid Q Kᵀ, and one row's weights both ways. Data only; its looks are
attncli.present.heads_sum_view's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.results.base import Result

__all__ = ["HeadsSum"]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class HeadsSum(Result):
    """h heads and one head of the same W^Q, W^K: the products add up, the softmax does not.

    products [h, T_q, T_k]: each head's Q_h K_hᵀ, before any division; summed [T_q, T_k]
    their sum; one_head [T_q, T_k] the one-head layer's Q Kᵀ (the same W, every column
    in one head); row: the query row whose weights are compared, one_weights [T_k] the
    one head's (softmax of the whole product ÷ one_divisor) and head_weights [h, T_k]
    each head's (softmax of its own part ÷ head_divisor)."""

    tokens: tuple[str, ...]
    query_labels: tuple[str, ...]
    products: np.ndarray
    summed: np.ndarray
    one_head: np.ndarray
    row: int
    one_weights: np.ndarray
    head_weights: np.ndarray
    one_divisor: float
    head_divisor: float
    d_k: int  # columns per head
    seed: int | None

    @property
    def heads(self) -> int:
        return len(self.products)

    @property
    def difference(self) -> float:
        """The largest |Σ_h Q_h K_hᵀ − Q Kᵀ| over the grid: float64's rounding alone."""
        return float(np.abs(self.summed - self.one_head).max())

    def __repr__(self) -> str:
        return (
            f"HeadsSum(heads={self.heads}, tokens={list(self.tokens)}, "
            f"largest_difference={self.difference:.1e})"
        )

    def to_document(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens),
            "heads": self.heads,
            "d_k": self.d_k,
            "head_products": self.products,
            "summed": self.summed,
            "one_head": self.one_head,
            "largest_difference": self.difference,
            "row": self.row + 1,
            "one_head_divisor": self.one_divisor,
            "head_divisor": self.head_divisor,
            "one_head_weights": self.one_weights,
            "head_weights": self.head_weights,
        }
