"""JSON text to Python values, strictly: NaN and Infinity are refused (null is the one way
to mark a masked score), and every fault is told with its line and column."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from attncli.errors import InputError
from attncli.messages import Message, _

EXAMPLE_DOCUMENT = '{"query": [1, 0], "keys": [[2, 1], [0, 2]]}'

# A document each command reads, by the fields it cannot do without: what a message on
# malformed text shows (softmax's scores, not score's query and keys).
EXAMPLES_BY_FIELDS = {
    ("keys",): EXAMPLE_DOCUMENT,
    ("scores",): '{"scores": [2, 0, 1]}',
    ("weights", "values"): '{"weights": [0.5, 0.5], "values": [[1, 0], [0, 1]]}',
    ("keys", "values"): '{"query": [1, 0], "keys": [[2, 1], [0, 2]], "values": [[1, 0], [0, 1]]}',
    ("x",): '{"x": [[1, 0], [0, 1]]}',
}

# The json module's reasons for refusing a text (CPython's json/decoder.py and scanner), said
# in the user's language; a reason not listed here is shown as json words it.
JSON_REASONS = (
    _("Expecting value"),
    _("Expecting property name enclosed in double quotes"),
    _("Expecting ':' delimiter"),
    _("Expecting ',' delimiter"),
    _("Unterminated string starting at"),
    _("Invalid control character at"),
    _("Invalid \\escape"),
    _("Invalid \\uXXXX escape"),
    _("Extra data"),
    _("Illegal trailing comma before end of object"),
    _("Illegal trailing comma before end of array"),
)


def example_document(required: tuple[str, ...]) -> str:
    """The document a message shows to a command that cannot do without `required`."""
    return EXAMPLES_BY_FIELDS.get(required, EXAMPLE_DOCUMENT)


def expected_document(required: tuple[str, ...], bare: bool) -> Message:
    """What a command's input document looks like, for the message on malformed text."""
    example = example_document(required)
    if bare:
        return Message(
            _("expected an object such as {EXAMPLE_DOCUMENT}, or a bare array"),
            EXAMPLE_DOCUMENT=example,
        )
    return Message(_("expected an object such as {EXAMPLE_DOCUMENT}"), EXAMPLE_DOCUMENT=example)


def _reason(msg: str) -> Message | str:
    """json's reason in the catalog's words (a reason may carry its detail after a colon)."""
    for reason in JSON_REASONS:
        if msg == reason or msg.startswith(reason + ":"):
            return Message(reason)
    return msg


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


def as_json_text(value: Any) -> str:
    """A value read from a JSON file, written back as its text for a message: a NaN or
    Infinity literal as it stood (json.dumps alone fails on the JsonConstant marker)."""
    return json.dumps(value, ensure_ascii=False, default=lambda marker: float(marker.literal))


def parse_json(text: str, source: str, expected: Message | None = None) -> Any:
    """JSON text to Python values; NaN/Infinity literals become JsonConstant markers, and a
    key given twice in one object is refused (JSON would keep the last without a word).

    orjson reads well-formed documents about five times faster than the json module; what it
    refuses (NaN literals, numbers past float64, malformed text) goes through json, which
    keeps the markers and says where the text is wrong. orjson does not see a repeated key:
    the text's colons are counted against the keys read (a key has one colon after it, so
    they are equal when no key repeats and no string holds a colon), and only a text where
    they differ is read again by json, which sees every key. `expected` says what the text
    should hold, for the message on malformed text (an input document by default).
    """
    return read_json(text, source, expected)[0]


def read_json(
    text: str | bytes,
    source: str,
    expected: Message | None = None,
    decode: Callable[[bytes], str] | None = None,
) -> tuple[Any, bool]:
    """parse_json(), and whether the strict reader read the text whole (True: every number
    in the value is finite, and none is a JsonConstant marker). `text` may be UTF-8 bytes,
    which orjson reads as they are; `decode` turns them into text for the json module when
    orjson does not read them (and says so when they are not UTF-8)."""
    import orjson

    def as_text() -> str:
        if isinstance(text, str):
            return text
        return decode(text) if decode is not None else text.decode("utf-8")

    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _read_slowly(as_text(), source, expected), False
    colons = text.count(":") if isinstance(text, str) else text.count(b":")
    if colons != _keys_counted(value):
        _read_slowly(as_text(), source, expected)  # refuses a repeated key, if the count saw one
    return value, True


def _read_slowly(text: str, source: str, expected: Message | None) -> Any:
    try:
        value = json.loads(
            text,
            parse_constant=JsonConstant,
            parse_int=_integer,
            object_pairs_hook=lambda pairs: _object(pairs, source),
        )
        # orjson refuses lone surrogates (\\ud800) that json accepts: they cannot be written.
        return _valid_strings(value) if "\\u" in text else value
    except json.JSONDecodeError as error:
        raise InputError(
            _("{source}: not valid JSON at line {lineno}, column {colno}: {msg} ({expected})"),
            source=source,
            lineno=error.lineno,
            colno=error.colno,
            msg=_reason(error.msg),
            expected=expected or expected_document(("keys",), bare=True),
        ) from None
    except RecursionError:
        raise InputError(
            _("{source}: JSON nested too deep (a vector is [1, 0], a matrix [[2, 1], [0, 2]])"),
            source=source,
        ) from None


def _object(pairs: list[tuple[str, Any]], source: str) -> dict[str, Any]:
    """One JSON object; a key it holds twice is refused, naming the key."""
    value = dict(pairs)
    if len(value) != len(pairs):
        keys = [key for key, _item in pairs]
        twice = next(key for position, key in enumerate(keys) if key in keys[:position])
        raise InputError(
            _(
                "{source}: the key {key} is given twice in one object (JSON would keep only "
                "the last); keep one"
            ),
            source=source,
            key=json.dumps(valid_text(twice), ensure_ascii=False),
        )
    return value


def _keys_counted(value: Any) -> int:
    """The keys of the objects in `value`, walking into a list only while its first item is
    an object or a list, so that an array of numbers costs a look at its first number. An
    object the walk passes by only makes the count smaller, which sends the text to json."""
    if isinstance(value, dict):
        return len(value) + sum(
            _keys_counted(item) for item in value.values() if isinstance(item, (dict, list))
        )
    if isinstance(value, list) and value and isinstance(value[0], (dict, list)):
        return sum(_keys_counted(item) for item in value)
    return 0


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
