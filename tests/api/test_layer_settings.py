"""The layer's settings, declared once (attncli.layer): the command line's options and the
Python API's keywords both come from SelfAttnSettings, and ask for the same numbers."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

import attncli as attn
from attncli.errors import OptionError
from attncli.layer import OPPOSITE, SQRT, SelfAttnSettings, settings_from_keywords


def _spellings() -> list[str]:
    """Every option and flag the declaration gives the command line."""
    spelled = []
    for declared in fields(SelfAttnSettings):
        if declared.metadata.get("option"):
            spelled.append(declared.metadata["option"])
        spelled += [flag for flag, _value, _help in declared.metadata.get("flags", ())]
    return spelled


def test_every_declared_setting_is_an_option_of_attn_selfattn(run):
    from attncli.cli.commands import find, parameters

    names = {name for p in parameters(find("selfattn")) for name in p.declaration.names}
    assert set(_spellings()) <= names
    shown = run("selfattn", "--help").stdout
    for spelled in _spellings():
        assert spelled in shown


def test_every_declared_setting_has_a_help_text_and_a_type():
    for declared in fields(SelfAttnSettings):
        if declared.name == "grids":  # chosen by what is asked for (--fields), not an option
            continue
        meta = declared.metadata
        assert meta.get("option") or meta.get("flags"), declared.name
        assert meta.get("help") or all(help_text for _f, _v, help_text in meta["flags"])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ([], SelfAttnSettings()),
        (["--no-scale"], SelfAttnSettings(scale=None)),
        (["--scale", "2"], SelfAttnSettings(scale=2.0)),
        (["--causal"], SelfAttnSettings(causal=True)),
        (["--no-causal"], SelfAttnSettings(causal=False)),
        (["--no-proj", "--heads", "2"], SelfAttnSettings(projections=False, heads=2)),
        (["--positions", "sinusoidal"], SelfAttnSettings(positions="sinusoidal")),
    ],
)
def test_a_command_line_reads_as_one_settings_value(line, expected):
    from attncli.cli.commands import find
    from attncli.cli.commands.layer_options import (
        LAYER_OPTIONS,
        layer_settings_from,
        options_given,
    )
    from attncli.cli.fastpath import read_plain

    values = read_plain(find("selfattn"), ["el tren", *line])
    assert values is not None
    settings = layer_settings_from({name: values[name] for name in LAYER_OPTIONS})
    assert settings == expected
    assert options_given(settings) == [word for word in line if word.startswith("--")]


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        ({"scale": True}, SQRT),
        ({"scale": False}, None),
        ({"scale": 2}, 2),
        ({"scale_by": 2.0}, 2.0),
    ],
)
def test_python_says_the_divisor_as_true_false_or_a_number(keywords, expected):
    assert settings_from_keywords(attn.selfattn, **keywords).scale == expected


def test_the_python_keywords_and_the_command_line_give_the_same_numbers(run_json):
    by_python = attn.selfattn("el tren va lleno", heads=2, scale=2.0, causal=True, seed=3)
    by_line = run_json(
        "selfattn", "el tren va lleno", "--heads", "2", "--scale", "2", "--causal",
        "--seed", "3", "--json",
    )  # fmt: skip
    assert np.array_equal(by_python.output, np.array(by_line["output"]))
    assert by_line["divisor"] == 2.0 and by_line["scale"] is True


def test_positions_is_a_python_keyword_too(run_json):
    placed = attn.selfattn("el tren va lleno", positions="sinusoidal")
    by_line = run_json("selfattn", "el tren va lleno", "--positions", "sinusoidal", "--json")
    assert np.array_equal(placed.x, np.array(by_line["x"]))
    assert not np.array_equal(placed.x, attn.selfattn("el tren va lleno").x)


def test_an_unknown_keyword_is_refused_naming_the_closest():
    with pytest.raises(OptionError) as raised:
        attn.selfattn("el tren", head_count=2)
    assert raised.value.fields["name"] == "head_count"
    with pytest.raises(OptionError) as raised:
        attn.selfattn("el tren", dmodel=4)
    assert raised.value.fields["close"] == "d_model"


def test_scale_by_and_no_scale_together_are_refused_in_python_words():
    with pytest.raises(OptionError) as raised:
        attn.selfattn("el tren", scale=False, scale_by=2.0)
    assert raised.value.msgid == OPPOSITE
    assert raised.value.message("en", "python").startswith("scale_by=2.0 and scale=False")


def test_with_model_a_seeded_setting_is_refused_by_its_name():
    with pytest.raises(OptionError) as raised:
        attn.selfattn("the keys", model="all-MiniLM-L6-v2", heads=2)
    assert raised.value.fields["name"] == "heads"


@pytest.mark.parametrize(
    ("keywords", "msgid"),
    [
        ({"dtype": "float16"}, "{setting}: give one of {choices}"),
        ({"scale": 0.0}, "{setting}: it must be a number above {above}"),
        ({"scale": float("nan")}, "{setting}: it must be a number above {above}"),
        ({"scale": float("inf")}, "{setting}: it must be a number above {above}"),
        ({"scale": "half"}, "scale is {scale}; expected True (√d_k), False (none) or a number"),
    ],
    ids=["dtype", "scale-0", "scale-nan", "scale-inf", "scale-text"],
)
def test_a_dtype_or_a_divisor_out_of_range_is_refused_where_the_settings_are_declared(
    keywords, msgid
):
    with pytest.raises(OptionError) as raised:
        SelfAttnSettings(**keywords)
    assert raised.value.msgid == msgid


@pytest.mark.parametrize(
    ("sentence", "keywords", "msgid"),
    [
        ("a b c", {"positions": "rope", "heads": 2, "d_k": 3},
         "{width} is {size}, an odd number; rotary positions turn pairs of numbers, so give "
         "an even {option}"),
        ("a b c", {"positions": "rope", "add_zero_attn": True},
         "{rope} with add_bias_kv's or {zero}'s extra keys: those keys have no position to be "
         "turned by; leave them out"),
        ("a b c", {"window": 1, "context": "x y"},
         "{option} counts the positions of one sequence, its queries' and keys' alike; with "
         "cross-attention the two sequences have no common positions"),
    ],
    ids=["rope-odd-d_k", "rope-extra-keys", "window-cross"],
)  # fmt: skip
def test_positions_are_refused_before_anything_is_drawn_or_computed(
    monkeypatch, sentence, keywords, msgid
):
    from attncli.reading.check import selfattn_checked

    def drawn(*_args, **_kwargs):
        raise AssertionError("the seed was drawn before the refusal")

    monkeypatch.setattr(selfattn_checked, "fill_from_seed", drawn)
    with pytest.raises(OptionError) as raised:
        attn.selfattn(sentence, **keywords)
    assert raised.value.msgid == msgid
