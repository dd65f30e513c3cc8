"""attncli.options: the language and digits results are shown in from Python.

>>> import attncli as attn
>>> with attn.options(lang="es", digits=3):
...     attn.options().lang
'es'
>>> attn.options().lang is None
True
"""

from __future__ import annotations

from dataclasses import replace
from types import TracebackType

from attncli.results import display

_UNCHANGED = object()


class Options:
    """The display options now in force; as a context manager, the ones before come back
    on leaving the `with` block."""

    def __init__(self, previous: display.Display) -> None:
        self._previous = previous

    lang = property(lambda self: display.current().lang, doc="'en', 'es' or None")
    digits = property(lambda self: display.current().digits, doc="decimals, or None")

    def __enter__(self) -> Options:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        display.choose(self._previous)

    def __repr__(self) -> str:
        return f"options(lang={self.lang!r}, digits={self.digits!r})"


def options(lang: object = _UNCHANGED, digits: object = _UNCHANGED) -> Options:
    """Choose how results are shown in a notebook, by `rich.print(result)` and by
    `result.view()`: `lang` 'en' or 'es' (None: ATTN_LANG, else the locale), `digits` the
    decimals of every number (None: weights 3, other numbers 2). An argument left out keeps
    its value; `attn.options()` alone tells the current ones. Use it in a `with` block to
    choose for that block only."""
    previous = display.current()
    chosen = previous
    if lang is not _UNCHANGED:
        chosen = replace(chosen, lang=lang)  # type: ignore[arg-type]
    if digits is not _UNCHANGED:
        chosen = replace(chosen, digits=digits)  # type: ignore[arg-type]
    display.choose(chosen)
    return Options(previous)
