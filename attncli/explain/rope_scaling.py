"""A model's scaled rotary positions laid out pair by pair: each pair's θ_i as the base
gives it, its wavelength in tokens (2π/θ_i: how many positions one full turn takes), the
θ_i the config's scaling turns it by instead, and the attention factor q and k are then
multiplied by. The rows a student compares to see which pairs a scaling stretches."""

from __future__ import annotations

import math
from dataclasses import dataclass

from attncli.core.rotary import Scaling, attention_factor, frequencies, model_frequencies


@dataclass
class RopePair:
    """One pair (i, i + d/2, counted from 1) of every head's q and k."""

    first: int
    second: int
    theta: float  # base^(−2i/d), radians per position
    wavelength: float  # 2π / θ_i, in tokens
    scaled: float  # the θ_i the scaling turns it by
    scaled_wavelength: float  # 2π / scaled θ_i
    divided_by: float  # θ_i ÷ scaled θ_i: 1 where the pair is kept as it was


@dataclass
class RopePairs:
    """The scaling's table: what a config's rope_parameters does to each pair."""

    kind: str  # the rope_type
    base: float
    d: int  # the head's size: d/2 pairs
    tokens: int  # the sentence's length, which dynamic and longrope scale by
    factor: float
    original_positions: int  # the length the model was trained on
    attention_factor: float  # cos and sin × this, so every score × its square
    rows: list[RopePair]


def rope_pairs(
    d: int, base: float, scaling: Scaling, tokens: int, offset: int = 0, interleave: bool = False
) -> RopePairs:
    """Each of a head's d/2 pairs before and after `scaling`, for a sentence of `tokens`;
    the pairs' coordinates counted after `offset` others (DeepSeek's turned part follows
    the unturned one), side by side when `interleave` (DeepSeek's (1, 2), (3, 4), …)."""
    # d, base, scaling -> a row per pair
    theta = frequencies(d, base)
    scaled = model_frequencies(d, base, scaling, tokens)
    half = d // 2
    rows = [
        RopePair(
            first=offset + (2 * i + 1 if interleave else i + 1),
            second=offset + (2 * i + 2 if interleave else i + half + 1),
            theta=float(theta[i]),
            wavelength=2 * math.pi / float(theta[i]),
            scaled=float(scaled[i]),
            scaled_wavelength=2 * math.pi / float(scaled[i]),
            divided_by=float(theta[i] / scaled[i]),
        )
        for i in range(half)
    ]
    return RopePairs(
        scaling.kind, base, d, tokens, scaling.factor, scaling.original_positions,
        attention_factor(scaling), rows,
    )  # fmt: skip
