"""The language and digits a result is shown in outside the command line (a notebook,
`rich.print(result)`, `result.view()`), when the view is not told: chosen with
`attncli.options(lang=..., digits=...)`. Data only; attncli.present reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from attncli.errors import OptionError

LANGUAGES = ("en", "es")
MAX_DIGITS = 15  # as --digits


@dataclass(frozen=True)
class Display:
    """None means "not chosen": the language then follows ATTN_LANG or the locale, and the
    digits are each kind of number's own (weights 3, other numbers 2)."""

    lang: str | None = None
    digits: int | None = None


_chosen = [Display()]


def current() -> Display:
    """What attncli.options chose last."""
    return _chosen[0]


def choose(display: Display) -> None:
    _chosen[0] = checked(display.lang, display.digits)


def checked(lang: object, digits: object) -> Display:
    """A language and digits as given in Python, refused with one line when not usable."""
    if lang is not None and lang not in LANGUAGES:
        raise OptionError(
            f"lang={lang!r}: choose 'en' or 'es' (or None for ATTN_LANG or the locale)",
            f"lang={lang!r}: elige 'en' o 'es' (o None para ATTN_LANG o el locale)",
        )
    if digits is not None and (
        isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= MAX_DIGITS
    ):
        raise OptionError(
            f"digits={digits!r}: give a whole number from 0 to {MAX_DIGITS} "
            "(or None for weights 3, other numbers 2)",
            f"digits={digits!r}: da un número entero de 0 a {MAX_DIGITS} "
            "(o None para pesos 3, el resto 2)",
        )
    return Display(lang, digits)  # type: ignore[arg-type]
