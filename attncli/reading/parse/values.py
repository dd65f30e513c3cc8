"""JSON values and option text to float64 arrays, checked, with the position of any fault.

Every check happens here, once, and fails with an InputError or ShapeError that names
the field, the row and what was expected. What leaves this module is well-formed:
finite float64 arrays (-inf only where a masked score is allowed) of agreeing shapes.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from attncli.errors import LARGEST_WHOLE, InputError, ShapeError, count, shape_text
from attncli.messages import Message, Setting, _
from attncli.reading.parse.json_text import JsonConstant, valid_text

if TYPE_CHECKING:
    import numpy as np

Document = dict[str, Any]
# A field as a message names it: its name (keys), or the option that typed it (--keys)
Named = str | Setting

# A value that is not what its place takes, said one way by every reader of values:
# `keys: row 2, item 1 is "a" (a string); expected a number`.
WRONG = _("{where} is {kind}; expected {expected}")
# A place that holds nothing, and what it should hold: `keys is empty; expected at least
# one row`.
EMPTY = _("{where} is empty; expected {expected}")
# An array whose dtype holds no values of the kind its place takes: `x holds <U1;
# expected numbers (int or float)`.
HOLDS = _("{field} holds {dtype}; expected {expected}")
AT_LEAST_ONE_NUMBER = _("at least one number")


class GivenDocument(dict[str, Any]):
    """A document with the fields that the command line's options typed laid over it, so
    that a message names each field as it was given: `--keys` for one typed with its
    option, `keys` for one a file or the command before gave."""

    typed: frozenset[str] = frozenset()


def typed_fields(document: Document) -> frozenset[str]:
    """The fields of `document` that options typed (none for a document alone)."""
    return getattr(document, "typed", frozenset())


class FiniteDocument(GivenDocument):
    """A document the strict reader (orjson) read whole: every number in it is a finite
    float or an integer within 64 bits, since that reader refuses NaN, Infinity and numbers
    past float64. A field carried forward unread (attn softmax's keys and values) can then be
    written again as it came, without a pass over its numbers: none of them can come out as
    null. The command that reads the field checks it, as it checks any field."""


def kind_of(value: Any) -> Message:
    """How a value (read from JSON, or given in Python) reads to a user, for error
    messages (said in the message's language): `"abc" (a string)`, `a list`, `3.0`."""
    if isinstance(value, bool):
        return Message(_("{value} (a boolean)"), value=str(value).lower())
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return Message(_("{value} (a string)"), value=json.dumps(shown))
    if isinstance(value, list):
        return Message(_("a list"))
    if isinstance(value, dict):
        return Message(_("an object"))
    if value is None:
        return Message(_("null"))
    return Message(
        "{value}", value=value.literal if isinstance(value, JsonConstant) else repr(value)
    )


def json_object(value: Any, source: str, takes: Message) -> dict[str, Any]:
    """A JSON file's value where an object of named fields goes (an input document, a
    weight file): anything else is refused in the WRONG template, with what the file
    `takes`."""
    if not isinstance(value, dict):
        raise InputError(WRONG, where=source, kind=kind_of(value), expected=takes)
    return value


def whole_number(text: str, least: int = 0, most: int = LARGEST_WHOLE) -> int | None:
    """`text` as a whole number from `least` to `most`, written in the digits 0 to 9 (a
    minus sign before them when `least` allows it), or None. The one reader of whole numbers
    in text attn reads itself (an answer sheet's seed, a position in --want, --tiles): a
    superscript «³» (which str.isdigit takes and int() refuses), another script's digits,
    5,000 digits (past int()'s limit) and values past 2^63 − 1 are refused alike."""
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(most)) + 1:
        return None
    value = int(text)
    return value if least <= value <= most else None


def parse_tokens(value: Any, source: str = "tokens") -> list[str]:
    """Token labels: a JSON list of strings, or 'a,b,c' from an option."""
    if isinstance(value, str):
        value = [valid_text(part.strip()) for part in value.split(",")]
    tokens = value if isinstance(value, list) and value else [value]
    wrong = next((i for i, token in enumerate(tokens, 1) if not isinstance(token, str)), None)
    if wrong is not None:
        whole = tokens is not value  # not a list, or an empty one
        raise InputError(
            WRONG,
            where=source if whole else _where(source, None, wrong),
            kind=kind_of(value if whole else tokens[wrong - 1]),
            expected=Message(_("a non-empty list of token names") if whole else _("a string")),
        )
    return list(value)


def _where(field: Named, row: int | None, item: int | None) -> Message | Named:
    """'keys: row 2, item 1', said in the message's language."""
    if row is not None and item is not None:
        return Message(_("{field}: row {row}, item {item}"), field=field, row=row, item=item)
    if row is not None:
        return Message(_("{field}: row {row}"), field=field, row=row)
    if item is not None:
        return Message(_("{field}, item {item}"), field=field, item=item)
    return field


# What a cell of numbers takes, by (whether the value it holds was a number, whether a
# masked cell may be written there as null or -Infinity).
EXPECTED_NUMBER = {
    (False, False): _("a number"),
    (True, False): _("a finite number"),
    (False, True): _("a number (null or -Infinity marks a masked cell)"),
    (True, True): _("a finite number (null or -Infinity marks a masked cell)"),
}
TOO_LARGE = _("a number too large for a 64-bit float (overflow; at most about 1.8e308)")


def _number(value: Any, where: Message | Named, allow_masked: bool) -> float:
    """One validated JSON number; null or -Infinity mean a masked cell where allowed."""
    if allow_masked and (value is None or _minus_infinity(value)):
        return -math.inf
    numeric = isinstance(value, (int, float, JsonConstant)) and not isinstance(value, bool)
    number = math.nan
    if numeric and not isinstance(value, JsonConstant):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number) or (number == -math.inf and allow_masked):
            return number
    if isinstance(value, JsonConstant):
        kind: Any = value.literal
    elif isinstance(value, list):
        kind = Message(_("a list, nested too deep"))
    elif not numeric:
        kind = kind_of(value)
    elif math.isnan(number):  # Python's float("nan") (JSON writes NaN)
        kind = "NaN"
    else:  # past float64: 1e999
        kind = Message(TOO_LARGE)
    expected = Message(EXPECTED_NUMBER[numeric, allow_masked])
    raise InputError(WRONG, where=where, kind=kind, expected=expected)


