"""How much memory a self-attention run needs, worked out before any of its arrays exists."""

from __future__ import annotations

from collections.abc import Mapping

from attncli.limits import check_fits
from attncli.messages import Message, _


def _attention_numbers(sizes: Mapping[str, int]) -> int:
    """A bound on the float64 numbers one self-attention run holds, backward pass included:
    X and its projections, the weights, and six T_q × T_k grids per head (or, computed in
    row blocks, two blocks of BLOCK_ROWS × T_k per head)."""
    from attncli.core.selfattn import BLOCK_ROWS

    t_q, t_k, heads = sizes["T_q"], sizes["tokens"], sizes["heads"]
    d_model, d_k, d_v = sizes["--d-model"], sizes["--d-k"], sizes["--d-v"]
    rows = (t_q + t_k) * (d_model + 2 * d_k + 2 * d_v)
    parameters = 2 * d_model * (d_k + d_v)
    grids = 6 * heads * t_q * t_k if sizes["grids"] else 2 * heads * min(t_q, BLOCK_ROWS) * t_k
    return 2 * (rows + parameters) + grids


def check_memory(
    t_q: int, t_k: int, d_model: int, d_k: int, d_v: int, heads: int, grids: bool = True
) -> None:
    """Refuse a run whose arrays would not fit, before any of them exists."""
    sizes = {
        "grids": int(grids),
        "tokens": t_k,
        "T_q": t_q,
        "--d-model": d_model,
        "--d-k": d_k,
        "--d-v": d_v,
        "heads": heads,
    }
    what = Message(
        _("{tokens} tokens with d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"),
        tokens=t_k,
        d_model=d_model,
        d_k=d_k,
        d_v=d_v,
    )
    hint = _(", or write only the output (--fields output): it is then computed in row blocks")
    check_fits(
        _attention_numbers,
        sizes,
        ("tokens", "--d-model", "--d-k", "--d-v"),
        what,
        names={"tokens": Message(_("the number of tokens"))},
        hint=Message(hint) if grids else "",
    )
