"""The sizes of attn selfattn's projections (h·d_k and h·d_v, from the options or the given
matrices) and what a projection of the wrong shape is told: the sizes per head, as the
header says them, or the layer's keys and values of widths of their own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError
from attncli.limits import check_fits
from attncli.messages import Message, Setting, _

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs


def split_evenly(name: str, columns: int, heads: int) -> int:
    """The columns of `name` (W^Q, W^V, or queries and values given directly), which the
    heads take an equal share of: a number they do not divide is refused."""
    if columns % heads:
        raise ShapeError(
            _("{name} has {columns} columns, which {heads} cannot split evenly (each head "
              "takes the same number)"),
            name=name,
            columns=columns,
            heads=Setting("heads", heads),
        )  # fmt: skip
    return columns


def projection_sizes(
    inputs: LayerInputs, settings: SelfAttnSettings, d_model: int
) -> tuple[int, int]:
    """The columns of W^Q (and W^K) and of W^V: h·d_k and h·d_v with --heads h (each head
    d_model / h unless --d-k/--d-v give the size per head), else d_k and d_v; from the
    options, else the given matrices, else d_model."""
    heads = settings.heads or 1
    totals = []
    for option, given_name in (("d_k", "w_q"), ("d_v", "w_v")):
        chosen = getattr(settings, option)
        given = inputs.value(given_name)
        columns = None if given is None else int(given.shape[1])
        if columns is not None and given_name == "w_v" and settings.kv_heads and settings.heads:
            columns = columns * settings.heads // settings.kv_heads  # W^V holds G heads of H
        if chosen is not None:
            totals.append(heads * chosen)
        elif columns is not None:
            totals.append(split_evenly(given_name, columns, heads))
        elif d_model % heads:
            divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
            raise InputError(
                _(
                    "{heads} does not divide d_model = {d_model}; each head gets "
                    "d_model / h columns, so h must be one of {divisors} (or give {d_k} and "
                    "{d_v}, the sizes per head)"
                ),
                heads=Setting("heads", heads),
                d_k=Setting("d_k"),
                d_v=Setting("d_v"),
                d_model=d_model,
                divisors=str(divisors),
            )
        else:
            totals.append(d_model)
    return totals[0], totals[1]


def _attention_numbers(sizes: Mapping[str, int]) -> int:
    """A bound on the float64 numbers one self-attention run holds, backward pass included:
    X and its projections, the weights, and six T_q × T_k grids per head (or, computed in
    row blocks, two blocks of BLOCK_ROWS × T_k per head: the blocks below LONG_CELLS, and
    more than the long path's tiles above it hold, so a bound for both)."""
    from attncli.core.long_inputs import BLOCK_ROWS

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
    hint = Message(
        _(", or write only the output ({only}): it is then computed in row blocks"),
        only=Setting("grids", False, "--fields output"),
    )
    named = {
        option: Setting(option[2:].replace("-", "_")) for option in ("--d-model", "--d-k", "--d-v")
    }
    check_fits(
        _attention_numbers,
        sizes,
        ("tokens", "--d-model", "--d-k", "--d-v"),
        what,
        names={"tokens": Message(_("the number of tokens")), **named},
        hint=hint if grids else "",
    )
