"""A Llama-family config.json as the architecture core/transformer.py runs: grouped-query
heads, the head size, the rotary positions (reading/models/rope_config.py), each layer's
sliding window, the head tied or not, the biases, and what each family adds."""

from __future__ import annotations

import math
from typing import Any

from attncli.core.transformer import Architecture
from attncli.errors import InputError, shown
from attncli.messages import _
from attncli.reading.models.config_fields import (
    activation,
    count,
    divides,
    epsilon,
    flag,
    positive,
)
from attncli.reading.models.rope_config import rope_settings
from attncli.reading.parse.json_text import as_json_text


def llama_architecture(config: dict[str, Any], path: str, model_type: str) -> Architecture:
    """Llama, Mistral, Qwen2, Gemma, Qwen3 or OLMo 2: grouped-query heads, the head size,
    rotary positions as the config gives them (rope_parameters, or the older rope_theta and
    rope_scaling), the sliding windows, the tied or untied head, the biases, and QK-norm."""
    width = positive(config, "hidden_size", path)
    heads = positive(config, "num_attention_heads", path)
    kv_heads = positive(config, "num_key_value_heads", path, heads)
    if heads % kv_heads:
        raise InputError(
            _(
                "{path}: num_attention_heads {heads} is not a multiple of num_key_value_heads "
                "{kv_heads}; each key/value head serves the same number of query heads"
            ),
            path=path,
            heads=heads,
            kv_heads=kv_heads,
        )
    if config.get("head_dim") is None:
        divides(width, heads, path, ("hidden_size", "num_attention_heads"))
    head_dim = positive(config, "head_dim", path, width // heads)
    if head_dim % 2:
        raise InputError(
            _("{path}: head_dim {head_dim} is odd; rotary positions turn coordinates in pairs"),
            path=path,
            head_dim=head_dim,
        )
    layers = positive(config, "num_hidden_layers", path)
    positions = positive(config, "max_position_embeddings", path)
    base, scaling = rope_settings(config, path, positions, head_dim)
    biases: tuple[str, ...] = ("q", "k", "v") if model_type == "qwen2" else ()
    # Llama's, Gemma's, Qwen3's and OLMo 2's configs say whether q, k, v and o carry biases
    if model_type in BIASED and flag(config, "attention_bias", path, False):
        biases = ("q", "k", "v", "o")
    tied = flag(config, "tie_word_embeddings", path, model_type == "gemma")
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
        windows=_windows(config, path, model_type, layers),
        tied=tied,
        biases=biases,
        embed_scale=math.sqrt(width) if model_type == "gemma" else None,
        norm_offset=1.0 if model_type == "gemma" else 0.0,
        qk_norm=QK_NORMS.get(model_type),
    )


BIASED = ("llama", "gemma", "qwen3", "olmo2")  # attention_bias: q, k, v and o, or none
# QK-norm: Qwen3's q_norm and k_norm of head_dim; OLMo 2's of the whole projections
QK_NORMS = {"qwen3": "head", "olmo2": "projection"}


def _gated_activation(config: dict[str, Any], path: str, model_type: str) -> str:
    """The gate's non-linearity: silu for Llama, Mistral and Qwen2 (FORWARD_FIELDS holds
    them to it); Gemma's hidden_act, whose legacy "gelu" transformers reads as the tanh form
    its checkpoints were trained with."""
    if model_type != "gemma":
        return "silu"
    name = activation(config, "hidden_act", path, "gelu_pytorch_tanh")
    return "gelu_pytorch_tanh" if name == "gelu" else name


def _windows(
    config: dict[str, Any], path: str, model_type: str, layers: int
) -> tuple[int | None, ...]:
    """Each layer's sliding window: Mistral's sliding_window in every layer; Qwen2's and
    Qwen3's only with use_sliding_window true, in the layers layer_types calls
    sliding_attention (else those from max_window_layers on), as transformers' Qwen2Config
    works them out."""
    if model_type in ("llama", "olmo2"):
        return ()
    window = config.get("sliding_window")
    if model_type in ("qwen2", "qwen3") and not flag(config, "use_sliding_window", path, False):
        window = None
    if window is None:
        return ()
    size = positive(config, "sliding_window", path)
    if model_type == "mistral":
        return (size,) * layers
    kinds = config.get("layer_types")
    if kinds is None:
        first = count(config, "max_window_layers", path, 28)
        kinds = ["sliding_attention" if i >= first else "full_attention" for i in range(layers)]
    if (
        not isinstance(kinds, list)
        or len(kinds) != layers
        or not all(kind in ("sliding_attention", "full_attention") for kind in kinds)
    ):
        raise InputError(
            _(
                "{path}: layer_types is {value}; expected one of full_attention and "
                "sliding_attention per layer ({layers})"
            ),
            path=path,
            value=shown(as_json_text(kinds), 60),
            layers=layers,
        )
    return tuple(size if kind == "sliding_attention" else None for kind in kinds)
