"""attn train's Python keywords held as its command line's choices and range hold them:
an optimizer, a kind of positions and a count of iterations attn does not take are
refused before anything is drawn."""

from __future__ import annotations

import pytest

import attncli as attn
from attncli.errors import OptionError
from attncli.limits import MAX_ITERATIONS
from tests.meaning import told

NOT_KNOWN = "{setting} is not known; one of {known}"


@pytest.mark.parametrize(
    ("keywords", "msgid", "fields"),
    [
        ({"optimizer": "rmsprop"}, NOT_KNOWN,
         {"setting": "optimizer='rmsprop'", "known": "sgd, adam"}),
        ({"positions": "rop"}, NOT_KNOWN,
         {"setting": "positions='rop'", "known": "sinusoidal, rope"}),
        ({"iterations": -1}, "{setting}: it must be {least} or more",
         {"setting": "iterations=-1", "least": 0}),
        ({"iterations": MAX_ITERATIONS + 1}, "{setting}: it must be {most} or less",
         {"setting": f"iterations={MAX_ITERATIONS + 1}", "most": MAX_ITERATIONS}),
    ],
)  # fmt: skip
def test_a_keyword_the_command_line_would_refuse_is_refused(keywords, msgid, fields):
    with pytest.raises(OptionError) as caught:
        attn.train("el tren va", want="va=tren", **keywords)
    told(caught.value, OptionError, msgid, "python", **fields)
