"""Multi-head latent attention (core/latent.py): the absorbed form (W^UK folded into the
query) gives the plain form's scores, and the plain form is attention over the keys and
values read back from the latent, written out head by head."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.latent import LatentShape, absorbed_scores, latent_attention
from attncli.core.rotary import frequencies, rotate

pytestmark = pytest.mark.slow  # hypothesis


def _rms(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * gamma


def _case(seed: int, heads: int, q_rank: int | None, interleave: bool):
    rng = np.random.default_rng(seed)
    d, nope, rope, v, rank, count = 16, 6, 4, 5, 7, 6
    shape = LatentShape(heads, nope, rope, v, rank, q_rank, interleave, math.sqrt(nope + rope))
    w = {"w_kv_a": rng.normal(size=(d, rank + rope)), "kv_a_norm": rng.uniform(0.5, 1.5, rank),
         "w_kv_b": rng.normal(size=(rank, heads * (nope + v))),
         "w_o": rng.normal(size=(heads * v, d))}  # fmt: skip
    if q_rank is None:
        w["w_q"] = rng.normal(size=(d, heads * (nope + rope)))
    else:
        w.update(w_q_a=rng.normal(size=(d, q_rank)), q_a_norm=rng.uniform(0.5, 1.5, q_rank),
                 w_q_b=rng.normal(size=(q_rank, heads * (nope + rope))))  # fmt: skip
    return rng.normal(size=(count, d)), w, shape


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), heads=st.integers(1, 4),
       q_rank=st.sampled_from([None, 5]), interleave=st.booleans())  # fmt: skip
def test_the_absorbed_form_gives_the_same_scores(seed, heads, q_rank, interleave):
    x, w, shape = _case(seed, heads, q_rank, interleave)
    theta = frequencies(shape.rope, 10000.0)
    run = latent_attention(x, w, shape, theta, 1.0, None, _rms)
    np.testing.assert_allclose(absorbed_scores(run, w["w_kv_b"], shape), run.scores,
                               rtol=1e-10, atol=1e-10)  # fmt: skip


def test_the_plain_form_head_by_head():
    x, w, shape = _case(7, 3, None, True)
    theta = frequencies(shape.rope, 10000.0)
    causal = np.tril(np.ones((len(x), len(x)), dtype=bool))
    run = latent_attention(x, w, shape, theta, 1.5, causal, _rms)
    c = _rms((x @ w["w_kv_a"])[:, : shape.rank], w["kv_a_norm"])
    raw_rot = (x @ w["w_kv_a"])[:, shape.rank :]
    deinterleaved = np.concatenate([raw_rot[:, 0::2], raw_rot[:, 1::2]], axis=-1)
    k_rot = rotate(deinterleaved, theta=theta) * 1.5
    heads_out = []
    for h in range(3):
        qh = (x @ w["w_q"])[:, h * 10 : (h + 1) * 10]
        q_rot = rotate(np.concatenate([qh[:, 6::2], qh[:, 7::2]], axis=-1), theta=theta) * 1.5
        kv = c @ w["w_kv_b"][:, h * 11 : (h + 1) * 11]
        scores = (qh[:, :6] @ kv[:, :6].T + q_rot @ k_rot.T) / math.sqrt(10)
        scores[~causal] = -np.inf
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        np.testing.assert_allclose(run.weights[h], weights, rtol=1e-12, atol=1e-14)
        heads_out.append(weights @ kv[:, 6:])
    np.testing.assert_allclose(run.output, np.concatenate(heads_out, axis=-1) @ w["w_o"],
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    assert shape.cache_numbers() == (7 + 4, 3 * (6 + 4 + 5))
