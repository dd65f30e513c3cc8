"""Regenerate tests/references/frontier.json and the tiny checkpoints of tests/models/ it holds
(the test suite never needs torch):

    python tests/references/make_frontier.py

Scaled rotary positions ("rope"): transformers' own ROPE_INIT_FUNCTIONS (linear, dynamic, yarn,
longrope, llama3) called on a config of each case, for the sequence lengths given: the inverse
frequencies θ_i and the attention factor, twice:

    "shipped"  as transformers runs them (θ_i in float32)
    "float64"  the same functions with torch.float, torch.float32 and Tensor.float() standing
               for float64 (yarn's ramp and longrope's factors and exponents are made in
               float32 by name), so that attn's float64 numbers are held to them to about
               1e-12

The cases are those of real checkpoints (Llama 3.1's llama3, Qwen2.5's and gpt-oss' yarn,
DeepSeek-V3's yarn with its mscale, Phi-3's longrope, a dynamic NTK model) and small ones.

This year's families ("models"), made as tests/references/make_llama.py makes the tiny Llama
(its tokenizer, its seeded weights, its float64 steps; bfloat16, as these families ship), in
float64 with transformers' eager attention and eager experts:

    tiny-qwen3    RMSNorm of each head's q and k (q_norm, k_norm of head_dim) before the
                  rotation; head_dim 16 (4 × 16 > 32); tied; rope yarn ×4 from 16 positions
                  (attention factor 1.139), beta_fast 2 and beta_slow 0.25 so that the
                  tiny head has a ramp
    tiny-olmo2    RMSNorm of the whole q and k projections (all heads together) before the
                  head split; the norms after the attention and after the MLP
                  (post_attention_layernorm, post_feedforward_layernorm), no norm before;
                  untied, rope_theta 500,000
    tiny-gemma2   tied; scores ÷ √query_pre_attn_scalar (24, not head_dim 16),
                  softcapped at 2 (attn_logit_softcapping), the logits at 5; a norm before
                  and after each sublayer; layer 1 sliding (window 4), layer 2 full (1:1)
    tiny-gpt-oss  untied; learned sinks (one logit per head, a softmax column
                  dropped after); layer 1 sliding (window 4), layer 2 full; biases on q, k,
                  v and o; its mixture of experts (4 experts, 2 a token, the router's
                  softmax over the two, swiglu_limit 1.5 so that the clamp is felt); rope
                  yarn with truncate false
    tiny-deepseek-v3  multi-head latent attention: q through a rank-16 latent (q_a_proj,
                  its RMSNorm, q_b_proj), k and v up-projected from a rank-12 latent c_KV
                  (kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj) beside one rotary key of 4
                  shared by the heads (interleaved pairs, rope_interleave), v of 6; yarn
                  with mscale_all_dim (the scores × mscale²); layer 1 dense, layer 2 a
                  mixture of 6 experts in 3 groups (sigmoid router, its correction bias,
                  the best 2 groups, 2 experts a token, × 2.5) beside a shared expert
    tiny-gemma3   Gemma3ForCausalLM (gemma3_text): Gemma 2's norms, QK-norm of
                  each head (1 + w), no softcapping, one key/value head; layer 1 sliding with
                  its own rotary base 10,000, layer 2 full with rope_theta 1,000,000 scaled
                  linear ×8

Per model the token ids of tests/tiny_models.SENTENCES, then for the first sentence every
layer's attention, the hidden states and the last position's logits, "shipped" and
"float64" as llama.json has them; "layer_types": what transformers' Gemma configs work
out when layer_types is left out; and "qwen3-longrope": tiny-qwen3's weights with rope
longrope from 6 positions (the sentence's 9 take the long factors).
"""

from __future__ import annotations

import importlib
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from tests import tiny_models  # noqa: E402
from tests.references import make_llama  # noqa: E402
from tests.references.make import made_with, plain  # noqa: E402

warnings.filterwarnings("ignore")
MODELS = ROOT / "tests" / "models"