def _minus_infinity(value: Any) -> bool:
    """JSON's -Infinity literal, which marks a masked cell where one is allowed."""
    return isinstance(value, JsonConstant) and value.literal == "-Infinity"


def _vector_values(value: Any, field: Named, row: int | None, allow_masked: bool) -> list[float]:
    where = _where(field, row, None)
    _rank(value, where, 1, row is not None)
    return [
        _number(item, _where(field, row, position), allow_masked)
        for position, item in enumerate(value, 1)
    ]


# What a place of each rank takes: a value of another rank is refused in these words
# wherever numbers are read (_rank), and an empty one as holding too few numbers, or rows.
RANKS = {
    1: _("one vector such as [1, 0]"),
    2: _("a matrix, a row per token, such as [[2, 1], [0, 2]]"),
    3: _("a batch of matrices, such as [[[2, 1], [0, 2]]]"),
}
A_ROW = _("a row of numbers")  # a matrix's row
# What a list too shallow for its place is (a vector where a matrix goes), or too deep.
SHALLOW = {1: _("a single row (wrap it in [ ] for a matrix of one row)"), 2: _("a matrix")}


def _depth(value: Any) -> int:
    """How deep lists nest, by their first items: 0 for a number, 1 for [1, 0] (and []), 2
    for [[2, 1]] (and [[]]), 3 for a batch of matrices."""
    depth = 0
    while isinstance(value, list):
        depth, value = depth + 1, value[0] if value else None
    return depth


def _rank(value: Any, where: Message | Named, ndim: int, row: bool = False) -> None:
    """`value` (nested lists, or an array) is of the rank `ndim` its place takes (`row`: a
    matrix's row) and holds a number. A list deeper than its place is refused only where a
    vector goes: in a matrix's row, the number it holds says `a list, nested too deep`."""
    takes = A_ROW if row else RANKS[ndim]
    depth = _depth(value)
    array = _is_array(value)
    if array:
        depth, kind = value.ndim, Message(_("an array of shape {shape}"), shape=value.shape)
    else:
        kind = Message(SHALLOW[depth]) if depth in SHALLOW and depth != ndim else kind_of(value)
    if (array and depth == ndim and value.size == 0) or (not array and value == []):
        least = _("at least one row") if ndim == 2 and not array else AT_LEAST_ONE_NUMBER
        raise InputError(EMPTY, where=where, expected=Message(least))
    if depth < ndim or (depth > ndim and (array or (ndim == 1 and not row))):
        raise InputError(WRONG, where=where, kind=kind, expected=Message(takes))


