"""A Llama-family config.json as the architecture core/transformer.py runs: grouped-query
heads, the head size, the rotary positions (reading/models/rope_config.py), each layer's
sliding window, the head tied or not, the biases, and what each family adds."""

from __future__ import annotations

import math
from typing import Any

from attncli.core.experts import Routing
from attncli.core.rotary import Scaling
from attncli.core.transformer import Architecture
from attncli.errors import InputError, shown
from attncli.messages import Message, _
from attncli.reading.models.config_fields import (
    Rule,
    activation,
    epsilon,
    flag,
    head_size,
    held,
    key_value_heads,
    latent_sizes,
    number,
    typed_windows,
    whole,
)
from attncli.reading.models.rope_config import rope_settings
from attncli.reading.parse.json_text import as_json_text


def llama_architecture(config: dict[str, Any], path: str, model_type: str) -> Architecture:
    """Llama, Mistral, Qwen2, Gemma 1 to 3, Qwen3, OLMo 2, gpt-oss or DeepSeek-V3:
    grouped-query heads, the head size, rotary positions as the config gives them
    (rope_parameters, or the older rope_theta and rope_scaling), the sliding windows, the
    tied or untied head, the biases, and what each family adds (QK-norm, softcaps, sinks,
    latent attention, experts)."""
    width = whole(config, "hidden_size", path)
    heads = whole(config, "num_attention_heads", path)
    if model_type == "deepseek_v3":  # its rotary part is the head that RoPE turns
        config = {**config, "head_dim": whole(config, "qk_rope_head_dim", path)}
    kv_heads = key_value_heads(config, path, heads)
    pairs = Message(_("an even number: rotary positions turn coordinates in pairs"))
    head_dim = held(head_size(config, path, width, heads), path, "head_dim",
                    Rule(lambda size: size % 2 == 0, pairs))  # fmt: skip
    layers = whole(config, "num_hidden_layers", path)
    positions = whole(config, "max_position_embeddings", path)
    local = None
    if (
        model_type == "gpt_oss"
        and not config.get("rope_parameters")
        and not config.get("rope_scaling")
    ):  # transformers' GptOssConfig scales by yarn unless told otherwise
        config = {**config, "rope_parameters": GPT_OSS_ROPE}
    if model_type == "gemma3_text":  # a rotary base (and scaling) per layer type
        (base, scaling), local = gemma3_ropes(config, path, positions, head_dim)
    else:
        base, scaling = rope_settings(config, path, positions, head_dim)
    gemma = model_type in GEMMAS
    tied = flag(config, "tie_word_embeddings", path, gemma)
    return Architecture(
        family=model_type,
        layers=layers,
        heads=heads,
        d_model=width,
        max_positions=positions,
        activation=_gated_activation(config, path, model_type),
        eps=epsilon(config, "rms_norm_eps", path, 1e-6),
        kv_heads=kv_heads,
        head_dim=head_dim,
        rope_base=base,
        rope_scaling=scaling,
        windows=layer_windows(config, path, model_type, layers),
        tied=tied,
        biases=attention_biases(config, path, model_type),
        embed_scale=math.sqrt(width) if gemma else None,
        norm_offset=1.0 if gemma else 0.0,
        qk_norm=QK_NORMS.get(model_type),
        **_gemma_fields(config, path, model_type),
        **_experts_fields(config, path, model_type),
        **_latent_fields(config, path, model_type, heads, kv_heads, scaling),
        local_rope=local,
    )


GEMMAS = ("gemma", "gemma2", "gemma3_text")  # √d_model embeddings, RMSNorm's 1 + w
# Gemma 3's rope_parameters nested by layer type: an object of settings for each, or none
BY_LAYER_TYPE = Rule(
    lambda given: all(kind in ("full_attention", "sliding_attention") for kind in given)
    and all(isinstance(own or {}, dict) for own in given.values()),
    Message(_("one set of rotary settings for full_attention and one for sliding_attention, "
              "as Gemma 3 reads them")),
)  # fmt: skip


