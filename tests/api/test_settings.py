"""Settings declared once (attncli/settings.py): a dataclass's fields made with `setting`,
their values held to the declaration by one check, an unknown keyword refused by one
refusal; the layer's settings and attn cost's inputs both read through them."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import attncli as attn
from attncli.api.cost import CostInputs
from attncli.errors import LARGEST_WHOLE, AttnError, OptionError, OptionTypeError
from attncli.layer import SelfAttnSettings
from attncli.settings import Whole, check_declared, check_range, refuse_unknown, setting
from tests.meaning import plain, told

WHOLE = "{setting}: give a whole number"
LEAST = "{setting}: it must be {least} or more"
MOST = "{setting}: it must be {most} or less"
BOOL = "{setting}: give True or False"
UNKNOWN = "{function}() got an unexpected keyword {name}="
CLOSE = "{function}() got an unexpected keyword {name}= (did you mean {close}=?)"


@dataclass(frozen=True, kw_only=True)
class Declared:
    """A dataclass of each kind of field the check reads."""

    count: int = setting(1, "A count.", option="--count", min=1, max=9)
    size: int | None = setting(None, "A size.", option="--size")
    flag: bool = setting(False, flags=(("--flag", True, "A flag."),))
    maybe: bool | None = setting(None, flags=(("--maybe", True, "Maybe."),))
    label: str | None = setting(None, "A text.", option="--as")

    def __post_init__(self) -> None:
        check_declared(self)


@pytest.mark.parametrize(
    ("given", "kind", "msgid", "fields"),
    [
        ({"count": 0}, OptionError, LEAST, {"setting": "--count 0", "least": 1}),
        ({"count": 10}, OptionError, MOST, {"setting": "--count 10", "most": 9}),
        ({"count": 2.0}, OptionTypeError, WHOLE, {"setting": "--count 2.0"}),
        ({"count": True}, OptionTypeError, WHOLE, {}),
        ({"count": None}, None, None, {}),  # None: not given, as an int field's default
        ({"size": 2**63}, OptionError, MOST, {"most": LARGEST_WHOLE}),  # numpy's int64
        ({"size": -5}, None, None, {}),  # no least declared
        ({"flag": "no"}, OptionTypeError, BOOL, {"setting": "--flag no"}),
        ({"flag": None}, OptionTypeError, BOOL, {}),  # a plain bool is never None
        ({"maybe": 1}, OptionTypeError, BOOL, {}),
        ({"maybe": None}, None, None, {}),
        ({"label": 3}, None, None, {}),  # neither bool nor whole: its own dataclass's rule
    ],
)  # fmt: skip
def test_each_field_is_held_to_its_declaration(given, kind, msgid, fields):
    if kind is None:
        assert Declared(**given)
        return
    with pytest.raises(kind) as caught:
        Declared(**given)
    told(caught.value, kind, msgid, **fields)


def test_a_field_is_named_by_its_declared_option():
    @dataclass(frozen=True)
    class Renamed:
        designs: int = setting(1, "Designs.", option="--as", min=1)

        def __post_init__(self) -> None:
            check_declared(self)

    with pytest.raises(OptionError) as caught:
        Renamed(0)
    told(caught.value, OptionError, LEAST, setting="--as 0")
    told(caught.value, OptionError, LEAST, "python", setting="designs=0")


def test_the_layer_and_attn_cost_say_the_same_refusals():
    for made, name in ((SelfAttnSettings, "window"), (CostInputs, "batch")):
        with pytest.raises(OptionError) as caught:
            made(**{name: 0})
        told(caught.value, OptionError, LEAST, "python", setting=f"{name}=0", least=1)
        with pytest.raises(OptionTypeError) as caught:
            made(**{name: 1.5})
        told(caught.value, OptionTypeError, WHOLE, "python", setting=f"{name}=1.5")
        with pytest.raises(OptionError) as caught:
            made(**{name: 2**63})
        told(caught.value, OptionError, MOST, "python", most=LARGEST_WHOLE)
    with pytest.raises(OptionTypeError) as caught:
        SelfAttnSettings(alibi="no")
    told(caught.value, OptionTypeError, BOOL, "python", setting="alibi='no'")
    with pytest.raises(OptionTypeError) as caught:
        CostInputs(sinks="no")
    told(caught.value, OptionTypeError, BOOL, "python", setting="sinks='no'")


def test_a_range_is_one_rule_for_a_keyword_and_a_field():
    check_range(attn.messages.Setting("seed", 0), Whole(0, 5))
    for value, msgid in ((-1, LEAST), (6, MOST)):
        with pytest.raises(OptionError) as caught:
            check_range(attn.messages.Setting("seed", value), Whole(0, 5))
        told(caught.value, OptionError, msgid, setting=f"--seed {value}")
        with pytest.raises(OptionError) as caught:  # a public function's keyword
            attn.score([1, 0], [[2, 1]], seed=-1 if msgid == LEAST else 2**64)
        told(caught.value, OptionError, msgid, "python")


@pytest.mark.parametrize(
    ("call", "msgid", "fields"),
    [
        (lambda: attn.selfattn("el tren", hedas=2), CLOSE,
         {"function": "selfattn", "name": "hedas", "close": "heads"}),
        (lambda: attn.selfattn("el tren", zzz=2), UNKNOWN, {"function": "selfattn", "name": "zzz"}),
        (lambda: attn.heads("el tren", sentnce="x"), CLOSE,
         {"function": "heads", "close": "sentence"}),  # the function's own parameter
        (lambda: attn.cost("llama-3.1-8b", bacth=2), CLOSE,
         {"function": "cost", "name": "bacth", "close": "batch"}),
        (lambda: attn.cost("llama-3.1-8b", zzz=2), UNKNOWN, {"function": "cost", "name": "zzz"}),
        (lambda: attn.cost(modle="x"), CLOSE, {"close": "model"}),
    ],
)  # fmt: skip
def test_an_unknown_keyword_is_one_refusal_naming_the_closest(call, msgid, fields):
    with pytest.raises(OptionError) as caught:
        call()
    told(caught.value, OptionError, msgid, "python", **fields)
    if msgid == UNKNOWN:
        assert "close" not in caught.value.fields


def test_a_known_keyword_or_alias_passes():
    def function(sentence: str, *, model: str | None = None) -> None:
        """A function with its own parameters."""

    refuse_unknown(function, ["count", "no_causal"], ["count", "no_causal"])
    with pytest.raises(OptionError) as caught:
        refuse_unknown(function, ["count", "sentense"], ["count"])
    told(caught.value, OptionError, CLOSE, function="function", name="sentense",
         close="sentence")  # fmt: skip


@pytest.mark.parametrize(
    ("call", "field", "said"),
    [
        (lambda: attn.selfattn("el gato", window=10**5000), "setting", "window=≈1e5000"),
        (lambda: attn.selfattn("el gato", seed=10**5000), "setting", "seed=≈1e5000"),
        (lambda: attn.cost("llama-3.1-8b", batch=10**5000), "setting", "batch=≈1e5000"),
    ],
)
def test_a_whole_number_too_long_to_write_is_refused_by_its_size(call, field, said):
    # Python writes no whole number past 4,300 digits: the refusal says its size instead
    with pytest.raises(OptionError) as caught:
        call()
    assert plain(caught.value.fields[field], "python") == said
    assert "\n" not in str(caught.value)


def test_a_too_long_number_is_written_by_its_size_in_any_field():
    from attncli.messages import too_long

    assert too_long(10**5000) == "≈1e5000" and too_long(-(10**4400)) == "≈-1e4400"
    assert too_long(10**4000) is None and too_long(2.5) is None and too_long(True) is None
    with pytest.raises(AttnError) as caught:
        attn.cost("llama-3.1-8b", tokens=[10**5000])
    assert "≈1e5000" in caught.value.message("en") and "\n" not in caught.value.message("es")