# (name, head_dim, max_position_embeddings, rope_parameters, sequence lengths asked)
ROPE_CASES = [
    ("linear", 16, 64, {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}, [None]),
    ("llama3-3.1-8b", 128, 131072,
     {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}, [None]),
    ("dynamic", 64, 2048, {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0},
     [None, 2048, 3000, 8192]),
    ("yarn-qwen2.5", 128, 131072,
     {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0,
      "original_max_position_embeddings": 32768}, [None]),
    ("yarn-gpt-oss", 64, 131072,
     {"rope_type": "yarn", "rope_theta": 150000.0, "factor": 32.0, "beta_fast": 32.0,
      "beta_slow": 1.0, "truncate": False, "original_max_position_embeddings": 4096}, [None]),
    ("yarn-deepseek-v3", 64, 163840,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "beta_fast": 32,
      "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0,
      "original_max_position_embeddings": 4096}, [None]),
    ("yarn-mscale", 32, 8192,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "mscale": 0.707,
      "mscale_all_dim": 1.0, "original_max_position_embeddings": 1024}, [None]),
    ("yarn-attention-factor", 16, 64,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "attention_factor": 1.5,
      "beta_fast": 2.0, "beta_slow": 0.25, "original_max_position_embeddings": 16}, [None]),
    ("yarn-tiny-qwen3", 16, 64,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "beta_fast": 2.0,
      "beta_slow": 0.25, "original_max_position_embeddings": 16}, [None]),
    ("longrope-phi3", 16, 128,
     {"rope_type": "longrope", "rope_theta": 10000.0,
      "short_factor": [1.0, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 3.5],
      "long_factor": [1.0, 1.5, 2.5, 4.0, 6.0, 8.0, 12.0, 16.0],
      "original_max_position_embeddings": 32}, [None, 32, 33, 100]),
    ("longrope-factor", 16, 128,
     {"rope_type": "longrope", "rope_theta": 10000.0, "factor": 2.0,
      "short_factor": [1.0] * 8, "long_factor": [1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0],
      "original_max_position_embeddings": 64}, [None, 100]),
]  # fmt: skip


def rope_config(head_dim: int, positions: int, parameters: dict):
    from transformers import LlamaConfig

    heads = 2
    return LlamaConfig(
        hidden_size=heads * head_dim, num_attention_heads=heads, head_dim=head_dim,
        max_position_embeddings=positions, rope_parameters=dict(parameters),
    )  # fmt: skip


class Float64:
    """torch.float, torch.float32 and Tensor.float() standing for float64 while
    transformers' functions run."""

    def __enter__(self):
        self.saved = (torch.float, torch.float32, torch.Tensor.float)
        torch.float = torch.float32 = torch.float64
        torch.Tensor.float = torch.Tensor.double

    def __exit__(self, *exc):
        torch.float, torch.float32, torch.Tensor.float = self.saved


def rope_init(config, seq_len, exact: bool, layer_type=None):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    parameters = (
        config.rope_parameters if layer_type is None else config.rope_parameters[layer_type]
    )
    function = ROPE_INIT_FUNCTIONS[parameters["rope_type"]]
    kwargs = {} if layer_type is None else {"layer_type": layer_type}
    if not exact:
        return function(config, None, seq_len=seq_len, **kwargs)
    with Float64():
        inv_freq, factor = function(config, None, seq_len=seq_len, **kwargs)
    assert inv_freq.dtype == torch.float64, inv_freq.dtype
    return inv_freq, factor


def rope_cases() -> dict:
    cases = {}
    for name, head_dim, positions, parameters, lengths in ROPE_CASES:
        runs = []
        for seq_len in lengths:
            run = {"seq_len": seq_len}
            for label, exact in (("shipped", False), ("float64", True)):
                inv_freq, factor = rope_init(rope_config(head_dim, positions, parameters),
                                             seq_len, exact)  # fmt: skip
                run[label] = {"inv_freq": plain(inv_freq), "attention_factor": float(factor)}
            runs.append(run)
        cases[name] = {
            "head_dim": head_dim,
            "max_position_embeddings": positions,
            "rope_parameters": parameters,
            "runs": runs,
        }
    return cases


