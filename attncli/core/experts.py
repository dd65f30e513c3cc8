"""A mixture-of-experts MLP, as gpt-oss computes it (transformers' GptOssMLP): a router picks
each token's top k experts and weighs them, and the token's output is the weighted sum of
those experts' own gated MLPs (Shazeer et al., 2017, "Outrageously Large Neural Networks:
The Sparsely-Gated Mixture-of-Experts Layer").

    router logits  r = x W_r + b_r                  [E] per token
    chosen         the k largest of r; their weights softmax(r_chosen) (they sum to 1)
    expert e       h = x W_e + b_e, gate = h[0::2] ≤ limit, up = h[1::2] within ±limit,
                   (up + 1) · gate · σ(α · gate), then · W'_e + b'_e

Every weight as x @ W (gpt-oss stores its experts so already: gate_up_proj [E, d, 2F],
down_proj [E, F, d])."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax


@dataclass
class Experts:
    """One layer's router and experts, x @ W."""

    router: np.ndarray  # [d, E]
    router_bias: np.ndarray | None  # [E]
    gate_up: np.ndarray  # [E, d, 2F]: gate and up interleaved, gate first
    gate_up_bias: np.ndarray | None  # [E, 2F]
    down: np.ndarray  # [E, F, d]
    down_bias: np.ndarray | None  # [E, d]

    def as_float64(self) -> Experts:
        """The same weights in float64 (the layout kept)."""

        def f(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else np.asarray(array, dtype=np.float64, order="K")

        return Experts(
            np.asarray(self.router, dtype=np.float64, order="K"), f(self.router_bias),
            np.asarray(self.gate_up, dtype=np.float64, order="K"), f(self.gate_up_bias),
            np.asarray(self.down, dtype=np.float64, order="K"), f(self.down_bias),
        )  # fmt: skip


def route(x: np.ndarray, experts: Experts, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each token's k experts, largest router logit first, and their weights: the softmax
    of those k logits alone."""
    # [T, d] -> [T, k] of int, [T, k]
    logits = x @ experts.router
    if experts.router_bias is not None:
        logits = logits + experts.router_bias
    chosen = np.argsort(-logits, axis=-1, kind="stable")[:, :top_k]
    return chosen, softmax(np.take_along_axis(logits, chosen, axis=-1))


def expert_mlp(x: np.ndarray, experts: Experts, e: int, alpha: float, limit: float) -> np.ndarray:
    """Expert e's gated MLP on rows x: (up + 1) · gate · σ(α · gate), gate capped at
    `limit` and up held within ±limit."""
    # [n, d] -> [n, d]
    hidden = x @ experts.gate_up[e]
    if experts.gate_up_bias is not None:
        hidden = hidden + experts.gate_up_bias[e]
    gate = np.minimum(hidden[:, 0::2], limit)
    up = np.clip(hidden[:, 1::2], -limit, limit)
    glu = gate / (1.0 + np.exp(-alpha * gate))
    out = ((up + 1.0) * glu) @ experts.down[e]
    return out if experts.down_bias is None else out + experts.down_bias[e]


def mixture(x: np.ndarray, experts: Experts, top_k: int, alpha: float, limit: float) -> np.ndarray:
    """The layer's MLP: each token through its k experts, weighted by the router."""
    # [T, d] -> [T, d]
    chosen, weights = route(x, experts, top_k)
    out = np.zeros_like(x)
    for e in np.unique(chosen):
        tokens, slot = np.nonzero(chosen == e)
        out[tokens] += (
            expert_mlp(x[tokens], experts, int(e), alpha, limit) * weights[tokens, slot, None]
        )
    return out
