"""Which query may look at which key: a document's mask, torch's attn_mask and
key_padding_mask, and --valid-len, as one boolean grid in attn's one sense (True where a
query may look), and the additive bias of a float attn_mask."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import InputError, ShapeError, shape_text
from attncli.messages import Message, Setting, _

if TYPE_CHECKING:
    import numpy as np

    from attncli.reading.parse.layer_inputs import LayerInputs


# Names of masks that attn selfattn does not read by that name, each with how to give it.
# transformers' attention_mask is 1 = attend, the opposite of torch's boolean attn_mask and
# the same sense as attn's `mask`; it is refused rather than read: the tokenizer's is
# B × T_k (a row per sequence, a column per key), which read as `mask` would broadcast as
# T_q × T_k (silently wrong where B = T_q), and a 4-D one may already be additive (0 and the
# dtype's minimum), so the name alone does not tell its sense.
OTHER_MASKS = {
    "attention_mask": Message(
        _(
            "transformers' attention_mask is 1 = attend (torch's boolean attn_mask is the "
            "opposite), so attn reads it only as mask, the same sense: give the tokenizer's "
            "B × T_k one as mask of B × 1 × 1 × T_k (a T_q × T_k grid as it is), or 1 − it as "
            "key_padding_mask"
        )
    ),
}


def layer_masks(
    inputs: LayerInputs,
    t_q: int,
    t_k: int,
    valid_len: int | None,
    batch: int | None,
    heads: int | None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(allowed, bias) for the attention layer: True where query i may look at key j, and
    what is added to the scores before the softmax (None when nothing is). allowed is
    T_q × T_k or, when a mask differs by sequence or head, of the scores' shape
    ([B,] [h,] T_q, T_k); bias is of the scores' shape.

    From the input's `mask` (attn's sense: 1 or true = may look), --valid-len (the keys
    from that count on are padding, as d2l's masked_softmax), `key_padding_mask` (torch's:
    true or 1 = padding; a float one is added to its key's column, -inf = padding) and
    `attn_mask` (torch's sense, read by reading/parse/masks.py), each broadcast as torch
    broadcasts."""
    import numpy as np

    shape = scores_shape(t_q, t_k, heads, batch)
    grids: list[np.ndarray] = []  # True where a query may look, each fitted to `shape`
    biases: list[np.ndarray] = []
    if inputs.mask is not None:
        grids.append(fit_mask(inputs.mask, "mask", t_q, t_k, heads, batch))
    if valid_len is not None:
        if not 1 <= valid_len <= t_k:
            raise InputError(
                _("{valid_len} is out of range: there are {t_k} keys (1 to {t_k})"),
                valid_len=Setting("valid_len", valid_len),
                t_k=t_k,
            )
        real = np.ones((t_q, t_k), dtype=bool)
        real[:, valid_len:] = False
        grids.append(real)
    if inputs.key_padding_mask is not None:
        padded, added = _key_padding(inputs.key_padding_mask, t_k, batch, heads)
        grids += [] if padded is None else [padded]
        biases += [] if added is None else [added]
    if inputs.attn_mask is not None:
        torch_allowed, bias = attn_mask_cells(inputs.attn_mask, t_q, t_k, heads, batch)
        grids += [] if torch_allowed is None else [torch_allowed]
        biases += [] if bias is None else [bias]
    allowed = None
    for grid in grids:
        allowed = grid if allowed is None else allowed & grid
    if allowed is not None:
        whole = shape if allowed.ndim > 2 else (t_q, t_k)
        allowed = np.ascontiguousarray(np.broadcast_to(allowed, whole))
    if not biases:
        return allowed, None
    total = np.zeros(shape)
    for bias in biases:
        total = total + bias
    return allowed, (total if total.any() else None)


