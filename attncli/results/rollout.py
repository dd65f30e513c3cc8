"""Attention rollout's result: the layers' mixed weights, their products layer by layer, and
one cell of a two-layer product written out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from attncli.messages import Message, OnSurface, _
from attncli.results.base import Result

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class RolloutCell:
    """R_l[i, j] = Σ_k M_l[i, k] · R_(l−1)[k, j], every term (0-based positions)."""

    layer: int  # l, 1-based, at least 2
    row: int  # i
    column: int  # j
    upper: tuple[float, ...]  # M_l[i, k] for each k
    lower: tuple[float, ...]  # R_(l−1)[k, j] for each k
    value: float  # their sum of products, R_l[i, j]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class RolloutResult(Result):
    """A model's attention rolled out over its layers: `mixed` [L, T, T] holds each layer's
    0.5 A + 0.5 I (heads averaged, rows renormalised), `products` [L, T, T] the rollout up
    to each layer; `layer` (1-based) is the one shown."""

    no_steps: ClassVar[Message | None] = Message(
        _("{rollout} writes its one cell out with {cell}"),
        rollout=OnSurface("attn rollout", "attncli.rollout()"),
        cell=OnSurface("--steps --token T --to T", "cell=True, token=T, to=T (result.cell)"),
    )

    model: str
    model_type: str
    sentence: str
    tokens: tuple[str, ...]
    mixed: np.ndarray
    products: np.ndarray
    layer: int
    cell: RolloutCell | None = None

    def __repr__(self) -> str:
        return (
            f"RolloutResult(model={self.model!r}, layer={self.layer} of "
            f"{len(self.products)}, tokens={list(self.tokens)})"
        )

    @property
    def source_name(self) -> str:
        return self.model

    @property
    def rollout(self) -> np.ndarray:
        """The rollout up to the layer shown. [T, T]"""
        return self.products[self.layer - 1]

    def to_document(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "model": self.model,
            "model_type": self.model_type,
            "tokens": list(self.tokens),
            "layer": self.layer,
            "layers": len(self.products),
            "rollout": self.rollout,
            "mixed": self.mixed,
            "products": self.products,
        }
        if self.cell is not None:
            c = self.cell
            document["cell"] = {
                "layer": c.layer,
                "from": self.tokens[c.row],
                "row": c.row + 1,
                "to": self.tokens[c.column],
                "column": c.column + 1,
                "upper": list(c.upper),
                "lower": list(c.lower),
                "products": [a * b for a, b in zip(c.upper, c.lower, strict=True)],
                "value": c.value,
            }
        return document
