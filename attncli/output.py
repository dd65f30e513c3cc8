"""Where results go: the JSON document when piped, a rich console on a terminal."""

from __future__ import annotations

import json
import math
import os
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


def json_ready(value: Any) -> Any:
    """numpy arrays and scalars to plain lists and floats; -inf (a masked score) to null.

    JSON has no infinities, and null is what the parser reads back as masked.
    """
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(document: dict[str, Any]) -> str:
    """The document as JSON text, floats at full precision (shortest round-trip form)."""
    return json.dumps(json_ready(document), ensure_ascii=False, allow_nan=False)


def is_terminal(stream: IO[str]) -> bool:
    """True when the stream is an interactive terminal."""
    try:
        return stream.isatty()
    except (ValueError, AttributeError):
        return False


def wants_json(format_name: str | None, json_flag: bool, stream: IO[str]) -> bool:
    """--json or --format json, else JSON exactly when stdout is not a terminal."""
    if json_flag:
        return True
    if format_name is not None:
        return format_name == "json"
    return not is_terminal(stream)


def console(stream: IO[str], stderr: bool = False) -> Console:
    """A rich console for `stream`: colour on a terminal (unless NO_COLOR), plain text elsewhere."""
    from rich.console import Console

    width = None if is_terminal(stream) or "COLUMNS" in os.environ else 100
    return Console(file=stream, stderr=stderr, width=width, highlight=False, soft_wrap=False)


def print_renderables(stream: IO[str], renderables: list[RenderableType]) -> None:
    """Render everything first, then write it at once, so a failure never leaves half a table."""
    target = console(stream)
    with target.capture() as capture:
        for renderable in renderables:
            target.print(renderable)
    stream.write(capture.get())
