"""Which query may look at which key: a document's mask, torch's attn_mask and
key_padding_mask, and --valid-len, as one boolean grid in attn's one sense (True where a
query may look), and the additive bias of a float attn_mask."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError
from attncli.messages import Message, Setting, _
from attncli.reading.parse.json_text import JsonConstant
from attncli.reading.parse.values import check_length, shape_text

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
    `attn_mask` (torch's sense, reading/check/masks.py), each broadcast as torch broadcasts."""
    import numpy as np

    shape = scores_shape(t_q, t_k, heads, batch)
    grids: list[np.ndarray] = []  # True where a query may look, each fitted to `shape`
    biases: list[np.ndarray] = []
    if inputs.mask is not None:
        grids.append(fit_mask(mask_cells(inputs.mask), "mask", t_q, t_k, heads, batch))
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
    value: object, t_k: int, batch: int | None, heads: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """torch's key_padding_mask, [T_k] or [B, T_k], as (allowed, bias) that broadcast to
    the scores: a boolean one (or of 0s and 1s) is true for a padding key, masked for every
    query of its sequence; a float one is added to its key's column, as torch adds it
    (-inf or null: padding)."""
    import numpy as np

    field = "key_padding_mask"
    array = np.asarray(value) if hasattr(value, "dtype") else object_array(value, field)
    padding, added = None, None
    if _is_floats(array):
        added = checked_floats(_key_floats(array), "key_padding_mask")
    else:
        hint = Message(
            _(
                "true (or 1) for a padding key, false (or 0) for a real one, or floats added "
                "to the key's scores (0.0, -Infinity)"
            )
        )
        padding = booleans(array, "key_padding_mask", hint)
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
    if added is not None:
        padding = np.isneginf(added)
        shape = (*lead, 1, t_k)
        bias = np.where(padding, 0.0, added).reshape(shape)
        if padding.any():
            return ~padding.reshape(shape), (bias if bias.any() else None)
        return None, (bias if bias.any() else None)
    assert padding is not None
    return ~padding.reshape(*lead, 1, t_k), None


def _is_floats(array: np.ndarray) -> bool:
    """A float key_padding_mask: of a float dtype, or cells that are numbers other than 0
    and 1 (a float, -Infinity or null among them)."""
    if array.dtype.kind == "f":
        return True
    if array.dtype.kind != "O":
        return False
    cells = array.ravel().tolist()
    return any(
        cell is None
        or isinstance(cell, (float, JsonConstant))
        or (type(cell) is int and cell not in (0, 1))
        for cell in cells
    ) and not any(isinstance(cell, bool) for cell in cells)


def _key_floats(array: np.ndarray) -> np.ndarray:
    """A float key_padding_mask's numbers, -Infinity and null as -inf."""
    import numpy as np

    if array.dtype.kind == "f":
        return array.astype(np.float64)
    numbers = []
    for index, cell in enumerate(array.ravel().tolist()):
        if cell is None or (isinstance(cell, JsonConstant) and cell.literal == "-Infinity"):
            numbers.append(-np.inf)
        elif isinstance(cell, (int, float)):
            numbers.append(finite_cell(cell, array.shape, index, "key_padding_mask"))
        else:
            where = cell_text(np.unravel_index(index, array.shape))
            shown = cell.literal if isinstance(cell, JsonConstant) else f"{cell!r:.20}"
            raise InputError(
                _(
                    "key_padding_mask holds {shown} at {where}; a float key_padding_mask "
                    "holds numbers added to the key's scores (-Infinity or null for padding)"
                ),
                shown=shown,
                where=where,
            )
    return np.array(numbers, dtype=np.float64).reshape(array.shape)


def mask_cells(value: object) -> np.ndarray:
    """attn's own mask (1 or true = may look) as booleans: bool, 0/1 integers, or floats
    that are exactly 0.0 and 1.0 (np.tril(np.ones((T, T))) saved as is); anything else is
    refused, naming the first cell that is not."""
    import numpy as np

    hint = Message(
        _(
            "1 (or true) where a query may look at a key, 0 (or false) where not; numbers "
            "added to the scores go in attn_mask"
        )
    )
    array = np.asarray(value) if hasattr(value, "dtype") else object_array(value, "mask")
    return booleans(array, "mask", hint)


