"""The progress bar of a long self-attention run (a long input in row blocks, a big batch a
group of sequences at a time): the queries done so far, on stderr, on a terminal only (never
on a pipe, never on stdout). rich is imported only when it draws."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

# Fewer queries than this finish in well under a second: no bar.
SHOWN_FROM = 4096


@contextmanager
def layer_progress(lang: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yields the callback that hears (queries done, queries in all), or None when stderr
    is not a terminal; the bar appears at the first call of a long enough run."""
    from attncli.present.output import is_terminal

    if not is_terminal(sys.stderr):
        yield None
        return
    with ExitStack() as stack:
        shown: dict[str, Any] = {}

        def step(done: int, total: int) -> None:
            if total < SHOWN_FROM:
                return
            if not shown:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

                from attncli.present.language import say

                columns = (TextColumn(say(lang, "layer_progress")), BarColumn(),
                           MofNCompleteColumn())  # fmt: skip
                bar = Progress(*columns, console=Console(stderr=True), transient=True)
                stack.enter_context(bar)
                shown.update(bar=bar, task=bar.add_task("", total=total))
            shown["bar"].update(shown["task"], completed=done, total=total)

        yield step
