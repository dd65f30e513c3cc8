"""What transformers' own KV cache holds after a forward pass, for each kind of attention.

Run once, where torch and transformers are installed (the test suite never needs them):

    python tests/references/make_cost.py

It builds tiny random models of six families with transformers (each config small enough
to run in a second), runs one forward pass of `tokens` token ids in float32 (and one
in bfloat16) with use_cache=True, and records, per layer, the shapes, dtype and bytes of
the tensors transformers' cache keeps, with the number of parameters of the layer's
self_attn module. tests/references/cost.json holds them beside each config.json, so
that attn cost's numbers are held to what the model itself kept:

    llama        grouped heads: 4 query heads share 2 key/value heads
    mistral      a sliding window of 4 on every layer (the cache keeps the last W − 1)
    gemma2       local and global layers alternating (Gemma 2's rule: even layers slide)
    gemma3       five local layers to one global (Gemma 3's sliding_window_pattern 6),
                 q_norm and k_norm in each attention
    deepseek_v3  latent attention (MLA): q and kv through low-rank projections; its cache
                 holds the latent c_KV (kv_lora_rank) and the shared rotary key
                 (qk_rope_head_dim) as transformers 5 keeps them, not per-head keys and values
    gpt_oss      learned sinks (a logit per head), biases, sliding and full layers alternating
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import transformers

HERE = Path(__file__).resolve().parent
TOKENS = (2, 11)  # shorter than every window, and longer than every window
BATCH = 2

COMMON = {
    "hidden_size": 32,
    "intermediate_size": 48,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 8,
    "max_position_embeddings": 64,
    "vocab_size": 64,
    "rms_norm_eps": 1e-6,
    "attention_dropout": 0.0,
}
FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", {"num_hidden_layers": 2}),
    "mistral": ("MistralConfig", "MistralForCausalLM",
                {"num_hidden_layers": 2, "sliding_window": 4}),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM",
               {"num_hidden_layers": 4, "sliding_window": 4, "query_pre_attn_scalar": 8}),
    "gemma3": ("Gemma3TextConfig", "Gemma3ForCausalLM",
               {"num_hidden_layers": 7, "sliding_window": 4, "sliding_window_pattern": 6,
                "query_pre_attn_scalar": 8}),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM",
                    {"num_hidden_layers": 2, "num_key_value_heads": 4, "q_lora_rank": 12,
                     "kv_lora_rank": 6, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4,
                     "v_head_dim": 10, "head_dim": 4, "n_routed_experts": 4,
                     "num_experts_per_tok": 2, "n_shared_experts": 1, "moe_intermediate_size": 16,
                     "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}),
    "gpt_oss": ("GptOssConfig", "GptOssForCausalLM",
                {"num_hidden_layers": 4, "sliding_window": 4, "num_local_experts": 4,
                 "num_experts_per_tok": 2, "attention_bias": True}),
}  # fmt: skip
# keys of config.json that a config written by to_dict() holds but that say nothing here
DROPPED = ("transformers_version", "architectures", "_name_or_path")


def cache_of(model: torch.nn.Module, ids: torch.Tensor) -> list[dict]:
    """Per layer, the tensors the model's own cache keeps after one forward pass."""
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    cache = out.past_key_values
    layers = []
    for layer in cache.layers:
        kept = {}
        for name in ("keys", "values"):
            tensor = getattr(layer, name)
            kept[name] = {
                "shape": list(tensor.shape),
                "dtype": str(tensor.dtype).removeprefix("torch."),
                "bytes": tensor.numel() * tensor.element_size(),
            }
        kept["kind"] = type(layer).__name__
        layers.append(kept)
    return layers


def build(name: str) -> dict:
    config_class, model_class, own = FAMILIES[name]
    torch.manual_seed(len(name))
    config = getattr(transformers, config_class)(**{**COMMON, **own})
    config._attn_implementation = "eager"
    model = getattr(transformers, model_class)(config).eval()
    written = {k: v for k, v in config.to_diff_dict().items() if k not in DROPPED}
    written["model_type"] = config.model_type
    cases = []
    for dtype in (torch.float32, torch.bfloat16):
        model = model.to(dtype)
        for tokens in TOKENS:
            ids = torch.randint(0, COMMON["vocab_size"], (BATCH, tokens))
            cases.append(
                {
                    "dtype": str(dtype).removeprefix("torch."),
                    "tokens": tokens,
                    "batch": BATCH,
                    "layers": cache_of(model, ids),
                }
            )
    attention = [
        sum(p.numel() for p in layer.self_attn.parameters()) for layer in model.model.layers
    ]
    return {
        "config": written,
        "layer_types": list(getattr(config, "layer_types", None) or []),
        "attention_parameters": attention,
        "cases": cases,
    }


def main() -> None:
    document = {
        "made_with": {"torch": torch.__version__, "transformers": transformers.__version__},
        "models": {name: build(name) for name in FAMILIES},
    }
    path = HERE / "cost.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
