"""attn explore, driven headless through Textual's Pilot: key sequences → the state, and
every number on the screen equal to attncli.selfattn(...) with the same settings."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("textual")

import attncli as attn
from attncli.explore.app import Explorer
from attncli.explore.session import Source
from attncli.explore.state import State
from tests.explore_screen import expected_cells, grid_cells, region_lines, run_app, screen_lines

SENTENCE = "las llaves del coche están ahí"
LLAVES = json.loads(
    (
        __import__("pathlib").Path(__file__).parent.parent.parent / "samples" / "llaves.json"
    ).read_text()
)


def _settings(state: State) -> dict:
    """The keyword arguments of attncli.selfattn for a state of a typed sentence."""
    norm = None if state.norm_step == 0 else math.sqrt(8) * 2 ** (state.norm_step / 2)
    return dict(
        projections=state.projections,
        scale=state.scale,
        causal=state.causal,
        heads=state.heads if state.heads > 1 and state.projections else None,
        d_k=state.d_k if state.projections else None,
        seed=state.seed,
        norm=norm,
        qk_norm=state.qk_norm,
    )


def _pressed(keys: list[str], size=(120, 40), source: Source | None = None):
    """The app after `keys`: its state, the grid's cells, the panel's text and the screen."""
    app = Explorer(source or Source(sentence=SENTENCE))

    async def script(pilot):
        await pilot.press(*keys)
        await pilot.pause()
        tokens = list(app.result.tokens)
        return (
            app.state,
            grid_cells(app, tokens),
            "\n".join(region_lines(app, "#panel")),
            screen_lines(app),
            app.note,
        )

    return run_app(app, size, script)


@pytest.mark.parametrize(
    "keys",
    [
        [],
        ["p"],
        ["s"],
        ["c"],
        ["h"],
        ["h", "h", "right_curly_bracket"],
        ["d", "d"],
        ["D"],
        ["N", "N"],
        ["n"],
        ["r", "r"],
        ["v"],
        ["c", "v"],
        ["l"],
        ["p", "s", "c", "l", "v"],
        ["k"],  # QK-norm
        ["k", "h", "v"],
    ],
    ids=lambda keys: "-".join(keys) or "opening",
)
def test_every_cell_equals_selfattn_with_the_same_settings(keys):
    state, cells, _panel, _screen, note = _pressed(keys)
    expected = attn.selfattn(SENTENCE, **_settings(state))
    assert cells == expected_cells(expected, state), note


def test_the_keys_set_the_state():
    state, *_ = _pressed(["p", "s", "c", "r", "l", "v", "down", "down", "right"])
    assert state == State(
        projections=False, scale=False, causal=True, seed=1, lang="es", grid="scores",
        row=2, column=1,
    )  # fmt: skip
    state, *_ = _pressed(["h", "h", "h", "h", "H", "right_curly_bracket"])
    assert (state.heads, state.head) == (4, 2)  # 8 splits into 1, 2, 4, 8; back down to 4
    state, *_ = _pressed(["d", "d", "d", "D"])
    assert state.d_k == 6
    state, *_ = _pressed(["k"])
    assert state.qk_norm and not _pressed(["k", "k"])[0].qk_norm


def test_projections_off_every_row_peaks_on_its_diagonal_and_on_rows_look_elsewhere():
    _, cells, *_ = _pressed(["p"])
    tokens = SENTENCE.split()
    assert all(cells[token][i].endswith("*") for i, token in enumerate(tokens))
    _, cells, *_ = _pressed([])
    assert not all(cells[token][i].endswith("*") for i, token in enumerate(tokens))


def test_llaves_document_estan_looks_for_llaves():
    source = Source(document=LLAVES, path="samples/llaves.json")
    _, cells, *_ = _pressed([], source=source)
    assert cells["están"][1] == "0.642*"


def test_the_side_panel_shows_the_cells_arithmetic():
    keys = ["down"] * 4 + ["right"]  # the row of «están», the column of «llaves»
    source = Source(document=LLAVES, path="samples/llaves.json")
    state, _, panel, *_ = _pressed(keys, source=source)
    assert (state.row, state.column) == (4, 1)
    result = attn.selfattn(**{k: LLAVES[k] for k in ("x", "w_q", "w_k", "w_v", "tokens")})
    q, k = result.queries[4], result.keys[1]
    assert (q.tolist(), k.tolist()) == ([3, 0, 0, 0], [2, 0, 0, 0])
    flat = " ".join(panel.split())
    assert "3×2 + 0×0 + 0×0 + 0×0 = 6" in flat
    assert "6 ÷ 2" in flat and "Score 3" in flat
    total = float(np.exp(result.scores[4]).sum())
    assert f"e^score {math.exp(3):.2f}" in flat
    assert f"Weight = e^… ÷ {total:.2f} {result.weights[4, 1]:.3f}" in flat
    output = ", ".join(f"{v:.2f}" for v in result.output[4])
    assert f"Output ≈ {output}" in flat


def test_the_side_panel_follows_the_cursor_on_a_short_screen():
    source = Source(document=LLAVES, path="samples/llaves.json")
    _, _, panel, screen, _ = _pressed(["down"] * 4 + ["right"], size=(80, 24), source=source)
    flat = " ".join(panel.split())
    assert "están → llaves" in flat and "3×2 + 0×0 + 0×0 + 0×0 = 6" in flat
    assert "0.642" in flat


def test_the_panel_of_a_masked_cell_says_so():
    _, _, panel, *_ = _pressed(["c", "right"])
    assert "masked" in panel and "weight is 0" in " ".join(panel.split())


def test_spanish_screen():
    state, cells, panel, screen, _ = _pressed(["l", "down", "right"])
    text = "\n".join(screen)
    assert "Pesos (fila = quién pregunta, columna = quién contesta)" in text
    assert "p proyecciones sí" in text
    expected = attn.selfattn(SENTENCE)
    assert cells["llaves"][1] == f"{expected.weights[1, 1]:.3f}".replace(".", ",")
    assert "Consulta · clave" in panel


def test_the_focus_rules():
    """The grid has the focus: 'p' is a key. / moves it to the field, where 'p' is a letter;
    Enter computes and gives the focus back; Esc gives it back too."""
    app = Explorer(Source(sentence="en las llaves"))

    async def script(pilot):
        assert app.focused.id == "grid"
        await pilot.press("slash")
        assert app.focused.id == "sentence"
        await pilot.press("ctrl+u", *"un perro", "enter")
        await pilot.pause()
        assert app.focused.id == "grid"
        assert list(app.result.tokens) == ["un", "perro"] and app.state.projections
        await pilot.press("tab")
        assert app.focused.id == "sentence"
        await pilot.press("p", "escape")
        assert app.focused.id == "grid" and app.state.projections
        await pilot.press("p")
        return app.state.projections

    assert run_app(app, (80, 24), script) is False


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "the sentence is empty"),
        ("a " * 65, "the explorer shows at most 64"),
    ],
)
def test_bad_sentences_are_a_line_in_the_status_bar(typed, message):
    app = Explorer(Source(sentence="en las llaves"))

    async def script(pilot):
        await pilot.press("slash", "ctrl+u")
        app.query_one("#sentence").value = typed
        await pilot.press("enter")
        await pilot.pause()
        return app.note, list(app.result.tokens), "\n".join(screen_lines(app))

    note, tokens, screen = run_app(app, (80, 24), script)
    assert message in note and message in screen.replace("\n", " ")
    assert tokens == ["en", "las", "llaves"]  # the last good grid stays


def test_a_d_k_the_layer_refuses_is_a_line_in_the_status_bar():
    source = Source(document=LLAVES, path="samples/llaves.json")
    state, cells, _, screen, note = _pressed(["d"], source=source)
    assert "w_q has 4 numbers a row where --d-k 3 has 3 numbers" in note
    assert state.d_k is None and cells["están"][1] == "0.642*"


def test_q_and_escape_quit_and_ctrl_c_too():
    for key in ("q", "escape", "ctrl+c"):
        app = Explorer(Source(sentence="en las llaves"))

        async def script(pilot, key=key):
            await pilot.press(key)
            await pilot.pause()
            return pilot.app.is_running

        assert run_app(app, (80, 24), script) is False, key


def test_resizing_redraws():
    app = Explorer(Source(sentence=SENTENCE))

    async def script(pilot):
        wide = app.screen.has_class("narrow")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = app.screen.has_class("narrow")
        cells = grid_cells(app, SENTENCE.split())
        return wide, narrow, cells

    wide, narrow, cells = run_app(app, (120, 40), script)
    assert (wide, narrow) == (False, True)
    assert cells == expected_cells(attn.selfattn(SENTENCE), State())


def test_enter_opens_the_rows_three_steps_and_a_key_closes_them():
    app = Explorer(Source(document=LLAVES, path="samples/llaves.json"))

    async def script(pilot):
        await pilot.press(*["down"] * 4, "enter")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        await pilot.press("escape")
        await pilot.pause()
        return shown, app.is_running, len(app.screen_stack)

    shown, running, screens = run_app(app, (120, 40), script)
    assert "Scaled scores: están (3, 0, 0, 0) · each key ÷ √d_k" in shown
    assert "Softmax of están" in shown and "Total" in shown
    assert running and screens == 1


def test_help_in_the_screens_language():
    app = Explorer(Source(sentence="en las llaves"))

    async def script(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        english = "\n".join(screen_lines(app))
        await pilot.press("x", "l", "question_mark")
        await pilot.pause()
        return english, "\n".join(screen_lines(app))

    english, spanish = run_app(app, (80, 24), script)
    assert "projections on/off" in english and "quit" in english
    assert "proyecciones sí/no" in spanish and "salir" in spanish


def test_a_row_label_click_opens_its_steps_and_a_cell_click_moves_the_cursor():
    import re

    app = Explorer(Source(document=LLAVES, path="samples/llaves.json"))

    async def script(pilot):
        grid = app.query_one("#grid")
        lines = region_lines(app, "#grid")
        y = next(n for n, line in enumerate(lines) if line.split()[:1] == ["coche"])
        third = list(re.finditer(r"\d[.,]\d+", lines[y]))[2].start()
        await pilot.click(grid, offset=(third + 1, y))
        await pilot.pause()
        moved = (app.state.row, app.state.column)
        await pilot.click(grid, offset=(3, y))
        await pilot.pause()
        return moved, len(app.screen_stack)

    assert run_app(app, (120, 40), script) == ((3, 2), 2)
