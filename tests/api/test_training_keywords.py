"""attn train's Python keywords held as its command line's choices and range hold them:
an optimizer, a kind of positions and a count of iterations attn does not take are
refused before anything is drawn."""

from __future__ import annotations

import pytest

import attncli as attn
from attncli.errors import OptionError
from attncli.limits import MAX_ITERATIONS
from tests.meaning import ABOVE, LEAST, MOST, TRY, told

ONE_OF = "{setting}: give one of {choices}"


@pytest.mark.parametrize(
    ("keywords", "msgid", "fields"),
    [
        ({"optimizer": "rmsprop"}, ONE_OF,
         {"setting": "optimizer='rmsprop'", "choices": "sgd, adam"}),
        ({"positions": "rop"}, ONE_OF,
         {"setting": "positions='rop'", "choices": "sinusoidal, rope"}),
        ({"iterations": -1}, TRY,
         {"refusal": (LEAST, {"setting": "iterations=-1", "least": 0, "most": MAX_ITERATIONS}),
          "example": "iterations=300"}),
        ({"iterations": MAX_ITERATIONS + 1}, TRY,
         {"refusal": (MOST, {"setting": f"iterations={MAX_ITERATIONS + 1}", "least": 0,
                             "most": MAX_ITERATIONS}),
          "example": "iterations=300"}),
        ({"lr": -1}, TRY,
         {"refusal": (ABOVE, {"setting": "lr=-1", "above": "0"}), "example": "lr=0.1"}),
        ({"lr": float("nan")}, TRY,
         {"refusal": (ABOVE, {"setting": "lr=nan", "above": "0"}), "example": "lr=0.1"}),
    ],
)  # fmt: skip
def test_a_keyword_the_command_line_would_refuse_is_refused(keywords, msgid, fields):
    with pytest.raises(OptionError) as caught:
        attn.train("el tren va", want="va=tren", **keywords)
    told(caught.value, OptionError, msgid, "python", **fields)


def test_a_want_beside_a_corpus_is_refused():
    # each sentence of a corpus says its own wants: one given beside it is never ignored
    from attncli.reading.parse.wants import parse_corpus

    corpus = parse_corpus("el tren va lleno | lleno=tren\n", "c.txt")
    with pytest.raises(OptionError) as caught:
        attn.train(want="lleno=tren", corpus=corpus)
    told(caught.value, OptionError, "{option} with {beside}: {why}", "python", option="want",
         beside="corpus=…",
         why=("each of its sentences says its own wants{how}; leave out {option}",
              {"option": "want", "how": ""}))  # fmt: skip