COMMON = {**make_llama.COMMON, "max_position_embeddings": 64}
FAMILIES = {
    "tiny-qwen3": {
        "class": "Qwen3ForCausalLM",
        "config": "Qwen3Config",
        "seed": 21,
        "dtype": torch.bfloat16,
        "bos": False,
        "config_fields": {
            "tie_word_embeddings": True,
            "head_dim": 16,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 10000.0,
                "factor": 4.0,
                "original_max_position_embeddings": 16,
                "beta_fast": 2.0,
                "beta_slow": 0.25,
            },
        },  # fmt: skip
    },
    "tiny-olmo2": {
        "class": "Olmo2ForCausalLM",
        "config": "Olmo2Config",
        "seed": 22,
        "dtype": torch.bfloat16,
        "bos": False,
        "config_fields": {
            "tie_word_embeddings": False,
            "pad_token_id": None,
            "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0},
        },
    },
}
GEMMA = {
    "head_dim": 16,
    "num_key_value_heads": 1,
    "hidden_activation": "gelu_pytorch_tanh",
    "sliding_window": 4,
    "tie_word_embeddings": True,
}
FAMILIES["tiny-gemma2"] = {
    "class": "Gemma2ForCausalLM",
    "config": "Gemma2Config",
    "seed": 23,
    "dtype": torch.bfloat16,
    "bos": True,
    "config_fields": {
        **GEMMA,
        "num_key_value_heads": 2,
        "query_pre_attn_scalar": 24,
        "attn_logit_softcapping": 2.0,
        "final_logit_softcapping": 5.0,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    },
}
FAMILIES["tiny-gemma3"] = {
    "class": "Gemma3ForCausalLM",
    "config": "Gemma3TextConfig",
    "seed": 24,
    "dtype": torch.bfloat16,
    "bos": True,
    "config_fields": {
        **GEMMA,
        "query_pre_attn_scalar": 20,
        "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "rope_theta": 1000000.0, "factor": 8.0},
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        },
    },
}
FAMILIES["tiny-gpt-oss"] = {
    "class": "GptOssForCausalLM",
    "config": "GptOssConfig",
    "seed": 25,
    "dtype": torch.bfloat16,
    "bos": False,
    "config_fields": {
        "head_dim": 8,
        "intermediate_size": 16,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "swiglu_limit": 1.5,
        "sliding_window": 4,
        "tie_word_embeddings": False,
        "rope_parameters": {
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "beta_fast": 2.0,
            "beta_slow": 0.25,
            "truncate": False,
            "original_max_position_embeddings": 16,
        },
    },  # fmt: skip
}
FAMILIES["tiny-deepseek-v3"] = {
    "class": "DeepseekV3ForCausalLM",
    "config": "DeepseekV3Config",
    "seed": 26,
    "dtype": torch.bfloat16,
    "bos": True,
    "config_fields": {
        "num_key_value_heads": 4,
        "q_lora_rank": 16,
        "kv_lora_rank": 12,
        "qk_nope_head_dim": 8,
        "qk_rope_head_dim": 4,
        "v_head_dim": 6,
        "first_k_dense_replace": 1,  # layer 1 a dense MLP, layer 2 a mixture of experts
        "n_routed_experts": 6,
        "num_experts_per_tok": 2,
        "n_group": 3,  # three groups of two experts, the best two groups kept
        "topk_group": 2,
        "n_shared_experts": 1,
        "routed_scaling_factor": 2.5,
        "moe_intermediate_size": 8,
        "rope_interleave": True,
        "tie_word_embeddings": False,
        "rope_parameters": {
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "beta_fast": 2.0,
            "beta_slow": 0.25,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 16,
        },
    },  # fmt: skip
}
LONGROPE = {
    "rope_parameters": {
        "rope_type": "longrope", "rope_theta": 10000.0,
        "short_factor": [1.0, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 3.5],
        "long_factor": [1.0, 1.5, 2.5, 4.0, 6.0, 8.0, 12.0, 16.0],
        "original_max_position_embeddings": 6,
    },
}  # fmt: skip


def build(name: str, spec: dict) -> None:
    saved, seeded = make_llama.COMMON, make_llama.seeded_weights
    make_llama.COMMON = COMMON

    def with_buffers(model, seed):
        """The seeded weights, and DeepSeek's router correction bias (a buffer, zeros as
        transformers makes it, which would leave its part of the choice untried)."""
        seeded(model, seed)
        rng = np.random.Generator(np.random.PCG64(seed + 100))
        with torch.no_grad():
            for buffer_name, buffer in sorted(model.named_buffers()):
                if buffer_name.endswith("e_score_correction_bias"):
                    drawn = rng.uniform(-0.3, 0.3, tuple(buffer.shape))
                    buffer.copy_(torch.from_numpy(drawn))

    make_llama.seeded_weights = with_buffers
    try:
        make_llama.build(name, spec)
    finally:
        make_llama.COMMON, make_llama.seeded_weights = saved, seeded


def float64_rotary(module) -> None:
    """The rotary embedding's forward with θ_i from transformers' own functions in float64,
    chosen by the sequence's length as dynamic_rope_update chooses them (longrope's long
    factors past original_max_position_embeddings; dynamic's base past
    max_position_embeddings)."""

    def rotary_forward(self, x, position_ids, layer_type=None):
        length = int(position_ids.max()) + 1
        kind = self.rope_type if layer_type is None else self.rope_type[layer_type]
        config = self.config
        parameters = config.rope_parameters
        if layer_type is not None:  # Gemma 3: a rotary embedding per layer type
            parameters = parameters[layer_type]
        kwargs = {} if layer_type is None else {"layer_type": layer_type}
        if kind == "default":
            with Float64():
                inv_freq, scaling = self.compute_default_rope_parameters(config, **kwargs)
        else:
            seq_len = None
            if kind == "longrope":
                original = parameters["original_max_position_embeddings"]
                seq_len = original + 1 if length > original else None
            elif kind == "dynamic" and length > config.max_position_embeddings:
                seq_len = length
            inv_freq, scaling = rope_init(config, seq_len, True, layer_type)
        inv = inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].double()).transpose(1, 2)
        # gpt-oss turns the two halves by one angle each, never doubled
        emb = freqs if "GptOss" in type(self).__name__ else torch.cat((freqs, freqs), dim=-1)
        return (emb.cos() * scaling).to(x.dtype), (emb.sin() * scaling).to(x.dtype)

    for cls in list(vars(module).values()):
        if isinstance(cls, type) and cls.__name__.endswith("RotaryEmbedding"):
            cls.forward = rotary_forward


