"""How a result shows itself from Python: the Format chosen by attncli.options (or by
the view's own arguments), which names settings as keywords (draw_missing=True, not
--draw-missing), and a view that displays itself in a notebook and in rich."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from attncli.present.format import Format
from attncli.present.language import resolve
from attncli.results.display import checked, current

if TYPE_CHECKING:
    from rich.console import RenderableType


def format_for(
    lang: str | None = None, digits: int | None = None, base: Format | None = None
) -> Format:
    """The view's own lang and digits, else attncli.options', else ATTN_LANG or the locale
    and each kind of number's default decimals. `base` keeps a given Format's other choices."""
    asked = checked(lang, digits)
    chosen = current()
    language = asked.lang or (base.lang if base is not None else None) or chosen.lang
    language = language or resolve(None, os.environ)
    places = asked.digits if asked.digits is not None else chosen.digits
    if base is None:
        return replace(Format.chosen(places, language), surface="python")
    base = replace(base, lang=language, surface="python")
    if asked.digits is None:
        return base
    return replace(base, weight=asked.digits, other=asked.digits)


class Shown(list):  # type: ignore[type-arg]
    """A result's tables (a list of rich renderables) that show themselves: as the
    terminal's screen in a notebook, and in rich.print."""

    def __rich__(self) -> RenderableType:
        from rich.console import Group

        return Group(*self)

    def _repr_html_(self) -> str:
        from attncli.present.html import cell

        return cell(list(self))
