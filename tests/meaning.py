"""What an error means, as data a test compares: its kind, its msgid and its fields, so
that rewording a message in the catalog edits no test (docs/ARCHITECTURE.md, "A test")."""

from __future__ import annotations

from typing import Any

from attncli.messages import Message, OnSurface, Setting

# Two fields that give one named dimension two sizes (reading/check/reader.check_same_size).
DISAGREE = "{field} has {found} where {other} has {bound}: both are {dimension}, {meaning}"
# Both of a pair of which one is read: query and queries, target and grad_output
# (reading/inputs.both_given).
BOTH = "give {first} ({first_what}) or {second} ({second_what}), not both; one would be dropped"
# A field an operation needs, missing (reading/inputs.Field.hint).
MISSING = "missing field '{field}': {hint}"
# A value that is not what its place takes, a place that holds nothing, an array of a
# dtype its place does not take (reading/parse/values.WRONG, EMPTY, HOLDS).
WRONG = "{where} is {kind}; expected {expected}"
EMPTY = "{where} is empty; expected {expected}"
HOLDS = "{field} holds {dtype}; expected {expected}"
# A list option's names, one not among those there are (present/output.check_names).
UNKNOWN_NAMES = "{option} {text}: {unknown} is not one of {known}; name them separated by commas"
# A model folder's JSON file that holds a list where its fields go, as WRONG's kind and
# expected (reading/models/config_fields.config_json).
A_LIST_NOT_FIELDS = {"kind": ("a list", {}), "expected": ("a JSON object of named fields", {})}
# A .npy array, or an archive's, of Python objects (reading/parse/tensor_files.npy_header).
PICKLED_ARRAY = (
    "{where} holds Python objects (pickled data), which attn never loads; save plain numeric "
    "arrays, e.g. numpy.savez(path, name=array.astype(float))"
)
# A declared range's refusal with a value to try after it (api/keywords.Hinted): `refusal`
# is the range check's own (msgid, fields).
TRY = "{refusal} (try {example})"
LEAST = "{setting}: it must be {least} or more"
MOST = "{setting}: it must be {most} or less"
ABOVE = "{setting}: it must be a number above {above}"
# Why a self-attention sheet takes no score method and no positions (api/exercise.
# check_selfattn_sheet, attn exercise --selfattn).
SELFATTN_SHEET = ("the self-attention problem scores as attn selfattn does (q·k ÷ √d_k) and "
                  "turns no positions; leave out {option}")  # fmt: skip
# What a cell of numbers takes (reading/parse/values.EXPECTED_NUMBER), as `plain` gives it.
NUMBER = ("a number", {})
FINITE = ("a finite number", {})
MASKED_NUMBER = ("a number (null or -Infinity marks a masked cell)", {})
MASKED_FINITE = ("a finite number (null or -Infinity marks a masked cell)", {})
TOO_LARGE = ("a number too large for a 64-bit float (overflow; at most about 1.8e308)", {})


def plain(value: Any, surface: str = "cli") -> Any:
    """A field as data: a Setting as `surface` writes it (`--lr 100`, `heads=h`), an
    OnSurface as its side there, a Message as (its msgid, its fields as data)."""
    if isinstance(value, OnSurface):
        value = value.on(surface)
    if isinstance(value, Setting):
        return value.written(surface)
    if isinstance(value, Message):
        fields = {name: plain(field, surface) for name, field in value.fields.items()}
        return (value.msgid, fields)
    return value


def told(error: BaseException | None, kind: type, msgid: str, /, surface: str = "cli",
         **fields: Any) -> None:  # fmt: skip
    """`error` is a `kind` saying `msgid`, with these fields (as `plain` gives them); the
    fields not named are not compared."""
    assert type(error) is kind, repr(error)
    assert error.msgid == msgid, error.msgid  # type: ignore[attr-defined]
    given = error.fields  # type: ignore[attr-defined]
    missing = set(fields) - set(given)
    assert not missing, (missing, given)
    assert {name: plain(given[name], surface) for name in fields} == fields, given


def said_in_spanish(error: BaseException | None) -> None:
    """`error` is said in Spanish from the catalog: its Spanish line is not its English one
    (which of the catalog's words it uses is the catalog's business, not a test's)."""
    spanish = error.message("es")  # type: ignore[union-attr]
    assert spanish != error.message("en"), spanish  # type: ignore[union-attr]


# A field of a file, where a refusal of its value points (reading/models/config_fields.IN_FILE)
IN_FILE = "{path}: {field}"


def in_file(path: str, field: str) -> tuple[str, dict[str, str]]:
    """The place `path: field` as `plain` gives it: a WRONG's `where` in a model's file."""
    return (IN_FILE, {"path": path, "field": field})
