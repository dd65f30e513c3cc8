"""A config.json's fields read one at a time: each a value of the kind transformers' typed
configs hold, or a refusal of one line naming the file and the field."""

from __future__ import annotations

import math
from typing import Any

from attncli.core.transformer import ACTIVATIONS
from attncli.errors import InputError
from attncli.messages import Message, _
from attncli.reading.parse.json_text import as_json_text


def field(config: dict[str, Any], name: str, path: str, default: Any = None) -> Any:
    value = config.get(name)
    if value is None:  # null is transformers' "not given" too (head_dim: null)
        value = default
    if value is None:
        raise InputError(
            _("{path}: the field {name} is missing; the model's config.json must give it"),
            path=path,
            name=name,
        )
    return value


def positive(config: dict[str, Any], name: str, path: str, default: Any = None) -> int:
    value = field(config, name, path, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(
            _("{path}: {name} is {value}; expected a positive whole number"),
            path=path,
            name=name,
            value=repr(value),
        )
    return value


def count(config: dict[str, Any], name: str, path: str, default: int) -> int:
    """A whole number of 0 or more (max_window_layers 0: every layer from the first)."""
    value = field(config, name, path, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            _("{path}: {name} is {value}; expected a whole number ≥ 0"),
            path=path,
            name=name,
            value=as_json_text(value),
        )
    return value


def flag(config: dict[str, Any], name: str, path: str, default: bool) -> bool:
    """A config's true or false: 1, "yes" or "true" are refused, as transformers' typed
    configs refuse them (never read as false, which would leave a bias or a window out)."""
    value = config.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InputError(
            _("{path}: {name} is {value}; expected true or false"),
            path=path,
            name=name,
            value=as_json_text(value),
        )
    return value


def epsilon(config: dict[str, Any], name: str, path: str, default: float) -> float:
    """A layer norm's ε: a small positive number."""
    small = Message(_("a small positive number such as 1e-12"))
    return number(config, name, path, default, small)


def activation(config: dict[str, Any], name: str, path: str, default: str) -> str:
    value = field(config, name, path, default)
    if value not in ACTIVATIONS:
        raise InputError(
            _("{path}: {name} {value} is not supported; one of {choices}"),
            path=path,
            name=name,
            value=repr(value),
            choices=", ".join(ACTIVATIONS),
        )
    return str(value)


def divides(width: int, heads: int, path: str, names: tuple[str, str]) -> None:
    if width % heads:
        raise InputError(
            _("{path}: {width_name} {width} does not divide into {heads_name} {heads} heads"),
            path=path,
            width_name=names[0],
            width=width,
            heads_name=names[1],
            heads=heads,
        )


def number(
    config: dict[str, Any],
    name: str,
    path: str,
    default: Any = None,
    expected: Message | None = None,
) -> float:
    """The config's `name`: a positive number (or `expected`, said in the refusal)."""
    value = field(config, name, path, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (math.isfinite(value) and value > 0)
    ):
        raise InputError(
            _("{path}: {name} is {value}; expected {expected}"),
            path=path,
            name=name,
            value=as_json_text(value),
            expected=expected or Message(_("a positive number")),
        )
    return float(value)
