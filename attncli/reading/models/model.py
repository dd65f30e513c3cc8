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

import os
from dataclasses import dataclass
from typing import Any

from attncli.core.transformer import FAMILIES, LLAMA_FAMILIES, Architecture, Network
from attncli.errors import InputError
from attncli.limits import check_free_memory
from attncli.messages import Message, _
from attncli.reading.models.config_fields import (
    Rule,
    activation,
    config_json,
    divides,
    epsilon,
    held,
    model_type_of,
    one_of,
    whole,
)
from attncli.reading.models.decoder_config import llama_architecture
from attncli.reading.models.files import check_index, check_regular_files, weight_files
from attncli.reading.models.locate import find_model
from attncli.reading.models.tokens import ModelTokenizer, load_tokenizer
from attncli.reading.parse.json_text import as_json_text


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
    absent = InputError(
        _(
            "{folder} has no config.json; a model folder is as transformers saves it "
            "(config.json, model.safetensors, tokenizer.json)"
        ),
        folder=folder,
    )
    config = config_json(path, absent)
    model_type = model_type_of(config, path, FAMILIES, "attn")
    _check_forward(config, path, model_type)
    if model_type == "gpt2":
        return model_type, _gpt2_architecture(config, path)
    if model_type in LLAMA_FAMILIES:
        return model_type, llama_architecture(config, path, model_type)
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
    "qwen3": {"hidden_act": "silu"},
    "olmo2": {"hidden_act": "silu"},
    "deepseek_v3": {"hidden_act": "silu"},
    "gemma2": {"use_bidirectional_attention": False},
    "gemma3_text": {"use_bidirectional_attention": False},
}


FORWARD_ONLY = _(
    "{computed}: attn computes {model_type} with that only (transformers runs another "
    "forward pass with any other), so this model is not supported"
)


def _check_forward(config: dict[str, Any], path: str, model_type: str) -> None:
    """Refuse a config whose fields ask for a forward pass attn does not compute (BERT as a
    causal decoder, relative positions, GPT-2 without its ÷√d_k): one line naming the
    field, rather than numbers that differ from transformers' silently."""
    for name, computed in FORWARD_FIELDS.get(model_type, {}).items():
        unset_flag = config.get(name) is None and computed is False  # null: transformers' False
        if name in config and not unset_flag:
            only = Message(FORWARD_ONLY, computed=as_json_text(computed), model_type=model_type)
            held(config[name], path, name, one_of((computed,), only))


def _bert_architecture(config: dict[str, Any], path: str, model_type: str) -> Architecture:
    width = whole(config, "hidden_size", path)
    heads = whole(config, "num_attention_heads", path)
    divides(width, heads, path, ("hidden_size", "num_attention_heads"))
    offset = 0
    if model_type == "roberta":
        # null is refused as missing: transformers counts positions from padding_idx
        pad = whole(config, "pad_token_id", path, None if "pad_token_id" in config else 1, 0)
        offset = pad + 1  # RoBERTa counts positions from padding_idx + 1
    positions = whole(config, "max_position_embeddings", path)
    after = Message(_("more than the padding offset {offset}, to leave a position after it"),
                    offset=offset)  # fmt: skip
    held(positions, path, "max_position_embeddings", Rule(lambda p: p > offset, after))
    return Architecture(
        family=model_type,
        layers=whole(config, "num_hidden_layers", path),
        heads=heads,
        d_model=width,
        max_positions=positions,
        activation=activation(config, "hidden_act", path, "gelu"),
        eps=epsilon(config, "layer_norm_eps", path, 1e-12),
        position_offset=offset,
    )


def _gpt2_architecture(config: dict[str, Any], path: str) -> Architecture:
    width = whole(config, "n_embd", path)
    heads = whole(config, "n_head", path)
    divides(width, heads, path, ("n_embd", "n_head"))
    return Architecture(
        family="gpt2",
        layers=whole(config, "n_layer", path),
        heads=heads,
        d_model=width,
        max_positions=whole(config, "n_positions", path),
        activation=activation(config, "activation_function", path, "gelu_new"),
        eps=epsilon(config, "layer_norm_epsilon", path, 1e-5),
    )


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