def _in_float64(function, *args):
    with Float64():
        return function(*args)


def run(folder: Path, exact: bool, overrides: dict | None = None) -> dict:
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(folder)
    if overrides:
        fields = {**json.loads((folder / "config.json").read_text()), **overrides}
        config = type(config)(**fields)
    family = {"gemma3_text": "gemma3"}.get(config.model_type, config.model_type)
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    importlib.reload(module)  # undo an earlier run's float64 steps
    named = type(config).__name__.replace("TextConfig", "Config").replace("Config", "ForCausalLM")
    cls = getattr(module, named)
    if exact:
        make_llama.float64_steps(module)
        float64_rotary(module)
        if family == "deepseek_v3":  # its router casts to float32 by name: float64 here
            router = module.DeepseekV3TopkRouter.forward
            module.DeepseekV3TopkRouter.forward = lambda self, h: _in_float64(router, self, h)
    moe = config.model_type in ("gpt_oss", "deepseek_v3")
    experts = {"experts_implementation": "eager"} if moe else {}
    model = cls.from_pretrained(
        folder, config=config, torch_dtype=torch.float64, attn_implementation="eager", **experts
    ).eval()
    scaled = model.model.embed_tokens
    if exact and hasattr(scaled, "embed_scale"):  # Gemma's √d_model, a float32 buffer
        scaled.embed_scale = torch.tensor(scaled.scalar_embed_scale, dtype=torch.float64)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    sentence = tiny_models.SENTENCES[0]
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        out = model(**encoded, output_attentions=True, output_hidden_states=True)
    return {
        "sentence": sentence,
        "ids": encoded["input_ids"][0].tolist(),
        "attentions": [plain(a[0]) for a in out.attentions],
        "hidden_states": [plain(h[0]) for h in out.hidden_states],
        "logits": plain(out.logits[0, -1]),
    }


def layer_types() -> dict:
    """What transformers' configs work out when a config.json leaves layer_types out:
    Gemma 2's alternation, Gemma 3's sliding_window_pattern (6 unless given), and Gemma 3's
    older rotary fields (rope_theta, rope_local_base_freq, rope_scaling) as rope_parameters."""
    from transformers import Gemma2Config, Gemma3TextConfig

    older = {"rope_theta": 500000.0, "rope_local_base_freq": 20000.0,
             "rope_scaling": {"rope_type": "linear", "factor": 8.0}}  # fmt: skip
    return {
        "gemma2": {"num_hidden_layers": 5,
                   "layer_types": Gemma2Config(num_hidden_layers=5).layer_types},
        "gemma3": {"num_hidden_layers": 13,
                   "layer_types": Gemma3TextConfig(num_hidden_layers=13).layer_types},
        "gemma3-pattern-3": {
            "num_hidden_layers": 7, "sliding_window_pattern": 3,
            "layer_types": Gemma3TextConfig(num_hidden_layers=7,
                                            sliding_window_pattern=3).layer_types,
        },
        "gemma3-older-rope": {
            "given": older,
            "rope_parameters": Gemma3TextConfig(**json.loads(json.dumps(older))).rope_parameters,
        },
    }  # fmt: skip


def models() -> dict:
    from transformers import AutoTokenizer

    for name, spec in FAMILIES.items():
        build(name, spec)
    found = {}
    for name in FAMILIES:
        folder = MODELS / name
        tokenizer = AutoTokenizer.from_pretrained(folder)
        found[name] = {
            "ids": [
                {"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in tiny_models.SENTENCES
            ],
            "shipped": run(folder, exact=False),
            "float64": run(folder, exact=True),
        }
    found["layer_types"] = layer_types()
    found["qwen3-longrope"] = {
        "config": LONGROPE,
        "shipped": run(MODELS / "tiny-qwen3", exact=False, overrides=LONGROPE),
        "float64": run(MODELS / "tiny-qwen3", exact=True, overrides=LONGROPE),
    }
    return found


def main() -> None:
    document = {"made_with": made_with(), "rope": rope_cases(), "models": models()}
    path = HERE / "frontier.json"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    for name in FAMILIES:
        for file in sorted((MODELS / name).iterdir()):
            print(f"  {file.relative_to(ROOT)} {file.stat().st_size:,} bytes")
    yarn = document["rope"]["yarn-qwen2.5"]["runs"][0]["float64"]["attention_factor"]
    assert math.isclose(yarn, 0.1 * math.log(4.0) + 1.0), yarn


if __name__ == "__main__":
    main()
