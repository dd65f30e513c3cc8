"""Well-known models' attention, as their published config.json gives it, for attn cost to
read without the model on this machine (`attn cost llama-3.1-70b`).

Each entry keeps only the keys of config.json that shape attention, written as the
published file spells them, and names that file (`source`) and a second source, independent
of it, that gives the same sizes (`also`): the publisher's own code (Meta's llama-models,
Google's gemma_pytorch, DeepSeek's and OpenAI's reference implementations), its paper, or
the metadata of a GGUF file converted from the weights. A key left out is one the file does
not have (Gemma 2's config has no layer_types: transformers derives them, and so does attn).
"""

from __future__ import annotations

from typing import Any

HF = "https://huggingface.co/{}/blob/main/config.json".format

KNOWN: dict[str, dict[str, Any]] = {
    "llama-3.1-8b": {
        "source": HF("meta-llama/Llama-3.1-8B"),
        "also": "github.com/meta-llama/llama-models models/llama3_1/api/sku_list.py",
        "config": {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
                   "num_attention_heads": 32, "num_key_value_heads": 8,
                   "attention_bias": False},
    },
    "llama-3.1-70b": {
        "source": HF("meta-llama/Llama-3.1-70B"),
        "also": "github.com/meta-llama/llama-models models/llama3_1/api/sku_list.py",
        "config": {"model_type": "llama", "num_hidden_layers": 80, "hidden_size": 8192,
                   "num_attention_heads": 64, "num_key_value_heads": 8,
                   "attention_bias": False},
    },
    "llama-3.1-405b": {
        "source": HF("meta-llama/Llama-3.1-405B"),
        "also": "github.com/meta-llama/llama-models models/llama3_1/api/sku_list.py",
        "config": {"model_type": "llama", "num_hidden_layers": 126, "hidden_size": 16384,
                   "num_attention_heads": 128, "num_key_value_heads": 8,
                   "attention_bias": False},
    },
    "mistral-7b-v0.1": {
        "source": HF("mistralai/Mistral-7B-v0.1"),
        "also": "arXiv 2310.06825 (Mistral 7B), Table 1",
        "config": {"model_type": "mistral", "num_hidden_layers": 32, "hidden_size": 4096,
                   "num_attention_heads": 32, "num_key_value_heads": 8,
                   "sliding_window": 4096},
    },
    "gemma-2-9b": {
        "source": HF("google/gemma-2-9b"),
        "also": "github.com/google/gemma_pytorch gemma/config.py (get_config_for_9b)",
        "config": {"model_type": "gemma2", "num_hidden_layers": 42, "hidden_size": 3584,
                   "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
                   "query_pre_attn_scalar": 256, "sliding_window": 4096,
                   "attention_bias": False},
    },
    "gemma-2-27b": {
        "source": HF("google/gemma-2-27b"),
        "also": "github.com/google/gemma_pytorch gemma/config.py (get_config_for_27b)",
        # not the head size: hidden_size ÷ heads = 4,608 ÷ 32
        "config": {"model_type": "gemma2", "num_hidden_layers": 46, "hidden_size": 4608,
                   "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,
                   "query_pre_attn_scalar": 144, "sliding_window": 4096,
                   "attention_bias": False},
    },
    "gemma-3-27b": {
        "source": HF("google/gemma-3-27b-it") + " (its text_config)",
        "also": "github.com/google/gemma_pytorch gemma/config.py (get_config_for_27b_v3)",
        # not the head size: hidden_size ÷ heads = 5,376 ÷ 32, as llama.cpp scales it too
        "config": {"model_type": "gemma3_text", "num_hidden_layers": 62, "hidden_size": 5376,
                   "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,
                   "query_pre_attn_scalar": 168, "sliding_window": 1024,
                   "sliding_window_pattern": 6},
    },
    "qwen2.5-7b": {
        "source": HF("Qwen/Qwen2.5-7B"),
        # the metadata of Ollama's GGUF conversion of Qwen2.5-7B-Instruct: qwen2.block_count
        # 28, embedding_length 3,584, head_count 28, head_count_kv 4, attn_k.weight 3,584 ×
        # 512, q, k and v biases and none on the output, no sliding window (llama.cpp's
        # qwen2 has none: use_sliding_window false), rope.freq_base 1,000,000
        "also": "ollama.com/library/qwen2.5:7b-instruct-q4_0 (the GGUF file's metadata)",
        "config": {"model_type": "qwen2", "num_hidden_layers": 28, "hidden_size": 3584,
                   "num_attention_heads": 28, "num_key_value_heads": 4,
                   "sliding_window": 131072, "use_sliding_window": False,
                   "max_window_layers": 28},
    },
    "deepseek-v3": {
        "source": HF("deepseek-ai/DeepSeek-V3"),
        "also": "github.com/deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json",
        "config": {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
                   "num_attention_heads": 128, "num_key_value_heads": 128,
                   "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                   "qk_rope_head_dim": 64, "v_head_dim": 128, "attention_bias": False},
    },
    "gpt-oss-120b": {
        "source": HF("openai/gpt-oss-120b"),
        "also": "github.com/openai/gpt-oss gpt_oss/torch/model.py (ModelConfig)",
        "config": {"model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880,
                   "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
                   "sliding_window": 128, "attention_bias": True,
                   "layer_types": ["sliding_attention", "full_attention"] * 18},
    },
}  # fmt: skip
ALIASES = {"mistral-7b": "mistral-7b-v0.1"}
# What a name may carry that the table leaves out: the owner, Meta's old prefix, a tune.
SUFFIXES = ("-instruct", "-it", "-base")


def known_name(name: str) -> str | None:
    """The table's name for `name` (meta-llama/Llama-3.1-70B-Instruct → llama-3.1-70b)."""
    short = name.strip().lower().rsplit("/", 1)[-1].removeprefix("meta-")
    for suffix in SUFFIXES:
        short = short.removesuffix(suffix)
    short = ALIASES.get(short, short)
    return short if short in KNOWN else None
