"""The backward pass through attention: every gradient of a loss ℓ given ∇_c ℓ.

Forward (rows are vectors): e = score(Q, K) [T_q, T_k]; α = softmax(e / T) row by row,
masked cells 0; c = α V [T_q, d_v]. Backward, with g = ∇_c ℓ [T_q, d_v]:

    ∂ℓ/∂α_ij = g_i · v_j                                    (grad_weights)
    ∂ℓ/∂v_j  = Σ_i α_ij g_i                                 (grad_values)
    ∂ℓ/∂e_ij = α_ij (g_i · v_j − Σ_k α_ik g_i · v_k) / T     (grad_scores)
             = α_ij g_iᵀ (v_j − c_i) / T                    (the lesson's form)

then through the score, each method's own (core.methods): dot and scaled e = q·k (÷ √d_k);
Luong's general e = sᵀ W_a h (∂e/∂s = W_a h, ∂e/∂h = W_aᵀ s, ∂e/∂W_a = s hᵀ); Bahdanau's
additive e = v_aᵀ tanh(W_1 s + W_2 h), whose derivatives carry the factor 1 − tanh².
Self-attention adds the projections Q = X W^Q, K = X W^K, V = X W^V (and W^O).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import softmax
from attncli.core.methods import method as score_method


@dataclass
class Forward:
    """The forward pass the gradients are taken of."""

    scores: np.ndarray  # [T_q, T_k], -inf where masked (before ÷ T)
    weights: np.ndarray  # [T_q, T_k]
    output: np.ndarray  # [T_q, d_v]


def forward(
    method: str,
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    parameters: dict[str, np.ndarray],
    temperature: float = 1.0,
    allowed: np.ndarray | None = None,
) -> Forward:
    """Scores, weights and output, looking only where `allowed` is true (see
    core.selfattn.attend)."""
    # [T_q, d_q], [T_k, d_k], [T_k, d_v] -> Forward
    scores = score_method(method).score(queries, keys, parameters)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores, temperature)
    return Forward(scores, weights, weights @ values)


def softmax_backward(
    weights: np.ndarray, grad_weights: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """∂ℓ/∂e from ∂ℓ/∂α: α (∂ℓ/∂α − Σ_k α_k ∂ℓ/∂α_k) / T, row by row; 0 where α is 0."""
    # [..., T_k], [..., T_k] -> [..., T_k]
    mean = np.sum(weights * grad_weights, axis=-1, keepdims=True)
    return weights * (grad_weights - mean) / temperature


@dataclass
class ScoreGradients:
    """∂ℓ/∂ of the score's inputs and parameters."""

    queries: np.ndarray  # [T_q, d_q]
    keys: np.ndarray  # [T_k, d_k]
    parameters: dict[str, np.ndarray]  # w_a; or w_1, w_2, v_a


def score_backward(
    method: str,
    queries: np.ndarray,
    keys: np.ndarray,
    parameters: dict[str, np.ndarray],
    grad_scores: np.ndarray,
) -> ScoreGradients:
    """Gradients of the score's inputs from ∂ℓ/∂e."""
    # [T_q, d_q], [T_k, d_k], [T_q, T_k] -> ScoreGradients
    return ScoreGradients(*score_method(method).backward(queries, keys, parameters, grad_scores))


@dataclass
class Gradients:
    """Every gradient of the calculator's chain score → softmax → mix."""

    grad_output: np.ndarray  # [T_q, d_v], ∇_c ℓ
    grad_weights: np.ndarray  # [T_q, T_k]
    grad_scores: np.ndarray  # [T_q, T_k]
    grad_values: np.ndarray  # [T_k, d_v]
    score: ScoreGradients


def backward(
    method: str,
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    parameters: dict[str, np.ndarray],
    run: Forward,
    grad_output: np.ndarray,
    temperature: float = 1.0,
) -> Gradients:
    """All gradients from ∇_c ℓ; a masked cell's ∂ℓ/∂e and ∂ℓ/∂α-path are exactly 0."""
    # ... [T_q, d_v] -> Gradients
    grad_weights = grad_output @ values.T
    grad_scores = softmax_backward(run.weights, grad_weights, temperature)
    return Gradients(
        grad_output,
        grad_weights,
        grad_scores,
        run.weights.T @ grad_output,
        score_backward(method, queries, keys, parameters, grad_scores),
    )