def _key_padding(
    array: np.ndarray, t_k: int, batch: int | None, heads: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """torch's key_padding_mask (reading/parse/masks.read_key_padding_mask), [T_k] or
    [B, T_k], as (allowed, bias) that broadcast to the scores: a boolean one is true for a
    padding key, masked for every query of its sequence; a float one is added to its key's
    column, as torch adds it (-inf: padding)."""
    import numpy as np

    found = array.shape
    expected = (t_k,) if len(found) == 1 else (batch or 1, t_k)
    if found != expected or len(found) not in (1, 2) or (len(found) == 2 and batch is None):
        shapes = f"{t_k}" + (f" or {batch} × {t_k}" if batch else "")
        raise ShapeError(
            _(
                "key_padding_mask is {shape} but must be {expected} (a number per key, a row "
                "per sequence of a batch)"
            ),
            shape=shape_text(found),
            expected=shapes,
        )
    # [T_k] -> [1, T_k]; [B, T_k] -> [B, (1,) 1, T_k], against [B, (h,) T_q, T_k]
    lead = () if len(found) == 1 else (found[0],) + ((1,) if heads is not None else ())
    if array.dtype.kind == "f":
        padding = np.isneginf(array)
        shape = (*lead, 1, t_k)
        bias = np.where(padding, 0.0, array).reshape(shape)
        if padding.any():
            return ~padding.reshape(shape), (bias if bias.any() else None)
        return None, (bias if bias.any() else None)
    return ~array.reshape(*lead, 1, t_k), None


def scores_shape(t_q: int, t_k: int, heads: int | None, batch: int | None) -> tuple[int, ...]:
    """The shape of the layer's scores: [B,] [h,] T_q, T_k."""
    lead = tuple(size for size in (batch, heads) if size is not None)
    return (*lead, t_q, t_k)


def attn_mask_cells(
    array: np.ndarray, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """torch's attn_mask (reading/parse/masks.read_attn_mask: booleans, True where a query
    may not look, or floats added to the scores) as (allowed, bias), each T_q × T_k or of
    the scores' whole shape, or None: True where a query may look, and what is added to the
    scores where it may."""
    import numpy as np

    fitted = fit_mask(array, "attn_mask", t_q, t_k, heads, batch)
    if array.dtype.kind == "b":
        allowed = ~fitted
        return (None if allowed.all() else allowed), None
    allowed = ~np.isneginf(fitted)
    bias = np.where(allowed, fitted, 0.0)
    return (None if allowed.all() else allowed), (None if not bias.any() else bias)


def fit_mask(
    array: np.ndarray, field: str, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> np.ndarray:
    """A mask broadcast as torch broadcasts it: to T_q × T_k when it has at most two axes,
    else to the scores' whole shape ([B,] [h,] T_q, T_k); a 3-D mask of B·h grids on a
    batch with heads is nn.MultiheadAttention's, one per sequence and head. Any other shape
    is refused in one line naming the shapes it may have."""
    import numpy as np

    shape = scores_shape(t_q, t_k, heads, batch)
    # a mask of more axes than the scores: the axes the scores lack must be 1
    whole = (batch or 1, heads or 1, t_q, t_k)
    if array.ndim == 3 and batch and heads and batch > 1 and array.shape[0] == batch * heads:
        array = array.reshape(batch, heads, *array.shape[1:])  # nn.MultiheadAttention's
    target = shape if array.ndim <= len(shape) else whole
    fits = 1 <= array.ndim <= len(target) and all(
        size in (1, wanted) for size, wanted in zip(array.shape[::-1], target[::-1], strict=False)
    )
    if fits and array.ndim <= 2:
        return np.ascontiguousarray(np.broadcast_to(array, (t_q, t_k)))
    if fits:
        return np.ascontiguousarray(np.broadcast_to(array, target).reshape(shape))
    raise _refused_shape(array.shape, field, t_q, t_k, heads, batch)


def _refused_shape(
    given: tuple[int, ...], field: str, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> ShapeError:
    """The one line for a mask that does not broadcast to the scores."""
    shape = scores_shape(t_q, t_k, heads, batch)
    names = " × ".join(
        name for name, size in (("B", batch), ("h", heads), ("T_q", 1), ("T_k", 1)) if size
    )
    examples = [f"{t_q} × {t_k}", f"1 × {t_k}", f"{t_q} × 1"]
    if heads is not None:
        examples.append(f"{heads} × {t_q} × {t_k}")
    if batch is not None:
        examples.append(f"{batch} × 1 × 1 × {t_k}")
    if batch is not None and heads is not None:  # a grid per sequence, for every head
        examples.append(f"{batch} × 1 × {t_q} × {t_k}")
    if batch is not None and heads is not None and batch > 1:
        examples.append(f"{batch * heads} × {t_q} × {t_k}")
    listed = ", ".join(examples)
    return ShapeError(
        _(
            "{field} is {shape} but must broadcast to the scores, {scores} ({names}), as "
            "torch broadcasts: counted from the right, each axis of that size or 1 (e.g. "
            "{listed})"
        ),
        field=field,
        shape=shape_text(given),
        scores=shape_text(shape),
        names=names,
        listed=listed,
    )
