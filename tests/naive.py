"""Reference implementations written with plain loops and the math module.

They share no code with attncli, so agreement with them is evidence, not an echo.
"""

from __future__ import annotations

import math


def dot(a: list[float], b: list[float]) -> float:
    total = 0.0
    for x, y in zip(a, b, strict=True):
        total += x * y
    return total


def matvec(matrix: list[list[float]], vector: list[float]) -> list[float]:
    return [dot(row, vector) for row in matrix]


def scores(queries, keys, method="dot", w_a=None, w_1=None, w_2=None, v_a=None):
    grid = []
    for q in queries:
        row = []
        for k in keys:
            if method == "dot":
                row.append(dot(q, k))
            elif method == "scaled":
                row.append(dot(q, k) / math.sqrt(len(k)))
            elif method == "general":
                row.append(dot(q, matvec(w_a, k)))
            elif method == "additive":
                hidden = [
                    math.tanh(a + b) for a, b in zip(matvec(w_1, q), matvec(w_2, k), strict=True)
                ]
                row.append(dot(v_a, hidden))
        grid.append(row)
    return grid


def softmax_row(row: list[float], temperature: float = 1.0) -> list[float]:
    live = [s for s in row if s != -math.inf]
    if not live:
        return [0.0 for _ in row]
    top = max(live)
    powers = [0.0 if s == -math.inf else math.exp((s - top) / temperature) for s in row]
    total = math.fsum(powers)
    return [p / total for p in powers]


def mix_row(weights: list[float], values: list[list[float]]) -> list[float]:
    out = [0.0] * len(values[0])
    for w, value in zip(weights, values, strict=True):
        for j, v in enumerate(value):
            out[j] += w * v
    return out


def attention(queries, keys, values, scale=True, causal=False):
    """softmax(Q K^T / sqrt(d_k)) V with an optional causal mask, one cell at a time."""
    grid = scores(queries, keys, "scaled" if scale else "dot")
    if causal:
        grid = [
            [s if j <= i else -math.inf for j, s in enumerate(row)] for i, row in enumerate(grid)
        ]
    weights = [softmax_row(row) for row in grid]
    return grid, weights, [mix_row(w, values) for w in weights]
