"""Numbers typed as arguments and options: each read by the one reading of a number typed
in a language (arguments.as_typed), and refused in one line where it is no finite number."""

from __future__ import annotations

import math

import pytest

from attncli.errors import InputError, OptionError
from attncli.reading.parse.arguments import parse_dks, parse_number_args, read_decimal
from tests.meaning import WRONG, told

ARGUMENT = ("{field}: argument {position}", {"field": "scores", "position": 2})
TWO_WAYS = (
    "{where} {text!r} reads two ways: {thousands} with '.' between thousands, or {decimal} "
    "with a decimal point; write {plain} for the first, {comma} for the second"
)


@pytest.mark.parametrize("text", ["x", "nan", "inf", "+inf"])
def test_an_argument_that_is_no_finite_number_is_one_refusal(text):
    with pytest.raises(InputError) as caught:
        parse_number_args(["2", text])
    told(
        caught.value,
        InputError,
        WRONG,
        where=ARGUMENT,
        kind=repr(text),
        expected=("a finite number (or -inf for masked)", {}),
    )


def test_a_number_is_read_as_the_language_writes_it_wherever_it_is_typed():
    assert parse_number_args(["2,5", "-inf"], lang="es") == [2.5, -math.inf]
    assert read_decimal("0,5", "--temperature", "es") == 0.5
    for read in (lambda: parse_number_args(["1.000"], lang="es"),
                 lambda: read_decimal("1.000", "--temperature", "es")):  # fmt: skip
        with pytest.raises(InputError) as caught:
            read()
        told(caught.value, InputError, TWO_WAYS, thousands="1000", comma="1,000")


def test_d_k_is_whole_numbers_of_one_or_more():
    assert parse_dks(" 8, 64") == [8, 64]
    for text, item in (("8,,2", 2), ("0", 1), ("8,²", 2), ("-1", 1)):
        with pytest.raises(OptionError) as caught:
            parse_dks(text)
        assert caught.value.fields["item"] == item
