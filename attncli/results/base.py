"""What every result shares: the JSON document and steps each gives, and its looks in rich
and in a notebook.

A result is data: it does not know how it looks. `__rich__`, `_repr_html_` and `view` open
the one door to attncli.present (imported only then), whose table maps each kind of result
to its renderer.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from attncli.results.rows import pick_row

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attncli.explain.steps import Step
    from attncli.messages import Message
    from attncli.present.format import Format


class Steps(list):  # type: ignore[type-arg]
    """A result's steps (a list of Step data) that show themselves as the hand-worked
    tables, after the score parameters they multiply by, as --steps shows them: in a
    notebook, and in rich.print, in the language attncli.options chose."""

    def __init__(self, steps: list[Any], result: Result | None = None) -> None:
        super().__init__(steps)
        self.result = result  # the result the steps explain, whose parameters they show

    def _view(self) -> list[RenderableType]:
        from attncli.present.notebook import format_for
        from attncli.present.printed import without_hints
        from attncli.present.views import result_steps_view, steps_view

        fmt = format_for()
        if self.result is None:
            return without_hints(steps_view(list(self), fmt))
        return without_hints(result_steps_view(self.result, list(self), fmt))

    def __rich__(self) -> RenderableType:
        from rich.console import Group

        return Group(*self._view())

    def _repr_html_(self) -> str:
        from attncli.present.html import cell

        return cell(self._view())


def _shown_steps(steps: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    @functools.wraps(steps)
    def shown(self: Result, *args: Any, **kwargs: Any) -> list[Any]:
        return Steps(steps(self, *args, **kwargs), self)

    shown.shows_itself = True  # type: ignore[attr-defined]
    return shown


class Result(ABC):
    """Behaviour shared by every result: rich and HTML views. Each kind gives its document.

    Results compare by identity (eq=False): their numpy arrays have no single truth value
    to compare by, and skipping the generated __eq__ keeps importing them quick.
    """

    def __init_subclass__(cls, **settings: Any) -> None:
        """Each kind's steps() gives Steps, which show themselves as the worked tables."""
        super().__init_subclass__(**settings)
        own = cls.__dict__.get("steps")
        if own is not None and not getattr(own, "shows_itself", False):
            cls.steps = _shown_steps(own)  # type: ignore[method-assign]

    def __rich__(self) -> RenderableType:
        from rich.console import Group

        return Group(*self.view())

    def view(
        self,
        fmt: Format | None = None,
        show: frozenset[str] = frozenset(),
        *,
        lang: str | None = None,
        digits: int | None = None,
    ) -> list[RenderableType]:
        """The result's tables, built by its renderer in attncli.present (imported only
        now), in `lang` ('en' or 'es') with `digits` decimals, else as attncli.options
        chose; `show` adds parts a result can show on demand. The list shows itself in a
        notebook and in rich.print, without the command-line advice a terminal shows."""
        from attncli.present.notebook import Shown, format_for
        from attncli.present.printed import without_hints
        from attncli.present.views import view_of

        return Shown(without_hints(view_of(self, format_for(lang, digits, fmt), show)))

    def _repr_html_(self) -> str:
        from attncli.present.html import html_of
        from attncli.present.notebook import format_for

        return html_of(self, format_for())

    @abstractmethod
    def to_document(self) -> dict[str, Any]:
        """What the CLI writes as JSON, as a dict of the input's fields plus what was
        computed, the numbers as numpy arrays (json.dumps needs them as lists first:
        orjson's OPT_SERIALIZE_NUMPY, or .tolist()); the text itself is what
        `attn … --json` prints."""

    # A result with no row to lay out declares why, and what does (a Message), and
    # steps() refuses with it: heads ranked, two runs compared, a rollout's one cell. A kind
    # that declares neither steps nor why is refused as its view being all it computed.
    no_steps: ClassVar[Message | None] = None

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """The computation of one row laid out as a hand-worked table, as data."""
        from attncli.errors import OptionError
        from attncli.messages import Message, _

        why = self.no_steps or Message(
            _("{kind} has no steps to lay out; its view() shows all it computed"),
            kind=type(self).__name__,
        )
        raise OptionError(why.msgid, **why.fields)


def shaped(array: np.ndarray, single: bool) -> np.ndarray:
    """A per-row array back in the input's form: a vector when there was one row."""
    return array[0] if single else array


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class Rowwise(Result):
    """A result with a row per query (one row when the input was a single vector)."""

    single: bool  # the input held one vector, so the result is one vector too
    row_labels: tuple[str, ...]  # a label per query row
    column_labels: tuple[str, ...]  # a label per key
    carried: dict[str, Any] = field(default_factory=dict, compare=False)  # input fields

    def _row(self, row: int | None, token: str | None) -> tuple[int, str | None]:
        """The 0-based row --steps explains and its label (None for a single query)."""
        index = pick_row(self.row_labels, row, token)
        return index, None if self.single else self.row_labels[index]

    def __repr__(self) -> str:
        shapes = ", ".join(
            f"{name}={value.shape}"
            for name, value in vars(self).items()
            if isinstance(value, np.ndarray)
        )
        return f"{type(self).__name__}({shapes}, tokens={list(self.column_labels)})"
