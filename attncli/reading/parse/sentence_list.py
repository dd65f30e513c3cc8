"""A file of sentences, one a line (attn heads --sentences): blank lines and lines starting
with # are skipped."""

from __future__ import annotations

from attncli.errors import InputError
from attncli.messages import _


def sentence_lines(text: str, source: str) -> list[str]:
    """The sentences of `text`, one a line, stripped; none at all is refused."""
    sentences = [line.strip() for line in text.splitlines()]
    sentences = [line for line in sentences if line and not line.startswith("#")]
    if not sentences:
        raise InputError(
            _(
                "{source} has no sentences; write one per line, e.g. the keys to the cabinet "
                "are on the table"
            ),
            source=source,
        )
    return sentences
