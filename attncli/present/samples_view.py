"""attn samples on a terminal: a table of the installed samples."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table

from attncli.present import render
from attncli.present.language import printable

if TYPE_CHECKING:
    from attncli.present.format import Format
    from attncli.results.samples import SamplesResult


def samples_view(result: SamplesResult, fmt: Format) -> list[RenderableType]:
    """Name, what it holds and a command to try (from Python, which cannot type it, its
    file), then where they are installed."""
    table = Table(box=None, padding=(0, 2, 0, 0))
    python = fmt.surface == "python"
    for key in ("sample_name", "sample_holds", "sample_file" if python else "sample_try"):
        table.add_column(fmt.say(key), overflow="fold")
    for sample in result.samples:
        last = printable(sample.file) if python else sample.example
        table.add_row(printable(sample.name), printable(sample.holding(fmt.lang)), last)
    folder = result.samples[0].path.rsplit("/", 1)[0] if result.samples else "—"
    return [table, render.lines("", fmt.say("samples_where", folder=folder))]
