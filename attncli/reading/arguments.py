"""Numbers typed on the command line: option text ('1,0', '2,1;0,2' or JSON) and
arguments (attn softmax 2 0 1) to the JSON values a document would hold."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from attncli.errors import InputError, OptionError, ShapeError, shown
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
            f"commas, rows by ';', decimals with a point, e.g. {option} '2,0.5;0,2', or JSON)",
            f"{option}: {shown(repr(item))} no es un número (escribe números separados por "
            f"comas y filas por ';', los decimales con punto, p. ej. {option} '2,0.5;0,2', "
            "o JSON)",
        ) from None


# A number written with a decimal comma, as attn prints numbers in Spanish: 0,5 or -1,25.
COMMA_DECIMAL = re.compile(r"[-+]?\d*,\d+")


def comma_decimal(text: str) -> bool:
    return COMMA_DECIMAL.fullmatch(text.strip()) is not None


# Inside an option a comma separates numbers ('1,0'), so '0,5;1' typed for (0.5, 1) is read
# as rows of other lengths, and the error that follows is about shapes. Text that may have
# been typed so: every piece between ';' (or spaces) one number, some with a decimal comma.
def _typed_with_decimal_commas(text: str) -> bool:
    pieces = [piece for piece in re.split(r"[;\s]+", text.strip()) if piece]
    whole = re.compile(r"[-+]?\d+")
    return any(map(comma_decimal, pieces)) and all(
        comma_decimal(piece) or whole.fullmatch(piece) for piece in pieces
    )


@contextmanager
def decimal_commas_told(inline: dict[str, Any]) -> Iterator[None]:
    """An error about numbers given in options that look typed with decimal commas
    ('0,5;1', '0,665;0,090') also says how to type decimals there: with a point, or JSON."""
    typed = [
        (name, text)
        for name, text in inline.items()
        if name != "tokens" and isinstance(text, str) and _typed_with_decimal_commas(text)
    ]
    try:
        yield
    except (InputError, ShapeError) as error:
        if not typed:
            raise
        name, text = typed[0]
        option = f"--{name.replace('_', '-')}"
        meant = shown(repr(text.replace(",", ".").replace(";", ",")))  # what it may have meant
        english = (
            f"{error} (if {option} {shown(repr(text))} holds decimal commas: inside an option "
            f"a comma separates numbers and ';' rows, so write decimals with a point, "
            f"{option} {meant}, or give JSON)"
        )
        spanish = (
            f"{error.message('es')} (si {option} {shown(repr(text))} lleva comas decimales: "
            "dentro de una opción la coma separa números y ';' filas, así que escribe los "
            f"decimales con punto, {option} {meant}, o da JSON)"
        )
        raise type(error)(english, spanish) from None


def read_decimal(text: str, option: str, lang: str) -> float:
    """The one number an option takes: 0.5, or in Spanish also 0,5 (the decimal comma attn
    prints). In English a decimal comma is refused with the two ways to type it."""
    stripped = text.strip()
    try:
        return float(stripped)
    except ValueError:
        pass
    if comma_decimal(stripped):
        if lang == "es":
            return float(stripped.replace(",", "."))
        dotted = stripped.replace(",", ".")
        raise OptionError(
            f"{option} {shown(text)!r}: write the decimal with a point, {option} {dotted} "
            f"(a decimal comma is read with --lang es)",
            f"{option} {shown(text)!r}: escribe el decimal con punto, {option} {dotted}, o "
            "con coma junto con --lang es",
        )
    raise OptionError(
        f"{option} {shown(text)!r} is not a number; e.g. {option} 0.5",
        f"{option} {shown(text)!r} no es un número; p. ej. {option} 0,5 (o 0.5)",
    )


def scores_from_arguments(arguments: list[str], option: str | None, lang: str = "en") -> Any:
    """Scores typed as arguments (attn softmax 2 0 1) or the --scores text; not both."""
    if arguments and option is not None:
        raise InputError(
            "scores given twice: as arguments and with --scores; keep one",
            "puntuaciones dadas dos veces: como argumentos y con --scores; deja una",
        )
    return parse_number_args(arguments, lang=lang) if arguments else option


def parse_number_args(arguments: list[str], field: str = "scores", lang: str = "en") -> list[float]:
    """Numbers typed as arguments ('2 0 1', '-inf' for masked) to floats, as a JSON list
    would; in Spanish a decimal comma too ('2,5 0 1': spaces separate the numbers)."""
    numbers: list[float] = []
    for position, text in enumerate(arguments, 1):
        if text.startswith("--"):
            raise InputError(
                f"no such option: {text} (see --help)", f"no existe la opción {text} (ver --help)"
            )
        text = text.strip()
        if lang == "es" and comma_decimal(text):
            text = text.replace(",", ".")
        try:
            number = float(text)
        except ValueError:
            if comma_decimal(text) or "," in text:
                raise InputError(
                    f"{field}: argument {position} is {shown(text)!r}; separate numbers with "
                    "spaces and write decimals with a point (2.5 0 1), or with a comma "
                    "under --lang es (2,5 0 1)",
                    f"{field}: el argumento {position} es {shown(text)!r}; separa los números "
                    "con espacios y escribe los decimales con coma junto con --lang es "
                    "(2,5 0 1) o con punto (2.5 0 1)",
                ) from None
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