def cell_text(index: tuple[Any, ...]) -> str:
    """A cell as messages name it, counted from 1: (1, 2)."""
    return "(" + ", ".join(str(int(i) + 1) for i in index) + ")"


def number_at(field: Named, index: tuple[Any, ...]) -> Message:
    """'keys: the number at (1, 2)', where an array of numbers holds one it should not."""
    return Message(_("{field}: the number at {cell}"), field=field, cell=cell_text(index))


def check_dtype(array: np.ndarray, field: Named, kinds: str, expected: Message) -> None:
    """An array holds values of one of the dtype `kinds` its place takes (numpy's kind
    letters: b bool, i int, f float…): another dtype is refused, with what it takes. Said
    once for the numbers of an input field and for a mask's cells."""
    if array.dtype.kind not in kinds:
        raise InputError(HOLDS, field=field, dtype=str(array.dtype), expected=expected)


def _checked_array(value: Any, field: Named, ndim: int, allow_masked: bool = False) -> np.ndarray:
    """An array (from .npy/.npz or Python): numeric, of the expected rank, every number
    finite; -inf too where it marks a masked cell, as null and -Infinity do in JSON."""
    import numpy as np

    check_dtype(value, field, "iuf", Message(_("numbers (int or float)")))
    _rank(value, field, ndim)
    array = value.astype(np.float64)
    bad = np.argwhere(~(np.isfinite(array) | (allow_masked & np.isneginf(array))))
    if bad.size:
        cell = tuple(bad[0])
        raise InputError(WRONG, where=number_at(field, cell), kind=array[cell],
                         expected=Message(EXPECTED_NUMBER[True, allow_masked]))  # fmt: skip
    return array


_NUMBER_TYPES = frozenset({int, float})


def _plain_numbers(value: Any, ndim: int) -> np.ndarray | None:
    """The float64 array when `value` is a list (of rows) of plain finite numbers, checked in
    bulk; None sends it to the item-by-item path, which finds and names the fault."""
    import numpy as np

    if not isinstance(value, list) or not value:
        return None
    rows = [value] if ndim == 1 else value
    for row in rows:
        # bool is not int here: type() is exact, and True must not pass as 1.
        if not isinstance(row, list) or not _NUMBER_TYPES.issuperset(map(type, row)):
            return None
    try:
        array = np.array(value, dtype=np.float64)
    except (ValueError, OverflowError):  # ragged rows, integers past float64
        return None
    if array.ndim != ndim or array.size == 0 or not np.isfinite(array).all():
        return None
    return array


def as_array(value: Any) -> Any:
    """A torch tensor (CPU, with or without grad) or another array-like as a numpy array,
    read by duck type (.detach().cpu().numpy(), or __array__): torch is never imported.
    Anything else is returned as it is."""
    import numpy as np

    if isinstance(value, (np.ndarray, list, tuple, str, dict)) or value is None:
        return value
    try:
        if callable(getattr(value, "detach", None)) and hasattr(value, "numpy"):
            return np.asarray(value.detach().cpu().numpy())
        if hasattr(value, "__array__"):
            return np.asarray(value)
    except (TypeError, RuntimeError, ValueError) as error:
        text = str(error).strip()
        reason = text.splitlines()[0] if text else type(error).__name__
        raise InputError(
            _(
                "a {type_name} that attn cannot read as numbers ({reason}); pass "
                "tensor.detach().cpu().double().numpy()"
            ),
            type_name=type(value).__name__,
            reason=reason,
        ) from None
    return value


def _is_array(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "ndim")


def _misranked_as_lists(value: Any, ndim: int) -> Any:
    """A numeric array of rank 0 to 2 where one of rank `ndim` goes, as the nested lists it
    holds, so that it is refused in the words a JSON value of that rank is (a matrix where a
    vector goes: "is a matrix"); anything else as it is."""
    if _is_array(value) and value.ndim != ndim and value.ndim <= 2 and value.dtype.kind in "iuf":
        return value.tolist()
    return value


