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


@dataclass(frozen=True)
class Routing:
    """How DeepSeek's router chooses (config.json's names in the comments)."""

    top_k: int  # num_experts_per_tok
    groups: int  # n_group
    top_groups: int  # topk_group
    normalized: bool  # norm_topk_prob: the k weights divided by their sum
    scale: float  # routed_scaling_factor


@dataclass
class GroupedExperts:
    """DeepSeek-V3's mixture (transformers' DeepseekV3MoE), x @ W: a sigmoid router whose
    choice adds a correction bias and keeps the best groups of experts, each expert a SwiGLU
    MLP, and shared experts every token takes."""

    router: np.ndarray  # [d, E]
    correction: np.ndarray  # [E]: e_score_correction_bias, in the choice only
    gate: np.ndarray  # [E, d, F]
    up: np.ndarray  # [E, d, F]
    down: np.ndarray  # [E, F, d]
    shared: tuple[np.ndarray, np.ndarray, np.ndarray]  # gate, up [d, F'], down [F', d]
    routing: Routing

    def as_float64(self) -> GroupedExperts:
        """The same weights in float64 (the layout kept)."""
        from dataclasses import replace

        def f(array: np.ndarray) -> np.ndarray:
            return np.asarray(array, dtype=np.float64, order="K")

        return replace(
            self, router=f(self.router), correction=f(self.correction), gate=f(self.gate),
            up=f(self.up), down=f(self.down), shared=tuple(map(f, self.shared)),  # type: ignore[arg-type]
        )  # fmt: skip


def grouped_route(x: np.ndarray, experts: GroupedExperts) -> tuple[np.ndarray, np.ndarray]:
    """Each token's k experts and their weights: sigmoid scores; for the choice alone the
    correction bias added, each group scored by its best two, the best top_groups groups
    kept; the chosen experts' own scores (÷ their sum when normalized) × scale."""
    # [T, d] -> [T, k] of int, [T, k]
    e, r = experts, experts.routing
    scores = 1.0 / (1.0 + np.exp(-(x @ e.router)))
    choice = scores + e.correction
    count = len(x)
    grouped = choice.reshape(count, r.groups, -1)
    group_scores = -np.sort(-grouped, axis=-1)[..., :2].sum(axis=-1)  # [T, groups]
    kept = np.argsort(-group_scores, axis=-1, kind="stable")[:, : r.top_groups]
    allowed = np.zeros_like(group_scores, dtype=bool)
    np.put_along_axis(allowed, kept, True, axis=-1)
    choice = np.where(np.repeat(allowed, grouped.shape[-1], axis=-1), choice, -np.inf)
    chosen = np.argsort(-choice, axis=-1, kind="stable")[:, : r.top_k]
    weights = np.take_along_axis(scores, chosen, axis=-1)
    if r.normalized:
        weights = weights / (weights.sum(axis=-1, keepdims=True) + 1e-20)
    return chosen, weights * r.scale


def grouped_mixture(x: np.ndarray, experts: GroupedExperts) -> np.ndarray:
    """DeepSeek's MLP: the routed experts' SwiGLU weighted by the router, plus the shared
    experts' SwiGLU on every token."""
    # [T, d] -> [T, d]

    def swiglu(rows: np.ndarray, gate: np.ndarray, up: np.ndarray, down: np.ndarray):
        gated = rows @ gate
        return (gated / (1.0 + np.exp(-gated)) * (rows @ up)) @ down

    chosen, weights = grouped_route(x, experts)
    out = np.zeros_like(x)
    for e in np.unique(chosen):
        tokens, slot = np.nonzero(chosen == e)
        mlp = swiglu(x[tokens], experts.gate[e], experts.up[e], experts.down[e])
        out[tokens] += mlp * weights[tokens, slot, None]
    return out + swiglu(x, *experts.shared)
