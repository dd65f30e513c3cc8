"""attn selfattn --heads N --heads-sum as rich renderables: each head's products, their sum,
the one-head grid beside it, how far apart the two are, and one row's weights both ways."""

from __future__ import annotations

import numpy as np
from rich.console import RenderableType

from attncli.present import render
from attncli.present.format import Format
from attncli.present.layer.view import divisor_said
from attncli.results.heads_sum import HeadsSum


def ulps_apart(result: HeadsSum) -> int:
    """The sum's largest difference from the one-head grid in units in the last place of
    the grid's largest number."""
    unit = float(np.spacing(np.abs(result.one_head).max() or 1.0))
    return round(result.difference / unit)


def heads_sum_view(result: HeadsSum, fmt: Format) -> list[RenderableType]:
    """The products of each head, the sum and the one-head grid, then the row's weights."""
    heads, d_k = result.heads, result.d_k
    width = heads * d_k
    seed = "" if result.seed is None else fmt.say("heads_sum_seed", seed=result.seed)
    rows, columns = result.query_labels, result.tokens
    view: list[RenderableType] = [
        render.lines(fmt.say("heads_sum_title", heads=heads, d_k=d_k, width=width, seed=seed), "")
    ]
    for head in range(heads):
        title = fmt.say("heads_sum_head", head=head + 1, first=head * d_k + 1,
                        last=(head + 1) * d_k)  # fmt: skip
        view.append(render.number_grid(title, rows, columns, result.products[head], fmt))
    terms = " + ".join(f"Q_{head} K_{head}ᵀ" for head in range(1, heads + 1))
    view.append(render.number_grid(fmt.say("heads_sum_sum", terms=terms), rows, columns,
                                   result.summed, fmt))  # fmt: skip
    view.append(
        render.number_grid(
            fmt.say("heads_sum_one", width=width), rows, columns, result.one_head, fmt
        )  # fmt: skip
    )
    ulps = ulps_apart(result)
    units = {0: fmt.say("heads_sum_none"), 1: fmt.say("heads_sum_ulp")}.get(
        ulps, fmt.say("heads_sum_ulps", count=ulps)
    )
    difference = fmt.scientific(result.difference) if result.difference else "0"
    view.append(render.lines(fmt.say("heads_sum_same", difference=difference, ulps=units), ""))
    one = divisor_said(result.one_divisor, width, True, fmt) or "1"
    per_head = divisor_said(result.head_divisor, d_k, True, fmt) or "1"
    labels = [fmt.say("heads_sum_one_row")] + [
        fmt.say("heads_sum_head_row", head=head + 1) for head in range(heads)
    ]
    weights = np.vstack([result.one_weights[None], result.head_weights])
    token = result.query_labels[result.row]
    title = fmt.say("heads_sum_weights", token=f"«{token}»", one=one, each=per_head)
    view.append(render.number_grid(title, labels, columns, weights, fmt, heat=True))
    view.append(render.lines(fmt.say("heads_sum_why", heads=heads)))
    return view
