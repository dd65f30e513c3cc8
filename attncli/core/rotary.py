"""Rotary positions (RoPE): the order of the tokens inside the score, not added to X.

Su et al. (2021), "RoFormer: Enhanced Transformer with Rotary Position Embedding": the
query and the key of the token at position p are rotated, pair of coordinates by pair, by
the angle p·θ_i, with θ_i = base^(−2i/d) for pair i (of d/2; base 10,000). A rotation
keeps lengths and q·k of two rotated vectors depends only on the difference of their
angles, so the score of a query at i and a key at j depends on i − j alone:
(R_i q)·(R_j k) = q·(R_(j−i) k).

A model trained on short sequences and run on long ones scales its frequencies (a config's
rope_parameters): ROPE_TYPES holds each rope_type as transformers' modeling_rope_utils
computes it, its θ_i and the attention factor cos and sin are multiplied by; "factors"
is llama.cpp's own: each θ_i divided by a number the model file gives per pair.

The pairs are as transformers' Llama (and GPT-NeoX, Mistral, Qwen2) pair them: coordinate
i with coordinate i + d/2, the two halves of the vector (rotate_half: (x₁, x₂) → (−x₂, x₁);
q·cos + rotate_half(q)·sin). The original paper pairs adjacent coordinates (2i, 2i + 1);
a checkpoint trained one way gives other numbers the other way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

BASE = 10000.0  # the paper's and transformers' default rope_theta


@dataclass(frozen=True)
class Scaling:
    """A checkpoint's rope scaling (config.json's rope_parameters or rope_scaling), as
    transformers' modeling_rope_utils computes it; each kind is one entry of ROPE_TYPES.
    `original_positions` is original_max_position_embeddings (dynamic: the config's
    max_position_embeddings, the length past which its base grows); `factor` is the one
    transformers uses (yarn's and longrope's, when the config leaves it out,
    max_position_embeddings ÷ original_max_position_embeddings, worked out by the reader)."""

    kind: str  # one of SCALINGS (the readers refuse a config's or --rope-scaling's other)
    factor: float = 1.0
    low_freq_factor: float = 1.0  # llama3
    high_freq_factor: float = 4.0  # llama3
    original_positions: int = 8192
    beta_fast: float = 32.0  # yarn: pairs turning more often than this over the original
    beta_slow: float = 1.0  #    length are kept, less often than this divided by factor
    truncate: bool = True  # yarn: the ramp's ends rounded out to whole pairs
    attention_factor: float | None = None  # yarn, longrope: as given (None: from factor)
    mscale: float | None = None  # yarn (DeepSeek): the attention factor's two mscales
    mscale_all_dim: float | None = None
    short_factor: tuple[float, ...] = ()  # longrope: each pair's divisor up to the
    long_factor: tuple[float, ...] = ()  #   original length, and past it
    divisors: tuple[float, ...] = ()  # factors: each pair's own divisor, as a GGUF file's
    #   rope_freqs tensor gives them (llama.cpp divides θ_i by its number)


@dataclass(frozen=True)
class RopeType:
    """One rope_type: the frequencies it turns pair i by, for a sequence of `tokens`
    (dynamic and longrope change with it), and the attention factor cos and sin are
    multiplied by (so every score by its square)."""

    name: str
    frequencies: Callable[[int, float, Scaling, int | None], np.ndarray]
    attention_factor: Callable[[Scaling], float]


def _unscaled(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    return frequencies(d, base)


def _linear(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    # positions stretched by factor (Chen et al., 2023): every θ_i divided by it
    return frequencies(d, base) / s.factor


def _llama3(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    # Llama 3.1: pairs of a wavelength 2π/θ under original/high_freq_factor kept, over
    # original/low_freq_factor divided by factor, those between blended
    theta = frequencies(d, base)
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


def _dynamic(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    # NTK-aware (bloc97, emozilla): past the trained length L the base grows,
    # base · (factor · T / L − (factor − 1))^(d / (d − 2)); up to L it is the base itself
    length = max(tokens or 0, s.original_positions)
    grown = (s.factor * length / s.original_positions - (s.factor - 1)) ** (d / (d - 2))
    return frequencies(d, base * grown)


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's 0.1 · mscale · ln(scale) + 1 (Peng et al., 2023, eq. 21); 1 for scale ≤ 1."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_ramp(d: int, base: float, s: Scaling) -> np.ndarray:
    """Each pair's share kept unscaled in YaRN: 1 for the pairs that turn more than
    beta_fast times over the original length, 0 for those under beta_slow, a straight
    ramp between (by pair number)."""
    # -> [d/2]

    def pair_turning(turns: float) -> float:  # the pair that turns `turns` times
        return d * math.log(s.original_positions / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_turning(s.beta_fast), pair_turning(s.beta_slow)
    if s.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001  # transformers' guard against a ramp of no width
    ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    return 1 - ramp


def _yarn(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    powers = base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    kept = yarn_ramp(d, base, s)
    return 1.0 / (s.factor * powers) * (1 - kept) + 1.0 / powers * kept


def _yarn_attention(s: Scaling) -> float:
    if s.attention_factor is not None:
        return s.attention_factor
    if s.mscale and s.mscale_all_dim:
        return yarn_mscale(s.factor, s.mscale) / yarn_mscale(s.factor, s.mscale_all_dim)
    return yarn_mscale(s.factor)


def _longrope(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    # Phi-3: each pair divided by its own factor, the long ones past the original length
    long = tokens is not None and tokens > s.original_positions
    factors = np.asarray(s.long_factor if long else s.short_factor, dtype=np.float64)
    return 1.0 / (factors * base ** (np.arange(0, d, 2, dtype=np.float64) / d))


def _longrope_attention(s: Scaling) -> float:
    if s.attention_factor is not None:
        return s.attention_factor
    if s.factor <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(s.factor) / math.log(s.original_positions))


def _factors(d: int, base: float, s: Scaling, tokens: int | None) -> np.ndarray:
    # llama.cpp's freq_factors (a GGUF file's rope_freqs): θ_i divided by pair i's number,
    # for Llama 3 the llama3 scaling's divisors written out by the converter
    return frequencies(d, base) / np.asarray(s.divisors, dtype=np.float64)


def _one(s: Scaling) -> float:
    return 1.0


ROPE_TYPES: dict[str, RopeType] = {
    kind.name: kind
    for kind in (
        RopeType("default", _unscaled, _one),
        RopeType("linear", _linear, _one),
        RopeType("dynamic", _dynamic, _one),
        RopeType("yarn", _yarn, _yarn_attention),
        RopeType("longrope", _longrope, _longrope_attention),
        RopeType("llama3", _llama3, _one),
        RopeType("factors", _factors, _one),
    )
}
SCALINGS = tuple(ROPE_TYPES)  # the rope_type values model_frequencies computes


def model_frequencies(
    d: int, base: float = BASE, scaling: Scaling | None = None, tokens: int | None = None
) -> np.ndarray:
    """θ_i of a model's rotary positions: base^(−2i/d), scaled as `scaling` says for a
    sequence of `tokens` (None: as transformers sets them up, before any sequence).

    >>> model_frequencies(4, scaling=Scaling("linear", factor=2.0)).tolist()
    [0.5, 0.005]
    """
    # -> [d/2]
    if scaling is None:
        return frequencies(d, base)
    return ROPE_TYPES[scaling.kind].frequencies(d, base, scaling, tokens)


def attention_factor(scaling: Scaling | None) -> float:
    """What a scaling multiplies cos and sin by (YaRN's and LongRoPE's; 1 for the others),
    and so q and k after their turn: every score by its square."""
    if scaling is None:
        return 1.0
    return ROPE_TYPES[scaling.kind].attention_factor(scaling)


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
