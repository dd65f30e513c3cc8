"""Rotary positions (RoPE): the order of the tokens inside the score, not added to X.

Su et al. (2021), "RoFormer: Enhanced Transformer with Rotary Position Embedding": the
query and the key of the token at position p are rotated, pair of coordinates by pair, by
the angle p·θ_i, with θ_i = base^(−2i/d) for pair i (of d/2; base 10,000). A rotation
keeps lengths and q·k of two rotated vectors depends only on the difference of their
angles, so the score of a query at i and a key at j depends on i − j alone:
(R_i q)·(R_j k) = q·(R_(j−i) k).

The pairs are as transformers' Llama (and GPT-NeoX, Mistral, Qwen2) pair them: coordinate
i with coordinate i + d/2, the two halves of the vector (rotate_half: (x₁, x₂) → (−x₂, x₁);
q·cos + rotate_half(q)·sin). The original paper pairs adjacent coordinates (2i, 2i + 1);
a checkpoint trained one way gives other numbers the other way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BASE = 10000.0  # the paper's and transformers' default rope_theta
SCALINGS = ("default", "linear", "llama3")  # the rope_type values model_frequencies computes


@dataclass(frozen=True)
class Scaling:
    """A checkpoint's rope scaling (config.json's rope_parameters or rope_scaling), as
    transformers' modeling_rope_utils computes it: "linear" divides every frequency by
    `factor` (positions stretched, Chen et al., 2023); "llama3" (Llama 3.1) leaves the
    pairs whose wavelength 2π/θ is under original/high_freq_factor, divides by `factor`
    those over original/low_freq_factor, and blends the ones between."""

    kind: str  # one of SCALINGS
    factor: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    original_positions: int = 8192  # original_max_position_embeddings


def model_frequencies(d: int, base: float = BASE, scaling: Scaling | None = None) -> np.ndarray:
    """θ_i of a model's rotary positions: base^(−2i/d), scaled as `scaling` says.

    >>> model_frequencies(4, scaling=Scaling("linear", factor=2.0)).tolist()
    [0.5, 0.005]
    """
    # -> [d/2]
    theta = frequencies(d, base)
    if scaling is None or scaling.kind == "default":
        return theta
    if scaling.kind == "linear":
        return theta / scaling.factor
    if scaling.kind == "llama3":
        s = scaling
        wavelength = 2 * math.pi / theta
        low_wavelength = s.original_positions / s.low_freq_factor  # longer: divided
        high_wavelength = s.original_positions / s.high_freq_factor  # shorter: kept
        divided = np.where(wavelength > low_wavelength, theta / s.factor, theta)
        smooth = (s.original_positions / wavelength - s.low_freq_factor) / (
            s.high_freq_factor - s.low_freq_factor
        )
        blended = (1 - smooth) * divided / s.factor + smooth * divided
        between = ~(wavelength < high_wavelength) & ~(wavelength > low_wavelength)
        return np.where(between, blended, divided)
    raise ValueError(f"unknown rope scaling {scaling.kind!r}; one of {', '.join(SCALINGS)}")


def frequencies(d: int, base: float = BASE) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 pairs, in radians per position.

    >>> frequencies(4).tolist()
    [1.0, 0.01]
    """
    # -> [d/2]
    return 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)


def angles(positions: np.ndarray, d: int, base: float = BASE) -> np.ndarray:
    """p·θ_i for every position and pair: [T, d/2]."""
    # [T], d -> [T, d/2]
    return np.asarray(positions, dtype=np.float64)[:, None] * frequencies(d, base)[None, :]


def rotate_half(x: np.ndarray) -> np.ndarray:
    """The vector's halves (x₁, x₂) as (−x₂, x₁): each pair turned by 90°."""
    # [..., d] -> [..., d]
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rotate_by(x: np.ndarray, turned: np.ndarray) -> np.ndarray:
    """x with pair i of row t turned by the angle turned[t, i] (radians): coordinate i
    becomes x_i·cos − x_(i+d/2)·sin and coordinate i + d/2 becomes x_i·sin + x_(i+d/2)·cos."""
    # [..., T, d], [T, d/2] -> [..., T, d]
    doubled = np.concatenate([turned, turned], axis=-1)  # each angle on both of its pair
    cos, sin = np.cos(doubled).astype(x.dtype), np.sin(doubled).astype(x.dtype)
    return x * cos + rotate_half(x) * sin


def rotate(
    x: np.ndarray, base: float = BASE, start: int = 0, theta: np.ndarray | None = None
) -> np.ndarray:
    """Rows of x at positions start, start + 1, … rotated as RoPE rotates them (by the
    frequencies `theta` when given, a model's scaled ones: model_frequencies)."""
    # [..., T, d], theta [d/2] -> [..., T, d]
    positions = np.arange(start, start + x.shape[-2])
    if theta is None:
        return rotate_by(x, angles(positions, x.shape[-1], base))
    return rotate_by(x, positions.astype(np.float64)[:, None] * theta[None, :])


# cos and sin of 0°, 90°, 180° and 270°, exactly (np.cos(π/2) is 6e-17, not 0)
QUARTER_COS = (1, 0, -1, 0)
QUARTER_SIN = (0, 1, 0, -1)


def quarter_turned(x: np.ndarray, turns: int) -> np.ndarray:
    """A vector's pairs (i, i + d/2) each turned by turns · 90°, exactly: the angles of a
    worksheet, whose cos and sin are 0 and ±1.

    >>> quarter_turned(np.array([3.0, 1.0]), 1).tolist()
    [-1.0, 3.0]
    """
    # [d] -> [d]
    cos, sin = QUARTER_COS[turns % 4], QUARTER_SIN[turns % 4]
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)
