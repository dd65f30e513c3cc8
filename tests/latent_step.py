"""The next token through multi-head latent attention in its absorbed form (DeepSeek-V2,
§2.1.3), written with numpy alone and sharing no code with attncli, every matrix product
counted as it is made.

The cache holds each earlier token's latent c_KV (r numbers) and turned rotary key k^R
(d_rope). The new token makes its query (through W^DQ and W^UQ, or W^Q), its own c_KV and
k^R (W^DKV), then, per head h: q^C_h W^UK_hᵀ, a query of r numbers that scores every cached
latent directly; q^R_h · k^R beside it; the softmax; the weights × the latents (r numbers);
that × W^UV_h, the head's value; the heads joined × W^O. No key or value of an earlier
token is ever expanded. tests/core/test_attention_cost.py checks that this gives the plain
form's output (attn's forward pass) and holds attn cost's next-token FLOPs to its count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Products:
    """Every matrix product made, its multiplications counted from the operands' shapes:
    [m, k] @ [k, n] is m · k · n (a vector is one row)."""

    counted: dict[str, int] = field(default_factory=dict)

    def mul(self, part: str, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        rows = 1 if left.ndim == 1 else left.shape[0]
        assert left.shape[-1] == right.shape[0] and right.ndim == 2
        self.counted[part] = self.counted.get(part, 0) + rows * left.shape[-1] * right.shape[1]
        return left @ right


@dataclass(frozen=True)
class Sizes:
    """A latent attention's sizes and constants, as the model's config gives them."""

    heads: int
    nope: int
    rope: int
    v: int
    rank: int
    interleave: bool  # the rotary part's pairs are (0, 1), (2, 3), … in the weights
    divisor: float  # what a score is divided by
    factor: float  # what q^R and k^R are multiplied by after their turn (YaRN)
    eps: float  # the RMSNorms' ε


def rms(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gamma


def turned(x: np.ndarray, angles: np.ndarray, interleave: bool) -> np.ndarray:
    """x's pairs turned by `angles` (one per pair): with `interleave`, the even and odd
    coordinates gathered into halves first; then coordinate i pairs with i + d/2."""
    if interleave:
        x = np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)


def latents(x: np.ndarray, w: dict[str, np.ndarray], s: Sizes, angles: np.ndarray):
    """What the cache keeps for rows x (one row per position, angles[t] its turn): c_KV
    [T, r] and k^R [T, d_rope]. Made by earlier steps, so not counted here."""
    compressed = x @ w["w_kv_a"]
    cached = rms(compressed[:, : s.rank], w["kv_a_norm"], s.eps)
    return cached, turned(compressed[:, s.rank :], angles, s.interleave) * s.factor


def absorbed_step(
    x: np.ndarray,
    w: dict[str, np.ndarray],
    s: Sizes,
    cache: tuple[np.ndarray, np.ndarray],
    angle: np.ndarray,
    products: Products,
) -> np.ndarray:
    """The output [d] of the token whose attention input is x [d], at the position whose
    turn is `angle`, reading `cache` (c_KV [T, r], k^R [T, d_rope] of the tokens before).
    The weights are x @ W's (attn's names); a model with biases is not this step's."""
    assert not any(name.startswith("b_") for name in w)
    if "w_q" in w:
        q = products.mul("projections", x, w["w_q"])
    else:
        q_latent = rms(products.mul("projections", x, w["w_q_a"]), w["q_a_norm"], s.eps)
        q = products.mul("projections", q_latent, w["w_q_b"])
    q = q.reshape(s.heads, s.nope + s.rope)
    compressed = products.mul("projections", x, w["w_kv_a"])
    own_latent = rms(compressed[: s.rank], w["kv_a_norm"], s.eps)
    own_key = turned(compressed[s.rank :], angle, s.interleave) * s.factor
    cached = np.vstack([cache[0], own_latent])  # [T + 1, r]
    rotary = np.vstack([cache[1], own_key])  # [T + 1, d_rope]
    up = w["w_kv_b"].reshape(s.rank, s.heads, s.nope + s.v)
    outputs = []
    for h in range(s.heads):
        up_key, up_value = up[:, h, : s.nope], up[:, h, s.nope :]  # [r, nope], [r, v]
        q_rope = turned(q[h, s.nope :], angle, s.interleave) * s.factor
        absorbed = products.mul("projections", q[h, : s.nope], up_key.T)  # [r]
        scores = (products.mul("scores", absorbed, cached.T)
                  + products.mul("scores", q_rope, rotary.T)) / s.divisor  # fmt: skip
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        mixed = products.mul("mix", weights, cached)  # [r]: the latents mixed
        outputs.append(products.mul("projections", mixed, up_value))  # [v]
    return products.mul("projections", np.concatenate(outputs), w["w_o"])
