"""Two sentences' tokens lined up word by word, so that their attention grids can be
subtracted cell by cell (attn selfattn --compare, attn heads --compare).

The words are matched as a diff matches lines (difflib's longest matching blocks): a word
of both sentences is aligned with itself; a run of changed words is aligned word by word
when both runs have as many words («la llave» against «las llaves»); a word is aligned
piece by piece only when both words have as many pieces («keys» against «key», one piece
each). Anything else (a word added or dropped, a run of changed words of another length, a
word read as another number of pieces) is not aligned, and said.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Unaligned:
    """A word of one sentence with no counterpart in the other: its position among the
    words (0-based), the word, and its tokens' positions."""

    sentence: int  # 0: the first, 1: the second
    word: int
    text: str
    pieces: tuple[int, ...]
    # the word it faced in the other sentence, when it was a changed word of another
    # number of pieces; None when it was added, dropped or in a run of another length
    facing: str | None = None
    facing_pieces: int = 0


@dataclass(frozen=True)
class Alignment:
    """The token positions that line up: pairs[k] = (position in the first, position in
    the second), in the first's order; which pairs hold the same token; the words left
    out."""

    pairs: tuple[tuple[int, int], ...]
    same: tuple[bool, ...]  # per pair: the two tokens are the same text
    unaligned: tuple[Unaligned, ...]

    @property
    def first(self) -> list[int]:
        return [i for i, _ in self.pairs]

    @property
    def second(self) -> list[int]:
        return [j for _, j in self.pairs]


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def align(
    first_tokens: Sequence[str],
    first_groups: Sequence[Sequence[int]],
    second_tokens: Sequence[str],
    second_groups: Sequence[Sequence[int]],
    first_words: Sequence[str] | None = None,
    second_words: Sequence[str] | None = None,
) -> Alignment:
    """The alignment of two sentences read as tokens, each word a group of token
    positions (`groups`; a sentence of whole words has one position per word). The words
    are `words` when given, else each group's tokens joined."""
    from difflib import SequenceMatcher

    def words_of(tokens: Sequence[str], groups: Sequence[Sequence[int]],
                 given: Sequence[str] | None) -> list[str]:  # fmt: skip
        if given is not None:
            return [_normal(word) for word in given]
        return [_normal("".join(tokens[i] for i in group)) for group in groups]

    words_a = words_of(first_tokens, first_groups, first_words)
    words_b = words_of(second_tokens, second_groups, second_words)
    pairs: list[tuple[int, int]] = []
    unaligned: list[Unaligned] = []
    matcher = SequenceMatcher(None, words_a, words_b, autojunk=False)
    for kind, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if kind in ("equal", "replace") and a_end - a_start == b_end - b_start:
            for a, b in zip(range(a_start, a_end), range(b_start, b_end), strict=True):
                pieces_a, pieces_b = tuple(first_groups[a]), tuple(second_groups[b])
                if len(pieces_a) == len(pieces_b):
                    pairs.extend(zip(pieces_a, pieces_b, strict=True))
                    continue
                unaligned.append(Unaligned(0, a, words_a[a], pieces_a, words_b[b], len(pieces_b)))
                unaligned.append(Unaligned(1, b, words_b[b], pieces_b, words_a[a], len(pieces_a)))
            continue
        unaligned += [Unaligned(0, a, words_a[a], tuple(first_groups[a]))
                      for a in range(a_start, a_end)]  # fmt: skip
        unaligned += [Unaligned(1, b, words_b[b], tuple(second_groups[b]))
                      for b in range(b_start, b_end)]  # fmt: skip
    pairs.sort()
    same = tuple(_normal(first_tokens[i]) == _normal(second_tokens[j]) for i, j in pairs)
    unaligned.sort(key=lambda u: (u.sentence, u.word))
    return Alignment(tuple(pairs), same, tuple(unaligned))
