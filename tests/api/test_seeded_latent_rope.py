"""The seeded latent layer's decoupled rotary key (latent_rank= with positions='rope',
rope_dim=): DeepSeek's q^R_h = RoPE(x W^QR_h) beside each head's query and one k^R =
RoPE(x W^KR) beside every head's key, held to the loops of tests/naive.py cell by cell;
its absorbed form held to the plain scores by hypothesis (in test_seeded_latent.py, with
and without the key); the content part unchanged by the rotary key; the rotary part
depending on the distance alone; its JSON read back with the same width; refusals by their
kind, msgid and field."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests import naive
from tests.meaning import told

SENTENCE = "las llaves del coche están ahí"


@pytest.mark.parametrize(
    ("heads", "rank", "rope_dim", "base", "causal"),
    [(1, 1, None, 10000.0, False), (2, 3, 4, 100.0, True), (4, 5, 2, 10000.0, False)],
)
def test_the_rotary_key_equals_a_loop_cell_by_cell(heads, rank, rope_dim, base, causal):
    x = np.random.default_rng(7).normal(size=(5, 8))
    result = attn.selfattn(x=x, heads=heads, latent_rank=rank, positions="rope",
                           rope_dim=rope_dim, rope_base=base, causal=causal, seed=3)  # fmt: skip
    width = rope_dim or max(2, 8 // heads // 4 * 2)  # the default: half a head's d_k, even
    assert result.projections["w_kr"].shape == (8, width)
    assert result.projections["w_qr"].shape == (8, heads * width)
    params = {name: w.tolist() for name, w in result.projections.items()}
    output, latents, grids = naive.latent_layer(x.tolist(), params, heads, causal, base=base)
    np.testing.assert_allclose(result.output, output, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.attention.latent, latents, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.scores, grids, rtol=0, atol=1e-12)
    assert result.divisor == pytest.approx(np.sqrt(8 // heads + width), rel=1e-15)


def test_the_rotary_key_adds_to_the_content_scores_and_leaves_them_as_they_were():
    plain = attn.selfattn(SENTENCE, heads=2, latent_rank=3, seed=5)
    turned = attn.selfattn(SENTENCE, heads=2, latent_rank=3, positions="rope", seed=5)
    d_k = plain.queries.shape[-1]
    np.testing.assert_array_equal(turned.queries[..., :d_k], plain.queries)
    np.testing.assert_array_equal(turned.keys[..., :d_k], plain.keys)
    np.testing.assert_array_equal(turned.attention.latent, plain.attention.latent)
    # every head's key ends with the one rotary key k^R
    rotary = turned.keys[..., d_k:]
    np.testing.assert_array_equal(rotary[0], rotary[1])
    content = plain.raw_scores
    position = turned.queries[..., d_k:] @ np.swapaxes(rotary, -1, -2)
    np.testing.assert_allclose(turned.raw_scores, content + position, rtol=0, atol=1e-12)


def test_the_rotary_part_depends_on_the_distance_alone():
    result = attn.selfattn(SENTENCE, heads=2, latent_rank=3, positions="rope", rope_dim=4)
    check = result.relative_check(head=2)
    assert check.names == ("q^R", "k^R")
    assert check.shifted_score == pytest.approx(check.score, abs=1e-12)
    steps = result.steps(token="están", head=2)
    kinds = [type(step).__name__ for step in steps]
    assert kinds[:3] == ["LatentSteps", "RotarySteps", "RotarySteps"]
    latent = steps[0]
    assert latent.rope == 4 and latent.rotary_key == result.keys[1, 4, -4:].tolist()
    assert latent.rotary_query == result.queries[1, 4, -4:].tolist()
    assert (latent.cache_latent, latent.cache_heads) == (3 + 4, 2 * (4 + 4 + 4))
    for row, score in zip(latent.rows, result.scores[1, 4], strict=True):
        assert (row.content + row.position) / result.divisor == pytest.approx(score, abs=1e-12)


def test_a_scaled_rotary_key_turns_by_the_scaled_frequencies():
    from attncli.core.rotary import attention_factor, model_frequencies
    from attncli.reading.check.positions import rotary_scaling

    result = attn.selfattn(SENTENCE, heads=2, latent_rank=3, positions="rope", rope_dim=4,
                           rope_scaling="yarn:4:2", seed=2)  # fmt: skip
    scaling = rotary_scaling("yarn:4:2", 4)
    theta = model_frequencies(4, 10000.0, scaling, 6)
    np.testing.assert_array_equal(result.rope_theta, theta)
    factor = attention_factor(scaling)
    x_kr = result.x @ result.projections["w_kr"]
    expected = [naive.turned(row, i, theta.tolist(), factor) for i, row in enumerate(x_kr.tolist())]
    np.testing.assert_allclose(result.keys[0, :, -4:], expected, rtol=0, atol=1e-12)


def _read_back(document, **keywords):
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    return selfattn_inputs(LayerInputs.from_document(document), None,
                           SelfAttnSettings(**keywords))  # fmt: skip


def test_its_json_reads_back_with_the_same_width_and_is_refused_with_another():
    asked = {"heads": 2, "latent_rank": 3, "positions": "rope", "rope_dim": 4}
    result = attn.selfattn(SENTENCE, causal=True, seed=4, **asked)
    document = json.loads(json.dumps(result.to_document(), default=lambda a: a.tolist()))
    assert document["rope_dim"] == 4 and np.shape(document["rotary_key"]) == (6, 4)
    assert "d_rope" not in document and document["d_k"] == 4
    again = _read_back(document, causal=True, **asked)
    np.testing.assert_allclose(again.output, result.output, rtol=0, atol=1e-12)
    with pytest.raises(InputError) as caught:
        _read_back(document, causal=True, **{**asked, "rope_dim": None})  # the default is 2
    told(caught.value, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}", field="rope_dim")  # fmt: skip
    document["rotary_key"][0][0] += 1.0
    with pytest.raises(InputError) as caught:
        _read_back(document, causal=True, **asked)
    assert caught.value.fields["name"] == "rotary_key"


WIDTH = "{setting} is {what}; add {needed}"
REFUSED = {
    # keywords: (msgid, field, its value as Python writes it)
    "an odd width": ({"heads": 2, "latent_rank": 2, "positions": "rope", "rope_dim": 3},
                     "{width} is {size}, an odd number; rotary positions turn pairs of "
                     "numbers, so give an even {option}", "size", 3),
    "no latent": ({"heads": 2, "positions": "rope", "rope_dim": 2}, WIDTH, "needed",
                  "latent_rank"),
    "no rotary positions": ({"heads": 2, "latent_rank": 2, "rope_dim": 2}, WIDTH, "needed",
                            "positions='rope'"),
}  # fmt: skip


@pytest.mark.parametrize("case", REFUSED)
def test_what_the_rotary_key_cannot_be_is_refused_in_one_line(case):
    keywords, msgid, field, written = REFUSED[case]
    with pytest.raises(OptionError) as caught:
        attn.selfattn(SENTENCE, **keywords)
    told(caught.value, OptionError, msgid, "python", **{field: written})


def test_a_width_of_zero_is_refused_by_its_declared_least():
    with pytest.raises(OptionError) as caught:
        attn.selfattn(SENTENCE, heads=2, latent_rank=2, positions="rope", rope_dim=0)
    told(
        caught.value,
        OptionError,
        "{setting}: it must be {least} or more",
        "python",
        setting="rope_dim=0",
    )


@pytest.mark.parametrize(
    "keywords",
    [{"d_model": 2}, {"heads": 2, "latent_rank": 2}],  # d_k = 2; the default d_rope = 2
)
def test_dynamic_scaling_of_pairs_of_two_is_refused_as_the_seeded_layers(keywords):
    with pytest.raises(OptionError) as caught:
        attn.selfattn("el gato come", positions="rope", rope_scaling="dynamic:2", **keywords)
    told(caught.value, OptionError,
         "{option}: dynamic scaling raises the base to the power d ÷ (d − 2), and the pairs "
         "turned here are d = 2 numbers; turn 4 or more ({d_k}, or {rope_dim} with a latent "
         "rank)", "python", option="rope_scaling='dynamic:2'")  # fmt: skip
    wider = attn.selfattn("el gato come", positions="rope", rope_scaling="dynamic:2", d_model=4)
    assert np.isfinite(wider.output).all()
