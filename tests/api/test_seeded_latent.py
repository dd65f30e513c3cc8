"""Multi-head latent attention on the seeded layer (latent_rank=): held to the loops of
tests/naive.py cell by cell; its absorbed form (W^UK folded into the query) held to the
plain scores by hypothesis; its JSON read back; refusals by their kind, msgid and field."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.errors import InputError, OptionError
from tests import naive
from tests.meaning import said_in_spanish, told

SENTENCE = "las llaves del coche están ahí"


@pytest.mark.parametrize(("heads", "rank", "causal"), [(1, 1, False), (2, 3, True), (4, 5, False)])
def test_the_latent_layer_equals_a_loop_cell_by_cell(heads, rank, causal):
    x = np.random.default_rng(7).normal(size=(5, 8))
    result = attn.selfattn(x=x, heads=heads, latent_rank=rank, causal=causal, seed=3)
    params = {name: w.tolist() for name, w in result.projections.items()}
    assert set(params) == {"w_q", "w_dkv", "w_uk", "w_uv", "w_o"}
    assert result.projections["w_dkv"].shape == (8, rank)
    output, latents, grids = naive.latent_layer(x.tolist(), params, heads, causal)
    np.testing.assert_allclose(result.output, output, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.attention.latent, latents, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.scores, grids, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    heads=st.sampled_from([1, 2, 4]),
    rank=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    causal=st.booleans(),
    window=st.none() | st.integers(1, 4),
    rope_dim=st.none() | st.sampled_from([2, 4, 6]),  # with the decoupled rotary key
)
def test_the_absorbed_form_gives_the_plain_scores(heads, rank, seed, causal, window, rope_dim):
    rotary = {} if rope_dim is None else {"positions": "rope", "rope_dim": rope_dim}
    result = attn.selfattn(SENTENCE, heads=heads, latent_rank=rank, seed=seed, causal=causal,
                           window=window, **rotary)  # fmt: skip
    plain = result.raw_scores / result.divisor
    absorbed = result.absorbed_scores
    live = np.isfinite(result.scores)
    assert np.array_equal(np.isfinite(absorbed), live)
    scale = max(1.0, float(np.abs(plain[live]).max()))
    assert np.abs(absorbed[live] - plain[live]).max() <= 1e-12 * scale


def test_the_rank_changes_the_cache_not_the_query():
    small = attn.selfattn(SENTENCE, heads=2, latent_rank=1)
    large = attn.selfattn(SENTENCE, heads=2, latent_rank=6)
    np.testing.assert_array_equal(small.queries, large.queries)
    assert small.attention.latent.shape == (6, 1) and large.attention.latent.shape == (6, 6)
    assert not np.allclose(small.keys, large.keys)
    # a rank-1 latent: every head's keys are multiples of one vector, c_KV is ±1 a token
    np.testing.assert_allclose(np.abs(small.attention.latent), 1.0, rtol=1e-3)


def _read_back(document, **keywords):
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    return selfattn_inputs(LayerInputs.from_document(document), None,
                           SelfAttnSettings(**keywords))  # fmt: skip


def test_its_json_reads_back_with_the_same_rank_and_is_refused_without():
    result = attn.selfattn(SENTENCE, heads=2, latent_rank=3, causal=True, seed=4)
    document = json.loads(json.dumps(result.to_document(), default=lambda a: a.tolist()))
    assert document["latent_rank"] == 3
    assert np.shape(document["latent"]) == (6, 3)
    again = _read_back(document, heads=2, latent_rank=3, causal=True)
    np.testing.assert_allclose(again.output, result.output, rtol=0, atol=1e-12)
    with pytest.raises(InputError) as caught:
        _read_back(document, heads=2, causal=True)
    told(caught.value, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}", field="latent_rank")  # fmt: skip
    # a latent that is not the one its inputs give is refused, not passed over
    document["latent"][0][0] += 1.0
    with pytest.raises(InputError) as caught:
        _read_back(document, heads=2, latent_rank=3, causal=True)
    assert caught.value.fields["name"] == "latent"


ONE_OF_THEM = ("{setting} is {what}, which the seeded layer does not do with {needed} yet; "
               "leave out one of them")  # fmt: skip
REFUSED = {
    # keywords: (kind, msgid, field, its value as Python writes it)
    "a rank of 0": ({"heads": 2, "latent_rank": 0}, OptionError,
                    "{setting}: it must be {least} or more", "setting", "latent_rank=0"),
    "a rank of -1": ({"heads": 2, "latent_rank": -1}, OptionError,
                     "{setting}: it must be {least} or more", "setting", "latent_rank=-1"),
    "no heads": ({"latent_rank": 2}, OptionError,
                 "{setting} is {what}; add {needed}", "needed", "heads"),
    "no projections": ({"heads": 2, "latent_rank": 2, "projections": False}, OptionError,
                       ONE_OF_THEM, "needed", "projections=False"),
    "QK-norm": ({"heads": 2, "latent_rank": 2, "qk_norm": True}, OptionError, ONE_OF_THEM,
                "needed", "qk_norm=True"),
    "grouped heads": ({"heads": 2, "latent_rank": 2, "kv_heads": 1}, OptionError, ONE_OF_THEM,
                      "needed", "kv_heads=1"),
    "cross-attention": ({"heads": 2, "latent_rank": 2, "context": "el coche"}, OptionError,
                        ONE_OF_THEM, "needed", "context='el coche'"),
    "a zero key": ({"heads": 2, "latent_rank": 2, "add_zero_attn": True}, OptionError,
                   ONE_OF_THEM, "needed", "add_zero_attn=True"),
    "a backward pass": ({"heads": 2, "latent_rank": 2, "target": np.zeros((6, 8))}, OptionError,
                        "{option} has no backward pass in attn yet; leave out the gradient "
                        "({upstream}, {target}) or {option}", "option", "latent_rank=2"),
}  # fmt: skip


@pytest.mark.parametrize("name", REFUSED)
def test_what_it_does_not_do_is_refused_in_one_line(name):
    keywords, kind, msgid, field, value = REFUSED[name]
    with pytest.raises(kind) as caught:
        attn.selfattn(SENTENCE, **keywords)
    told(caught.value, kind, msgid, surface="python", **{field: value})
    said_in_spanish(caught.value)


GIVEN = {
    "queries, keys and values": {"queries": np.ones((3, 4)), "keys": np.ones((3, 4)),
                                 "values": np.ones((3, 4))},
    "W^K": {"x": np.ones((3, 4)), "w_k": np.ones((4, 4))},
    "a batch": {"x": np.ones((2, 3, 4))},
}  # fmt: skip


@pytest.mark.parametrize("name", GIVEN)
def test_inputs_it_would_not_use_are_refused(name):
    with pytest.raises(InputError) as caught:
        attn.selfattn(**GIVEN[name], heads=2, latent_rank=2)
    assert caught.value.fields["latent"].written("python") == "latent_rank=2"
    said_in_spanish(caught.value)


@pytest.mark.parametrize(("replay", "args"), [("heads_sum", ()), ("kv_cache", ()),
                                             ("tiles", (2, 2))])  # fmt: skip
def test_a_replay_refuses_it(replay, args):
    result = attn.selfattn(SENTENCE, heads=2, latent_rank=2, causal=True)
    with pytest.raises(OptionError) as caught:
        getattr(attn, replay)(result, *args)
    told(caught.value, OptionError,
         "{option} replays the plain layer; {setting} changes its scores, which the replay does "
         "not do yet: leave out one of them",
         surface="python", setting="latent_rank=2")  # fmt: skip


def test_float32_agrees_with_float64():
    wide = attn.selfattn(SENTENCE, heads=2, latent_rank=3)
    narrow = attn.selfattn(SENTENCE, heads=2, latent_rank=3, dtype="float32")
    assert narrow.output.dtype == np.float32 and narrow.attention.latent.dtype == np.float32
    np.testing.assert_allclose(narrow.output, wide.output, rtol=0, atol=1e-5)


def test_the_output_alone_is_the_grid_s_output():
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    asked = {"heads": 2, "latent_rank": 2, "causal": True}
    whole = selfattn_inputs(LayerInputs(), SENTENCE, SelfAttnSettings(**asked))
    alone = selfattn_inputs(LayerInputs(), SENTENCE, SelfAttnSettings(**asked, grids=False))
    assert alone.scores.size == 0 and alone.absorbed_scores is None
    np.testing.assert_allclose(alone.output, whole.output, rtol=0, atol=1e-13)
