"""JSON text to Python values, strictly: NaN and Infinity are refused (null is the one way
to mark a masked score), and every fault is told with its line and column."""

from __future__ import annotations

import json
from typing import Any

from attncli.errors import InputError
from attncli.messages import Message, _

EXAMPLE_DOCUMENT = '{"query": [1, 0], "keys": [[2, 1], [0, 2]]}'


class JsonConstant:
    """A NaN or Infinity literal in JSON text, kept apart from numbers until its field is known.

    Not a dataclass, so that JSON output cannot write it as an object: a field carried
    through untouched writes it as null (JSON has no NaN).
    """

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonConstant) and other.literal == self.literal

    def __hash__(self) -> int:
        return hash(self.literal)

    def __repr__(self) -> str:
        return self.literal


def kind_of(value: Any) -> Message:
    """How a JSON value reads to a user, for error messages (said in the message's
    language)."""
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


def parse_json(text: str, source: str) -> Any:
    """JSON text to Python values; NaN/Infinity literals become JsonConstant markers.

    orjson reads well-formed documents about five times faster than the json module; what it
    refuses (NaN literals, numbers past float64, malformed text) goes through json, which
    keeps the markers and says where the text is wrong.
    """
    import orjson

    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        value = json.loads(text, parse_constant=JsonConstant, parse_int=_integer)
        # orjson refuses lone surrogates (\\ud800) that json accepts: they cannot be written.
        return _valid_strings(value) if "\\u" in text else value
    except json.JSONDecodeError as error:
        raise InputError(
            _(
                "{source}: not valid JSON at line {lineno}, column {colno}: {msg} (expected "
                "an object such as {EXAMPLE_DOCUMENT}, or a bare array)"
            ),
            source=source,
            lineno=error.lineno,
            colno=error.colno,
            msg=error.msg,
            EXAMPLE_DOCUMENT=EXAMPLE_DOCUMENT,
        ) from None
    except RecursionError:
        raise InputError(
            _("{source}: JSON nested too deep (a vector is [1, 0], a matrix [[2, 1], [0, 2]])"),
            source=source,
        ) from None


def valid_text(text: str) -> str:
    """Text that can be written as UTF-8: bytes that were not UTF-8 (a command-line argument
    from a Latin-1 terminal, a lone surrogate escaped in JSON) become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)


def _valid_strings(value: Any) -> Any:
    """`value` with every string in it made valid_text."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [_valid_strings(item) for item in value]
    if isinstance(value, dict):
        return {valid_text(key): _valid_strings(item) for key, item in value.items()}
    return value


def _integer(text: str) -> int | float:
    """A JSON integer; past 64 bits the float it denotes (inf past float64), as orjson reads
    it, and never Python's 4,300-digit conversion error."""
    return int(text) if len(text) <= 18 else float(text)
