"""Attention rollout against a loop reference of Abnar & Zuidema (2020), section 3: heads
averaged, 0.5 A + 0.5 I renormalised, products layer by layer; every row sums to 1."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.core.rollout import mixed_layers, rollout


def loop_rollout(weights: list) -> list:
    layers, heads, count = len(weights), len(weights[0]), len(weights[0][0])
    mixed = []
    for layer in range(layers):
        grid = []
        for i in range(count):
            row = []
            for j in range(count):
                mean = sum(weights[layer][h][i][j] for h in range(heads)) / heads
                row.append(0.5 * mean + (0.5 if i == j else 0.0))
            total = sum(row)
            grid.append([value / total for value in row])
        mixed.append(grid)
    products = [mixed[0]]
    for layer in range(1, layers):
        upper, lower = mixed[layer], products[-1]
        products.append([[sum(upper[i][k] * lower[k][j] for k in range(count))
                          for j in range(count)] for i in range(count)])  # fmt: skip
    return products


def weights_of(seed: int, layers: int, heads: int, count: int) -> np.ndarray:
    scores = np.random.default_rng(seed).normal(size=(layers, heads, count, count)) * 3
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(("seed", "layers", "heads", "count"),
                         [(0, 6, 12, 11), (1, 2, 4, 5), (2, 1, 3, 2), (3, 4, 1, 9)])  # fmt: skip
def test_rollout_equals_the_loop_to_1e_12(seed, layers, heads, count):
    weights = weights_of(seed, layers, heads, count)
    products = rollout(mixed_layers(weights))
    expected = np.asarray(loop_rollout(weights.tolist()))
    assert np.abs(products - expected).max() < 1e-12
    np.testing.assert_allclose(products.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_one_layer_attending_to_itself_rolls_out_to_itself():
    weights = np.broadcast_to(np.eye(4), (3, 2, 4, 4))
    assert np.array_equal(rollout(mixed_layers(weights))[-1], np.eye(4))


def test_a_hand_worked_two_layer_cell():
    # two tokens, one head: layer 1 looks all at token 1, layer 2 all at token 2
    weights = np.array([[[[1.0, 0.0], [1.0, 0.0]]], [[[0.0, 1.0], [0.0, 1.0]]]])
    products = rollout(mixed_layers(weights))
    # M1 = [[1, 0], [0.5, 0.5]], M2 = [[0.5, 0.5], [0, 1]]; R2 = M2 M1
    assert products[1].tolist() == [[0.75, 0.25], [0.5, 0.5]]