def booleans(array: np.ndarray, field: str, hint: Message) -> np.ndarray:
    """Booleans, or numbers that are exactly 0 and 1, as a boolean array of any shape;
    anything else is refused, naming the first cell that is not one and its value."""
    import numpy as np

    from attncli.reading.parse.json_text import kind_of

    if array.size == 0:
        raise ShapeError(_("{field} is empty; expected a grid of {hint}"), field=field, hint=hint)
    if array.ndim == 0:
        raise ShapeError(
            _("{field} is a single value; expected a grid of {hint}"), field=field, hint=hint
        )
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind in "iuf":
        bad = np.argwhere((array != 0) & (array != 1) | np.isnan(array.astype(np.float64)))
        if not bad.size:
            return array.astype(bool)
        index, cell = tuple(bad[0]), array[tuple(bad[0])].item()
        dtype = f" ({array.dtype})"
    elif array.dtype.kind == "O":
        cells = array.ravel().tolist()
        wrong = [i for i, cell in enumerate(cells) if not _zero_or_one(cell)]
        if not wrong:
            return np.array([bool(cell) for cell in cells], dtype=bool).reshape(array.shape)
        index, cell = np.unravel_index(wrong[0], array.shape), cells[wrong[0]]
        dtype = ""
    else:
        raise InputError(
            _("{field} holds {dtype}; expected {hint}"),
            field=field,
            dtype=str(array.dtype),
            hint=hint,
        )
    raise InputError(
        _("{field}: the cell at {where} is {kind}{dtype}; expected {hint}"),
        field=field,
        where=cell_text(tuple(index)),
        kind=kind_of(cell),
        dtype=dtype,
        hint=hint,
    )


def _zero_or_one(cell: object) -> bool:
    """true/false, or a number that is exactly 0 or 1 (0.0 and 1.0 too)."""
    return isinstance(cell, bool) or (isinstance(cell, (int, float)) and cell in (0, 1))


def bias_kv(inputs: LayerInputs, d_k: int, d_v: int) -> dict[str, np.ndarray]:
    """torch's add_bias_kv: bias_k (h·d_k numbers) and bias_v (h·d_v), the key and value
    rows appended after the projection; both or neither."""
    from attncli.reading.parse.values import to_vector

    given = [name for name in ("bias_k", "bias_v") if inputs.value(name) is not None]
    if not given:
        return {}
    if len(given) == 1:
        other = "bias_v" if given == ["bias_k"] else "bias_k"
        raise InputError(
            _(
                "{given} without {other}: torch's add_bias_kv appends a key row and a value "
                "row; give both"
            ),
            given=given[0],
            other=other,
        )
    found = {}
    for name, length in (("bias_k", d_k), ("bias_v", d_v)):
        row = to_vector(_one_row(inputs.value(name)), name)
        found[name] = check_length(row, name, length, "K" if name == "bias_k" else "V")
    return found


def _one_row(value: Any) -> Any:
    """torch's add_bias_kv row as it stores it, 1 × 1 × h·d (an array, or nested lists from
    tensor.tolist()), as its h·d numbers; any other shape as it is, for to_vector() to
    refuse if it is not a vector (a 2 × 2 bias flattened would be 4 numbers nobody meant)."""
    if hasattr(value, "shape"):
        return value.reshape(-1) if value.ndim > 1 and set(value.shape[:-1]) == {1} else value
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return value


def scores_shape(t_q: int, t_k: int, heads: int | None, batch: int | None) -> tuple[int, ...]:
    """The shape of the layer's scores: [B,] [h,] T_q, T_k."""
    lead = tuple(size for size in (batch, heads) if size is not None)
    return (*lead, t_q, t_k)


def cell_text(index: tuple[Any, ...]) -> str:
    """A cell as messages name it, counted from 1: (1, 2)."""
    return "(" + ", ".join(str(int(i) + 1) for i in index) + ")"