def to_vector(value: Any, field: Named, allow_masked: bool = False) -> np.ndarray:
    """A JSON list of numbers (or a 1-D array from .npz) to a float64 vector."""
    import numpy as np

    # -> [n]
    value = _misranked_as_lists(value, 1)
    if _is_array(value):
        return _checked_array(value, field, 1, allow_masked)
    fast = _plain_numbers(value, 1)
    if fast is not None:
        return fast
    return np.array(_vector_values(value, field, None, allow_masked), dtype=np.float64)


def to_matrix(value: Any, field: Named, allow_masked: bool = False) -> np.ndarray:
    """A JSON list of equal-length rows to a float64 matrix."""
    import numpy as np

    # -> [rows, columns]
    value = _misranked_as_lists(value, 2)
    if _is_array(value):
        return _checked_array(value, field, 2, allow_masked)
    fast = _plain_numbers(value, 2)
    if fast is not None:
        return fast
    _rank(value, field, 2)
    rows = [_vector_values(row, field, index, allow_masked) for index, row in enumerate(value, 1)]
    for index, row in enumerate(rows[1:], 2):
        if len(row) != len(rows[0]):
            raise ShapeError(
                _(
                    "{field}: row {index} has {row}, row 1 has {rows} (every row must have "
                    "the same length)"
                ),
                field=field,
                index=index,
                row=count(len(row), "number"),
                rows=len(rows[0]),
            )
    return np.array(rows, dtype=np.float64)


def to_tensor(value: Any, field: str) -> np.ndarray:
    """A weight read from JSON or given in Python (a number, a vector, a matrix, or deeper:
    torch's bias_k is 1 × 1 × E) as a float64 array; every number checked as an input
    field's are (a boolean, a string or NaN is refused where it stands), rows of equal
    length. An array (from .npz, .safetensors or Python) is returned as it is."""
    import numpy as np

    if _is_array(value):
        return value
    depth = _depth(value)
    if depth == 0:
        return np.array(_number(value, field, False), dtype=np.float64)
    if depth <= 1:
        return to_vector(value, field)
    if depth == 2:
        return to_matrix(value, field)
    parts = [to_tensor(item, f"{field}[{index}]") for index, item in enumerate(value)]
    return _stacked(parts, field, 0)


def _stacked(parts: list[np.ndarray], field: str, first: int) -> np.ndarray:
    """Arrays of one shape stacked along a new first axis; `first` is how the message
    counts the first of them (a weight's parts from 0, as torch indexes them; a batch's
    sequences from 1, as rows are counted)."""
    import numpy as np

    for index, part in enumerate(parts[1:], first + 1):
        if part.shape != parts[0].shape:
            raise ShapeError(
                _("{field}[{index}] is {shape} but {field}[{first}] is {first_shape}; every "
                  "part of {field} has one shape"),
                field=field,
                index=index,
                shape=shape_text(part.shape),
                first=first,
                first_shape=shape_text(parts[0].shape),
            )  # fmt: skip
    return np.stack(parts)


def is_batch(value: Any) -> bool:
    """True for a B × T × d array, or JSON nested three deep: a batch of sequences."""
    if _is_array(value):
        return bool(value.ndim == 3)
    return _depth(value) >= 3


def to_batch(value: Any, field: str) -> np.ndarray:
    """A batch of equal-shaped matrices (B × T × d), each checked as to_matrix checks one."""
    # -> [B, T, d]
    if _is_array(value):
        return _checked_array(value, field, 3)
    matrices = [to_matrix(item, f"{field}[{index}]") for index, item in enumerate(value, 1)]
    return _stacked(matrices, field, 1)


def to_vector_or_matrix(value: Any, field: Named, allow_masked: bool = False) -> np.ndarray:
    """A vector (one row) or a matrix (a grid), whichever the JSON holds."""
    # -> [n] or [rows, n]
    nested = isinstance(value, list) and value and isinstance(value[0], list)
    if nested or (_is_array(value) and value.ndim == 2):
        return to_matrix(value, field, allow_masked)
    return to_vector(value, field, allow_masked)
