"""The language and digits a result is shown in outside the command line (a notebook,
`rich.print(result)`, `result.view()`), when the view is not told: chosen with
`attncli.options(lang=..., digits=...)`. Data only; attncli.present reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from attncli.errors import OptionError
from attncli.messages import _, languages

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
    if lang is not None and lang not in languages():
        raise OptionError(
            _("lang={lang}: choose one of {known} (or None for ATTN_LANG or the locale)"),
            lang=repr(lang),
            known=", ".join(map(repr, languages())),
        )
    if digits is not None and (
        isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= MAX_DIGITS
    ):
        raise OptionError(
            _(
                "digits={digits}: give a whole number from 0 to {most} "
                "(or None for weights 3, other numbers 2)"
            ),
            digits=repr(digits),
            most=MAX_DIGITS,
        )
    return Display(lang, digits)  # type: ignore[arg-type]
