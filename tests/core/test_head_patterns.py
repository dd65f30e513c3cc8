"""Head patterns and their scores against loop references of TransformerLens's head detector,
transformer_lens/head_detector.py at commit 4cd36aaeb5dad931d085bd5d46a12b402fe15272:

- previous: lines 176-177 (ones below the diagonal, then tril);
- duplicate: lines 193-197 (token i equal to token j, the diagonal set to 0, then tril);
- induction: lines 212-219 (duplicate rolled one column right, column 0 zeroed, then tril);
- mul: lines 250-256 (column 0 and/or the diagonal of the attention set to 0, then
  Σ attention × pattern ÷ Σ attention);
- abs: lines 260-269 (|attention − pattern|, column 0 and/or the diagonal set to 0, then
  1 − mean × size, which TransformerLens rounds to 3 decimals: attn does not, so the
  reference leaves the rounding out and a second check rounds both);
- the mean over several sequences: lines 116-117.

attn's own `rows` rule is checked against a loop too, and against attn's older rule for
previous, first and self (the mean over rows of the pattern's one cell)."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.core.head_patterns import METRICS, PATTERN_NAMES, pattern_cells, pattern_score
from attncli.core.transformer import head_pattern


def loop_pattern(name: str, ids: list[int]) -> list[list[float]]:
    count = len(ids)
    cells = [[0.0] * count for _ in range(count)]
    for i in range(count):
        for j in range(count):
            if name == "previous":
                cells[i][j] = 1.0 if j == i - 1 else 0.0
            elif name == "first":
                cells[i][j] = 1.0 if j == 0 else 0.0
            elif name == "self":
                cells[i][j] = 1.0 if j == i else 0.0
            elif name == "duplicate":
                cells[i][j] = 1.0 if j < i and ids[i] == ids[j] else 0.0
            elif name == "induction":
                # the duplicate pattern's column j - 1 moved to column j, j ≥ 1, kept if j ≤ i
                cells[i][j] = 1.0 if 1 <= j <= i and j - 1 < i and ids[i] == ids[j - 1] else 0.0
    return cells


def loop_score(grid: list[list[float]], cells: list[list[float]], metric: str,
               exclude: tuple[str, ...]) -> float:  # fmt: skip
    count = len(grid)

    def left_out(i: int, j: int) -> bool:
        return ("first" in exclude and j == 0) or ("self" in exclude and i == j)

    if metric == "mul":
        matched = total = 0.0
        for i in range(count):
            for j in range(count):
                a = 0.0 if left_out(i, j) else grid[i][j]
                matched += a * cells[i][j]
                total += a
        return matched / total
    if metric == "abs":
        difference = 0.0
        for i in range(count):
            for j in range(count):
                if not left_out(i, j):
                    difference += abs(grid[i][j] - cells[i][j])
        return 1.0 - difference / (count * count) * count
    shares = []
    for i in range(count):
        if any(cells[i][j] > 0 and not left_out(i, j) for j in range(count)):
            kept = [0.0 if left_out(i, j) else grid[i][j] for j in range(count)]
            shares.append(sum(kept[j] * cells[i][j] for j in range(count)) / sum(kept))
    return sum(shares) / len(shares)


def random_grids(rng: np.random.Generator, heads: int, count: int) -> np.ndarray:
    scores = rng.normal(size=(heads, count, count)) * 2.0
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True)  # [h, T, T], rows sum to 1


IDS = [101, 7, 8, 9, 7, 8, 9, 7, 3, 3, 102]  # repeats, and a token repeating the one before


@pytest.mark.parametrize("name", ["previous", "first", "self", "duplicate", "induction"])
def test_the_patterns_are_transformerlens(name):
    assert pattern_cells(name, np.asarray(IDS)).tolist() == loop_pattern(name, IDS)


def test_induction_looks_after_the_earlier_copy():
    cells = pattern_cells("induction", np.asarray(IDS))
    # token 4 (7) repeats token 1: it looks at token 2 (8), the one after that copy
    assert np.flatnonzero(cells[4]).tolist() == [2]
    # token 9 (3) repeats token 8, just before it: the cell after that copy is itself
    assert np.flatnonzero(cells[9]).tolist() == [9]


@pytest.mark.parametrize("metric", ["rows", "mul", "abs"])
@pytest.mark.parametrize("exclude", [(), ("first",), ("self",), ("first", "self")])
@pytest.mark.parametrize("name", ["previous", "duplicate", "induction"])
@pytest.mark.parametrize("causal", [False, True])
def test_every_score_equals_the_loop_to_1e_12(metric, exclude, name, causal):
    rng = np.random.default_rng(len(metric) * 31 + len(exclude) * 7 + len(name))
    grids = random_grids(rng, 5, len(IDS))
    if causal:
        grids = np.tril(grids)
        grids /= grids.sum(axis=-1, keepdims=True)
    cells = pattern_cells(name, np.asarray(IDS))
    scores = pattern_score(grids, cells, metric, exclude)
    for head, grid in enumerate(grids):
        expected = loop_score(grid.tolist(), loop_pattern(name, IDS), metric, exclude)
        assert abs(scores[head] - expected) < 1e-12
        if metric == "abs":  # TransformerLens's own number, rounded as line 269 does
            rounded = 1 - round(float(np.abs(grid - cells).mean() * len(IDS)), 3)
            if not exclude:
                assert abs((1 - round(1 - float(scores[head]), 3)) - rounded) < 1e-12


@pytest.mark.parametrize("name", ["previous", "first", "self"])
def test_rows_is_attns_older_rule(name):
    grids = random_grids(np.random.default_rng(3), 4, 9)[None]  # [1, h, T, T]
    cells = pattern_cells(name, np.arange(9))
    np.testing.assert_allclose(pattern_score(grids, cells, "rows"), head_pattern(grids, name),
                               rtol=0, atol=1e-15)  # fmt: skip


def test_a_perfect_previous_token_head_scores_1_by_rows_and_less_by_mul():
    count = 8
    grid = np.zeros((count, count))
    grid[0, 0] = 1.0
    grid[np.arange(1, count), np.arange(count - 1)] = 1.0
    cells = pattern_cells("previous", np.arange(count))
    assert pattern_score(grid, cells, "rows") == 1.0
    assert pattern_score(grid, cells, "mul") == pytest.approx((count - 1) / count, abs=1e-15)
    # row 0 has no cell and all its weight is off the pattern: Σ|A − P| = 1
    assert pattern_score(grid, cells, "abs") == pytest.approx(1 - 1 / count, abs=1e-15)


@pytest.mark.parametrize(("keyword", "value", "names"), [
    ("pattern", "diagonal", PATTERN_NAMES),
    ("metric", "max", METRICS),
])  # fmt: skip
def test_a_pattern_or_metric_not_known_is_refused_before_one_is_scored(keyword, value, names):
    """pattern_cells and pattern_score compute the names they hold; heads refuses another."""
    import attncli as attn
    from attncli.errors import OptionError
    from tests.meaning import told

    with pytest.raises(OptionError) as caught:
        attn.heads("el tren va", heads=2, **{"pattern": "first", keyword: value})
    told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
         setting=f"{keyword}={value!r}", choices=", ".join(names))  # fmt: skip
