"""The explorer's knobs are the layer's declaration's: their keys, and what on and off mean."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from attncli.explore.session import Source, layer_settings
from attncli.explore.state import KEYS, LAYER_KNOBS, State
from attncli.layer import SQRT, SelfAttnSettings, knobs


def test_every_declared_knob_has_its_keys_and_nothing_else_turns_the_layer():
    declared = knobs()
    assert set(declared) == set(LAYER_KNOBS)
    assert set(declared) <= {f.name for f in fields(SelfAttnSettings)}
    for name, knob in declared.items():
        for key in filter(None, knob.keys):
            assert KEYS[key][0] == name
    turned = {action for action, _ in KEYS.values()} & {f.name for f in fields(SelfAttnSettings)}
    assert turned == set(declared)


def test_a_switch_gives_the_declared_value_on_and_off():
    source = Source(sentence="las llaves del coche están ahí")
    on, off = State(), replace(State(), projections=False, scale=False, causal=False)
    assert layer_settings(source, on).scale == SQRT
    assert layer_settings(source, replace(on, causal=True)).causal is True
    settings = layer_settings(source, off)
    assert (settings.projections, settings.scale, settings.causal) == (False, None, None)
    for name, knob in knobs().items():
        if knob.switch:
            assert getattr(settings, name) == knob.off


def test_stepped_knobs_apply_where_they_mean_something():
    source = Source(sentence="las llaves del coche están ahí", d_model=8)
    settings = layer_settings(source, replace(State(), heads=2, d_k=3, seed=5))
    assert (settings.heads, settings.d_k, settings.seed, settings.d_model) == (2, 3, 5, 8)
    flat = layer_settings(source, replace(State(), projections=False, heads=2, d_k=3))
    assert (flat.heads, flat.d_k) == (None, None)  # no projections: no heads, no d_k


def test_the_window_narrows_from_no_window_and_widens_back_to_none():
    from attncli.explore.state import Frame, press

    frame = Frame(tokens=6, d_model=8, sentence=True, given_w=False)
    state, note = press(State(), ">", frame)
    assert state.window is None and note == ("window_none", {})
    widths = []
    for _ in range(6):
        state, note = press(state, "<", frame)
        widths.append(state.window)
    assert widths == [5, 4, 3, 2, 1, 1] and note == ("window_edge", {})
    for _ in range(5):
        state, _note = press(state, ">", frame)
    assert state.window is None  # a window of T keys is no window: |i − j| < 6 everywhere


def test_rotary_alibi_and_the_window_reach_the_layer():
    source = Source(sentence="las llaves del coche están ahí")
    turned = layer_settings(source, replace(State(), positions=True, alibi=True, window=2))
    assert (turned.positions, turned.alibi, turned.window) == ("rope", True, 2)
    plain = layer_settings(source, State())
    assert (plain.positions, plain.alibi, plain.window) == (None, False, None)


def test_the_side_panel_adds_alibis_bias_between_the_division_and_the_score():
    from attncli.explore import views
    from attncli.explore.session import compute
    from attncli.present.format import Format

    source = Source(sentence="las llaves del coche están ahí")
    state = replace(State(), heads=2, alibi=True, row=4, column=5)
    result = compute(source, state)
    score_row = result.steps(row=5, head=1)[-3].rows[5]
    bias, score = score_row.bias, score_row.score
    assert bias is not None and bias < 0  # ALiBi: −m·|i − j|
    scaled = score_row.total / result.divisor
    assert scaled + bias == pytest.approx(score, abs=1e-12)
    fmt = Format()
    for compact in (False, True):
        text = _plain(views.panel(result, state, fmt, compact=compact))
        assert f"{fmt.number(scaled)} + ({fmt.number(bias)})" in text, text
        assert fmt.number(score) in text
    assert f"+ ({fmt.number(bias)}) = {fmt.number(score)}" in _plain(
        views.panel(result, state, fmt, compact=True)
    )


def _plain(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, color_system=None)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


def test_a_result_of_x_reopened_is_its_layer_and_not_queries_given_directly():
    import numpy as np

    import attncli as attn
    from attncli.explore.session import compute

    result = attn.selfattn("las llaves del coche", heads=2, seed=0)
    source = Source(document=result.to_document())
    assert not source.direct  # its queries, keys and values are outputs of its X
    again = compute(source, replace(State(), heads=2))
    assert np.array_equal(again.output, result.output)
    given = {"queries": [[1.0, 0.0]], "keys": [[1.0, 0.0]], "values": [[1.0, 0.0]]}
    assert Source(document=given).direct


def test_the_panel_of_a_softcapped_layer_bends_the_score_before_its_softmax():
    import numpy as np

    from attncli.explore import views
    from attncli.explore.session import compute
    from attncli.present.format import Format

    source = Source(sentence="las llaves del coche están ahí")
    state = replace(State(), softcap=1.0, row=4, column=1)
    result = compute(source, state)
    raw = result.raw_scores[4, 1] / result.divisor
    capped = np.tanh(raw)  # 1 · tanh(score ÷ 1)
    assert result.scores[4, 1] == pytest.approx(capped, abs=1e-15)
    fmt = Format()
    for compact in (False, True):
        text = " ".join(_plain(views.panel(result, state, fmt, compact=compact)).split())
        assert f"1 · tanh({fmt.number(raw)} ÷ 1)" in text, text
        assert fmt.number(capped) in text
    compact_text = " ".join(_plain(views.panel(result, state, fmt, compact=True)).split())
    assert f"1 · tanh({fmt.number(raw)} ÷ 1) = {fmt.number(capped)}" in compact_text


@pytest.mark.parametrize(
    ("keys", "name", "ladder", "notes", "setting"),
    [
        # ( tightens the softcap from none through 50 … 1; ) loosens it back to none
        (("(", ")"), "softcap", "SOFTCAPS", ("softcap_none", "softcap_edge", "cap"),
         ("softcap", 5.0, 5.0)),
        # + raises one sink logit for every head from none through −2 … 4; - lowers it
        (("+", "-"), "sink", "SINKS", ("sink_none", "sink_edge", "sink"), ("sinks", 2.0, (2.0,))),
    ],
)  # fmt: skip
def test_a_stepped_knob_goes_from_none_through_its_ladder_and_back(keys, name, ladder, notes,
                                                                   setting):  # fmt: skip
    from attncli.explore import state as states
    from attncli.explore.state import Frame, press

    on, off = keys
    steps = getattr(states, ladder)
    frame = Frame(tokens=6, d_model=8, sentence=True, given_w=False)
    state, note = press(State(), off, frame)
    assert getattr(state, name) is None and note == (notes[0], {})
    seen = []
    for _ in range(len(steps) + 1):
        state, note = press(state, on, frame)
        seen.append(getattr(state, name))
    assert seen == [*steps, steps[-1]] and note == (notes[1], {notes[2]: int(steps[-1])})
    for _ in range(len(steps)):
        state, _note = press(state, off, frame)
    assert getattr(state, name) is None
    field, value, expected = setting
    source = Source(sentence="las llaves del coche están ahí")
    chosen = layer_settings(source, replace(State(), heads=2, **{name: value}))
    assert getattr(chosen, field) == expected


def test_the_panel_of_a_sunk_layer_puts_the_sinks_power_in_the_total():
    import numpy as np

    from attncli.explore import views
    from attncli.explore.session import compute
    from attncli.explore.words import say
    from attncli.present.format import Format

    source = Source(sentence="las llaves del coche están ahí")
    state = replace(State(), sink=2.0, row=4, column=1)
    result = compute(source, state)
    scores = result.scores[4]
    total = np.exp(scores).sum() + np.exp(2.0)
    assert result.weights[4, 1] == pytest.approx(np.exp(scores[1]) / total, rel=1e-12)
    fmt = Format()
    for compact in (False, True):
        text = " ".join(_plain(views.panel(result, state, fmt, compact=compact)).split())
        assert f"{say('en', 'sink_total', sink='2')} {fmt.number(np.exp(2.0))}" in text.replace(
            " = ", " "
        )
        assert fmt.number(total, whole_bare=False) in text


def test_the_status_gives_the_seeded_heads_sink_rate():
    from attncli.core.head_patterns import sink_rates
    from attncli.explore import views
    from attncli.explore.session import compute
    from attncli.explore.state import Frame

    source = Source(sentence="las llaves del coche están ahí")
    frame = Frame(tokens=6, d_model=8, sentence=True, given_w=False)
    for head in (1, 2):
        state = replace(State(), heads=2, head=head, causal=True)
        result = compute(source, state)
        rate = sink_rates(result.weights[head - 1])
        assert rate == pytest.approx(result.weights[head - 1, 1:, 0].mean(), rel=1e-15)
        assert f"sink rate (first token) {rate:.2f}" in views.status(state, frame, result).plain


def test_the_status_of_one_token_gives_no_sink_rate():
    """A sink rate needs a row after the first: with one token the status leaves it out
    rather than ask core.head_patterns.sink_rates for one."""
    from attncli.explore import views
    from attncli.explore.session import compute
    from attncli.explore.state import Frame

    state = replace(State(), heads=2, causal=True)
    result = compute(Source(sentence="tren"), state)
    frame = Frame(tokens=1, d_model=8, sentence=True, given_w=False)
    assert "sink rate" not in views.status(state, frame, result).plain
