"""Random key sequences: the explorer never raises and always leaves a valid state whose
numbers are attncli.selfattn(...)'s, or the layer's refusal in the status line."""

from __future__ import annotations

import pytest

pytest.importorskip("textual")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.explore.session import Source, compute, frame_of
from attncli.explore.state import KEYS, State, press, valid
from tests.explore_screen import expected_cells, grid_cells, run_app

# Every key the grid answers, and a few it does not.
TYPED = [*KEYS, "enter", "question_mark", "x", "w", "left_square_bracket", "tab", "3"]
SOURCES = {
    "sentence": Source(sentence="las llaves del coche están ahí"),
    "short": Source(sentence="hola"),
    "document": Source(
        document={
            "tokens": ["a", "b", "c"],
            "x": [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]],
            "w_q": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
            "w_k": [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]],
            "w_v": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
        }
    ),
    "direct": Source(
        document={
            "tokens": ["tren", "va", "lleno"],
            "queries": [[0, 1], [1, 1], [1, 0]],
            "keys": [[2, 1], [0, 2], [1, 1]],
            "values": [[10, 0], [0, 10], [5, 5]],
        }
    ),
}


@pytest.mark.slow  # hypothesis at length: the full run's
@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(sorted(SOURCES)),
    keys=st.lists(st.sampled_from(list(KEYS)), max_size=30),
)
def test_random_key_sequences_on_the_state_stay_valid(name, keys):
    """The state machine alone, as the app drives it: a refused state is undone."""
    source = SOURCES[name]
    state = State()
    result = compute(source, state)
    frame = frame_of(source, result)
    for key in keys:
        following, _note = press(state, key, frame)
        assert valid(following, frame), (key, following)
        try:
            result = compute(source, following)
        except attn.AttnError:
            continue  # the app keeps the last state and says why
        state, frame = following, frame_of(source, result)
        assert result.weights.shape[-1] == frame.tokens


@pytest.mark.slow  # twenty runs of the whole app: the full run's
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    name=st.sampled_from(sorted(SOURCES)),
    keys=st.lists(st.sampled_from(TYPED), min_size=1, max_size=20),
)
def test_random_key_sequences_in_the_app_never_raise(name, keys):
    """The whole app: it is still running, its state valid, its grid the layer's."""
    from attncli.explore.app import Explorer

    app = Explorer(SOURCES[name])

    async def script(pilot):
        for key in keys:
            await pilot.press(key)
            if len(app.screen_stack) > 1:  # an overlay: closed by the next key
                await pilot.press("space")
        await pilot.pause()
        cells = grid_cells(app, list(app.result.tokens))
        return app.is_running, app.state, app.note, cells, app.source

    # A sentence typed after Tab (and Enter) replaces what was attended over.
    running, state, note, cells, source = run_app(app, (120, 40), script)
    assert running
    assert valid(state, app.frame)
    assert "internal error" not in note
    expected = compute(source, state)
    assert cells == expected_cells(expected, state)
