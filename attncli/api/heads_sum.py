"""Several heads, one score (attn selfattn --heads N --heads-sum): a head's Q_h K_hᵀ sums its
own d_k of the products q · k adds up, so the heads' products add up to the one-head grid
Q Kᵀ of the same W^Q and W^K; what several heads change is where the softmax normalises,
each head over its own part instead of one over the whole."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import keywords
from attncli.core.selfattn import head_products
from attncli.messages import OnSurface, Setting, _
from attncli.results.rows import pick_row

if TYPE_CHECKING:
    from attncli.results.heads_sum import HeadsSum
    from attncli.results.selfattn import SelfAttnResult

HEADS_SUM = OnSurface("--heads-sum", "heads_sum()")


@keywords()
def heads_sum(result: SelfAttnResult, row: int | None = None, token: str | None = None) -> HeadsSum:
    """The heads of a seeded or given layer against one head of the same W: each head's
    products Q_h K_hᵀ, their sum, the one-head layer's Q Kᵀ (run again with every column
    of W^Q and W^K in one head) and, for one row (`row`, 1-based, or `token`; the last by
    default), its weights as one head and as each head normalises them.

    >>> import attncli as attn
    >>> s = heads_sum(attn.selfattn("el tren va lleno", heads=2))
    >>> s.products.shape, bool(s.difference < 1e-12)
    ((2, 4, 4), True)
    """
    from attncli.api.inference import plain_layer
    from attncli.api.selfattn import selfattn
    from attncli.results.heads_sum import HeadsSum

    heads = result.heads
    own = [
        (heads is None or heads < 2 or not result.projections,
         _("{option} adds up several heads' scores; give {heads}")),
        (result.kv_heads is not None,
         _("{option} holds each head's W^K columns against one head's; grouped heads share "
           "them, leave out {kv_heads}")),
        (not result.grids,  # a layer asked for its output alone kept no grid
         _("{option} reads every head's grid; run the layer with {grids}")),
    ]  # fmt: skip
    # and what every replay refuses: QK-norm, a softcap or sinks change each head's scores
    plain_layer(result, HEADS_SUM, own, heads=Setting("heads", 2), kv_heads=Setting("kv_heads"),
                grids=Setting("grids", True))  # fmt: skip
    attention = result.attention
    products = head_products(attention.queries, attention.keys)  # [h, T, T]
    given: dict[str, Any] = {
        name: value for name, value in result.projections.items() if name != "w_o"
    }
    d_k = int(attention.queries.shape[-1])
    # the same division as the heads': √ of the columns, or the number given, or none
    root = math.isclose(result.divisor, math.sqrt(d_k), rel_tol=1e-12)
    scale = (True if root else float(result.divisor)) if result.scale else False
    one = selfattn(x=result.x, tokens=list(result.tokens), causal=result.causal, scale=scale,
                   **given)  # fmt: skip
    index = pick_row(result.query_labels, row, token)
    return HeadsSum(
        tokens=tuple(result.tokens),
        query_labels=tuple(result.query_labels),
        products=products,
        summed=products.sum(axis=0),
        one_head=head_products(one.attention.queries[None], one.attention.keys[None])[0],
        row=index,
        one_weights=np.asarray(one.attention.weights[index]),
        head_weights=np.asarray(attention.weights[:, index]),
        one_divisor=float(one.divisor),
        head_divisor=float(result.divisor),
        d_k=d_k,
        seed=result.seed if result.drawn else None,
    )
