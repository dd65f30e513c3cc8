"""A result in a notebook and in rich.print: every kind's HTML is its terminal view (heat
colours, marks, masks, one grid per head), in the language and digits attn.options or the
view's own arguments choose."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from rich.console import Console

import attncli as attn
from attncli.errors import OptionError


@pytest.fixture(autouse=True)
def _fresh_options(monkeypatch):
    for name in ("ATTN_LANG", "LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    with attn.options(lang=None, digits=None):
        yield


def _grad():
    return attn.grad([1, 0], [[2, 1], [0, 2]], [[1, 0], [0, 1]], target=[1, 0])


def _every_kind():
    scores = attn.score(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["tren", "va", "x"])
    return {
        "score": scores,
        "softmax": attn.softmax(scores),
        "mix": attn.mix(attn.softmax(scores), values=[[10, 0], [0, 10], [5, 5]]),
        "selfattn": attn.selfattn("el tren va lleno"),
        "grad": _grad(),
        "exercise": attn.exercise(seed=7),
        "compare": attn.compare_scores(tx=2, ty=2, d_h=2, d_a=2, repeat=1),
    }


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&#x27;", "'")


def _printed(renderable, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


@pytest.mark.parametrize("kind", list(_every_kind()))
def test_every_kind_of_result_has_html_that_reads_as_its_screen(kind):
    result = _every_kind()[kind]
    html = result._repr_html_()
    assert html.startswith("<pre") and html.endswith("</pre>")
    assert "background-color:#ffffff" in html  # light, as a notebook page
    # The same words and numbers as rich prints for the terminal.
    words = [line.split()[0] for line in _printed(result).splitlines() if line.strip()][:5]
    for word in words:
        assert word in _text(html), word


def test_grad_html_shows_the_loss_and_gradients():
    text = _text(_grad()._repr_html_())
    assert "½‖c − target‖²" in text and "∂ℓ/∂e" in text


def test_weight_grid_html_has_the_heat_ramp_marks_and_masks(monkeypatch):
    # Whatever the terminal the notebook server was started from.
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    html = attn.selfattn("el tren va lleno", causal=True)._repr_html_()
    shades = set(re.findall(r"background-color: (#[0-9a-f]{6})", html))
    assert len(shades) >= 6  # a full ramp, not four greys
    assert "—" in _text(html) and "*" in _text(html)
    weights = _text(html).split("Weights")[1].split("Output")[0]
    rows = [row.split() for row in weights.splitlines() if row.split()[:1] == ["el"]]
    assert rows[-1][1:] == ["1.000*", "—", "—", "—"]
    # The ramp spans the weights shown, not the zeros behind the masks.
    assert "0.000 darkest" not in _text(html) and "0.091 darkest" in _text(html)


def test_two_heads_show_a_labelled_grid_each():
    text = _text(attn.selfattn("el tren va lleno", heads=2)._repr_html_())
    assert "Head 1: Weights" in text and "Head 2: Weights" in text


def test_tokens_are_escaped():
    html = attn.softmax([1, 2], tokens=["<b>x</b>", "y"])._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html


def test_options_choose_language_and_digits_for_html_and_rich():
    result = attn.softmax([1, 2, 3])
    assert "0.665" in result._repr_html_() and "0.665" in _printed(result)
    with attn.options(lang="es", digits=4):
        assert "0,6652" in result._repr_html_()
        assert "Peso" in _printed(result) and "0,6652" in _printed(result)
        assert attn.options().lang == "es" and attn.options().digits == 4
    assert "0.665" in _printed(result)  # the block's choice is gone
    attn.options(lang="es")
    assert "0,665" in _printed(result) and attn.options().digits is None


def test_attn_lang_is_honoured_by_html_and_rich(monkeypatch):
    monkeypatch.setenv("ATTN_LANG", "es")
    result = attn.softmax([1, 2, 3])
    assert "Peso" in _text(result._repr_html_()) and "Peso" in _printed(result)
    with attn.options(lang="en"):
        assert "Weight" in _printed(result)


def test_view_takes_lang_and_digits_and_shows_itself():
    view = attn.softmax([1, 2, 3]).view(lang="es", digits=1)
    assert "0,7" in _printed(view) and "0,7" in _text(view._repr_html_())
    assert "Weight" in _printed(attn.softmax([1, 2]).view())


@pytest.mark.parametrize(
    "asked", [{"lang": "fr"}, {"digits": -1}, {"digits": 16}, {"digits": 2.5}, {"digits": True}]
)
def test_bad_options_are_refused_in_both_languages(asked):
    with pytest.raises(OptionError) as error:
        attn.options(**asked)
    assert str(error.value) and error.value.message("es") and "\n" not in str(error.value)
    with pytest.raises(OptionError):
        attn.softmax([1, 2]).view(**asked)
    assert attn.options().lang is None and attn.options().digits is None


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_every_heat_cell_reads_on_a_light_page():
    html = attn.selfattn("las llaves del coche están ahí", heads=2)._repr_html_()
    cells = re.findall(r'style="color: (#[0-9a-f]{6});[^"]*background-color: (#[0-9a-f]{6})', html)
    assert len(cells) >= 2 * 36
    for ink, paper in cells:
        light, dark = sorted((_luminance(ink), _luminance(paper)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 3, (ink, paper)


GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _golden_cases():
    return {
        "notebook-softmax-masked": attn.softmax(
            [[2, 0, 1], [1, 2, -float("inf")]], tokens=["tren", "va", "lleno"]
        ),
        "notebook-selfattn-heads": attn.selfattn("el tren va lleno", heads=2, causal=True),
        "notebook-grad": _grad(),
    }


@pytest.mark.parametrize("name", list(_golden_cases()))
def test_the_notebook_html_is_unchanged(name):
    """Pinned HTML; after a deliberate change: python tests/present/test_notebook.py --update."""
    expected = (GOLDEN / f"{name}.html").read_text(encoding="utf-8")
    assert _golden_cases()[name]._repr_html_() == expected, f"{name}: rerun with --update"


def test_the_notebook_page_shows_every_kind(tmp_path):
    import runpy

    page = tmp_path / "notebook.html"
    runpy.run_path(str(GOLDEN.parent.parent / "docs" / "notebook_page.py"))["main"](str(page))
    text = page.read_text(encoding="utf-8")
    assert text.count("In [") == 9 and text.count("<pre") == 9 and "0,6652" in text
    assert "e^score" in text  # the steps as their worked tables


if __name__ == "__main__" and "--update" in sys.argv:
    for golden_name, result in _golden_cases().items():
        (GOLDEN / f"{golden_name}.html").write_text(result._repr_html_(), encoding="utf-8")


@pytest.mark.parametrize("kind", ["score", "softmax", "mix", "grad", "selfattn"])
def test_steps_show_themselves_as_the_worked_tables(kind):
    steps = _every_kind()[kind].steps()
    assert isinstance(steps, list) and steps  # still the steps as data
    html = steps._repr_html_()
    assert html.startswith("<pre") and "━" in _text(html)
    assert _text(html).split()[0] in _printed(steps)


def test_steps_speak_the_chosen_language():
    steps = attn.softmax([2, 0, 1], tokens=["tren", "va", "lleno"]).steps()
    assert "e^score" in _printed(steps) and "0.665" in _text(steps._repr_html_())
    with attn.options(lang="es"):
        assert "e elevado a la puntuación" in _printed(steps)
        assert "0,665" in _text(steps._repr_html_())
