"""A file of sentences, one a line (attn heads --sentences, attn train --corpus): blank lines
and lines starting with # are skipped."""

from __future__ import annotations

from attncli.errors import InputError
from attncli.messages import _

EXAMPLE = "the keys to the cabinet are on the table"


def numbered_lines(text: str, source: str, example: str = EXAMPLE) -> list[tuple[int, str]]:
    """The lines of `text` that hold a sentence, stripped, each with its number (from 1);
    none at all is refused, with a line as `example` writes one."""
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)]
    lines = [(number, line) for number, line in lines if line and not line.startswith("#")]
    if not lines:
        raise InputError(
            _("{source} has no sentences; write one per line, e.g. {example}"),
            source=source,
            example=example,
        )
    return lines


def sentence_lines(text: str, source: str) -> list[str]:
    """The sentences of `text`, one a line, stripped; none at all is refused."""
    return [line for _number, line in numbered_lines(text, source)]
