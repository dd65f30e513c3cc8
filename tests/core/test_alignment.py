"""Two sentences' tokens lined up word by word (core/alignment), by hand-made cases and
against a plain reading of the rule on random edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.alignment import align

pytestmark = pytest.mark.slow


def whole(words):
    return list(words), [(i,) for i in range(len(words))]


def test_agreement_changes_every_changed_word_in_place():
    first, groups_a = whole(["la", "llave", "del", "coche", "está", "ahí"])
    second, groups_b = whole(["las", "llaves", "del", "coche", "están", "ahí"])
    alignment = align(first, groups_a, second, groups_b)
    assert alignment.pairs == tuple((i, i) for i in range(6))
    assert alignment.same == (False, False, True, True, False, True)
    assert alignment.unaligned == ()


def test_a_word_added_is_left_out_and_the_rest_shift():
    first, groups_a = whole(["el", "coche", "está", "ahí"])
    second, groups_b = whole(["el", "coche", "rojo", "está", "ahí"])
    alignment = align(first, groups_a, second, groups_b)
    assert alignment.pairs == ((0, 0), (1, 1), (2, 3), (3, 4))
    assert all(alignment.same)
    (added,) = alignment.unaligned
    assert (added.sentence, added.text, added.pieces, added.facing) == (1, "rojo", (2,), None)


def test_a_word_of_another_number_of_pieces_is_not_aligned():
    # BERT's pieces: cupboard is one, cupboards two (cupboard ##s)
    first = ["[CLS]", "the", "key", "to", "the", "cupboard", "[SEP]"]
    groups_a = [(0,), (1,), (2,), (3,), (4,), (5,), (6,)]
    second = ["[CLS]", "the", "keys", "to", "the", "cupboard", "##s", "[SEP]"]
    groups_b = [(0,), (1,), (2,), (3,), (4,), (5, 6), (7,)]
    words_b = ["[CLS]", "the", "keys", "to", "the", "cupboards", "[SEP]"]
    alignment = align(first, groups_a, second, groups_b, None, words_b)
    assert alignment.pairs == ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (6, 7))
    assert [(u.sentence, u.text, len(u.pieces), u.facing, u.facing_pieces)
            for u in alignment.unaligned] == [(0, "cupboard", 1, "cupboards", 2),
                                              (1, "cupboards", 2, "cupboard", 1)]  # fmt: skip


def test_a_word_of_as_many_pieces_is_aligned_piece_by_piece():
    first, second = ["the", "ll", "##ave"], ["the", "ll", "##aves"]
    groups = [(0,), (1, 2)]
    alignment = align(first, groups, second, groups, ["the", "llave"], ["the", "llaves"])
    assert alignment.pairs == ((0, 0), (1, 1), (2, 2))
    assert alignment.same == (True, True, False)


def test_a_run_of_another_length_is_not_aligned():
    first, groups_a = whole(["a", "b", "c"])
    second, groups_b = whole(["a", "x", "y", "z", "c"])
    alignment = align(first, groups_a, second, groups_b)
    assert alignment.pairs == ((0, 0), (2, 4))
    assert [u.text for u in alignment.unaligned] == ["b", "x", "y", "z"]


WORDS = st.lists(st.sampled_from(["el", "la", "coche", "llave", "está", "ahí", "rojo"]),
                 min_size=1, max_size=8)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS)
def test_pairs_are_increasing_and_account_for_every_token(words_a, words_b):
    """Every token is aligned once or said once; the pairs keep both sentences' order; a
    pair of the same text is a word of both."""
    first, groups_a = whole(words_a)
    second, groups_b = whole(words_b)
    alignment = align(first, groups_a, second, groups_b)
    for side in (alignment.first, alignment.second):
        assert side == sorted(set(side))
    left_a = {p for u in alignment.unaligned if u.sentence == 0 for p in u.pieces}
    left_b = {p for u in alignment.unaligned if u.sentence == 1 for p in u.pieces}
    assert set(alignment.first) | left_a == set(range(len(first)))
    assert set(alignment.second) | left_b == set(range(len(second)))
    assert not set(alignment.first) & left_a and not set(alignment.second) & left_b
    for (i, j), same in zip(alignment.pairs, alignment.same, strict=True):
        assert same == (first[i] == second[j])
    if words_a == words_b:
        assert alignment.pairs == tuple((i, i) for i in range(len(first)))
