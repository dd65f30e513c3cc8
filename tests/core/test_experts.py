"""gpt-oss' mixture of experts (core/experts.py) against a loop over tokens and experts
written from the paper's formulas, and the learned sinks of core/transformer's attention:
a sink of −∞ is no sink."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core.experts import Experts, mixture

pytestmark = pytest.mark.slow  # hypothesis


def _experts(rng: np.random.Generator, d: int, count: int, inner: int) -> Experts:
    return Experts(rng.normal(size=(d, count)), rng.normal(size=count),
                   rng.normal(size=(count, d, 2 * inner)), rng.normal(size=(count, 2 * inner)),
                   rng.normal(size=(count, inner, d)), rng.normal(size=(count, d)))  # fmt: skip


def _by_loop(x, e: Experts, k: int, alpha: float, limit: float) -> np.ndarray:
    out = np.zeros_like(x)
    for t, row in enumerate(x):
        logits = [float(row @ e.router[:, j] + e.router_bias[j]) for j in range(len(e.router_bias))]
        chosen = sorted(range(len(logits)), key=lambda j: -logits[j])[:k]
        top = [math.exp(logits[j] - logits[chosen[0]]) for j in chosen]
        for j, share in zip(chosen, top, strict=True):
            h = row @ e.gate_up[j] + e.gate_up_bias[j]
            gate = [min(g, limit) for g in h[0::2]]
            up = [min(max(u, -limit), limit) for u in h[1::2]]
            mixed = np.array(
                [(u + 1) * g / (1 + math.exp(-alpha * g)) for g, u in zip(gate, up, strict=True)]
            )
            out[t] += (mixed @ e.down[j] + e.down_bias[j]) * share / sum(top)
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), limit=st.floats(0.5, 8.0))
def test_the_mixture_is_the_loop(seed, k, limit):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(5, 6))
    experts = _experts(rng, 6, 4, 3)
    expected = _by_loop(x, experts, k, 1.702, limit)
    np.testing.assert_allclose(mixture(x, experts, k, 1.702, limit), expected, rtol=1e-11,
                               atol=1e-11)  # fmt: skip


def test_a_sink_of_minus_infinity_is_no_sink():
    from dataclasses import replace

    from attncli.core.transformer import Architecture, Block, decoder_attention

    rng = np.random.default_rng(3)
    arch = Architecture("gpt_oss", 1, 2, 8, 16, "silu", 1e-5, kv_heads=1, head_dim=4, sinks=True)
    params = {"w_q": rng.normal(size=(8, 8)), "w_k": rng.normal(size=(8, 4)),
              "w_v": rng.normal(size=(8, 4)), "w_o": rng.normal(size=(8, 8))}  # fmt: skip
    block = Block(params, None, None, None, None, None, None, sinks=np.full(2, -np.inf))
    x = rng.normal(size=(5, 8))
    allowed = arch.allowed(0, 5)
    sunk = decoder_attention(arch, block, x, 0, allowed)
    plain = decoder_attention(arch, replace(block, sinks=None), x, 0, allowed)
    np.testing.assert_array_equal(sunk.weights, plain.weights)
    np.testing.assert_allclose(sunk.weights.sum(axis=-1), 1.0, atol=1e-15)
    # a sink far above every score takes nearly all of every row
    heavy = decoder_attention(arch, replace(block, sinks=np.full(2, 1e3)), x, 0, allowed)
    assert (heavy.weights.sum(axis=-1) < 1e-9).all()


def _grouped_by_loop(x, e, routing) -> list[list[int]]:
    out = []
    for row in x:
        scores = [1 / (1 + math.exp(-float(row @ e.router[:, j]))) for j in range(6)]
        choice = [s + c for s, c in zip(scores, e.correction, strict=True)]
        groups = [sorted(choice[2 * g : 2 * g + 2], reverse=True) for g in range(3)]
        best = sorted(range(3), key=lambda g: -sum(groups[g][:2]))[: routing.top_groups]
        allowed = [j for j in range(6) if j // 2 in best]
        out.append(sorted(allowed, key=lambda j: -choice[j])[: routing.top_k])
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), top_groups=st.integers(1, 3), k=st.integers(1, 2))
def test_deepseeks_routing_is_the_loop(seed, top_groups, k):
    from attncli.core.experts import GroupedExperts, Routing, grouped_mixture, grouped_route

    rng = np.random.default_rng(seed)
    routing = Routing(k, 3, top_groups, True, 2.5)
    shared = (rng.normal(size=(8, 3)), rng.normal(size=(8, 3)), rng.normal(size=(3, 8)))
    e = GroupedExperts(rng.normal(size=(8, 6)), rng.uniform(-0.3, 0.3, 6),
                       rng.normal(size=(6, 8, 4)), rng.normal(size=(6, 8, 4)),
                       rng.normal(size=(6, 4, 8)), shared, routing)  # fmt: skip
    x = rng.normal(size=(7, 8))
    chosen, weights = grouped_route(x, e)
    assert chosen.tolist() == _grouped_by_loop(x, e, routing)
    np.testing.assert_allclose(weights.sum(axis=-1), 2.5)  # normalized, then × 2.5
    out = grouped_mixture(x, e)

    def silu(v):
        return v / (1 + np.exp(-v))

    expected = silu(x @ shared[0]) * (x @ shared[1]) @ shared[2]
    for t in range(len(x)):
        for j, w in zip(chosen[t], weights[t], strict=True):
            expected[t] += w * ((silu(x[t] @ e.gate[j]) * (x[t] @ e.up[j])) @ e.down[j])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
