"""Which row --steps explains (results/rows.pick_row): by number from 1, by token name
(exactly, else the one row that matches without accents or case), or the last."""

from __future__ import annotations

import pytest

from attncli.errors import InputError, OptionError
from attncli.results.rows import pick_row
from tests.meaning import told

LABELS = ("las", "llaves", "están", "Están")


def test_without_a_choice_it_is_the_last_row():
    assert pick_row(LABELS, None, None) == 3
    assert pick_row(("k1",), None, None) == 0


@pytest.mark.parametrize("row", [1, 2, 4])
def test_a_row_is_counted_from_one(row):
    assert pick_row(LABELS, row, None) == row - 1


@pytest.mark.parametrize("row", [0, 5, -1])
def test_a_row_past_either_end_is_refused_saying_the_range(row):
    with pytest.raises(OptionError) as raised:
        pick_row(LABELS, row, None)
    told(
        raised.value,
        OptionError,
        "{option} is out of range: {there} (1 to {total})",
        option=f"--row {row}",
        there=("there are {total} rows", {"total": 4}),
        total=4,
    )


def test_a_row_and_a_token_together_are_refused():
    with pytest.raises(InputError) as raised:
        pick_row(LABELS, 1, "las")
    told(raised.value, InputError, "{row} and {token} both pick a row; give only one",
         row="--row", token="--token")  # fmt: skip


def test_a_token_matches_exactly_first_then_without_accents_or_case():
    assert pick_row(LABELS, None, "Están") == 3  # exact, though «están» folds alike
    assert pick_row(LABELS, None, "LLAVES") == 1  # one row folds to it
    # «a» and a combining accent is «á» written another way: the same token
    assert pick_row(("tren", "está"), None, "esta\u0301") == 1


def test_a_token_that_folds_to_two_rows_is_refused_listing_the_rows():
    with pytest.raises(InputError) as raised:
        pick_row(LABELS, None, "estan")  # «están» and «Están»: which one is not known
    told(raised.value, InputError, "{token} is not a row here; the rows are: {rows}",
         token="--token 'estan'", rows="las, llaves, están, Están")  # fmt: skip
