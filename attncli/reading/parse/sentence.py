"""A sentence to tokens: the parsing step of attn selfattn."""

from __future__ import annotations

import unicodedata

from attncli.errors import InputError
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.parse.samples import LESSON


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


EXAMPLE = OnSurface(f'attn selfattn "{LESSON}"', f'attncli.selfattn("{LESSON}")')


def sentence_text(
    sentence: object, what: Message | Setting | None = None, example: OnSurface = EXAMPLE
) -> str:
    """A sentence given as a text, with any byte that was not UTF-8 (from a Latin-1
    terminal) as U+FFFD; anything else (a number, a result passed back) is refused, naming
    `what` it is (the sentence, unless said) with the caller's `example`."""
    from attncli.reading.parse.json_text import valid_text

    if not isinstance(sentence, str):
        raise InputError(
            _("{what} is {kind}; give a text, e.g. {example}"),
            what=what or Message(_("the sentence")),
            kind=type(sentence).__name__,
            example=example,
        )
    return valid_text(sentence)


def tokenize(sentence: str, what: Message | Setting | None = None) -> list[str]:
    """Whitespace-separated words, with leading and trailing punctuation split off; `what`
    names the sentence in a refusal."""
    tokens: list[str] = []
    for word in sentence_text(sentence, what).split():
        start, end = 0, len(word)
        while start < end and _is_punctuation(word[start]):
            start += 1
        while end > start and _is_punctuation(word[end - 1]):
            end -= 1
        tokens.extend(word[:start])
        if start < end:
            tokens.append(word[start:end])
        tokens.extend(word[end:])
    if not tokens:
        raise InputError(
            _("the sentence is empty; give some words, e.g. {example}"), example=EXAMPLE
        )
    return tokens
