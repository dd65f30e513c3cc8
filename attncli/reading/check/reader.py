"""The one reader of an operation's inputs, by their declarations (reading/inputs.py).

It does the generic work once for every operation: a field needed and missing (with its
example, and the near name a document gave instead), two fields of which one must be given,
each field read in its rank (values.py: from JSON, numpy files, option text and Python
array-likes alike), and the named dimensions bound and checked across fields, saying which
dimension, which two fields and which sizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, ShapeError, count
from attncli.messages import Message, Setting, _
from attncli.reading.inputs import (
    ATTN_MASK,
    DIMENSIONS,
    KEPT,
    KEY_PADDING_MASK,
    LAYER,
    LAYOUTS,
    MASK,
    PROJECTED,
    ROW,
    SEQUENCE,
    TENSOR,
    TEXT,
    Field,
    Layout,
    Operation,
    both_given,
)
from attncli.reading.parse.layer_inputs import DIRECT
from attncli.reading.parse.values import (
    Document,
    is_batch,
    parse_tokens,
    to_batch,
    to_matrix,
    to_tensor,
    to_vector,
    to_vector_or_matrix,
    typed_fields,
)

if TYPE_CHECKING:
    import numpy as np

    from attncli.reading.parse.layer_inputs import LayerInputs


# What binds a dimension, as a message names it: a field (`keys`), the option that typed it
# (`--keys`), or a setting's size (`--d-k 3 for --heads 2`).
Named = str | Setting | Message


@dataclass
class ReadInputs:
    """An operation's fields read: each given field's array (token names as a list), and
    the size of each dimension they bound."""

    arrays: dict[str, Any] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    # dimension → how the field that bound it first counts it, for a later disagreement
    bound_by: dict[str, tuple[Named, Message]] = field(default_factory=dict)

    @property
    def single(self) -> bool:
        """One query: no field gave the queries' dimension (a query vector, one row of
        scores or weights)."""
        return "T_q" not in self.sizes

    def rows(self, name: str) -> np.ndarray:
        """A field that may be one row, as a matrix: [T_q, n]."""
        array = self.arrays[name]
        return array[None, :] if array.ndim == 1 else array

    def bind(self, dimension: str, size: int, name: Named, extent: Message) -> None:
        """`dimension` is `size` by the field `name` (which holds `extent` of it: 3 rows):
        the first field to give a dimension sets it, every other must agree."""
        if dimension not in self.sizes:
            self.sizes[dimension] = size
            self.bound_by[dimension] = (name, extent)
            return
        other, bound = self.bound_by[dimension]
        check_same_size(dimension, (name, size, extent), (other, self.sizes[dimension], bound))


def read_inputs(
    operation: Operation, document: Document, into: ReadInputs | None = None
) -> ReadInputs:
    """Every field of `operation` the document gives, read and bound (`into` what an option
    has bound already: --d-a's d_a); a needed one missing, or both of a pair, refused in
    one line."""
    given = {f.name for f in operation.fields if document.get(f.name) is not None}
    typed = typed_fields(document)
    for need in operation.needs:
        check_need(operation, document, need, given, typed)
    for declared in operation.fields:  # one left out, where the input has a near name
        if declared.name not in given:
            _refuse_near_name(operation, document, declared)
    read = ReadInputs() if into is None else into
    for declared in operation.fields:
        if declared.name not in given:
            continue
        named = as_given(declared.name, typed)
        value = read_field(declared, document[declared.name], named)
        read.arrays[declared.name] = value
        sizes = [len(value)] if declared.names else list(value.shape)
        dims = declared.dims[len(declared.dims) - len(sizes) :]  # one row: its first left out
        for axis, (dimension, size) in enumerate(zip(dims, sizes, strict=True)):
            read.bind(dimension, size, named, _extent(declared, len(sizes), axis, size))
    return read


def as_given(name: str, typed: frozenset[str]) -> str | Setting:
    """A field as a message names it: by its option where an option typed it (`--keys` on
    the command line), else by its name (`keys`, a document's field or a keyword)."""
    return Setting(name) if name in typed else name


def agree(*given: tuple[Field, np.ndarray], into: ReadInputs | None = None) -> ReadInputs:
    """Arrays read elsewhere (the layer's sequences, each T × d or a batch B × T × d; its
    W's and biases) held to their declared dimensions, as read_inputs holds a document's,
    `into` what is bound already: the sizes they bind."""
    read = ReadInputs() if into is None else into
    for declared, array in given:
        rank = len(declared.dims)
        for axis, size in enumerate(array.shape[-rank:]):
            read.bind(declared.dims[axis], size, declared.name,
                      _extent(declared, rank, axis, size))  # fmt: skip
    return read


def check_need(
    operation: Operation,
    document: Document,
    need: Any,
    given: set[str] | None = None,
    typed: frozenset[str] = frozenset(),
    hint: Message | None = None,
) -> None:
    """A field the operation cannot do without (or one of a pair) is there; both of a pair
    are not (`given`: the fields the document gives, by default those not None; `hint`:
    what to give in place of the field's own hint, as a way of giving the layer's
    sequences says it)."""
    if given is None:
        given = {name for name, value in document.items() if value is not None}
    names = need if isinstance(need, tuple) else (need,)
    present = [name for name in names if name in given]
    if len(present) > 1:
        first, second = (operation.field(name) for name in present[:2])
        raise both_given(first, second, (as_given(first.name, typed), as_given(second.name, typed)))
    if present:
        return
    if hint is None:
        declared = operation.field(names[0])
        hint = declared.hint() if len(names) == 1 else operation.either_hint(names)
    near = _near_name(document, names, {f.name for f in operation.fields})
    text = (
        _("missing field '{field}': {hint}")
        if near is None
        else _("missing field '{field}': {hint} (the input has {near}: did you mean '{field}'?)")
    )
    raise InputError(text, field=names[0], hint=hint, near=repr(near), about=names)


def _refuse_near_name(operation: Operation, document: Document, declared: Field) -> None:
    """A field the operation may go without (a score's parameter, drawn from the seed; the
    tokens), left out where the input holds a name very near it ('W_a', 'token'): the
    number would silently not be the one given. Refused, naming both."""
    near = _near_name(document, (declared.name,), {f.name for f in operation.fields}, 0.8)
    if near is not None:
        raise InputError(
            _("field {near}: not a field attn {operation} reads; did you mean '{field}'?"),
            near=repr(near),
            operation=operation.name,
            field=declared.name,
            about=(declared.name,),
        )


def _near_name(
    document: Document, names: tuple[str, ...], known: set[str], cutoff: float = 0.7
) -> str | None:
    """A field of the document that is no field of the operation but near the name of one it
    reads ('kyes' for keys, 'W_a' for w_a): that field was most likely typed so."""
    import difflib

    others = {name.lower(): name for name in document if isinstance(name, str)
              and name not in known}  # fmt: skip
    for name in names:
        near = difflib.get_close_matches(name, list(others), n=1, cutoff=cutoff)
        if near:
            return others[near[0]]
    return None


def read_layer(inputs: LayerInputs, projections: bool = True) -> LayerInputs:
    """Every field of the self-attention layer given, read once by its declaration
    (reading/inputs.LAYER), in its order: what the checks hold against each other.
    Queries, keys and values beside an X are a result's outputs, not inputs, and are left
    as they are; so are the W's and biases when the layer goes without `projections`
    (--no-proj), and what is kept for a check by name."""
    left = set(DIRECT) if inputs.from_x else set()
    left |= set() if projections else set(PROJECTED)
    read = {}
    for declared in LAYER.fields:
        value = inputs.value(declared.name)
        if value is not None and declared.name not in left and declared.form != KEPT:
            read[declared.name] = read_field(declared, value, declared.name)
    return inputs.but(**read)


def layer_sequences(
    inputs: LayerInputs, layout: Layout, into: ReadInputs | None = None
) -> list[np.ndarray]:
    """The sequences of `layout`, each given (T × d, or every one a batch B × T × d of one
    B) and their named dimensions bound: one key per value, x_q and x_kv of one d_model,
    …; a field it cannot go with refused, since one of the two would be left unread."""
    for other in layout.excludes:
        if inputs.value(other) is not None:
            raise InputError(
                _("give {given} or {other}, not both: the layer reads its sequences from one of "
                  "them (x: self-attention; x_q, x_kv: cross-attention; x_q, x_k, x_v: keys "
                  "and values of their own widths)"),
                given=", ".join(layout.names),
                other=other,
            )  # fmt: skip
    given = {name: inputs.value(name) for name in layout.names}
    for name in layout.names:
        check_need(LAYER, given, name, hint=Message(layout.hint))
    found = list(given.values())
    if len({array.shape[:-2] for array in found}) > 1:
        shapes = ", ".join(f"{name} {' × '.join(map(str, array.shape))}"
                           for name, array in zip(layout.names, found, strict=True))  # fmt: skip
        raise ShapeError(
            _(
                "{shapes}: give every one as one sequence (T × d) or every one as a batch of "
                "the same B (B × T × d)"
            ),
            shapes=shapes,
        )
    agree(*zip(layout.fields, found, strict=True), into=into)
    return found


def layout_of(inputs: LayerInputs) -> Layout:
    """The way the input gives the layer's sequences from X: the first layout whose fields
    it has, else x's."""
    return next(layout for layout in LAYOUTS
                if any(inputs.value(name) is not None for name in layout.chosen_by)
                or not layout.chosen_by)  # fmt: skip


def read_field(declared: Field, value: Any, named: str | Setting) -> Any:
    """The field's value in its declared form (reading/inputs.FORMS), else its rank: names,
    a vector, a matrix, or (a field that may be one row) either; a fault in it said of the
    field `named` as it was given."""
    if declared.names:
        return parse_tokens(value, declared.name)
    if declared.form:
        return _read_form(declared, value)
    if declared.one_row:
        return to_vector_or_matrix(value, named, allow_masked=declared.masked)
    if len(declared.dims) == 1:
        return to_vector(value, named, allow_masked=declared.masked)
    return to_matrix(value, named, allow_masked=declared.masked)


def _read_form(declared: Field, value: Any) -> Any:
    """A field read by its form: a self-attention layer's sequence (T × d, or a batch
    B × T × d), an array of any rank, torch's add_bias_kv row, a mask or a text."""
    from attncli.reading.parse import masks

    name = declared.name
    if declared.form == SEQUENCE:
        return to_batch(value, name) if is_batch(value) else to_matrix(value, name)
    if declared.form == TENSOR:
        return to_tensor(value, name)
    if declared.form == ROW:
        return to_vector(_one_row(value), name)
    if declared.form == TEXT:
        if not isinstance(value, str):
            raise InputError(
                _("trained_by is {kind}; it holds the attn train line that learned the W, a text"),
                kind=type(value).__name__,
            )
        return value
    readers = {MASK: masks.read_mask, ATTN_MASK: masks.read_attn_mask,
               KEY_PADDING_MASK: masks.read_key_padding_mask}  # fmt: skip
    return readers[declared.form](value)


def _one_row(value: Any) -> Any:
    """torch's add_bias_kv row as it stores it, 1 × 1 × h·d (an array, or nested lists from
    tensor.tolist()), as its h·d numbers; any other value as it is, for to_vector() to
    refuse if it is not a vector (a 2 × 2 bias flattened would be 4 numbers nobody meant)."""
    if hasattr(value, "shape"):
        return value.reshape(-1) if value.ndim > 1 and set(value.shape[:-1]) == {1} else value
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return value


def _extent(declared: Field, rank: int, axis: int, size: int) -> Message:
    """A field's size along an axis of a value of `rank` as a person counts it: 3 names,
    3 numbers (a vector), 3 rows, 2 numbers a row."""
    if declared.names:
        return count(size, "name")
    if rank == 1:
        return count(size, "number")
    if axis == 0:
        return count(size, "row")
    return Message(_("{numbers} a row"), numbers=count(size, "number"))


def check_same_size(
    dimension: str, field: tuple[Named, int, Message], other: tuple[Named, int, Message]
) -> None:
    """Two fields that each give a named dimension a size (their name, the size, and how
    much of the dimension they hold: 3 rows) give it one size; two are refused in one line,
    "values has 3 rows where keys has 2 rows: both are T_k, …". The reader's binding holds
    every field to it, and a count the reader does not bind (names given to rows, a value
    row per key carried on) is held to it too."""
    if field[1] != other[1]:
        raise ShapeError(
            _("{field} has {found} where {other} has {bound}: both are {dimension}, {meaning}"),
            field=field[0],
            found=field[2],
            other=other[0],
            bound=other[2],
            dimension=dimension,
            meaning=Message(DIMENSIONS[dimension]),
            about=(field[0], other[0]),
        )