def _gemma_fields(config: dict[str, Any], path: str, model_type: str) -> dict[str, Any]:
    """Gemma 2's and 3's query_pre_attn_scalar and softcaps, with transformers' defaults
    where a config leaves them out (Gemma 2's caps 50 and 30; Gemma 3 none); null is no
    cap."""
    if model_type not in ("gemma2", "gemma3_text"):
        return {}
    caps = {"attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0}
    fields: dict[str, Any] = {"query_scalar": number(config, "query_pre_attn_scalar", path, 256)}
    for name, field in (("attn_logit_softcapping", "attn_softcap"),
                        ("final_logit_softcapping", "final_softcap")):  # fmt: skip
        left_out = name in config and config[name] is None  # null: no cap
        if left_out or (model_type == "gemma3_text" and config.get(name) is None):
            fields[field] = None
        else:
            fields[field] = number(config, name, path, caps[name])
    return fields


def gemma3_ropes(
    config: dict[str, Any], path: str, positions: int, head_dim: int
) -> tuple[tuple[float, Scaling | None], tuple[float, Scaling | None]]:
    """Gemma 3's two rotary settings, its full layers' and its sliding layers': nested in
    rope_parameters by layer type (transformers 5), or rope_theta with rope_scaling for the
    full layers and rope_local_base_freq for the sliding ones (older configs); transformers'
    defaults 1,000,000 and 10,000 where a base is left out."""
    given = config.get("rope_parameters")
    if isinstance(given, dict) and ("full_attention" in given or "sliding_attention" in given):
        kinds = {"full_attention": 1e6, "sliding_attention": 1e4}
        held(given, path, "rope_parameters", BY_LAYER_TYPE)
        read = []
        for kind, default in kinds.items():
            inner = {"rope_parameters": {"rope_theta": default, **(given.get(kind) or {})}}
            read.append(rope_settings(inner, path, positions, head_dim))
        return read[0], read[1]
    older: dict[str, Any] = {
        name: config[name] for name in ("rope_parameters", "rope_scaling") if name in config
    }
    full = rope_settings({"rope_theta": config.get("rope_theta") or 1e6, **older}, path,
                         positions, head_dim)  # fmt: skip
    local = number(config, "rope_local_base_freq", path, 1e4)
    return full, (local, None)


# Which of q, k, v and o carry a bias, as transformers builds each family's attention: all
# four in GPT-2 and Starcoder2, q, k and v in Qwen2; all four or none as attention_bias says
# in BIASED (gpt-oss' true when left out, the others' false); none in the others.
ALL_BIASED = ("gpt2", "starcoder2")
QKV_BIASED = ("qwen2", "qwen2_moe")
BIASED = ("llama", "gemma", "qwen3", "qwen3_moe", "olmo2", "gemma2", "gemma3_text", "gpt_oss",
          "deepseek_v2", "deepseek_v3", "granite")  # fmt: skip
# QK-norm: Qwen3's q_norm and k_norm of head_dim; OLMo 2's of the whole projections
QK_NORMS = {"qwen3": "head", "qwen3_moe": "head", "olmo2": "projection", "gemma3_text": "head"}


def attention_biases(config: dict[str, Any], path: str, model_type: str) -> tuple[str, ...]:
    """The projections of q, k, v and o that carry a bias, for --model and attn cost alike."""
    if model_type in ALL_BIASED:
        return ("q", "k", "v", "o")
    if model_type in QKV_BIASED:
        return ("q", "k", "v")
    if model_type in BIASED and flag(config, "attention_bias", path, model_type == "gpt_oss"):
        return ("q", "k", "v", "o")
    return ()


GPT_OSS_ROPE = {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                "truncate": False, "original_max_position_embeddings": 4096}  # fmt: skip


def _latent_fields(
    config: dict[str, Any],
    path: str,
    model_type: str,
    heads: int,
    kv_heads: int,
    scaling: Scaling | None,
) -> dict[str, Any]:
    """DeepSeek-V3's latent attention: its ranks and head sizes, the rotary pairs' layout,
    and the scores' divisor √(nope + rope), with YaRN's mscale² folded in where
    mscale_all_dim is given (transformers' yarn_apply_mscale); a mixture-of-experts layer
    (from first_k_dense_replace on) read with its routing."""
    if model_type != "deepseek_v3":
        return {}
    from attncli.core.latent import LatentShape
    from attncli.core.rotary import yarn_mscale

    dense = whole(config, "first_k_dense_replace", path, 3, least=0)
    routing = _routing(config, path) if dense < whole(config, "num_hidden_layers", path) else None
    each = Message(_("num_attention_heads {heads}: latent attention reads a key and a value "
                     "per head from its latent"), heads=heads)  # fmt: skip
    held(kv_heads, path, "num_key_value_heads", Rule(lambda kv: kv == heads, each))
    sizes = latent_sizes(config, path)
    divisor = math.sqrt(sizes.nope + sizes.rope)
    if scaling is not None and scaling.mscale_all_dim:
        divisor /= yarn_mscale(scaling.factor, scaling.mscale_all_dim) ** 2
    return {
        "dense_layers": dense,
        "routing": routing,
        "latent": LatentShape(
            heads=heads,
            nope=sizes.nope,
            rope=sizes.rope,
            v=sizes.v,
            rank=sizes.rank,
            q_rank=sizes.q_rank,
            interleave=flag(config, "rope_interleave", path, True),
            divisor=divisor,
        ),
    }


def _routing(config: dict[str, Any], path: str) -> Routing:
    """DeepSeek's router: num_experts_per_tok of n_routed_experts, chosen among the best
    topk_group of n_group groups (each scored by its best two experts), their weights
    normalized (norm_topk_prob) and × routed_scaling_factor."""
    from attncli.core.experts import Routing

    experts = whole(config, "n_routed_experts", path)
    groups = whole(config, "n_group", path, 1)
    top_groups = whole(config, "topk_group", path, 1)
    top_k = whole(config, "num_experts_per_tok", path)
    per_group = experts // groups if experts % groups == 0 else 0
    if per_group < 2 or top_groups > groups or top_k > top_groups * per_group:
        raise InputError(
            _(
                "{path}: n_routed_experts {experts} in n_group {groups} groups, of which "
                "topk_group {top_groups} are kept, cannot give num_experts_per_tok {top_k} "
                "(each group holds the same number of experts, two or more)"
            ),
            path=path,
            experts=experts,
            groups=groups,
            top_groups=top_groups,
            top_k=top_k,
        )
    return Routing(top_k, groups, top_groups, flag(config, "norm_topk_prob", path, True),
                   number(config, "routed_scaling_factor", path, 1.0))  # fmt: skip


def _experts_fields(config: dict[str, Any], path: str, model_type: str) -> dict[str, Any]:
    """gpt-oss: its learned sinks, and its mixture of experts (num_local_experts, of which
    num_experts_per_tok a token, the gate's swiglu_alpha and swiglu_limit); quantized
    experts (MXFP4, as gpt-oss ships) are refused: attn reads weights stored as numbers."""
    if model_type != "gpt_oss":
        return {}
    quantized = config.get("quantization_config")
    if quantized is not None:
        method = quantized.get("quant_method") if isinstance(quantized, dict) else quantized
        raise InputError(
            _(
                "{path}: quantization_config is {method}: the weights are quantized, and attn "
                "reads weights stored as numbers (float32, bfloat16); dequantize them first"
            ),
            path=path,
            method=shown(as_json_text(method), 40),
        )
    experts = whole(config, "num_local_experts", path)
    some = Message(_("at most num_local_experts {experts}: a token takes some of the "
                     "experts"), experts=experts)  # fmt: skip
    per_token = held(whole(config, "num_experts_per_tok", path), path, "num_experts_per_tok",
                     Rule(lambda k: k <= experts, some))  # fmt: skip
    return {
        "sinks": True,
        "experts_per_token": per_token,
        "swiglu_alpha": number(config, "swiglu_alpha", path, 1.702),
        "swiglu_limit": number(config, "swiglu_limit", path, 7.0),
    }


def _gated_activation(config: dict[str, Any], path: str, model_type: str) -> str:
    """The gate's non-linearity: silu for Llama, Mistral and Qwen2 (FORWARD_FIELDS holds
    them to it); Gemma's hidden_act, whose legacy "gelu" transformers reads as the tanh form
    its checkpoints were trained with; Gemma 2's and 3's hidden_activation."""
    if model_type in ("gemma2", "gemma3_text"):
        return activation(config, "hidden_activation", path, "gelu_pytorch_tanh")
    if model_type != "gemma":
        return "silu"
    name = activation(config, "hidden_act", path, "gelu_pytorch_tanh")
    return "gelu_pytorch_tanh" if name == "gelu" else name


# How each family's layers slide, as transformers builds them. Mistral's, Mixtral's,
# Starcoder2's and Phi-3's sliding_window is every layer's; Qwen2's and Qwen3's only with
# use_sliding_window true; Gemma 2's, Gemma 3's and gpt-oss' layers alternate (layer_types,
# else every n-th layer full). The other families have no window, whatever config.json says.
EVERY_LAYER = ("mistral", "mixtral", "starcoder2", "phi3")
ASKED_WINDOW = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")
ALTERNATING = {"gemma2": 2, "gpt_oss": 2, "gemma3_text": 6}  # every n-th layer full
# the window of a config.json that leaves sliding_window out (transformers' defaults)
DEFAULT_WINDOW = {"mistral": 4096, "gemma2": 4096, "gemma3_text": 4096, "gpt_oss": 128}


def layer_windows(
    config: dict[str, Any], path: str, model_type: str, layers: int
) -> tuple[int | None, ...]:
    """Each layer's sliding window (None: the layer sees every earlier key; empty: no layer
    has one), for --model and attn cost alike. Mistral's layer_types is not read
    (transformers' MistralConfig ignores it); Qwen2's and Qwen3's layers slide from
    max_window_layers on unless layer_types lists them; Gemma 3's n is
    sliding_window_pattern, 6 when left out. A sliding_window of null with layers that
    slide is refused: it names no size."""
    if model_type in ASKED_WINDOW and not flag(config, "use_sliding_window", path, False):
        return ()
    if model_type not in EVERY_LAYER + ASKED_WINDOW and model_type not in ALTERNATING:
        return ()
    if "sliding_window" not in config and model_type in DEFAULT_WINDOW:
        config = {**config, "sliding_window": DEFAULT_WINDOW[model_type]}
    if model_type in EVERY_LAYER:
        window = config.get("sliding_window")
        return () if window is None else (whole(config, "sliding_window", path),) * layers
    kinds = config.get("layer_types")
    if kinds is None and model_type in ASKED_WINDOW:
        first = whole(config, "max_window_layers", path, 28, least=0)
        kinds = ["sliding_attention" if i >= first else "full_attention" for i in range(layers)]
    elif kinds is None:
        every = ALTERNATING[model_type]
        if model_type == "gemma3_text":
            every = whole(config, "sliding_window_pattern", path, every)
        kinds = ["sliding_attention" if (i + 1) % every else "full_attention"
                 for i in range(layers)]  # fmt: skip
    if config.get("sliding_window") is None and not (
        isinstance(kinds, list) and "sliding_attention" in kinds
    ):
        return ()  # a layer of a sliding window needs its size: whole() says it is missing
    return typed_windows(kinds, whole(config, "sliding_window", path), path, layers)
