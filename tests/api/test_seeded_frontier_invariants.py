"""What this year's mechanisms must leave as it was, on the seeded layer, for any layer
hypothesis draws: a cap of +∞ is no cap (and a cap far above every score next to none); a
sink of −∞ is no sink, and any other only takes weight away; a rotary scaling by a factor
of 1 is no scaling; QK-norm bounds every score by √d_k."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn

pytestmark = pytest.mark.slow  # hypothesis

layers = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "heads": st.sampled_from([1, 2, 4]),
        "causal": st.booleans(),
        "norm": st.floats(0.5, 20.0),
    }
)
SENTENCE = "las llaves del coche están ahí"


@settings(max_examples=40, deadline=None)
@given(layer=layers)
def test_a_cap_of_infinity_is_no_cap(layer):
    plain = attn.selfattn(SENTENCE, d_model=8, **layer)
    capped = attn.selfattn(SENTENCE, d_model=8, softcap=math.inf, **layer)
    np.testing.assert_array_equal(capped.weights, plain.weights)
    np.testing.assert_array_equal(capped.output, plain.output)
    huge = attn.selfattn(SENTENCE, d_model=8, softcap=1e12, **layer)
    np.testing.assert_allclose(huge.weights, plain.weights, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(layer=layers, cap=st.floats(0.1, 30.0))
def test_a_capped_score_never_passes_the_cap(layer, cap):
    capped = attn.selfattn(SENTENCE, d_model=8, softcap=cap, **layer)
    seen = np.isfinite(capped.scores)
    assert (np.abs(capped.scores[seen]) <= cap).all()


@settings(max_examples=40, deadline=None)
@given(layer=layers)
def test_a_sink_of_minus_infinity_is_no_sink(layer):
    plain = attn.selfattn(SENTENCE, d_model=8, **layer)
    sunk = attn.selfattn(SENTENCE, d_model=8, sinks=-math.inf, **layer)
    np.testing.assert_allclose(sunk.weights, plain.weights, rtol=1e-15, atol=0)
    np.testing.assert_allclose(sunk.output, plain.output, rtol=1e-14, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(layer=layers, sink=st.floats(-20.0, 20.0))
def test_a_sink_only_takes_weight_away(layer, sink):
    plain = attn.selfattn(SENTENCE, d_model=8, **layer)
    sunk = attn.selfattn(SENTENCE, d_model=8, sinks=sink, **layer)
    sums = sunk.weights.sum(axis=-1)  # 1 where the keys' scores leave the sink e^−∞
    assert (sums <= 1 + 1e-15).all() and (sums > 0).all()
    # the keys keep their proportions: each row is the plain row times its sum
    np.testing.assert_allclose(sunk.weights, plain.weights * sums[..., None], rtol=1e-12,
                               atol=1e-300)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(layer=layers, kind=st.sampled_from(["linear", "yarn", "llama3", "dynamic"]),
       trained=st.integers(1, 64))  # fmt: skip
def test_a_rotary_scaling_by_one_is_no_scaling(layer, kind, trained):
    if kind == "dynamic":  # past L its base grows even at factor 1, as transformers'
        trained = max(trained, 6)
        layer = {**layer, "heads": min(layer["heads"], 2)}  # d ÷ (d − 2): d_k of 4 or more
    plain = attn.selfattn(SENTENCE, d_model=8, positions="rope", **layer)
    scaled = attn.selfattn(SENTENCE, d_model=8, positions="rope",
                           rope_scaling=f"{kind}:1:{trained}", **layer)  # fmt: skip
    np.testing.assert_allclose(scaled.output, plain.output, rtol=0, atol=1e-12)
    assert scaled.rope_factor == 1.0


@settings(max_examples=40, deadline=None)
@given(layer=layers)
def test_qk_norm_bounds_every_score_by_the_root_of_d_k(layer):
    normed = attn.selfattn(SENTENCE, d_model=8, qk_norm=True, **layer)
    d_k = normed.queries.shape[-1]
    seen = np.isfinite(normed.scores)
    # ‖q‖ = ‖k‖ ≤ √d_k after the norm, so |q · k| ÷ √d_k ≤ √d_k
    assert (np.abs(normed.scores[seen]) <= math.sqrt(d_k) + 1e-12).all()
    # each q's root mean square is √(m ÷ (m + ε)) of its mean square m before: just under 1
    before = np.mean(normed.attention.unnormed[0] ** 2, axis=-1)
    rms = np.sqrt(np.mean(normed.queries**2, axis=-1))
    np.testing.assert_allclose(rms, np.sqrt(before / (before + 1e-6)), rtol=1e-12)
