"""A result of attn selfattn read back as its input (`attn selfattn ... | attn selfattn`): it
is computed again from its inputs, and the outputs it wrote down must be what that gives,
or one line says which differs (a result changed after attn wrote it, or computed with an
option it does not write down, would otherwise give other numbers silently). What masked
it is written down as `mask` (attn's sense) and, for an added bias, a float `attn_mask`
(results/selfattn.py), and read back as the inputs they are.

A result computed from X holds X, its projections and, as outputs, the queries, keys and
values (of one head, or h × T × d per head); a result of queries, keys and values given
directly holds them as its inputs, h × T × d each with heads (joined again here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError, shape_text
from attncli.messages import Message, Setting, _
from attncli.reading.parse.layer_inputs import DIRECT, LATENT_PROJECTIONS
from attncli.reading.parse.values import is_batch, kind_of, to_batch

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    from attncli.reading.parse.layer_inputs import LayerInputs

# The outputs a result writes that are checked against the recomputation, in this order.
# The scores last: a mask left out changes the weights too, which say it more plainly.
CHECKED = (
    "queries",
    "keys",
    "values",
    "weights",
    "concat",
    "output",
    "raw_scores",
    "scores",
    "latent",
    *LATENT_PROJECTIONS,
    "rotary_key",
)  # a latent layer's c_KV, its drawn W and its rotary key too


def read_back_inputs(inputs: LayerInputs, heads: int | None) -> tuple[LayerInputs, dict[str, Any]]:
    """The inputs to compute a result read back from, and the outputs it wrote down, to be
    held against the recomputation (check_outputs). Anything else: as it is, nothing."""
    result = inputs.written
    if not inputs.read_back or result.get("heads", heads) != heads:
        return inputs, {}  # other heads: refused by the settings' check (check_read_back)
    if inputs.from_x:
        # computed from X: its queries, keys and values are outputs, computed again
        found = {**{name: inputs.value(name) for name in DIRECT}, **result}
        written = {name: found[name] for name in CHECKED if found.get(name) is not None}
        return inputs.but(queries=None, keys=None, values=None), written
    # given directly: the queries, keys and values are the inputs, not checked (the scores
    # they give are)
    written = {name: result[name] for name in CHECKED if result.get(name) is not None}
    if heads is None:
        return inputs, written
    joined = {name: _joined(inputs.value(name), name, heads)
              for name in DIRECT if inputs.value(name) is not None}  # fmt: skip
    return inputs.but(**joined), written


def _joined(value: Any, name: str, heads: int) -> np.ndarray:
    """A result's h × T × d block per head (B × h × T × d for a batch), side by side again:
    T × h·d (B × T × h·d), as the queries, keys and values were given."""
    import numpy as np

    from attncli.core.selfattn import join_heads

    deep = (hasattr(value, "ndim") and value.ndim == 4) or (
        isinstance(value, list) and bool(value) and is_batch(value[0])
    )
    if deep:
        blocks = np.stack([to_batch(item, name) for item in value])
    elif is_batch(value):
        blocks = to_batch(value, name)
    else:
        blocks = np.asarray(value, dtype=object)
    if blocks.ndim not in (3, 4) or blocks.shape[-3] != heads:
        raise ShapeError(
            _(
                "{name} is {shape}, but a result of {setting} holds {heads} × T × d of them, one "
                "block per head (B × {heads} × T × d for a batch)"
            ),
            name=name,
            shape=shape_text(blocks.shape) if blocks.ndim else kind_of(value),
            setting=Setting("heads", heads),
            heads=heads,
        )
    return join_heads(blocks)


def check_outputs(
    written: Mapping[str, Any],
    computed: Mapping[str, np.ndarray | None],
    dtype: str,
    fix: Message | None = None,
) -> None:
    """Refuse, in one line, the first output written down that the recomputation does not
    give (to 1e-9 relative in float64, 1e-5 in float32: the last digits of another machine
    may differ); an output not computed now (the grids, with --fields output) is not held."""
    import numpy as np

    tolerance = 1e-9 if dtype == "float64" else 1e-5
    for name, value in written.items():
        again = computed.get(name)
        if again is None or again.size == 0:
            continue
        try:
            given = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            given = None
        if given is None or given.shape != again.shape:
            found: Message | str = Message(_("not an array of numbers"))
            if isinstance(value, (str, bool, int, float)) or value is None:
                found = kind_of(value)  # a single number or a text says what it is
            elif given is not None:
                found = shape_text(given.shape)
            raise ShapeError(
                _(
                    "{name}: the input is a result whose {name} is {found}, but its inputs "
                    "give {expected}; {fix}"
                ),
                name=name,
                found=found,
                expected=shape_text(again.shape),
                fix=fix or _FIX,
            )
        # a masked score is -inf, written down as null (read as nan here)
        again = np.where(np.isneginf(again) & np.isnan(given), np.nan, again)
        finite = np.isfinite(again)
        scale = max(1.0, float(np.max(np.abs(again[finite]), initial=0.0)))
        with np.errstate(invalid="ignore"):
            off = np.abs(given - again) > tolerance * scale
        off |= np.isnan(given) != np.isnan(again)
        if not off.any():
            continue
        where = tuple(int(i) for i in np.argwhere(off)[0])
        place = ", ".join(str(i + 1) for i in where)  # counted from 1, as rows are
        raise InputError(
            _(
                "{name}: the input is a result whose {name} at [{place}] is {written:.6g}, "
                "but its inputs give {computed:.6g}; {fix}"
            ),
            name=name,
            place=place,
            written=float(given[where]),
            computed=float(again[where]),
            fix=fix or _FIX,
        )


_FIX = Message(
    _(
        "it was changed after attn wrote it (its mask or attn_mask too), or computed with an "
        "option that it does not write down (give that again); to compute from changed "
        "inputs, give only the inputs (x, w_q, …)"
    )
)
