"""The explorer's model-view pane (m): every layer × head of the sentence as attn heads
--grid draws it, the arrows moving the head the main grid shows; a refusal inside it is a
line in the status bar and the app goes on."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("textual")

import attncli as attn
from attncli.errors import InputError
from attncli.explore import model_pane
from attncli.explore.launch import prepare
from attncli.present.model.thumbnails import GAP, LABEL, Thumbnails
from tests.explore_screen import expected_cells, grid_cells, region_lines, run_app

DEMO = "all-MiniLM-L6-v2"
SENTENCE = "the keys to the cabinet are on the table"


def _after(keys, size=(120, 40), sentence=SENTENCE, model=DEMO):
    app = prepare(sentence, None, {"model": model} if model else {}, {})

    async def script(pilot):
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()
        tokens = list(app.result.tokens)
        pane = region_lines(app, "#model-box") if app.pane_open else []
        return app, grid_cells(app, tokens), pane

    return run_app(app, size, script)


@pytest.mark.parametrize("size", [(160, 90), (120, 40), (80, 40)])
def test_the_arrows_in_the_pane_move_the_shown_head_and_the_grid_follows(size):
    # the pane opens on the last layer's first head; ← ← ↓: layer 4, head 2
    app, cells, pane = _after(["m", "left", "left", "down"], size=size)
    assert app.pane_open and (app.state.layer, app.state.head) == (4, 2), app.note
    assert (app.state.row, app.state.column) == (0, 0)  # the grid's cursor stays
    expected = attn.selfattn(SENTENCE, model=DEMO, layer=4, head=2)
    np.testing.assert_array_equal(app.result.weights, expected.weights)
    if size[0] >= 160:  # every column in sight, none of them the row's largest
        assert cells == expected_cells(expected, app.state)
    # the shown head's thumbnail is marked ▶ on its head's line, in its layer's column
    # (the pane scrolled to head 2's band: its line first, under the pane's edge)
    line = next(text for text in pane if text.split()[:1] == ["h2"])
    assert pane.index(line) <= 1
    assert line.index("▶") == 1 + LABEL + 3 * (11 + GAP)  # the padding, h2, L1 to L3


def test_the_pane_draws_attn_heads_grid_weights():
    app, _cells, _pane = _after(["m"])
    weights, marks = app.pane.weights(app.source, app.result)
    ranked = attn.heads(SENTENCE, DEMO, grid=True)
    np.testing.assert_array_equal(weights, ranked.grid)
    # the drawing is thumbnails.py's, the shown head (layer 6, head 1) marked
    drawn = model_pane.drawing(app.source, app.result, app.state, app.pane)
    thumbnails = drawn.renderables[1]
    assert isinstance(thumbnails, Thumbnails) and thumbnails.weights is weights
    assert thumbnails.marks[5][0].startswith("▶")
    assert sum(mark.count("▶") for row in thumbnails.marks for mark in row) == 1


def test_m_and_escape_close_the_pane_and_the_arrows_move_the_cursor_again():
    app, _cells, _pane = _after(["m", "down", "m", "down", "right"])
    assert not app.pane_open and app.state.head == 2
    assert (app.state.row, app.state.column) == (1, 1)
    app, _cells, _pane = _after(["m", "escape", "down"])
    assert not app.pane_open and app.state.row == 1  # Esc closed the pane, not the app


def test_the_seeded_layers_heads_are_its_model_view():
    app, cells, pane = _after(["h", "h", "m", "down"], size=(80, 90),
                              sentence="las llaves del coche están ahí", model=None)  # fmt: skip
    assert app.state.heads == 4 and app.state.head == 2 and app.pane_open
    weights, _marks = app.pane.weights(app.source, app.result)
    assert weights.shape == (1, 4, 6, 6)
    np.testing.assert_array_equal(weights[0], app.result.weights)
    assert any("▶" in line for line in pane)
    assert cells == expected_cells(app.result, app.state)


def test_a_refusal_in_the_pane_is_a_line_in_the_status_bar(monkeypatch):
    def refusing(self, source, result):
        raise InputError("the model refused the sentence")

    monkeypatch.setattr(model_pane.ModelPane, "weights", refusing)
    app, cells, _pane = _after(["m"], size=(160, 60))
    assert not app.pane_open and "the model refused the sentence" in app.note
    assert cells  # the grid is still there

    def failing(self, source, result):
        raise RuntimeError("a bug")

    monkeypatch.setattr(model_pane.ModelPane, "weights", failing)
    app, cells, _pane = _after(["m"], size=(160, 60))
    assert not app.pane_open and "a bug" in app.note and cells
    app, _cells, _pane = _after(["m", "down"], size=(160, 60))
    assert app.state.row == 1  # the app goes on: the arrow moves the grid's cursor


def test_the_pane_speaks_spanish():
    app, _cells, _pane = _after(["l", "m"], size=(120, 60))
    drawn = model_pane.drawing(app.source, app.result, app.state, app.pane)
    assert "Vista del modelo" in drawn.renderables[0].plain


def test_the_status_gives_the_shown_heads_sink_rate_as_attn_heads_does():
    from attncli.explore import views

    app, _cells, _pane = _after(["m", "left", "down"])
    assert (app.state.layer, app.state.head) == (5, 2), app.note
    ranked = attn.heads(SENTENCE, DEMO, grid=True)
    shown = views.status(app.state, app.frame, app.result).plain
    assert f"sink rate (first token) {ranked.sink_rates[4, 1]:.2f}" in shown
