"""Two sentences compared from Python (attncli.compare_sentences, attncli.compare_heads):
the difference is two separate runs' to the last bit, on the seeded layer and the demo
model, and what is aligned is what the words say."""

from __future__ import annotations

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests.meaning import told

FIRST, SECOND = "la llave del coche está ahí", "las llaves del coche están ahí"
DEMO = "all-MiniLM-L6-v2"
KEY = "the key to the cabinet is on the table"
KEYS = "the keys to the cabinet are on the table"


def test_the_seeded_difference_is_two_separate_runs_bit_for_bit():
    pair = attn.compare_sentences(FIRST, SECOND)
    a, b = attn.selfattn(FIRST), attn.selfattn(SECOND)
    np.testing.assert_array_equal(pair.difference, b.weights - a.weights)  # all 6 aligned
    loop = np.array([[b.weights[i, j] - a.weights[i, j] for j in range(6)] for i in range(6)])
    assert (pair.difference == loop).all()


def test_the_seeded_layers_settings_reach_both_runs():
    pair = attn.compare_sentences(FIRST, SECOND, heads=2, seed=3, causal=True, head=2)
    a = attn.selfattn(FIRST, heads=2, seed=3, causal=True)
    b = attn.selfattn(SECOND, heads=2, seed=3, causal=True)
    assert pair.difference.shape == (2, 6, 6) and pair.shown_head == 1
    np.testing.assert_array_equal(pair.difference, b.weights - a.weights)
    # causal: a query never looks ahead, in either sentence, so neither does the difference
    assert (pair.difference[:, np.triu_indices(6, 1)[0], np.triu_indices(6, 1)[1]] == 0).all()


def test_the_largest_changes_are_the_largest_cells():
    pair = attn.compare_sentences(FIRST, SECOND)
    magnitudes = np.abs(pair.difference).ravel()
    top = np.sort(magnitudes)[::-1][:3]
    got = [abs(pair.difference[r, c]) for r, c in pair.largest[0]]
    np.testing.assert_array_equal(got, top)


def test_the_models_difference_is_two_separate_runs_bit_for_bit():
    pair = attn.compare_sentences(KEY, KEYS, model=DEMO, layer=4)
    a = attn.selfattn(KEY, model=DEMO, layer=4)
    b = attn.selfattn(KEYS, model=DEMO, layer=4)
    assert pair.difference.shape == (12, 11, 11)
    np.testing.assert_array_equal(pair.difference, b.weights - a.weights)
    assert pair.alignment.same.count(False) == 2  # key/keys, is/are


def test_a_word_split_otherwise_is_left_out_of_the_difference():
    first, second = "the key to the cupboard", "the keys to the cupboards"
    pair = attn.compare_sentences(first, second, model=DEMO, layer=2, head=3)
    a = attn.selfattn(first, model=DEMO, layer=2, head=3)
    b = attn.selfattn(second, model=DEMO, layer=2, head=3)
    kept_a, kept_b = [0, 1, 2, 3, 4, 6], [0, 1, 2, 3, 4, 7]  # cupboard / cupboard ##s left out
    assert pair.alignment.first == kept_a and pair.alignment.second == kept_b
    expected = b.weights[np.ix_(kept_b, kept_b)] - a.weights[np.ix_(kept_a, kept_a)]
    np.testing.assert_array_equal(pair.difference, expected)
    words = attn.compare_sentences(first, second, model=DEMO, layer=2, head=3, words=True)
    assert words.alignment.unaligned == () and words.difference.shape == (7, 7)
    np.testing.assert_array_equal(
        words.difference,
        attn.selfattn(second, model=DEMO, layer=2, head=3, words=True).word_weights
        - attn.selfattn(first, model=DEMO, layer=2, head=3, words=True).word_weights,
    )


def test_heads_rank_the_change_of_a_cell_as_two_runs_give_it():
    change = attn.compare_heads(KEY, KEYS, DEMO, source="is", target="key")
    best = change.ranking[0]
    assert (best.layer, best.head) == (4, 2)
    a = attn.selfattn(KEY, model=DEMO, layer=4, head=2)
    b = attn.selfattn(KEYS, model=DEMO, layer=4, head=2)
    assert best.before == a.weights[6, 2] and best.after == b.weights[6, 2]
    assert best.change == b.weights[6, 2] - a.weights[6, 2]
    changes = [abs(c.change) for c in change.ranking]
    assert changes == sorted(changes, reverse=True) and len(changes) == 72


def test_heads_by_their_largest_change_and_the_grid():
    change = attn.compare_heads(KEY, KEYS, DEMO, grid=True)
    assert change.grid is not None and change.grid.shape == (6, 12, 11, 11)
    for entry in change.ranking[:5]:
        cells = change.difference[entry.layer - 1, entry.head - 1]
        assert abs(entry.change) == np.abs(cells).max()
        np.testing.assert_array_equal(change.grid[entry.layer - 1, entry.head - 1], np.abs(cells))


def test_refusals():
    with pytest.raises(OptionError):
        attn.compare_sentences(FIRST, "")
    for first in (None, " ", "\u200b"):  # none, spaces, a character the tokenizer drops
        with pytest.raises(InputError) as caught:
            attn.compare_sentences(first, SECOND)  # type: ignore[arg-type]
        told(
            caught.value,
            InputError,
            "give a sentence, e.g. {example}",
            "python",
            example=f'attncli.compare_sentences("{FIRST}", "{SECOND}")',
        )
    with pytest.raises(InputError) as caught:
        attn.compare_sentences("uno dos", "tres cuatro cinco")
    assert caught.value.fields["first"] == "uno dos"
    with pytest.raises(OptionError):
        attn.compare_sentences(FIRST, SECOND, layer=2)
    with pytest.raises(OptionError):
        attn.compare_sentences(FIRST, SECOND, model=DEMO, seed=2)
    with pytest.raises(OptionError) as caught:
        attn.compare_sentences(FIRST, SECOND, heads=2, head=3)
    assert caught.value.fields["total"] == 2
    with pytest.raises(OptionError) as caught:
        attn.compare_heads(KEY, KEYS, DEMO, source="is")
    told(
        caught.value,
        OptionError,
        "{option} {why}; add {needed}",
        "python",
        option="source='is'",
        needed="target",
        why=("and {other} name one cell together", {"option": "source='is'", "other": "target"}),
    )
    with pytest.raises(OptionError) as caught:  # the column alone as well
        attn.compare_heads(KEY, KEYS, DEMO, target="keys")
    told(
        caught.value,
        OptionError,
        "{option} {why}; add {needed}",
        "python",
        option="target='keys'",
        needed="source",
    )
    with pytest.raises(InputError) as caught:
        attn.compare_heads("the key to the cupboard", "the keys to the cupboards", DEMO,
                           source="cupboard", target="key")  # fmt: skip
    assert caught.value.fields["token"] == "cupboard"
    assert "source='cupboard' is not aligned" in str(caught.value)  # Python's words
