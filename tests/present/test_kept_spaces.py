"""A line on a terminal wraps between words, never inside a formula's exponent nor at a
Spanish thousands mark (rich breaks at any space, the no-break ones too)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from attncli.present.render import kept_spaces, lines


def _wrapped(text: str, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    with console.capture() as captured:
        console.print(lines(text))  # as a screen shows it (print would join bare Texts)
    return captured.get().rstrip("\n").split("\n")


def test_an_exponent_and_a_thousands_mark_stay_on_one_line():
    text = "m = max(m_old, block max); ℓ = ℓ_old × e^(m_old − m) + Σ e^((s − m) ÷ T)"
    for width in range(16, len(text) + 1):
        shown = _wrapped(text, width)
        for piece in ("e^(m_old − m)", "e^((s − m) ÷ T)"):
            assert any(piece in line for line in shown), (width, shown)
    shown = _wrapped("θ = 2 · 10\u202f000^(−2i/8)", 16)
    assert [line.rstrip() for line in shown] == ["θ = 2 ·", "10\u202f000^(−2i/8)"]


def test_the_kept_spaces_are_those_of_exponents_and_no_break_spaces():
    text = "a b^(c − d) e\u202ff"
    assert [text[i] for i in kept_spaces(text)] == ["\u202f", " ", " "]
    assert kept_spaces("a (b c) d") == []  # prose in parentheses still wraps


@settings(max_examples=100)
@given(
    st.lists(
        st.sampled_from(["word", "e^(m_old − m)", "10\u202f000", "(prose in brackets)", "Σ"]),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=14, max_value=60),
)
def test_wrapping_loses_no_character_and_keeps_every_formula_whole(pieces, width):
    text = " ".join(pieces)
    shown = _wrapped(text, width)
    assert " ".join(line.rstrip() for line in shown) == text
    for line in shown:
        assert not line.rstrip().endswith(("e^(m_old", "e^(m_old −", "10"))
