"""This year's mechanisms on the seeded layer (softcap=, sinks=, qk_norm=, rope_scaling=):
held to the loops of tests/naive.py, cell by cell and apart from attn's numpy, and the
scaled rotary frequencies to transformers' own (tests/references/frontier.json's rope,
made by tests/references/make_frontier.py); refusals by their kind, msgid and field."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests import naive
from tests.meaning import said_in_spanish, told

T, D = 6, 12
ROPE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
)["rope"]


def _weights(seed: int, d: int = D) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {name: rng.normal(size=(d, d)) for name in ("w_q", "w_k", "w_v", "w_o")}


def _linear_thetas(d: int, base: float, factor: float) -> list[float]:
    # Chen et al. (2023): every pair's θ_i = base^(−2i/d) divided by the factor
    return [base ** (-2 * i / d) / factor for i in range(d // 2)]


CASES = {
    # name: (heads, causal, qk_norm, softcap, sinks, rope_scaling)
    "softcap": (1, False, False, 0.7, None, None),
    "softcap, 3 heads, causal": (3, True, False, 1.5, None, None),
    "one sink for every head": (3, False, False, None, (0.4,), None),
    "a sink per head, causal": (3, True, False, None, (0.4, -2.0, 3.0), None),
    "qk-norm": (2, False, True, None, None, None),
    "qk-norm and rotary, linear ×4": (2, True, True, None, None, "linear:4"),
    "all four": (3, True, True, 2.0, (1.0, 0.0, -1.0), "linear:2"),
}


@pytest.mark.parametrize("name", CASES)
def test_the_layer_equals_a_loop_cell_by_cell(name):
    heads, causal, qk_norm, softcap, sinks, scaling = CASES[name]
    x = np.random.default_rng(3).normal(size=(T, D))
    weights = _weights(5)
    rope = {} if scaling is None else {"positions": "rope", "rope_scaling": scaling}
    result = attn.selfattn(x=x, **weights, heads=heads, causal=causal, qk_norm=qk_norm,
                           softcap=softcap, sinks=sinks, **rope)  # fmt: skip
    thetas = None
    if scaling is not None:
        thetas = _linear_thetas(D // heads, 10000.0, float(scaling.split(":")[1]))
    expected = naive.frontier_layer(
        x.tolist(), {n: w.tolist() for n, w in weights.items()}, heads, causal, qk_norm,
        thetas, 1.0, softcap, sinks,
    )  # fmt: skip
    np.testing.assert_allclose(result.output, expected, rtol=0, atol=1e-12)


def test_each_row_sums_to_one_less_the_sink_s_share():
    x = np.random.default_rng(1).normal(size=(T, D))
    result = attn.selfattn(x=x, **_weights(2), heads=2, sinks=[0.5, 4.0])
    sums = result.weights.sum(axis=-1)  # [h, T]
    assert (sums < 1).all()
    document = result.to_document()
    np.testing.assert_allclose(document["sink_weights"], 1 - sums, rtol=0, atol=1e-15)
    assert document["sinks"] == [0.5, 4.0]
    # a larger sink takes more: head 2's rows give it more than head 1's
    assert (sums[1] < sums[0]).all()


# --rope-scaling held to transformers' rotary initialisation (its inv_freq and attention
# factor, computed in float64), the seeded layer's d_k the config's head_dim
SCALED = {
    # reference: (spec, base, tokens)
    "linear": ("linear:4", 10000.0, 5),
    "llama3-3.1-8b": ("llama3:8:8192", 500000.0, 5),
    "yarn-qwen2.5": ("yarn:4:32768", 1e6, 5),
    "longrope-phi3": ("longrope:4:32:1,1,1.25,1.5,2,2.5,3,3.5:1,1.5,2.5,4,6,8,12,16", 1e4, 33),
    "longrope-factor": ("longrope:2:64:1,1,1,1,1,1,1,1:1,1,2,2,4,4,8,8", 1e4, 100),
}


@pytest.mark.parametrize("name", SCALED)
def test_the_scaled_frequencies_are_transformers(name):
    spec, base, tokens = SCALED[name]
    reference = ROPE[name]
    d = reference["head_dim"]
    run = next(r for r in reference["runs"] if r["seq_len"] in (tokens, None))
    if name.startswith("longrope"):  # past the trained length: the long factors
        run = next(r for r in reference["runs"] if r["seq_len"] == tokens)
    x = np.random.default_rng(0).normal(size=(tokens, d))
    result = attn.selfattn(x=x, d_k=d, positions="rope", rope_base=base, rope_scaling=spec)
    np.testing.assert_allclose(result.rope_theta, run["float64"]["inv_freq"], rtol=1e-12, atol=0)
    assert result.rope_factor == pytest.approx(run["float64"]["attention_factor"], rel=1e-12)
    if tokens > 40:
        return
    # and the layer turns q and k by them: a loop with transformers' θ_i and factor
    expected = naive.frontier_layer(
        x.tolist(), {n: w.tolist() for n, w in result.projections.items()}, 1,
        thetas=run["float64"]["inv_freq"], factor=run["float64"]["attention_factor"],
    )  # fmt: skip
    np.testing.assert_allclose(result.output, expected, rtol=0, atol=1e-11)


def test_dynamic_grows_the_base_only_past_the_trained_length():
    x = np.random.default_rng(0).normal(size=(T, 8))
    within = attn.selfattn(x=x, d_k=8, positions="rope", rope_scaling="dynamic:2:6")
    plain = attn.selfattn(x=x, d_k=8, positions="rope")
    np.testing.assert_allclose(within.output, plain.output, rtol=0, atol=1e-13)
    beyond = attn.selfattn(x=x, d_k=8, positions="rope", rope_scaling="dynamic:2:4")
    # bloc97's NTK: base · (factor · T / L − (factor − 1))^(d / (d − 2)), here T = 6, L = 4
    grown = 10000.0 * (2 * 6 / 4 - 1) ** (8 / 6)
    np.testing.assert_allclose(beyond.rope_theta, [grown ** (-2 * i / 8) for i in range(4)],
                               rtol=1e-13)  # fmt: skip


def test_the_python_api_reads_the_command_line_s_spellings():
    sentence = "el tren va lleno"
    text = attn.selfattn(sentence, heads=2, sinks="0.5,-1")
    numbers = attn.selfattn(sentence, heads=2, sinks=(0.5, -1))
    np.testing.assert_array_equal(text.weights, numbers.weights)
    one = attn.selfattn(sentence, heads=2, sinks=0.5)
    assert one.sinks == (0.5,) and text.sinks == (0.5, -1.0)


REFUSED = {
    # keywords: (kind, msgid, field, its value as the command line writes it)
    "a cap of 0": ({"softcap": 0.0}, OptionError,
                   "{setting}: it must be a number above {above}", "setting", "--softcap 0.0"),
    "a cap of NaN": ({"softcap": math.nan}, OptionError,
                     "{setting}: it must be a number above {above}", "setting", "--softcap nan"),
    "a cap with ALiBi": ({"softcap": 2.0, "alibi": True}, OptionError,
                         "{softcap} with {alibi}: the cap comes before any bias is added, and no "
                         "model softcaps ALiBi's scores; give one of them", "alibi", "--alibi"),
    "three sinks for two heads": (
        {"sinks": [1, 2, 3], "heads": 2}, OptionError,
        "{option} gives {count} sink logits; the layer has {heads}: give one for every head, "
        "or one per head", "option", "--sinks"),
    "a sink that is no number": (
        {"sinks": "0.5,x"}, OptionError,
        "{option}: {value} is not a sink logit; give a number for every head, or one per head "
        "separated by commas, e.g. 0.5,-1", "value", "x"),
    "a sink of +inf": (
        {"sinks": [math.inf]}, OptionError,
        "{option}: {value} is not a sink logit; give a number for every head, or one per head "
        "separated by commas, e.g. 0.5,-1", "option", "--sinks"),
    "a scaling without rotary positions": (
        {"rope_scaling": "yarn:4"}, OptionError,
        "{setting} is {what}; add {needed}", "needed", "--positions rope"),
    "an unknown scaling": (
        {"positions": "rope", "rope_scaling": "ntk:4"}, OptionError,
        "{option}: {value} is not a rotary scaling; give TYPE:FACTOR[:L], TYPE one of {kinds} "
        "(longrope:FACTOR:L:S1,S2,…:L1,L2,…), e.g. yarn:4", "value", "ntk:4"),
    "a scaling without its factor": (
        {"positions": "rope", "rope_scaling": "yarn"}, OptionError,
        "{option}: {value} is not a rotary scaling; give TYPE:FACTOR[:L], TYPE one of {kinds} "
        "(longrope:FACTOR:L:S1,S2,…:L1,L2,…), e.g. yarn:4", "value", "yarn"),
    "a factor of 0": (
        {"positions": "rope", "rope_scaling": "linear:0"}, InputError,
        "{where} is {kind}; expected {expected}", "kind", "0"),
    "longrope's factors one short": (
        {"positions": "rope", "rope_scaling": "longrope:2:4:1,1,1:1,1,1"}, OptionError,
        "{option}: longrope takes a short and a long factor for each pair turned here, "
        "{count} of each ({width} numbers turned, in pairs)", "option", "longrope:2:4:1,1,1"),
}  # fmt: skip


@pytest.mark.parametrize("name", REFUSED)
def test_a_wrong_value_is_refused_in_one_line(name):
    keywords, kind, msgid, field, value = REFUSED[name]
    with pytest.raises(kind) as caught:
        attn.selfattn("el tren va lleno", **keywords)
    assert caught.value.msgid == msgid
    said = caught.value.fields[field]
    shown = said.written("cli") if hasattr(said, "written") else said
    assert value in str(shown)
    said_in_spanish(caught.value)


@pytest.mark.parametrize(
    "keywords",
    [{"softcap": 2.0}, {"sinks": 1.0}, {"qk_norm": True},
     {"positions": "rope", "rope_scaling": "linear:2"}],
)  # fmt: skip
def test_no_backward_pass_through_them_yet(keywords):
    with pytest.raises(OptionError) as caught:
        attn.selfattn("el tren va lleno", target=np.zeros((4, 8)), **keywords)
    told(caught.value, OptionError,
         "{option} has no backward pass in attn yet; leave out the gradient ({upstream}, "
         "{target}) or {option}", surface="python", upstream="grad_output")  # fmt: skip


def test_a_softcap_with_a_float_mask_is_refused():
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=np.eye(4), softcap=2.0, attn_mask=np.full((4, 4), 0.5))
    told(caught.value, InputError,
         "{softcap} with a float attn_mask or key_padding_mask: the cap comes before what they "
         "add to the scores; give a boolean mask instead, or leave out {softcap}",
         surface="python", softcap="softcap=2.0")  # fmt: skip


REPLAY = (
    "{option} replays the plain layer; {setting} changes its scores, which the replay "
    "does not do yet: leave out one of them"
)


@pytest.mark.parametrize(
    ("settings", "setting"),
    [({"qk_norm": True}, "qk_norm=True"), ({"softcap": 0.5}, "softcap=0.5"),
     ({"sinks": 2}, "sinks=(2.0,)")],
)  # fmt: skip
@pytest.mark.parametrize(
    ("replay", "option"),
    [(attn.kv_cache, "kv_cache()"), (lambda r: attn.tiles(r, 2, 2), "tiles()"),
     (attn.heads_sum, "heads_sum()")],
)  # fmt: skip
def test_a_replay_of_the_layer_from_python_refuses_what_it_would_not_replay(
    settings, setting, replay, option
):
    # a replay that left the cap or the sink out would be a ledger of another layer's numbers
    result = attn.selfattn("el tren va lleno", heads=2, causal=True, **settings)
    with pytest.raises(OptionError) as caught:
        replay(result)
    told(caught.value, OptionError, REPLAY, "python", option=option, setting=setting)


@pytest.mark.parametrize("tokens", [7, 2100])  # 2100² score cells: past the long-input path's
def test_the_output_alone_is_the_grid_s_output(tokens):
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    x = np.random.default_rng(4).normal(size=(tokens, 8))
    weights = _weights(6, 8)
    settings = {"heads": 2, "softcap": 1.5, "sinks": (0.5, -1.0), "causal": True}
    inputs = LayerInputs(x=x, **weights)
    whole = selfattn_inputs(inputs, None, SelfAttnSettings(**settings))
    alone = selfattn_inputs(inputs, None, SelfAttnSettings(**settings, grids=False))
    assert alone.scores.size == 0
    np.testing.assert_allclose(alone.output, whole.output, rtol=0, atol=1e-13)
