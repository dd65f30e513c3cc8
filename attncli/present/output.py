"""Where results go: the JSON document when piped, a rich console on a terminal."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


@dataclass(frozen=True)
class Settings:
    """The output options every command shares."""

    format_name: str | None  # "table", "json", or None to choose by where stdout goes
    digits: int | None
    lang: str
    steps: bool
    blank: bool
    answers: bool
    export: str | None


def _as_list(value: Any) -> Any:
    """What orjson cannot write itself (a non-contiguous array, a numpy scalar) as plain values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def to_json(document: dict[str, Any]) -> bytes:
    """The document as UTF-8 JSON, floats at full precision (shortest round-trip form).

    -inf (a masked score) is written as null, which the parser reads back as masked;
    orjson writes a million floats in a few milliseconds, the standard library in a second.
    """
    import orjson

    return orjson.dumps(document, default=_as_list, option=orjson.OPT_SERIALIZE_NUMPY)


def write_json(stream: IO[str], document: dict[str, Any]) -> None:
    """The document and a newline; bytes straight to the stream's buffer when it has one."""
    text = to_json(document) + b"\n"
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text.decode())
        return
    stream.flush()
    buffer.write(text)
    buffer.flush()


def is_terminal(stream: IO[str]) -> bool:
    """True when the stream is an interactive terminal."""
    try:
        return stream.isatty()
    except (ValueError, AttributeError):
        return False


def wants_json(format_name: str | None, stream: IO[str]) -> bool:
    """--format json, else JSON exactly when stdout is not a terminal."""
    if format_name is not None:
        return format_name == "json"
    return not is_terminal(stream)


def console(stream: IO[str]) -> Console:
    """A rich console for `stream`: colour on a terminal (unless NO_COLOR), plain text elsewhere."""
    from rich.console import Console

    width = None if is_terminal(stream) or "COLUMNS" in os.environ else 100
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def print_renderables(stream: IO[str], renderables: list[RenderableType]) -> None:
    """Render everything first, then write it at once, so a failure never leaves half a table."""
    target = console(stream)
    with target.capture() as capture:
        for renderable in renderables:
            target.print(renderable)
    stream.write(capture.get())