def squared_error(output: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """ℓ = ½‖c − target‖² over every row, and ∇_c ℓ = c − target."""
    difference = output - target
    return 0.5 * float(np.sum(difference**2)), difference


def attention_backward(
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    grad_output: np.ndarray,
    divisor: float,
    grad_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """∂ℓ/∂Q, ∂ℓ/∂K, ∂ℓ/∂V of softmax(Q Kᵀ / divisor) V, with an optional head axis.

    `grad_weights` is a gradient that reaches the weights directly (a loss on α itself, as
    attn train's); it is added to the one that comes back from the output.
    """
    # [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v], [..., T_q, T_k], [..., T_q, d_v],
    # [..., T_q, T_k] -> [..., T_q, d_k], [..., T_k, d_k], [..., T_k, d_v]
    through_output = grad_output @ np.swapaxes(values, -1, -2)
    if grad_weights is not None:
        through_output = through_output + grad_weights
    grad_scores = softmax_backward(weights, through_output) / divisor
    return (
        grad_scores @ keys,
        np.swapaxes(grad_scores, -1, -2) @ queries,
        np.swapaxes(weights, -1, -2) @ grad_output,
    )


def merge_heads(per_head: np.ndarray) -> np.ndarray:
    """[h, T, d] back to [T, h·d]: the heads' columns side by side."""
    heads, rows, width = per_head.shape
    return per_head.transpose(1, 0, 2).reshape(rows, heads * width)


def central_differences(
    loss: Callable[[], float], array: np.ndarray, relative_step: float = 1e-6
) -> np.ndarray:
    """∂loss/∂array entry by entry, (ℓ(x + h) − ℓ(x − h)) / 2h, with h scaled to each entry.

    `array` is changed in place and restored; `loss` must read it.
    """
    numeric = np.empty_like(array)
    flat, out = array.reshape(-1), numeric.reshape(-1)
    for index in range(flat.size):
        original = flat[index]
        step = relative_step * max(1.0, abs(original))
        flat[index] = original + step
        above = loss()
        flat[index] = original - step
        below = loss()
        flat[index] = original
        out[index] = (above - below) / (2 * step)
    return numeric


def relative_difference(analytic: np.ndarray, numeric: np.ndarray) -> float:
    """The largest |a − n| / max(|a|, |n|, 1): relative for large entries, absolute near 0."""
    scale = np.maximum(np.maximum(np.abs(analytic), np.abs(numeric)), 1.0)
    return float(np.max(np.abs(analytic - numeric) / scale)) if analytic.size else 0.0


def selfattn_backward(
    x: np.ndarray | None,
    x_kv: np.ndarray | None,
    projections: dict[str, np.ndarray],
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    concat: np.ndarray | None,
    grad_output: np.ndarray,
    divisor: float,
    grad_weights: np.ndarray | None = None,
    extra_keys: int = 0,
    x_v: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """∂ℓ/∂ of every input of a self-attention layer from ∂ℓ/∂output (and from ∂ℓ/∂α when
    `grad_weights` [T_q, T_k] or [h, T_q, T_k] is given: a loss on the weights).

    With X and projections: grad_x and grad_w_q, grad_w_k, grad_w_v (grad_w_o with W^O)
    and grad_b_… for each bias; without projections (Q = K = V = X): grad_x; with Q, K, V
    given: grad_queries, grad_keys, grad_values. For cross-attention (`x_kv` given), X's
    gradient is split: grad_x_q through Q, grad_x_kv through K and V. Masked cells have
    weight 0, so no gradient flows through them. The last `extra_keys` keys are the
    layer's own (add_bias_kv's learned row, then add_zero_attn's zero row): bias_k and
    bias_v get the gradient of their row, the zero row none. With `x_v` (the values' own
    sequence, x_kv then the keys'), grad_x_k and grad_x_v instead of grad_x_kv.
    """
    # queries/keys/values/weights with a head axis when `concat` is given
    grads: dict[str, np.ndarray] = {}
    grad_heads = grad_output
    if concat is not None:
        joined = grad_output  # [T, h·d_v]: without W^O the output is the joined heads
        if "w_o" in projections:
            w_o = projections["w_o"]  # [h·d_v, d_model]
            grads["grad_w_o"] = concat.T @ grad_output
            if "b_o" in projections:
                grads["grad_b_o"] = grad_output.sum(axis=0)
            joined = grad_output @ w_o.T
        heads = queries.shape[0]
        grad_heads = joined.reshape(joined.shape[0], heads, -1).transpose(1, 0, 2)
    grad_q, grad_k, grad_v = attention_backward(
        queries, keys, values, weights, grad_heads, divisor, grad_weights
    )
    if concat is not None:
        grad_q, grad_k, grad_v = merge_heads(grad_q), merge_heads(grad_k), merge_heads(grad_v)
    if extra_keys:  # [T_k + extra, h·d] -> the tokens' rows, and bias_k's and bias_v's
        tokens = grad_k.shape[-2] - extra_keys
        if "bias_k" in projections:
            grads.update(grad_bias_k=grad_k[tokens], grad_bias_v=grad_v[tokens])
        grad_k, grad_v = grad_k[:tokens], grad_v[:tokens]
    if x is None:
        return {"grad_queries": grad_q, "grad_keys": grad_k, "grad_values": grad_v}
    if not projections:
        through_q, through_kv = grad_q, (grad_k + grad_v if x_v is None else None)
    else:
        w_q, w_k, w_v = projections["w_q"], projections["w_k"], projections["w_v"]
        through_q = grad_q @ w_q.T
        through_kv = grad_k @ w_k.T + grad_v @ w_v.T if x_v is None else None
    if x_kv is None:
        found = {"grad_x": through_q + through_kv}
    elif x_v is None:
        found = {"grad_x_q": through_q, "grad_x_kv": through_kv}
    else:  # keys and values of their own: [T_k, kdim], [T_k, vdim]
        through_k = grad_k @ projections["w_k"].T if projections else grad_k
        through_v = grad_v @ projections["w_v"].T if projections else grad_v
        found = {"grad_x_q": through_q, "grad_x_k": through_k, "grad_x_v": through_v}
    if not projections:
        return found
    source = x if x_kv is None else x_kv
    values_source = source if x_v is None else x_v
    found.update(
        grad_w_q=x.T @ grad_q, grad_w_k=source.T @ grad_k, grad_w_v=values_source.T @ grad_v
    )
    # A bias is added to every row, so its gradient is the column sums of its projection's.
    for name, gradient in (("b_q", grad_q), ("b_k", grad_k), ("b_v", grad_v)):
        if name in projections:
            found[f"grad_{name}"] = gradient.sum(axis=0)
    return {**found, **grads}
