"""Regenerate tests/references/modern.json: attention as today's models compute it, by torch
and transformers' own functions (the test suite never needs them):

    python tests/references/make_modern.py

Rotary positions: Q and K of a layer (x @ W, split into heads) turned by transformers' Llama
apply_rotary_pos_emb (its rotate_half pairing), with cos and sin of position · base^(−2i/d)
computed in float64 (LlamaRotaryEmbedding computes them in float32 even for a float64 model:
its inv_freq is recorded too, at float32, to hold the base and the pairing to), then torch's
scaled_dot_product_attention. Grouped-query heads: torch's scaled_dot_product_attention with
enable_gqa=True on G key/value heads (causal), the weights through transformers' repeat_kv,
with and without rotary positions. Written with the versions that made it ("made_with").
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.references.make import made_with, plain  # noqa: E402


def split(matrix: torch.Tensor, heads: int) -> torch.Tensor:
    """[T, h·d] -> [1, h, T, d], as transformers' view(…).transpose(1, 2)."""
    rows, width = matrix.shape
    return matrix.view(1, rows, heads, width // heads).transpose(1, 2)


def rotary_case(seed: int, tokens: int, d_model: int, heads: int, base: float, causal: bool):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((tokens, d_model))
    w = {name: rng.uniform(-0.6, 0.6, (d_model, d_model)) for name in ("w_q", "w_k", "w_v", "w_o")}
    t = {name: torch.tensor(value, dtype=torch.float64) for name, value in w.items()}
    xt = torch.tensor(x, dtype=torch.float64)
    q, k, v = (split(xt @ t[name], heads) for name in ("w_q", "w_k", "w_v"))
    d = d_model // heads
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs = torch.arange(tokens, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)[None]  # [1, T, d]
    q_turned, k_turned = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    out = torch.nn.functional.scaled_dot_product_attention(
        q_turned, k_turned, v, is_causal=causal, scale=1 / math.sqrt(d)
    )
    scores = q_turned @ k_turned.transpose(-1, -2) / math.sqrt(d)
    if causal:
        scores = scores.masked_fill(torch.ones(tokens, tokens).triu(1).bool(), float("-inf"))
    weights = scores.softmax(-1)
    joined = out.transpose(1, 2).reshape(tokens, d_model)
    config = LlamaConfig(
        hidden_size=d_model, num_attention_heads=heads, rope_theta=base,
        max_position_embeddings=64,
    )  # fmt: skip
    transformers_inv_freq = LlamaRotaryEmbedding(config).inv_freq  # float32, as Llama runs
    return {
        "x": plain(x),
        **{name: plain(value) for name, value in w.items()},
        "heads": heads,
        "rope_base": base,
        "causal": causal,
        "queries": plain(q_turned[0]),
        "keys": plain(k_turned[0]),
        "weights": plain(weights[0]),
        "output": plain(joined @ t["w_o"]),
        "llama_inv_freq": plain(transformers_inv_freq),
    }


def grouped_case(seed: int, tokens: int, d_model: int, heads: int, kv_heads: int, rope: bool):
    """Grouped-query heads: torch's scaled_dot_product_attention(enable_gqa=True) on G key and
    value heads, and transformers' repeat_kv for the weights (as Llama's eager attention)."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

    rng = np.random.default_rng(seed)
    d = d_model // heads
    x = rng.standard_normal((tokens, d_model))
    w = {
        "w_q": rng.uniform(-0.6, 0.6, (d_model, heads * d)),
        "w_k": rng.uniform(-0.6, 0.6, (d_model, kv_heads * d)),
        "w_v": rng.uniform(-0.6, 0.6, (d_model, kv_heads * d)),
        "w_o": rng.uniform(-0.6, 0.6, (heads * d, d_model)),
    }
    t = {name: torch.tensor(value, dtype=torch.float64) for name, value in w.items()}
    xt = torch.tensor(x, dtype=torch.float64)
    q = split(xt @ t["w_q"], heads)
    k, v = split(xt @ t["w_k"], kv_heads), split(xt @ t["w_v"], kv_heads)
    if rope:
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        freqs = torch.arange(tokens, dtype=torch.float64)[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)[None]
        q, k = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=1 / math.sqrt(d), enable_gqa=True
    )
    keys, values = repeat_kv(k, heads // kv_heads), repeat_kv(v, heads // kv_heads)
    scores = q @ keys.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(torch.ones(tokens, tokens).triu(1).bool(), float("-inf"))
    joined = out.transpose(1, 2).reshape(tokens, heads * d)
    return {
        "x": plain(x),
        **{name: plain(value) for name, value in w.items()},
        "heads": heads,
        "kv_heads": kv_heads,
        "rope": rope,
        "queries": plain(q[0]),
        "keys": plain(keys[0]),
        "values": plain(values[0]),
        "weights": plain(scores.softmax(-1)[0]),
        "output": plain(joined @ t["w_o"]),
    }


def distance_case(seed: int, tokens: int, d_model: int, heads: int, window, causal, alibi):
    """A sliding window and ALiBi as torch adds them: a boolean window mask and BLOOM's
    build_alibi_tensor (slopes · j, per key; softmax is the same as with −m·|i − j| since
    a row's constant cancels) as scaled_dot_product_attention's float attn_mask."""
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((tokens, d_model))
    w = {name: rng.uniform(-0.6, 0.6, (d_model, d_model)) for name in ("w_q", "w_k", "w_v", "w_o")}
    t = {name: torch.tensor(value, dtype=torch.float64) for name, value in w.items()}
    xt = torch.tensor(x, dtype=torch.float64)
    q, k, v = (split(xt @ t[name], heads) for name in ("w_q", "w_k", "w_v"))
    d = d_model // heads
    i, j = torch.arange(tokens)[:, None], torch.arange(tokens)[None, :]
    allowed = torch.ones(tokens, tokens, dtype=torch.bool)
    if causal:
        allowed &= j <= i
    if window is not None:
        allowed &= (i - j < window) if causal else ((i - j).abs() < window)
    mask = torch.zeros(heads, tokens, tokens, dtype=torch.float64)
    mask = mask.masked_fill(~allowed, float("-inf"))
    slopes = None
    if alibi:
        built = build_alibi_tensor(torch.ones(1, tokens), heads, torch.float64)  # [H, 1, T]
        mask = mask + built
        slopes = plain(built[:, 0, 1])
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=mask[None], scale=1 / math.sqrt(d)
    )
    weights = (q @ k.transpose(-1, -2) / math.sqrt(d) + mask).softmax(-1)
    joined = out.transpose(1, 2).reshape(tokens, d_model)
    return {
        "x": plain(x),
        **{name: plain(value) for name, value in w.items()},
        "heads": heads,
        "window": window,
        "causal": causal,
        "alibi": alibi,
        "bloom_slopes": slopes,
        "weights": plain(weights[0]),
        "output": plain(joined @ t["w_o"]),
    }


def main() -> None:
    document = {
        "rotary": {
            "one_head": rotary_case(1, 6, 8, 1, 10000.0, False),
            "two_heads_causal": rotary_case(2, 7, 8, 2, 500000.0, True),
            "four_heads_long": rotary_case(3, 40, 16, 4, 10000.0, False),
        },
        "distance": {
            "window_causal": distance_case(7, 9, 8, 2, 3, True, False),
            "window_both": distance_case(8, 8, 8, 2, 2, False, False),
            "alibi_causal": distance_case(9, 7, 12, 6, None, True, True),
            "alibi_window": distance_case(10, 10, 16, 4, 4, True, True),
        },
        "grouped": {
            "four_of_two": grouped_case(4, 6, 8, 4, 2, False),
            "multi_query": grouped_case(5, 7, 12, 6, 1, False),
            "llama_like": grouped_case(6, 9, 16, 4, 2, True),
        },
    }
    path = HERE / "modern.json"
    path.write_text(json.dumps({"made_with": made_with(), **document}), encoding="utf-8")
    print(f"wrote {path.relative_to(HERE.parent.parent)} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
