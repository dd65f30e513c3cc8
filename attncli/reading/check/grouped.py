"""Grouped-query and multi-query heads (--kv-heads G with --heads H): G key/value heads,
each read by H/G query heads. What the layer's inputs must then be: W^K and W^V of G heads'
columns, and nothing that attn would group wrongly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import OptionError
from attncli.messages import Setting, _

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings


def check_grouping(settings: SelfAttnSettings) -> None:
    """--kv-heads G needs --heads H that G divides; the projections it groups (W^K, W^V) and
    no key or value bias beside it, held with the fields the layer does not use
    (fields.UNUSED); its backward pass with the others' (scoring.without_backward)."""
    kv, heads = settings.kv_heads, settings.heads
    if kv is None:
        return
    assert heads is not None  # its declaration needs them (settings.check_needs)
    if kv < 1 or heads % kv:
        divisors = [g for g in range(1, heads + 1) if heads % g == 0]
        raise OptionError(
            _(
                "{kv_heads}: each key/value head is read by the same number of query heads, so "
                "the key/value heads must divide {heads}: one of {divisors}"
            ),
            kv_heads=Setting("kv_heads", kv),
            heads=Setting("heads", heads),
            divisors=", ".join(map(str, divisors)),
        )


def grouped_shapes(
    shapes: dict[str, tuple[int, int]], heads: int, kv_heads: int
) -> dict[str, tuple[int, int]]:
    """W^K and W^V with G heads' columns of H's: (rows, columns / H · G)."""
    grouped = dict(shapes)
    for name in ("w_k", "w_v"):
        rows, columns = shapes[name]
        grouped[name] = (rows, columns // heads * kv_heads)
    return grouped
