"""What attn train is asked to teach: --want query=key, and corpus files of sentences with
their wants (`las llaves de la puerta están ahí | están=llaves`, as samples/concordancia-
entreno.txt holds them).

A side of a want is a token of the sentence, or its position (1 = the first token) when
the token appears more than once. Words are compared in Unicode normal form C, as the
embeddings compare them.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from attncli.errors import InputError, shown
from attncli.messages import Message, Setting, _
from attncli.reading.parse.values import whole_number

EXAMPLE = Setting("want", "están=llaves")  # --want están=llaves, want='están=llaves'
# The corpus installed with attn (attn train --corpus concordancia-entreno), whose first
# sentence is the line a refusal of a corpus file shows.
SAMPLE_CORPUS = "concordancia-entreno.txt"


@dataclass(frozen=True)
class Sentence:
    """One sentence to train or test on: its tokens and its wanted (query, key) cells."""

    tokens: tuple[str, ...]
    wanted: tuple[tuple[int, int], ...]  # 0-based (query row, key column)
    where: Message | str = ""  # "line 3 of corpus.txt" for messages; "" for the command line


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def at(where: Message | str) -> Message | str:
    """' (line 3 of corpus.txt)' after a want, or nothing for the command line."""
    return Message(_(" ({where})"), where=where) if where else ""


def _position(
    side: str, tokens: Sequence[str], pair: str, where: Message | str, other: str, first: bool
) -> int:
    """The 0-based position of one side of a want (the query side when `first`): a token,
    or a 1-based number; `other` is the want's other side, for the suggestion."""
    places = [index for index, token in enumerate(tokens) if _normal(token) == _normal(side)]
    if len(places) == 1:
        return places[0]
    if len(places) > 1:
        numbers = [str(index + 1) for index in places]
        if len(numbers) > 7:  # a few and the last: a token 68,000 times is not listed whole
            numbers = [*numbers[:6], "...", numbers[-1]]
        listed = ", ".join(numbers)
        number = str(places[-1] + 1)
        suggestion = f"{number}={other}" if first else f"{other}={number}"
        raise InputError(
            _(
                "{want}{at}: «{side}» appears {times} times (positions {listed}); name it by "
                "its position, e.g. {suggestion}"
            ),
            want=Setting("want", shown(pair)),
            at=at(where),
            side=shown(side),
            times=len(places),
            listed=listed,
            suggestion=Setting("want", suggestion),
        )
    position = whole_number(side, 1, len(tokens))
    if position is not None:
        return position - 1
    known = " ".join(tokens)
    raise InputError(
        _(
            "{want}{at}: «{side}» is not a token of the sentence ({sentence}); name one of its "
            "tokens or a position from 1 to {last}"
        ),
        want=Setting("want", shown(pair)),
        at=at(where),
        side=shown(side),
        sentence=shown(known, 60),
        last=len(tokens),
    )


def parse_want(pair: str, tokens: Sequence[str], where: Message | str = "") -> tuple[int, int]:
    """'están=llaves' to (4, 1) for «las llaves del coche están ahí»."""
    query, equals, key = pair.partition("=")
    if not equals or not query.strip() or not key.strip() or "=" in key:
        raise InputError(
            _(
                "{want}{at}: write it as query=key, the token that should look and the token it "
                "should find, e.g. {example}"
            ),
            want=Setting("want", shown(pair)),
            example=EXAMPLE,
            at=at(where),
        )
    query, key = query.strip(), key.strip()
    return (
        _position(query, tokens, pair, where, key, True),
        _position(key, tokens, pair, where, query, False),
    )


def parse_wants(
    pairs: Sequence[str], tokens: Sequence[str], where: Message | str = ""
) -> tuple[tuple[int, int], ...]:
    """Every want of a sentence; at least one."""
    if not pairs:
        raise InputError(
            _("nothing to learn{at}: say which token should look at which, e.g. {example}"),
            at=at(where),
            example=EXAMPLE,
        )
    return tuple(parse_want(pair, tokens, where) for pair in pairs)


@cache
def corpus_line() -> str:
    """A line of a corpus file, for a refusal to show: the first sentence of the corpus
    installed with attn, with its wants (`las llaves de la puerta están ahí | están=llaves`)."""
    from attncli.reading.parse.samples import FOLDER
    from attncli.reading.parse.sentence_list import numbered_lines

    with open(os.path.join(FOLDER, SAMPLE_CORPUS), encoding="utf-8") as file:
        return numbered_lines(file.read(), SAMPLE_CORPUS)[0][1]


def parse_corpus(text: str, source: str) -> list[Sentence]:
    """A corpus file: one sentence per line, then `|` and its wants separated by commas or
    spaces. Blank lines and lines starting with # are skipped."""
    from attncli.reading.parse.sentence import tokenize
    from attncli.reading.parse.sentence_list import numbered_lines

    sentences = []
    for number, line in numbered_lines(text, source, corpus_line()):
        where = Message(_("line {number} of {source}"), number=number, source=source)
        sentence, bar, wants = line.rpartition("|")
        if not bar or not sentence.strip():
            raise InputError(
                _("{source}, line {number}: write the sentence, then | and what it wants, e.g. "
                  "{example}"),
                source=source,
                number=number,
                example=corpus_line(),
            )  # fmt: skip
        tokens = tokenize(sentence)
        pairs = wants.replace(",", " ").split()
        wanted = parse_wants(pairs, tokens, where)
        sentences.append(Sentence(tuple(tokens), wanted, where))
    return sentences
