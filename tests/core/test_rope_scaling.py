"""Scaled rotary positions (core/rotary.py's ROPE_TYPES): against the papers' formulas
written pair by pair, and the invariants (a factor of 1 is no scaling; dynamic and longrope
change only past the length the model was trained on; YaRN's ramp runs from kept to
divided)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.rotary import (
    ROPE_TYPES,
    Scaling,
    attention_factor,
    frequencies,
    model_frequencies,
    yarn_ramp,
)

pytestmark = pytest.mark.slow  # hypothesis

heads = st.sampled_from([4, 8, 16, 64, 128])
bases = st.sampled_from([10000.0, 500000.0, 1e6])
lengths = st.integers(8, 1 << 17)


def _all(kind: str, factor: float, original: int, d: int) -> Scaling:
    pairs = d // 2
    return Scaling(kind, factor, 1.0, 4.0, original, short_factor=(1.0,) * pairs,
                   long_factor=(1.0,) * pairs, divisors=(factor,) * pairs)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(ROPE_TYPES)), d=heads, base=bases, original=lengths,
       tokens=st.one_of(st.none(), lengths))  # fmt: skip
def test_a_factor_of_one_is_no_scaling(kind, d, base, original, tokens):
    if kind == "dynamic" and tokens is not None:  # past L its base grows even at factor 1:
        tokens = min(tokens, original)  # base · (T / L)^(d/(d−2)), as transformers'
    scaling = _all(kind, 1.0, original, d)
    np.testing.assert_allclose(
        model_frequencies(d, base, scaling, tokens), frequencies(d, base), rtol=1e-12, atol=0
    )
    assert attention_factor(scaling) == 1.0


@settings(max_examples=40, deadline=None)
@given(d=heads, base=bases, original=lengths, factor=st.floats(1.0, 64.0), data=st.data())
def test_dynamic_changes_only_past_the_trained_length(d, base, original, factor, data):
    scaling = Scaling("dynamic", factor, original_positions=original)
    within = data.draw(st.integers(1, original))
    # factor · L / L − (factor − 1) is 1 to a rounding, in transformers' formula too
    np.testing.assert_allclose(model_frequencies(d, base, scaling, within), frequencies(d, base),
                               rtol=1e-13, atol=0)  # fmt: skip
    beyond = model_frequencies(d, base, scaling, original * 2)
    # the base grows: pair 0 always turns by 1, every other pair more slowly
    assert beyond[0] == 1.0 and (factor == 1.0 or (beyond[1:] < frequencies(d, base)[1:]).all())


def test_dynamic_by_its_formula():
    # base' = base · (factor · T / L − (factor − 1))^(d/(d−2)): 2 · 4096/2048 − 1 = 3
    scaling = Scaling("dynamic", 2.0, original_positions=2048)
    grown = 10000.0 * 3.0 ** (8 / 6)
    expected = [grown ** (-2 * i / 8) for i in range(4)]
    np.testing.assert_allclose(model_frequencies(8, 1e4, scaling, 4096), expected, rtol=1e-14)


def _yarn_by_loop(d: int, base: float, s: Scaling) -> list[float]:
    """YaRN (Peng et al., 2023) pair by pair: the pairs turning more than beta_fast times
    over the original length keep θ_i, those under beta_slow take θ_i / factor, a ramp
    between by pair number."""

    def pair_turning(turns: float) -> float:
        return d * math.log(s.original_positions / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = math.floor(pair_turning(s.beta_fast)), math.ceil(pair_turning(s.beta_slow))
    low, high = max(low, 0), min(high, d - 1)
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        ramp = min(max((i - low) / ((high - low) or 0.001), 0.0), 1.0)
        out.append(theta * (1 - ramp) + theta / s.factor * ramp)
    return out


@settings(max_examples=40, deadline=None)
@given(d=heads, base=bases, factor=st.floats(1.5, 64.0),
       original=st.sampled_from([16, 512, 4096, 32768]))  # fmt: skip
def test_yarn_by_a_loop_over_the_pairs(d, base, factor, original):
    scaling = Scaling("yarn", factor, original_positions=original)
    np.testing.assert_allclose(model_frequencies(d, base, scaling), _yarn_by_loop(d, base, scaling),
                               rtol=1e-12)  # fmt: skip
    kept = yarn_ramp(d, base, scaling)
    assert ((kept >= 0) & (kept <= 1)).all() and (np.diff(kept) <= 0).all()
    assert attention_factor(scaling) == pytest.approx(0.1 * math.log(factor) + 1.0)


def test_longrope_takes_its_long_factors_past_the_original_length():
    scaling = Scaling("longrope", 4.0, original_positions=32,
                      short_factor=(1.0, 2.0), long_factor=(3.0, 5.0))  # fmt: skip
    theta = frequencies(4, 1e4)
    np.testing.assert_allclose(model_frequencies(4, 1e4, scaling, 32), theta / [1.0, 2.0])
    np.testing.assert_allclose(model_frequencies(4, 1e4, scaling, 33), theta / [3.0, 5.0])
    assert attention_factor(scaling) == pytest.approx(math.sqrt(1 + math.log(4) / math.log(32)))


def test_an_attention_factor_given_is_taken_as_it_is():
    for kind in ("yarn", "longrope"):
        assert attention_factor(Scaling(kind, 8.0, attention_factor=0.75)) == 0.75
