"""Numbers typed on the command line: option text ('1,0', '2,1;0,2' or JSON) and
arguments (attn softmax 2 0 1) to the JSON values a document would hold."""

from __future__ import annotations

import math
from typing import Any

from attncli.errors import InputError, OptionError, shown
from attncli.reading.json_text import _integer, parse_json


def parse_inline(text: str, field: str) -> Any:
    """An option's text to a JSON value: JSON ('[[2,1],[0,2]]'), '1,0', or rows as '2,1;0,2'."""
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        return parse_json(stripped, f"--{field.replace('_', '-')}")
    rows = [row for row in stripped.split(";")]
    parsed = [[_inline_number(item, field) for item in row.split(",")] for row in rows]
    return parsed[0] if len(parsed) == 1 else parsed


def _inline_number(item: str, field: str) -> Any:
    item = item.strip()
    try:
        return float(item) if any(c in item for c in ".eEnN") else _integer(item)
    except ValueError:
        option = f"--{field.replace('_', '-')}"
        raise InputError(
            f"{option}: {shown(repr(item))} is not a number (write numbers separated by "
            f"commas, rows by ';', e.g. {option} '2,1;0,2', or JSON)",
            f"{option}: {shown(repr(item))} no es un número (escribe números separados por "
            f"comas y filas por ';', p. ej. {option} '2,1;0,2', o JSON)",
        ) from None


def scores_from_arguments(arguments: list[str], option: str | None) -> Any:
    """Scores typed as arguments (attn softmax 2 0 1) or the --scores text; not both."""
    if arguments and option is not None:
        raise InputError(
            "scores given twice: as arguments and with --scores; keep one",
            "puntuaciones dadas dos veces: como argumentos y con --scores; deja una",
        )
    return parse_number_args(arguments) if arguments else option


def parse_number_args(arguments: list[str], field: str = "scores") -> list[float]:
    """Numbers typed as arguments ('2 0 1', '-inf' for masked) to floats, as a JSON list would."""
    numbers: list[float] = []
    for position, text in enumerate(arguments, 1):
        if text.startswith("--"):
            raise InputError(
                f"no such option: {text} (see --help)", f"no existe la opción {text} (ver --help)"
            )
        try:
            number = float(text)
        except ValueError:
            raise InputError(
                f"{field}: argument {position} is {text!r}; expected a number (or -inf for masked)",
                f"{field}: el argumento {position} es {text!r}; se espera un número (o -inf para "
                "enmascarar)",
            ) from None
        if math.isnan(number) or number == math.inf:
            raise InputError(
                f"{field}: argument {position} is {text}; expected a finite number",
                f"{field}: el argumento {position} es {text}; se espera un número finito",
            )
        numbers.append(number)
    return numbers


def parse_dks(text: str) -> list[int]:
    """'8,64,512' to [8, 64, 512], each at least 1."""
    parts = text.split(",")
    empty = [index for index, part in enumerate(parts, 1) if not part.strip()]
    if empty and text.strip():
        raise OptionError(
            f"--d-k {text!r}: item {empty[0]} is empty; give a whole number between each "
            "pair of commas, e.g. 8,64,512",
            f"--d-k {text!r}: el elemento {empty[0]} está vacío; da un entero entre cada par "
            "de comas, p. ej. 8,64,512",
        )
    try:
        values = [int(part) for part in parts if part.strip()]
    except ValueError:
        raise OptionError(
            f"--d-k {text!r}: expected whole numbers separated by commas, e.g. 8,64,512",
            f"--d-k {text!r}: se esperan enteros separados por comas, p. ej. 8,64,512",
        ) from None
    if not values or min(values) < 1:
        raise OptionError(
            f"--d-k {text!r}: every d_k must be 1 or more, e.g. 8,64,512",
            f"--d-k {text!r}: cada d_k debe ser 1 o más, p. ej. 8,64,512",
        )
    return values
