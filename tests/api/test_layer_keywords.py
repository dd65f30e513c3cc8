"""The layer's settings refuse from Python what the command line's types and ranges refuse:
a window of 0 would mask every key, a float where a count is meant would fail deep in
numpy, a rotary base without rotary positions would be ignored. One line, naming the
keyword as Python writes it (the same error says the option on the command line)."""

from __future__ import annotations

import pytest

import attncli as attn
from attncli.errors import OptionError, OptionTypeError
from tests.meaning import told

SENTENCE = "las llaves del coche"


@pytest.mark.parametrize(
    ("keywords", "msgid", "said"),
    [
        ({"window": 0}, "{setting}: it must be {least} or more", "window=0: it must be 1 or more"),
        ({"window": -1}, "{setting}: it must be {least} or more", "window=-1"),
        ({"heads": 0}, "{setting}: it must be {least} or more", "heads=0: it must be 1 or more"),
        ({"d_model": 0}, "{setting}: it must be {least} or more", "d_model=0"),
        ({"d_k": 0}, "{setting}: it must be {least} or more", "d_k=0"),
        ({"d_v": -2}, "{setting}: it must be {least} or more", "d_v=-2"),
        ({"window": 1.5}, "{setting}: give a whole number", "window=1.5: give a whole number"),
        ({"window": True}, "{setting}: give a whole number", "window=True"),
        ({"heads": 4, "kv_heads": 2.0}, "{setting}: give a whole number", "kv_heads=2.0"),
        ({"heads": 2.0}, "{setting}: give a whole number", "heads=2.0"),
        ({"seed": -1}, "{setting}: it must be {least} or more", "seed=-1: it must be 0 or more"),
        ({"positions": "rop"}, "{setting}: give one of {choices}",
         "positions='rop': give one of sinusoidal, rope"),
        ({"rope_base": 5000.0}, "{setting} is {what}; add {needed}",
         "rope_base=5000.0 is the base of rotary positions' angles; add positions='rope'"),
    ],
)  # fmt: skip
def test_a_keyword_the_command_line_would_refuse_is_refused(keywords, msgid, said):
    with pytest.raises(OptionError) as caught:
        attn.selfattn(SENTENCE, **keywords)
    assert caught.value.msgid == msgid
    assert said in str(caught.value)


def test_the_same_refusals_name_the_options_on_the_command_line(run):
    ignored = run("selfattn", "a b c", "--rope-base", "5000")
    assert ignored.exit_code == 2 and ignored.stdout == ""
    told(ignored.error, OptionError, "{setting} is {what}; add {needed}",
         setting="--rope-base 5000.0", needed="--positions rope")  # fmt: skip
    assert ignored.stderr == f"attn: error: {ignored.error.message('en')}\n"
    turned = run("selfattn", "a b c", "--positions", "rope", "--rope-base", "5000")
    assert turned.exit_code == 0, turned.stderr


def test_what_the_command_line_allows_still_runs():
    assert attn.selfattn(SENTENCE, window=1, heads=2, kv_heads=1).weights.shape == (2, 4, 4)
    assert attn.selfattn(SENTENCE, positions="rope", rope_base=500.0).rope_base == 500.0


LLAMA = "tests/models/tiny-llama"


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (
            lambda: attn.online_softmax([2, 0, 1], block=2.5),
            "block=2.5: block takes a whole number",
        ),
        (
            lambda: attn.online_softmax([2, 0, 1], block=True),
            "block=True: block takes a whole number",
        ),
        (
            lambda: attn.predict("the keys", LLAMA, top_k=2.5),
            "top_k=2.5: top_k takes a whole number or None",
        ),
        (lambda: attn.predict("the keys", LLAMA, top=3.0), "top=3.0: top takes a whole number"),
    ],
)
def test_a_count_outside_the_layer_is_a_whole_number_too(call, said):
    """Where numpy would say 'only integers … are valid indices': the keywords' one check,
    a TypeError too."""
    with pytest.raises(OptionTypeError) as caught:
        call()
    assert isinstance(caught.value, TypeError)
    assert caught.value.msgid == "{given}: {name} takes {takes}"
    assert str(caught.value) == said


@pytest.mark.parametrize("call", [attn.selfattn, attn.heads])
def test_a_keyword_named_function_is_refused_like_any_unknown_one(call):
    with pytest.raises(OptionError) as raised:
        call("el tren", function="x", heads=2, **({"grid": True} if call is attn.heads else {}))
    assert raised.value.fields["name"] == "function"


@pytest.mark.parametrize("keywords", [{"softcap": 10**400}, {"norm": -(10**400)},
                                      {"scale_by": 10**309}])  # fmt: skip
def test_a_whole_number_past_what_a_float_holds_is_refused_not_computed(keywords):
    with pytest.raises(OptionError) as caught:
        attn.selfattn(SENTENCE, **keywords)
    assert (
        caught.value.msgid == "{setting}: it must be a number a float holds, at most about 1.8e308"
    )