def attn_mask_cells(
    value: Any, t_q: int, t_k: int, heads: int | None, batch: int | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(allowed, bias), each T_q × T_k or of the scores' whole shape, or None: True where a
    query may look, and what is added to the scores where it may."""
    import numpy as np

    array, boolean = _attn_mask_array(value)
    fitted = fit_mask(array, "attn_mask", t_q, t_k, heads, batch)
    if boolean:
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


def _attn_mask_array(value: Any) -> tuple[np.ndarray, bool]:
    """The mask as booleans (torch's bool attn_mask) or as float64 with -inf; refused when
    it is neither, or when 0s and 1s leave its sense unclear."""
    import numpy as np

    if hasattr(value, "dtype") and hasattr(value, "ndim"):
        array = np.asarray(value)
        if array.dtype.kind == "b":
            return _ranked(array), True
        if array.dtype.kind == "f":
            return checked_floats(_ranked(array).astype(np.float64), "attn_mask"), False
        raise InputError(
            _(
                "attn_mask holds {dtype}; torch takes a bool attn_mask (True = may not look) "
                "or a float one (added to the scores): save it as one of the two"
            ),
            dtype=str(array.dtype),
        )
    array = _ranked(object_array(value, "attn_mask"))
    cells = array.ravel().tolist()
    if all(isinstance(cell, bool) for cell in cells):
        return array.astype(bool), True
    numbers = []
    for index, cell in enumerate(cells):
        if cell is None or (isinstance(cell, JsonConstant) and cell.literal == "-Infinity"):
            numbers.append(-np.inf)
        elif isinstance(cell, (int, float)) and not isinstance(cell, bool):
            numbers.append(finite_cell(cell, array.shape, index, "attn_mask"))
        else:
            where = cell_text(np.unravel_index(index, array.shape))
            raise InputError(
                _(
                    "attn_mask holds {cell!r:.20} at {where}; expected all true/false "
                    "(torch's bool mask, true = may not look) or all numbers (added to the "
                    "scores, -Infinity or null where a query may not look)"
                ),
                cell=cell,
                where=where,
            )
    if all(type(cell) is int for cell in cells) and set(cells) == {0}:
        raise InputError(
            _(
                "attn_mask of integer 0s only is ambiguous: in torch's senses (false, or 0.0 "
                "added) every query may look at every key, in mask's and transformers' "
                "attention_mask's (1 = may look) none may; write false or 0.0 for torch's "
                "sense, or leave attn_mask out"
            ),
        )
    if all(type(cell) is int and cell in (0, 1) for cell in cells):
        raise InputError(
            _(
                "attn_mask of integer 0s and 1s is ambiguous: 1 is may NOT look in torch's "
                "bool mask, may look in mask and transformers' attention_mask, and 1 added "
                "to the score as a float; write true/false for torch's bool sense, 0.0 and "
                "-Infinity for an additive mask, or give it as mask (1 = may look)"
            ),
        )
    return checked_floats(np.array(numbers, dtype=np.float64).reshape(array.shape),
                          "attn_mask"), False  # fmt: skip


def object_array(value: Any, field: str) -> np.ndarray:
    """Nested lists as an array of their cells, unchanged; ragged rows are refused."""
    import numpy as np

    try:
        array = np.array(value, dtype=object)
        if not any(isinstance(cell, list) for cell in array.ravel().tolist()):
            return array
    except ValueError:  # ragged rows
        pass
    raise ShapeError(
        _("{field} has rows of different lengths; each row needs a cell per key"),
        field=field,
    ) from None


def finite_cell(cell: float, shape: tuple[int, ...], index: int, field: str) -> float:
    """A number of a document's mask: ±inf there is a number past float64 (-1e400), which
    is refused; -Infinity and null are how a document writes -inf."""
    import math

    number = float(cell) if abs(cell) < 1e308 or isinstance(cell, float) else math.inf
    if math.isinf(number):
        import numpy as np

        where = cell_text(np.unravel_index(index, shape))
        raise InputError(
            _(
                "{field}: the number at {where} is past float64 (as -1e400 is); write "
                "-Infinity or null (None in Python) where a query may not look, or a finite "
                "number"
            ),
            field=field,
            where=where,
        )
    return number


def _ranked(array: np.ndarray) -> np.ndarray:
    """A mask of one axis or more, not empty (fit_mask says which shapes fit)."""
    if array.size == 0:
        raise ShapeError(
            _(
                "attn_mask is empty; expected a grid T_q × T_k (or any shape that broadcasts "
                "to the scores, B × h × T_q × T_k) of true/false or of numbers"
            ),
        )
    if array.ndim == 0:
        raise ShapeError(
            _(
                "attn_mask is a single value; expected a grid T_q × T_k (or any shape that "
                "broadcasts to the scores, B × h × T_q × T_k) of true/false or of numbers"
            ),
        )
    return array


def checked_floats(array: np.ndarray, field: str) -> np.ndarray:
    """-inf is a cell a query may not look at; NaN and +inf are refused, naming the cell."""
    import numpy as np

    bad = np.argwhere(np.isnan(array) | np.isposinf(array))
    if bad.size:
        where = cell_text(tuple(bad[0]))
        raise InputError(
            _("{field}: the number at {where} is {value}; expected a finite number or -inf"),
            field=field,
            where=where,
            value=array[tuple(bad[0])],
        )
    return array
