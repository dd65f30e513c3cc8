"""Positional encodings: the order of the tokens, added to X.

The layer's embeddings are one vector per word, the same wherever it stands, and
softmax(Q K^T) V treats its rows as a set: reordering the sentence only reorders the rows.
Adding a vector per position gives the layer the order. The sinusoidal encoding is
Vaswani et al. (2017), "Attention Is All You Need", section 3.5:

    PE(pos, 2i)     = sin(pos / 10000^(2i / d_model))
    PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))

with positions counted from 0, so the first token's vector is (0, 1, 0, 1, …).
"""

from __future__ import annotations

import numpy as np

from attncli.errors import OptionError
from attncli.messages import _

BASE = 10000.0  # the paper's wavelength base: wavelengths from 2π to 10000 · 2π


def sinusoidal(length: int, d_model: int) -> np.ndarray:
    """The sinusoidal encoding of positions 0 … length − 1, one row per position.

    Column 2i is a sine and column 2i + 1 a cosine of the same frequency; with an odd
    d_model the last column is a sine alone.

    >>> sinusoidal(2, 4).round(4).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]]
    """
    # -> [length, d_model]
    positions = np.arange(length, dtype=np.float64)[:, None]  # [T, 1]
    pairs = np.arange(0, d_model, 2, dtype=np.float64)  # 2i for every pair: [ceil(d/2)]
    angles = positions / BASE ** (pairs / d_model)  # [T, ceil(d/2)]
    encoding = np.empty((length, d_model))
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return encoding


# The encodings by name; --positions and positions= take one of them (or rope, which turns
# q and k inside the layer instead), and a document's "positions" is refused when it names
# another (reading/check/positions.py)
ENCODINGS = {"sinusoidal": sinusoidal}
KINDS = tuple(ENCODINGS)


def encoding(kind: str, length: int, d_model: int) -> np.ndarray:
    """The positional encoding named `kind` (one of KINDS)."""
    # -> [length, d_model]
    return ENCODINGS[kind](length, d_model)


def with_positions(x: np.ndarray, kind: str | None) -> np.ndarray:
    """X with the encoding of its rows' positions added (a new array); X itself when `kind`
    is None. A batch [B, T, d] gets the same encoding in every sequence."""
    # [..., T, d_model] -> [..., T, d_model]
    if kind is None:
        return x
    return x + encoding(kind, x.shape[-2], x.shape[-1])


def check_placeable(already: object = None) -> None:
    """--positions can add its encoding: refused when the input says its X already has
    positions (an X of none, queries, keys and values given, is refused with the fields
    the layer would not use: reading/check/fields.UNUSED)."""
    if already is not None:
        raise OptionError(
            _(
                "this x already has {kind} positions added (the document says so); drop "
                "--positions, or they would be added twice"
            ),
            kind=already,
        )


def placed(
    x: np.ndarray | None, x_kv: np.ndarray | None, kind: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """The layer's X (and cross-attention's other sequence) with the encoding added, once
    check_placeable and the fields' check have let it be."""
    # [..., T_q, d], [..., T_k, d] -> the same
    assert x is not None
    return with_positions(x, kind), None if x_kv is None else with_positions(x_kv, kind)
