"""Attention heads scored against a pattern: which cells of a T × T weight grid a kind of head
would look at, and three ways to say how much a head's weights agree with it.

The patterns and the `mul` and `abs` scores are TransformerLens's head detector
(transformer_lens/head_detector.py: get_previous_token_head_detection_pattern,
get_duplicate_token_head_detection_pattern, get_induction_head_detection_pattern and
compute_head_attention_similarity_score), written again in numpy; `rows` is attn's own rule.
"""

from __future__ import annotations

import numpy as np


def _previous(count: int, ids: np.ndarray) -> np.ndarray:
    cells = np.zeros((count, count))
    cells[np.arange(1, count), np.arange(count - 1)] = 1.0
    return cells


def _first(count: int, ids: np.ndarray) -> np.ndarray:
    cells = np.zeros((count, count))
    cells[:, 0] = 1.0
    return cells


def _self(count: int, ids: np.ndarray) -> np.ndarray:
    cells = np.zeros((count, count))
    cells[np.arange(count), np.arange(count)] = 1.0
    return cells


def _duplicate(count: int, ids: np.ndarray) -> np.ndarray:
    same = np.equal.outer(ids, ids)  # [T, T]: token i is token j
    return np.tril(same, k=-1).astype(float)  # earlier occurrences, not itself


def _induction(count: int, ids: np.ndarray) -> np.ndarray:
    # one to the right: the token after each earlier occurrence, never past the query
    cells = np.zeros((count, count))
    cells[:, 1:] = _duplicate(count, ids)[:, :-1]
    return np.tril(cells)


# TransformerLens's three, and attn's two that it does not have; --pattern and pattern= take
# one of these names (api/heads.py's keywords refuse any other)
_PATTERNS = {"previous": _previous, "first": _first, "self": _self, "duplicate": _duplicate,
             "induction": _induction}  # fmt: skip
PATTERN_NAMES = tuple(_PATTERNS)
EXCLUSIONS = ("first", "self")


def pattern_cells(name: str, ids: np.ndarray) -> np.ndarray:
    """The cells a head of kind `name` looks at, 1 there and 0 elsewhere, for the token ids
    `ids` [T] -> [T, T]. Each is lower-triangular (a query looks at itself or before):
    previous, the token just before; first, token 0; self, the diagonal; duplicate, every
    earlier occurrence of the same token; induction, the token just after each earlier
    occurrence of the same token (the diagonal when a token repeats the one before it)."""
    return _PATTERNS[name](len(ids), ids)


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


Exclude = tuple[str, ...]


def _abs(weights: np.ndarray, cells: np.ndarray, exclude: Exclude) -> np.ndarray:
    difference = _excluded(np.abs(weights - cells), exclude)
    return np.asarray(1.0 - difference.sum(axis=(-2, -1)) / cells.shape[-1])


def _mul(weights: np.ndarray, cells: np.ndarray, exclude: Exclude) -> np.ndarray:
    kept = _excluded(weights, exclude)
    return np.asarray((kept * cells).sum(axis=(-2, -1)) / kept.sum(axis=(-2, -1)))


def _rows(weights: np.ndarray, cells: np.ndarray, exclude: Exclude) -> np.ndarray:
    kept = _excluded(weights, exclude)
    matched = kept * cells
    rows = scored_rows(cells, exclude)
    totals = kept.sum(axis=-1)[..., rows]  # [..., R]
    shares = np.divide(matched.sum(axis=-1)[..., rows], totals,
                       out=np.zeros_like(totals), where=totals > 0)  # fmt: skip
    return np.asarray(shares.mean(axis=-1))


# --metric and metric= take one of these names (api/heads.py's keywords refuse any other)
_METRICS = {"rows": _rows, "mul": _mul, "abs": _abs}
METRICS = tuple(_METRICS)


def pattern_score(weights: np.ndarray, cells: np.ndarray, metric: str,
                  exclude: Exclude = ()) -> np.ndarray:  # fmt: skip
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
    return _METRICS[metric](weights, cells, exclude)


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
    ÷ T for a causal head. Needs two tokens or more: its callers (api/heads.py, the
    explorer's knob) ask for none with one. [..., T, T] -> [...]"""
    return np.asarray(weights[..., 1:, 0].mean(axis=-1))
