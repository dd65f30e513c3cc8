"""A pretrained model on this machine: found by folder or by name, checked, and read.

    model = load_model("all-MiniLM-L6-v2", layers=4)   # a Model: folder, architecture,
    encoded = model.tokenizer.encode("the keys …")      # network (the first 4 layers),
    run = forward(model.network, encoded.ids)           # tokenizer (core.transformer.forward)

A model is a folder in the layout transformers saves: config.json, model.safetensors (or
shards with model.safetensors.index.json), and tokenizer.json and/or vocab.txt. A name is
looked up, never downloaded, in the Hugging Face cache (HF_HUB_CACHE, HF_HOME/hub,
~/.cache/huggingface/hub) and among installed Python packages that ship such a folder.
Every refusal is one line.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from attncli.core.transformer import ACTIVATIONS, FAMILIES, LLAMA_FAMILIES, Architecture, Network
from attncli.errors import InputError, shown
from attncli.limits import check_free_memory
from attncli.messages import Message, _
from attncli.reading.models.files import check_index, check_regular_files, weight_files
from attncli.reading.models.locate import find_model
from attncli.reading.models.tokens import ModelTokenizer, load_tokenizer
from attncli.reading.parse.json_text import as_json_text
from attncli.reading.parse.sources import json_file


@dataclass
class Model:
    """A model read from `folder`: its sizes, weights and tokenizer."""

    name: str  # as the user gave it
    folder: str
    model_type: str
    architecture: Architecture
    network: Network
    tokenizer: ModelTokenizer


def read_config(folder: str) -> tuple[str, Architecture]:
    """config.json's model_type and the architecture it describes; a missing or impossible
    field, or an unsupported model_type, is refused in one line."""
    path = os.path.join(folder, "config.json")
    try:
        config = json_file(path)
    except FileNotFoundError:
        raise InputError(
            _(
                "{folder} has no config.json; a model folder is as transformers saves it "
                "(config.json, model.safetensors, tokenizer.json)"
            ),
            folder=folder,
        ) from None
    if not isinstance(config, dict):
        raise InputError(_("{path}: expected a JSON object"), path=path)
    model_type = config.get("model_type")
    if model_type not in FAMILIES:
        raise InputError(
            _(
                "{path}: model_type {model_type} is not supported; attn runs {supported} "
                "(BERT-style encoders such as MiniLM, GPT-2, and the Llama family)"
            ),
            path=path,
            model_type=repr(model_type),
            supported=", ".join(FAMILIES),
        )
    _check_forward(config, path, model_type)
    if model_type == "gpt2":
        return model_type, _gpt2_architecture(config, path)
    if model_type in LLAMA_FAMILIES:
        return model_type, _llama_architecture(config, path, model_type)
    return model_type, _bert_architecture(config, path, model_type)


_ENCODER = {"is_decoder": False, "add_cross_attention": False,
            "position_embedding_type": "absolute"}  # fmt: skip
# The config fields that change a supported model's forward pass in transformers, with the
# value attn computes with: any other value is refused, never run as if it were this one.
FORWARD_FIELDS: dict[str, dict[str, Any]] = {
    "bert": _ENCODER,
    "roberta": _ENCODER,
    "gpt2": {
        "scale_attn_weights": True,
        "scale_attn_by_inverse_layer_idx": False,
        "add_cross_attention": False,
    },  # fmt: skip
    "llama": {"mlp_bias": False, "hidden_act": "silu"},
    "mistral": {"hidden_act": "silu"},
    "qwen2": {"hidden_act": "silu"},
    "gemma": {"use_bidirectional_attention": False},  # true: read both ways (EmbeddingGemma)
}


def _check_forward(config: dict[str, Any], path: str, model_type: str) -> None:
    """Refuse a config whose fields ask for a forward pass attn does not compute (BERT as a
    causal decoder, relative positions, GPT-2 without its ÷√d_k): one line naming the
    field, rather than numbers that differ from transformers' silently."""
    for name, computed in FORWARD_FIELDS.get(model_type, {}).items():
        unset_flag = config.get(name) is None and computed is False  # null: transformers' False
        if name in config and config[name] != computed and not unset_flag:
            raise InputError(
                _(
                    "{path}: {name} is {value}; attn computes {model_type} with {name} "
                    "{computed} only (transformers runs another forward pass with this one), "
                    "so this model is not supported"
                ),
                path=path,
                name=name,
                value=as_json_text(config[name]),
                model_type=model_type,
                computed=as_json_text(computed),
            )


