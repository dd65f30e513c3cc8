"""What each way of scoring a T_y × T_x grid costs, counted, not measured.

Decoder states S [T_y, d_h] score encoder states H [T_x, d_h]. The convention:
multiply-adds count the matrix products and the v_a readout; the additive score's
broadcast sum and the scaled score's division are elementwise operations, listed
apart, as are tanh evaluations. The intermediate is what must be held pairwise
before the grid exists: d_a numbers per pair for additive (the block tanh reads),
one per pair (the scores) for the others. Figures as in Luong et al. (2015) against
Bahdanau et al. (2015).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax
from attncli.core.methods import METHODS, Cost, compared, method, score

__all__ = ["Cost"]

BYTES_PER_NUMBER = 8  # float64


def compared_names() -> tuple[str, ...]:
    """The methods compared, in the order their columns stand."""
    return tuple(m.name for m in compared())


def looped_names() -> tuple[str, ...]:
    """The methods whose grid compare-scores checks pair by pair, in the registry's order."""
    return tuple(m.name for m in METHODS.values() if m.looped)


def score_costs(t_x: int, t_y: int, d_h: int, d_a: int) -> list[Cost]:
    """Each compared method's counts for a T_y × T_x grid of d_h-dimensional states."""
    return [m.cost(t_x, t_y, d_h, d_a) for m in compared()]


def peak_numbers(t_x: int, t_y: int, d_h: int, d_a: int) -> int:
    """A bound on the float64 numbers the comparison holds at once: the additive block
    twice (the sum and its tanh), the states, the parameters and a few grids."""
    block = 2 * t_y * t_x * d_a
    states = (t_x + t_y) * (d_h + d_a)
    parameters = 2 * d_h * d_a + d_h * d_h + d_a
    grids = 6 * t_y * t_x
    return block + states + parameters + grids


def sweep_numbers(d_k: int, keys_per_row: int, rows: int) -> int:
    """A bound on the float64 numbers largest_weight holds: queries, keys (twice, counting
    the transposed product's operands) and the score rows."""
    return rows * d_k * (1 + 2 * keys_per_row) + 4 * rows * keys_per_row


@dataclass
class Problem:
    """Seeded states and parameters for the comparison."""

    decoder: np.ndarray  # S [T_y, d_h]
    encoder: np.ndarray  # H [T_x, d_h]
    w_a: np.ndarray  # [d_h, d_h]
    w_1: np.ndarray  # [d_a, d_h]
    w_2: np.ndarray  # [d_a, d_h]
    v_a: np.ndarray  # [d_a]


def make_problem(t_x: int, t_y: int, d_h: int, d_a: int, seed: int) -> Problem:
    """Unit-scale random states; W_a with variance 1/fan_in, the additive score's W_1, W_2
    and v_a as torch's nn.Linear starts them (±1/√fan_in)."""
    from attncli.core.seeding import generator, linear_parameter, uniform_parameter

    return Problem(
        decoder=generator(seed, "decoder").standard_normal((t_y, d_h)),
        encoder=generator(seed, "encoder").standard_normal((t_x, d_h)),
        w_a=uniform_parameter(seed, "w_a", (d_h, d_h), fan_in=d_h),
        w_1=linear_parameter(seed, "w_1", (d_a, d_h), fan_in=d_h),
        w_2=linear_parameter(seed, "w_2", (d_a, d_h), fan_in=d_h),
        v_a=linear_parameter(seed, "v_a", (d_a,), fan_in=d_a),
    )


def peak_weights(scores: np.ndarray) -> tuple[float, float, float]:
    """Each row's largest softmax weight: their mean, least and most (lesson 001: at
    initialisation a multiplicative row may already take 0.851 where uniform is 0.167)."""
    # [T_y, T_x] -> mean, min, max over the T_y rows
    peaks = softmax(scores).max(axis=1)
    return float(peaks.mean()), float(peaks.min()), float(peaks.max())


def score_spread(scores: np.ndarray) -> float:
    """The spread of a row's scores (their standard deviation), the mean over the rows: what
    decides how far from uniform a row's softmax starts."""
    # [T_y, T_x] -> the mean over the T_y rows of each row's standard deviation
    return float(scores.std(axis=1).mean())


def grid(problem: Problem, method: str) -> np.ndarray:
    """The T_y × T_x score grid by `method`, in matrix form."""
    # -> [T_y, T_x]
    return score(method, problem.decoder, problem.encoder, parameters_of(problem))


def parameters_of(problem: Problem) -> dict[str, np.ndarray]:
    """The problem's parameters by name, as the methods read them."""
    return {"w_a": problem.w_a, "w_1": problem.w_1, "w_2": problem.w_2, "v_a": problem.v_a}


def pairwise(problem: Problem, name: str, pairs: list[tuple[int, int]]) -> np.ndarray | None:
    """The same scores one pair at a time, straight from the formula (None for a method whose
    matrix form is its formula): the projections each pair reads made once per state, as
    the lesson does («los 60 estados ya proyectados»)."""
    # -> [len(pairs)]
    return method(name).pairwise(problem.decoder, problem.encoder, parameters_of(problem), pairs)


def check_pairs(t_x: int, t_y: int, limit: int, seed: int) -> list[tuple[int, int]]:
    """Every (i, j) pair when there are at most `limit`, else a seeded sample of them."""
    total = t_y * t_x
    if total <= limit:
        return [(i, j) for i in range(t_y) for j in range(t_x)]
    from attncli.core.seeding import generator

    chosen = generator(seed, "pairs").choice(total, size=limit, replace=False)
    return [(int(n // t_x), int(n % t_x)) for n in np.sort(chosen)]
