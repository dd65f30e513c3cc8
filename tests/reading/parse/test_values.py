"""Numbers read in the rank their place takes: a value of another rank, or an empty one,
is refused in one line by the one check of ranks, whether JSON or an array gave it."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.errors import InputError
from attncli.reading.parse.values import parse_tokens, to_batch, to_matrix, to_tensor, to_vector
from tests.meaning import EMPTY, WRONG, told

VECTOR = ("one vector such as [1, 0]", {})
MATRIX = ("a matrix, a row per token, such as [[2, 1], [0, 2]]", {})
BATCH = ("a batch of matrices, such as [[[2, 1], [0, 2]]]", {})


def _shape(shape):
    return ("an array of shape {shape}", {"shape": shape})


@pytest.mark.parametrize(
    ("read", "value", "where", "kind", "expected"),
    [(to_vector, [[1, 2]], "keys", ("a matrix", {}), VECTOR),
     (to_vector, "a", "keys", ('{value} (a string)', {"value": '"a"'}), VECTOR),
     (to_matrix, [1, 2], "keys", ("a single row (wrap it in [ ] for a matrix of one row)", {}),
      MATRIX),
     (to_matrix, 5, "keys", ("{value}", {"value": "5"}), MATRIX),
     (to_matrix, [[1], 3], ("{field}: row {row}", {"field": "keys", "row": 2}),
      ("{value}", {"value": "3"}), ("a row of numbers", {})),
     (to_matrix, np.ones((2, 2, 2)), "keys", _shape((2, 2, 2)), MATRIX),
     (to_batch, np.ones((2, 2)), "keys", _shape((2, 2)), BATCH)],
)  # fmt: skip
def test_a_value_of_another_rank_is_refused_in_one_template(read, value, where, kind, expected):
    with pytest.raises(InputError) as caught:
        read(value, "keys")
    told(caught.value, InputError, WRONG, where=where, kind=kind, expected=expected)


@pytest.mark.parametrize(
    ("read", "value", "where", "expected"),
    [(to_vector, [], "keys", "at least one number"),
     (to_matrix, [], "keys", "at least one row"),
     (to_matrix, [[]], ("{field}: row {row}", {"field": "keys", "row": 1}), "at least one number"),
     # a weight nests as deep as its first items: [[]] is a matrix whose row is empty
     (to_tensor, [[]], ("{field}: row {row}", {"field": "keys", "row": 1}), "at least one number"),
     (to_tensor, [[[]]], ("{field}: row {row}", {"field": "keys[0]", "row": 1}),
      "at least one number"),
     (to_vector, np.ones((0,)), "keys", "at least one number"),
     (to_matrix, np.ones((2, 0)), "keys", "at least one number"),
     (to_batch, np.ones((2, 0, 2)), "keys", "at least one number")],
)  # fmt: skip
def test_an_empty_value_is_refused_by_what_its_place_holds(read, value, where, expected):
    with pytest.raises(InputError) as caught:
        read(value, "keys")
    told(caught.value, InputError, EMPTY, where=where, expected=(expected, {}))


@pytest.mark.parametrize(
    ("value", "where", "kind", "expected"),
    [([], "tokens", ("a list", {}), "a non-empty list of token names"),
     ({"el": 1}, "tokens", ("an object", {}), "a non-empty list of token names"),
     (["el", 3], ("{field}, item {item}", {"field": "tokens", "item": 2}),
      ("{value}", {"value": "3"}), "a string")],
)  # fmt: skip
def test_tokens_are_a_list_of_names_and_the_first_that_is_not_is_named(
    value, where, kind, expected
):
    with pytest.raises(InputError) as caught:
        parse_tokens(value)
    told(caught.value, InputError, WRONG, where=where, kind=kind, expected=(expected, {}))
    assert parse_tokens(" el, tren") == ["el", "tren"]
