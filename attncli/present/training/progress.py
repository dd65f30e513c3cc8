"""The progress bar of attn train: the loss on stderr while it trains, on a terminal only.
rich is imported only when there is a terminal to draw on, so a piped run never loads it."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def training_progress(lang: str, total: int) -> Iterator[Callable[[int, float], None] | None]:
    """A progress bar with the loss on stderr while training, when stderr is a terminal
    (never on a pipe); yields the callback that hears each update, or None."""
    from attncli.present.output import is_terminal

    if not is_terminal(sys.stderr) or total == 0:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from attncli.messages import Message, _
    from attncli.present.language import say

    columns = (
        TextColumn(say(lang, "train_progress")),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[loss]}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("", total=total, loss="")

        def step(done: int, loss: float) -> None:
            shown = Message(_("{loss:.4f}"), loss=float(loss)) if math.isfinite(loss) else str(loss)
            progress.update(task, completed=done, loss=say(lang, "train_progress_loss", loss=shown))

        yield step
