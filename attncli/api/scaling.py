"""The √d_k experiment as an operation: seeded rows of a query against a few keys at each
d_k, gathered in a ScalingResult (no I/O).

>>> import attncli as attn
>>> r = attn.scaling(d_k=[8, 512], rows=200)
>>> [round(line.spread / line.root, 1) for line in r.lines]
[1.0, 1.0]
>>> r.lines[-1].largest[0] > 0.9 > r.lines[-1].largest[1]
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attncli.api.keywords import SEED, keywords
from attncli.errors import OptionError
from attncli.limits import check_fits
from attncli.messages import Message, OnSurface, Setting, _
from attncli.results.scaling import ScalingLine, ScalingResult
from attncli.settings import Whole

# The lesson's sizes: a query against six keys, d_k from 8 to 512.
D_KS = (8, 16, 32, 64, 128, 256, 512)
KEYS, ROWS = 6, 2_000


# A row's keys: two at least, or there is no softmax to saturate; rows: one at least.
def check_d_ks(d_ks: Sequence[int], named: Setting) -> None:
    """The widths a sweep of d_k tries (attn scaling's d_k, compare-scores' d_ks; --d-k on
    the command line, whose reader holds each to 1 or more): one at least, each 1 or more,
    else one line naming `named` with an example."""
    if not d_ks or min(d_ks) < 1:
        raise OptionError(
            _("{option}: give one d_k or more, each 1 or more, e.g. {example}"),
            option=named,
            example=OnSurface(Setting(named.name, metavar="8,64,512", option=named.option),
                              Setting(named.name, [8, 64, 512])),
        )  # fmt: skip


@keywords(seed=SEED, keys=Whole(2), rows=Whole(1))
def scaling(
    d_k: Sequence[int] = D_KS, *, keys: int = KEYS, rows: int = ROWS, seed: int = 0
) -> ScalingResult:
    """Why the scores are divided by √d_k: for each d_k, `rows` seeded rows of a query
    against `keys` keys, every coordinate drawn from N(0, 1). Each line holds the spread
    of the raw scores (about √d_k), a row's largest weight and max α(1 − α) (the most the
    row passes back to its scores) unscaled and ÷√d_k, as the mean over the rows and in
    one seeded row, and the share of rows that are saturated (largest weight ≥ 0.95)."""
    import numpy as np

    from attncli.core.saturation import ONE_ROW, SATURATED, scaling_rows

    d_ks = list(d_k)
    check_d_ks(d_ks, Setting("d_k"))
    asked = {"--rows": rows, "--d-k": max(d_ks), "--keys": keys}
    # Each size as the surface that refuses it names it: --d-k 512, the largest of d_k.
    shown = Message(
        "{value}",
        value=OnSurface(
            " ".join(f"{option} {value}" for option, value in asked.items()),
            f"rows={rows}, d_k={d_ks}, keys={keys}",
        ),
    )
    names = {option: Setting(option[2:].replace("-", "_")) for option in asked}
    check_fits(_numbers, asked, tuple(asked), shown, names=names)
    lines = []
    for size in d_ks:
        many = scaling_rows(size, keys, rows, seed)
        one = scaling_rows(size, keys, 1, seed, ONE_ROW)
        lines.append(
            ScalingLine(
                d_k=size,
                spread=float(many.scores.std()),
                largest=(float(many.largest.mean()), float(many.largest_scaled.mean())),
                largest_one=(float(one.largest[0]), float(one.largest_scaled[0])),
                gradient=(float(many.gradient.mean()), float(many.gradient_scaled.mean())),
                gradient_one=(float(one.gradient[0]), float(one.gradient_scaled[0])),
                saturated=(
                    float(np.mean(many.largest >= SATURATED)),
                    float(np.mean(many.largest_scaled >= SATURATED)),
                ),
            )
        )
    return ScalingResult(keys=keys, rows=rows, seed=seed, lines=tuple(lines))


def _numbers(sizes: Mapping[str, int]) -> int:
    """The float64 numbers one d_k holds: the rows' queries and keys, their scores twice."""
    rows, d_k, keys = sizes["--rows"], sizes["--d-k"], sizes["--keys"]
    return rows * d_k * (1 + 2 * keys) + 6 * rows * keys
