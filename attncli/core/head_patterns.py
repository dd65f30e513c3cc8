"""Attention heads scored against a pattern: which cells of a T × T weight grid a kind of head
would look at, and three ways to say how much a head's weights agree with it.

The patterns and the `mul` and `abs` scores are TransformerLens's head detector
(transformer_lens/head_detector.py: get_previous_token_head_detection_pattern,
get_duplicate_token_head_detection_pattern, get_induction_head_detection_pattern and
compute_head_attention_similarity_score), written again in numpy; `rows` is attn's own rule.
"""

from __future__ import annotations

import numpy as np

# TransformerLens's three, and attn's two that it does not have
PATTERN_NAMES = ("previous", "first", "self", "duplicate", "induction")
METRICS = ("rows", "mul", "abs")
EXCLUSIONS = ("first", "self")


def pattern_cells(name: str, ids: np.ndarray) -> np.ndarray:
    """The cells a head of kind `name` looks at, 1 there and 0 elsewhere, for the token ids
    `ids` [T] -> [T, T]. Each is lower-triangular (a query looks at itself or before):
    previous, the token just before; first, token 0; self, the diagonal; duplicate, every
    earlier occurrence of the same token; induction, the token just after each earlier
    occurrence of the same token (the diagonal when a token repeats the one before it)."""
    count = len(ids)
    cells = np.zeros((count, count))
    if name == "previous":
        cells[np.arange(1, count), np.arange(count - 1)] = 1.0
    elif name == "first":
        cells[:, 0] = 1.0
    elif name == "self":
        cells[np.arange(count), np.arange(count)] = 1.0
    elif name in ("duplicate", "induction"):
        same = np.equal.outer(ids, ids)  # [T, T]: token i is token j
        duplicate = np.tril(same, k=-1).astype(float)  # earlier occurrences, not itself
        if name == "duplicate":
            cells = duplicate
        else:
            # one to the right: the token after each earlier occurrence, never past the query
            cells[:, 1:] = duplicate[:, :-1]
            cells = np.tril(cells)
    else:
        raise ValueError(f"unknown pattern {name!r}; one of {', '.join(PATTERN_NAMES)}")
    return cells


def _excluded(grid: np.ndarray, exclude: tuple[str, ...]) -> np.ndarray:
    """A copy of `grid` [..., T, T] with the first column and/or the diagonal set to 0."""
    grid = grid.copy()
    if "first" in exclude:
        grid[..., :, 0] = 0.0
    if "self" in exclude:
        count = grid.shape[-1]
        grid[..., np.arange(count), np.arange(count)] = 0.0
    return grid


def scored_rows(cells: np.ndarray, exclude: tuple[str, ...] = ()) -> np.ndarray:
    """The rows a pattern says something about: those with a cell left once `exclude` is
    applied. [T, T] -> [T] of bool."""
    return np.asarray(_excluded(cells, exclude).sum(axis=-1) > 0)


def pattern_score(weights: np.ndarray, cells: np.ndarray, metric: str,
                  exclude: tuple[str, ...] = ()) -> np.ndarray:  # fmt: skip
    """Every head's agreement with `cells`. [..., T, T], [T, T] -> [...].

    mul (TransformerLens's): the weight on the pattern's cells over all the weight, with the
    first column and/or the diagonal first set to 0 in the weights (`exclude`); a head
    doing it perfectly in every row that has a cell still scores less than 1 when some rows
    have none (row 0 for previous).
    abs (TransformerLens's): 1 − Σ |A − P| / T, the cells excluded set to 0 in |A − P|; 1 is
    the pattern exactly, down to −1. TransformerLens rounds Σ |A − P| / T to 3 decimals;
    this does not.
    rows (attn's): in each row that has a cell, the share of the row's weight (what the
    exclusions leave of it) on its cells, then the mean over those rows: a head doing it
    perfectly scores 1 whatever the sentence, and rows with nothing to find do not count."""
    if metric == "abs":
        difference = _excluded(np.abs(weights - cells), exclude)
        return np.asarray(1.0 - difference.sum(axis=(-2, -1)) / cells.shape[-1])
    kept = _excluded(weights, exclude)
    matched = kept * cells
    if metric == "mul":
        return np.asarray(matched.sum(axis=(-2, -1)) / kept.sum(axis=(-2, -1)))
    if metric != "rows":
        raise ValueError(f"unknown metric {metric!r}; one of {', '.join(METRICS)}")
    rows = scored_rows(cells, exclude)
    totals = kept.sum(axis=-1)[..., rows]  # [..., R]
    shares = np.divide(matched.sum(axis=-1)[..., rows], totals,
                       out=np.zeros_like(totals), where=totals > 0)  # fmt: skip
    return np.asarray(shares.mean(axis=-1))


# Gu et al. (2025), "When Attention Sink Emerges in Language Models: An Empirical View"
# (ICLR 2025, arXiv:2410.10781): a head whose mean weight on the first token passes
# ε = 0.3 is counted as a sink, and a model's Sink_ε is the share of its heads that are (their
# code's compute_attention_sink, epsilon=0.3).
SINK_THRESHOLD = 0.3


def sink_rates(weights: np.ndarray) -> np.ndarray:
    """Each head's sink rate: the mean, over the query rows after the first, of its weight
    on the first token (key 0). The first row is left out: in a causal layer it sees only
    the first token and gives it all its weight whatever the head does. Gu et al.'s
    importance score of the first token, the mean over every row, is (1 + (T − 1) · rate)
    ÷ T for a causal head. Needs two tokens or more. [..., T, T] -> [...]"""
    if weights.shape[-1] < 2:
        raise ValueError("a sink rate needs two tokens or more")
    return np.asarray(weights[..., 1:, 0].mean(axis=-1))
