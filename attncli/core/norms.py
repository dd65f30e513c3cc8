"""The norms a transformer puts around its sublayers, and QK-norm puts on each head's query
and key: LayerNorm (Ba et al., 2016) and RMSNorm (Zhang and Sennrich, 2019), as torch
computes them, over the last axis."""

from __future__ import annotations

import numpy as np

QK_NORM_EPS = 1e-6  # Qwen3's, OLMo 2's and Gemma 3's rms_norm_eps


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """(x − mean) / √(var + ε) · γ + β over the last axis (the biased variance, as torch)."""
    # [T, d], [d], [d] -> [T, d]
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * gamma + beta


def rms_norm(x: np.ndarray, gamma: np.ndarray | float, eps: float) -> np.ndarray:
    """x / √(mean(x²) + ε) · γ over the last axis (Zhang and Sennrich, 2019: RMSNorm; no
    mean taken away, no β)."""
    # [T, d], [d] -> [T, d]
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gamma
