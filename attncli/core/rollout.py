"""Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers",
section 3): each layer's weights averaged over its heads, the residual connection added as
an identity, 0.5 A + 0.5 I with each row renormalised, and the layers multiplied from the
first up: R_1 = M_1, R_l = M_l R_(l−1)."""

from __future__ import annotations

import numpy as np


def mixed_layers(weights: np.ndarray) -> np.ndarray:
    """Each layer's head-averaged weights with the residual: 0.5 A + 0.5 I, rows renormalised.
    [L, h, T, T] -> [L, T, T]"""
    averaged = weights.mean(axis=1)  # [L, T, T]
    mixed = 0.5 * averaged + 0.5 * np.eye(weights.shape[-1])
    return np.asarray(mixed / mixed.sum(axis=-1, keepdims=True))


def rollout(mixed: np.ndarray) -> np.ndarray:
    """The product up to each layer: R_1 = M_1, R_l = M_l R_(l−1). [L, T, T] -> [L, T, T]"""
    products = np.empty_like(mixed)
    products[0] = mixed[0]
    for layer in range(1, len(mixed)):
        products[layer] = mixed[layer] @ products[layer - 1]
    return products