def _field(config: dict[str, Any], name: str, path: str, default: Any = None) -> Any:
    value = config.get(name)
    if value is None:  # null is transformers' "not given" too (head_dim: null)
        value = default
    if value is None:
        raise InputError(
            _("{path}: the field {name} is missing; the model's config.json must give it"),
            path=path,
            name=name,
        )
    return value


def _positive(config: dict[str, Any], name: str, path: str, default: Any = None) -> int:
    value = _field(config, name, path, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(
            _("{path}: {name} is {value}; expected a positive whole number"),
            path=path,
            name=name,
            value=repr(value),
        )
    return value


def _count(config: dict[str, Any], name: str, path: str, default: int) -> int:
    """A whole number of 0 or more (max_window_layers 0: every layer from the first)."""
    value = _field(config, name, path, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            _("{path}: {name} is {value}; expected a whole number ≥ 0"),
            path=path,
            name=name,
            value=as_json_text(value),
        )
    return value


def _flag(config: dict[str, Any], name: str, path: str, default: bool) -> bool:
    """A config's true or false: 1, "yes" or "true" are refused, as transformers' typed
    configs refuse them (never read as false, which would leave a bias or a window out)."""
    value = config.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InputError(
            _("{path}: {name} is {value}; expected true or false"),
            path=path,
            name=name,
            value=as_json_text(value),
        )
    return value


def _epsilon(config: dict[str, Any], name: str, path: str, default: float) -> float:
    """A layer norm's ε: a small positive number."""
    small = Message(_("a small positive number such as 1e-12"))
    return _number(config, name, path, default, small)


def _activation(config: dict[str, Any], name: str, path: str, default: str) -> str:
    value = _field(config, name, path, default)
    if value not in ACTIVATIONS:
        raise InputError(
            _("{path}: {name} {value} is not supported; one of {choices}"),
            path=path,
            name=name,
            value=repr(value),
            choices=", ".join(ACTIVATIONS),
        )
    return str(value)


def _divides(width: int, heads: int, path: str, names: tuple[str, str]) -> None:
    if width % heads:
        raise InputError(
            _("{path}: {width_name} {width} does not divide into {heads_name} {heads} heads"),
            path=path,
            width_name=names[0],
            width=width,
            heads_name=names[1],
            heads=heads,
        )


def _bert_architecture(config: dict[str, Any], path: str, model_type: str) -> Architecture:
    width = _positive(config, "hidden_size", path)
    heads = _positive(config, "num_attention_heads", path)
    _divides(width, heads, path, ("hidden_size", "num_attention_heads"))
    offset = 0
    if model_type == "roberta":
        pad = config.get("pad_token_id", 1)
        if isinstance(pad, bool) or not isinstance(pad, int) or pad < 0:
            raise InputError(
                _("{path}: pad_token_id is {pad}; expected a whole number ≥ 0"),
                path=path,
                pad=repr(pad),
            )
        offset = pad + 1  # RoBERTa counts positions from padding_idx + 1
    positions = _positive(config, "max_position_embeddings", path)
    if positions <= offset:
        raise InputError(
            _(
                "{path}: max_position_embeddings {positions} leaves no position after the "
                "padding offset {offset}"
            ),
            path=path,
            positions=positions,
            offset=offset,
        )
    return Architecture(
        family=model_type,
        layers=_positive(config, "num_hidden_layers", path),
        heads=heads,
        d_model=width,
        max_positions=positions,
        activation=_activation(config, "hidden_act", path, "gelu"),
        eps=_epsilon(config, "layer_norm_eps", path, 1e-12),
        position_offset=offset,
    )


def _gpt2_architecture(config: dict[str, Any], path: str) -> Architecture:
    width = _positive(config, "n_embd", path)
    heads = _positive(config, "n_head", path)
    _divides(width, heads, path, ("n_embd", "n_head"))
    return Architecture(
        family="gpt2",
        layers=_positive(config, "n_layer", path),
        heads=heads,
        d_model=width,
        max_positions=_positive(config, "n_positions", path),
        activation=_activation(config, "activation_function", path, "gelu_new"),
        eps=_epsilon(config, "layer_norm_epsilon", path, 1e-5),
    )


def _llama_architecture(config: dict[str, Any], path: str, model_type: str) -> Architecture:
    """Llama, Mistral or Qwen2: grouped-query heads, the head size, rotary positions as the
    config gives them (rope_parameters, or the older rope_theta and rope_scaling), the
    sliding windows, the tied or untied head, and Qwen2's q/k/v biases."""
    width = _positive(config, "hidden_size", path)
    heads = _positive(config, "num_attention_heads", path)
    kv_heads = _positive(config, "num_key_value_heads", path, heads)
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
        _divides(width, heads, path, ("hidden_size", "num_attention_heads"))
    head_dim = _positive(config, "head_dim", path, width // heads)
    if head_dim % 2:
        raise InputError(
            _("{path}: head_dim {head_dim} is odd; rotary positions turn coordinates in pairs"),
            path=path,
            head_dim=head_dim,
        )
    layers = _positive(config, "num_hidden_layers", path)
    positions = _positive(config, "max_position_embeddings", path)
    base, scaling = _rope(config, path, positions)
    biases: tuple[str, ...] = ("q", "k", "v") if model_type == "qwen2" else ()
    # Llama's and Gemma's configs say whether q, k, v and o carry biases
    if model_type in ("llama", "gemma") and _flag(config, "attention_bias", path, False):
        biases = ("q", "k", "v", "o")
    tied = _flag(config, "tie_word_embeddings", path, model_type == "gemma")
    return Architecture(
        family=model_type,
        layers=layers,
        heads=heads,
        d_model=width,
        max_positions=positions,
        activation=_gated_activation(config, path, model_type),
        eps=_epsilon(config, "rms_norm_eps", path, 1e-6),
        kv_heads=kv_heads,
        head_dim=head_dim,
        rope_base=base,
        rope_scaling=scaling,
        windows=_windows(config, path, model_type, layers),
        tied=tied,
        biases=biases,
        embed_scale=math.sqrt(width) if model_type == "gemma" else None,
        norm_offset=1.0 if model_type == "gemma" else 0.0,
    )


def _gated_activation(config: dict[str, Any], path: str, model_type: str) -> str:
    """The gate's non-linearity: silu for Llama, Mistral and Qwen2 (FORWARD_FIELDS holds
    them to it); Gemma's hidden_act, whose legacy "gelu" transformers reads as the tanh form
    its checkpoints were trained with."""
    if model_type != "gemma":
        return "silu"
    name = _activation(config, "hidden_act", path, "gelu_pytorch_tanh")
    return "gelu_pytorch_tanh" if name == "gelu" else name


def _number(
    config: dict[str, Any],
    name: str,
    path: str,
    default: Any = None,
    expected: Message | None = None,
) -> float:
    """The config's `name`: a positive number (or `expected`, said in the refusal)."""
    value = _field(config, name, path, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (math.isfinite(value) and value > 0)
    ):
        raise InputError(
            _("{path}: {name} is {value}; expected {expected}"),
            path=path,
            name=name,
            value=as_json_text(value),
            expected=expected or Message(_("a positive number")),
        )
    return float(value)


def _rope(config: dict[str, Any], path: str, positions: int) -> tuple[float, Any]:
    """rope_theta and the scaling: transformers 5 writes rope_parameters {rope_type,
    rope_theta, factor, …}; older configs rope_theta beside rope_scaling {type or
    rope_type, factor, …} (or null). A rope_type attn does not compute is refused: its
    angles, and so every score, would be another model's."""
    from attncli.core.rotary import SCALINGS, Scaling

    given = config.get("rope_parameters")
    field = "rope_parameters"
    if given is None:
        given, field = config.get("rope_scaling") or {}, "rope_scaling"
    if not isinstance(given, dict) or any(isinstance(v, dict) for v in given.values()):
        raise InputError(
            _(
                "{path}: {field} is not one set of rotary settings ({value}); attn reads "
                "an object such as {example}"
            ),
            path=path,
            field=field,
            value=shown(as_json_text(given), 60),
            example='{"rope_type": "default", "rope_theta": 10000.0}',
        )
    if field == "rope_parameters":
        _agree(config, given, path)
    merged = {"rope_theta": config.get("rope_theta", 10000.0), **given}
    base = _number(merged, "rope_theta", path)
    partial = merged.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
    if partial != 1.0:
        raise InputError(
            _(
                "{path}: partial_rotary_factor is {value}; attn turns every coordinate of a "
                "head (partial_rotary_factor 1) only, so this model is not supported"
            ),
            path=path,
            value=as_json_text(partial),
        )
    kind = merged.get("rope_type", merged.get("type", "default"))
    if kind not in SCALINGS:
        raise InputError(
            _(
                "{path}: {field} asks for rope_type {kind}, which attn does not compute (it "
                "computes {known}); its rotary angles would differ, so this model is not "
                "supported"
            ),
            path=path,
            field=field,
            kind=shown(as_json_text(kind), 40),
            known=", ".join(SCALINGS),
        )
    if kind == "default":
        return base, None
    factor = _number(merged, "factor", path)
    if kind == "linear":
        return base, Scaling("linear", factor)
    original = merged.get("original_max_position_embeddings", positions)
    low = _number(merged, "low_freq_factor", path)
    high = _number(merged, "high_freq_factor", path)
    if high <= low:
        raise InputError(
            _(
                "{path}: high_freq_factor {high} is not above low_freq_factor {low}; llama3 "
                "scaling blends the frequencies between the two"
            ),
            path=path,
            high=high,
            low=low,
        )
    held = {"original_max_position_embeddings": original}
    return base, Scaling("llama3", factor, low, high, _positive(held, next(iter(held)), path))


def _agree(config: dict[str, Any], parameters: dict[str, Any], path: str) -> None:
    """rope_parameters beside the older rope_theta and rope_scaling: a setting both give
    must be the same, else one model's angles would be taken without a word."""
    older = config.get("rope_scaling")
    given = {**(older if isinstance(older, dict) else {})}
    if "type" in given:
        given.setdefault("rope_type", given.pop("type"))
    if config.get("rope_theta") is not None:
        given["rope_theta"] = config["rope_theta"]
    for name, value in given.items():
        said = parameters.get("type") if name == "rope_type" else None
        other = parameters.get(name, said)
        if other is not None and other != value:
            raise InputError(
                _(
                    "{path}: rope_parameters gives {name} {value}, and {older} gives {other}; "
                    "the two disagree, so the rotary angles are not known: keep one"
                ),
                path=path,
                name=name,
                value=shown(as_json_text(other), 40),
                older="rope_theta" if name == "rope_theta" else "rope_scaling",
                other=shown(as_json_text(value), 40),
            )


def _windows(
    config: dict[str, Any], path: str, model_type: str, layers: int
) -> tuple[int | None, ...]:
    """Each layer's sliding window: Mistral's sliding_window in every layer; Qwen2's only
    with use_sliding_window true, in the layers layer_types calls sliding_attention (else
    those from max_window_layers on), as transformers' Qwen2Config works them out."""
    if model_type == "llama":
        return ()
    window = config.get("sliding_window")
    if model_type == "qwen2" and not _flag(config, "use_sliding_window", path, False):
        window = None
    if window is None:
        return ()
    size = _positive(config, "sliding_window", path)
    if model_type == "mistral":
        return (size,) * layers
    kinds = config.get("layer_types")
    if kinds is None:
        first = _count(config, "max_window_layers", path, 28)
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


def load_model(name: str, layers: int | None = None) -> Model:
    """Find, check and read a model: its first `layers` layers (all by default)."""
    from attncli.reading.models.weights import check_vocabulary, network
    from attncli.reading.parse.tensor_files import open_safetensors

    folder = find_model(name)
    check_regular_files(folder)
    model_type, arch = read_config(folder)
    tokenizer = load_tokenizer(folder, model_type, arch.positions)
    tensors = open_safetensors(weight_files(folder))
    check_index(folder, tensors)
    check_free_memory(tensors.computed_bytes, Message(_("the model in {folder}"), folder=folder))
    weights = network(tensors, arch, layers)
    check_vocabulary(weights.word, tokenizer.largest_id(), tokenizer.source)
    if weights.head is not None:
        check_vocabulary(weights.head, tokenizer.largest_id(), tokenizer.source)
    return Model(name, folder, model_type, arch, weights, tokenizer)
