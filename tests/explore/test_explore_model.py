"""attn explore --model: a real model's layer, its layers and heads one key away, every
number the model path's own (attncli.selfattn(..., model=...))."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("textual")

import attncli as attn
from attncli.errors import AttnError, OptionError
from attncli.explore.launch import prepare
from attncli.explore.state import valid
from tests.explore_screen import expected_cells, grid_cells, region_lines, run_app
from tests.meaning import told

DEMO = "all-MiniLM-L6-v2"
SENTENCE = "the keys to the cabinet are on the table"


def _app(**sizes):
    return prepare(SENTENCE, None, {"model": DEMO, **sizes}, {})


def _after(keys, **sizes):
    app = _app(**sizes)

    async def script(pilot):
        await pilot.press(*keys)
        await pilot.pause()
        tokens = list(getattr(app.result, "words", None) or app.result.tokens)
        panel = " ".join("\n".join(region_lines(app, "#panel")).split())
        return app.state, grid_cells(app, tokens), panel, app.note, app.result

    return run_app(app, (160, 40), script)


def test_the_layer_and_head_keys_show_the_models_own_weights():
    """Layer 4, head 2: «are» looks at «keys» (0.807), as attn selfattn --model shows it."""
    keys = ["left_square_bracket", "left_square_bracket", "right_curly_bracket"]
    state, cells, _panel, note, result = _after(keys)
    assert (state.layer, state.head) == (4, 2), note
    expected = attn.selfattn(SENTENCE, model=DEMO, layer=4, head=2)
    np.testing.assert_array_equal(result.weights, expected.weights)
    assert cells == expected_cells(expected, state)
    are, keys_column = expected.tokens.index("are"), expected.tokens.index("keys")
    assert f"{expected.weights[are, keys_column]:.3f}" == "0.807"


def test_the_panel_has_the_heads_real_query_and_key():
    moves = ["down"] * 6 + ["right"] * 2  # «are» asks, «keys» answers
    state, _cells, panel, _note, result = _after(moves, layer=4)
    expected = attn.selfattn(SENTENCE, model=DEMO, layer=4, head=1)
    q, k = expected.queries[state.row], expected.keys[state.column]
    assert "are → keys" in panel
    assert f"= {q @ k:.2f}" in panel and "÷ √32" in panel
    weight = expected.weights[state.row, state.column]
    assert f"{weight:.3f}" in panel


def test_w_merges_the_pieces_into_words():
    state, cells, panel, _note, result = _after(["w"], layer=4)
    expected = attn.selfattn(SENTENCE, model=DEMO, layer=4, head=1, words=True)
    assert state.words and set(cells) == set(expected.words)
    first = expected.words[0]
    shown = [float(cell.rstrip("*!")) for cell in cells[first]]
    np.testing.assert_allclose(shown, expected.word_weights[0], atol=5e-4)
    assert "mean" in panel


def test_the_seeded_layers_keys_say_they_do_not_apply():
    state, _cells, _panel, note, _result = _after(["p"])
    assert state.projections and "the model's layer is its own" in note


def test_the_edges_of_the_model():
    state, _c, _p, note, _r = _after(["right_square_bracket"])
    assert state.layer is None and "6 layers" in note  # already the last
    app = _app()
    assert valid(app.state, app.frame)


@pytest.mark.parametrize(
    ("sizes", "switches", "message"),
    [
        ({"heads": 2}, {}, "--heads shapes the seeded layer"),
        ({}, {"projections": False}, "--no-proj shapes the seeded layer"),
        ({"layer": 9}, {}, "--layer 9 is out of range"),
    ],
)
def test_seeded_options_with_a_model_are_refused(sizes, switches, message):
    with pytest.raises(AttnError) as raised:
        prepare(SENTENCE, None, {"model": DEMO, **sizes}, switches)
    assert message in raised.value.message("en")  # as the explorer's note says it


def test_layer_without_a_model_is_refused():
    with pytest.raises(AttnError) as raised:
        prepare(SENTENCE, None, {"layer": 2}, {})
    told(raised.value, OptionError, "{option} {why}; add {needed}", option="--layer 2",
         why=("picks from a pretrained model's layers", {"option": "--layer 2"}))  # fmt: skip


def test_the_words_panel_works_the_merge_with_the_heads_own_weights():
    """On «tokenized» → «tokenized» (two pieces each): a row per piece, the sum over the
    answering word's pieces, then the mean of the rows, which is the grid's weight."""
    sentence = "the keys are tokenized"
    app = prepare(sentence, None, {"model": DEMO, "layer": 4, "words": True}, {})
    expected = attn.selfattn(sentence, model=DEMO, layer=4, head=1, words=True)
    word = expected.words.index("tokenized")
    pieces = expected.word_groups[word]
    assert len(pieces) == 2

    async def script(pilot):
        await pilot.press(*(["down"] * word + ["right"] * word))
        await pilot.pause()
        return app.state, " ".join("\n".join(region_lines(app, "#panel")).split())

    state, panel = run_app(app, (160, 40), script)
    assert (state.row, state.column) == (word, word)
    w = expected.weights
    sums = [w[p, pieces[0]] + w[p, pieces[1]] for p in pieces]
    for piece, total in zip(pieces, sums, strict=True):
        terms = f"{w[piece, pieces[0]]:.3f} + {w[piece, pieces[1]]:.3f} = {total:.3f}"
        assert f"{expected.tokens[piece]} → tokenized: {terms}" in panel, panel
    merged = expected.word_weights[word, word]
    assert abs((sums[0] + sums[1]) / 2 - merged) < 1e-12
    assert f"({sums[0]:.3f} + {sums[1]:.3f}) ÷ 2 = {merged:.3f}" in panel, panel
