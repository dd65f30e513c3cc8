"""What every result shares: its looks in rich and in a notebook, built by attncli.present
only when asked for, and the JSON document and steps each result gives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attncli.explain.calculator import Step
    from attncli.present.format import Format


class Result:
    """Behaviour shared by every result: rich and HTML views.

    Results compare by identity (eq=False): their numpy arrays have no single truth value
    to compare by, and skipping the generated __eq__ keeps importing them quick.
    """

    def __rich__(self) -> RenderableType:
        from rich.console import Group

        from attncli.present.format import Format

        return Group(*self.view(Format()))

    def view(self, fmt: Format, show: frozenset[str] = frozenset()) -> list[RenderableType]:
        """The result's tables, built by its renderer in attncli.present (imported only
        now); `show` adds parts a result can show on demand."""
        raise NotImplementedError

    def _repr_html_(self) -> str:
        from attncli.present.html import html_of

        return html_of(self)

    def to_document(self) -> dict[str, Any]:
        """The JSON document the CLI writes: the input's fields plus what was computed."""
        raise NotImplementedError

    def steps(self, row: int | None = None, token: str | None = None) -> list[Step]:
        """The computation of one row laid out as a hand-worked table, as data."""
        raise NotImplementedError
