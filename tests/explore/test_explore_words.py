"""The explorer's phrases: both languages name the same fields, and every one formats."""

from __future__ import annotations

import string

import pytest

from attncli.explore.words import WORDS, say
from attncli.messages import translate


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(WORDS))
def test_each_phrase_formats_in_both_languages_with_the_same_fields(key):
    english = WORDS[key]
    spanish = translate(english, "es")
    assert _fields(english) == _fields(spanish)
    filled = dict.fromkeys(_fields(english), "x")
    assert say("en", key, **filled) and say("es", key, **filled)
    # Phrases of symbols and option names read the same in both languages.
    same = {"title", "knob.scale", "knob.causal", "knob.grid", "knob.d_k", "knob.words"}
    same.update({"knob.alibi", "knob.qk_norm", "knob.softcap"})  # names
    assert english != spanish or key in same


@pytest.mark.parametrize("key", sorted(WORDS))
def test_a_phrase_shows_each_brace_once(key):
    filled = dict.fromkeys(_fields(WORDS[key]), "x")
    for lang in ("en", "es"):
        shown = say(lang, key, **filled)
        assert "{{" not in shown and "}}" not in shown, shown
