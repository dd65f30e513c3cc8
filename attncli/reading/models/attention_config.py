"""A model's attention shape (core/attention_cost.Shape) from its config.json, from a
GGUF file's metadata, or from the table of well-known models, for attn cost. Only the
configuration is read: no weight, no tensor, nothing converted or downloaded.

Which layers slide and which projections carry biases are read by the rules --model's
loader reads them by (decoder_config.layer_windows, attention_biases), as transformers
builds each family.
"""

from __future__ import annotations

import os
from typing import Any

from attncli.core.attention_cost import Latent, Shape
from attncli.errors import InputError, shown
from attncli.messages import Message, _
from attncli.reading.models.config_fields import (
    Rule,
    config_json,
    head_size,
    held,
    key_value_heads,
    latent_sizes,
    model_type_of,
    whole,
)
from attncli.reading.models.decoder_config import QK_NORMS, attention_biases, layer_windows

DECODERS = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma",
            "gemma2", "gemma3", "gemma3_text", "deepseek_v2", "deepseek_v3", "gpt_oss", "gpt2",
            "phi3", "granite", "starcoder2", "olmo2")  # fmt: skip
ENCODERS = ("bert", "roberta", "xlm-roberta", "distilbert", "electra", "mpnet", "deberta-v2")
# a GGUF file's key/value heads given as a count per layer: one count, as attn cost reads it
ONE_COUNT = Rule(lambda counts: len(set(counts)) == 1,
                 Message(_("the same count for every layer; attn cost reads one")))  # fmt: skip


def shape_of(config: dict[str, Any], path: str) -> Shape:
    """The attention shape config.json describes; a missing or impossible field, an
    encoder or an unknown model_type is refused in one line naming it."""
    if "text_config" in config and "num_hidden_layers" not in config:
        config = {**config["text_config"]} if isinstance(config["text_config"], dict) else {}
        config.setdefault("model_type", "gemma3_text")
    model_type = config.get("model_type")
    if model_type in ENCODERS:
        raise InputError(
            _(
                "{path}: {model_type} is an encoder: it reads every token at once and keeps "
                "no KV cache; attn cost counts decoders (GPT-2, Llama, Mistral, Gemma, "
                "DeepSeek, gpt-oss, …)"
            ),
            path=path,
            model_type=model_type,
        )
    model_type = model_type_of(config, path, DECODERS, "attn cost")
    model_type = "gemma3_text" if model_type == "gemma3" else model_type
    layers = whole(config, ("num_hidden_layers", "n_layer"), path)
    width = whole(config, ("hidden_size", "n_embd"), path)
    heads = whole(config, ("num_attention_heads", "n_head"), path)
    biased = attention_biases(config, path, model_type)
    windows = layer_windows(config, path, model_type, layers) or (None,) * layers
    if config.get("kv_lora_rank") is not None:
        sizes = latent_sizes(config, path)
        latent = Latent(rank=sizes.rank, rope=sizes.rope, q_rank=sizes.q_rank)
        mla_biases = tuple(b for b in biased if b != "v")  # q_a, kv_a and o have them
        return Shape(layers, width, heads, heads, sizes.nope + sizes.rope, sizes.v, windows,
                     latent, biases=mla_biases)  # fmt: skip
    kv_heads = key_value_heads(config, path, heads)
    head = head_size(config, path, width, heads)
    return Shape(layers, width, heads, kv_heads, head, head, windows,
                 sinks=model_type == "gpt_oss", biases=biased,
                 qk_norm=QK_NORMS.get(model_type))  # fmt: skip


def gguf_config(path: str) -> dict[str, Any]:
    """A GGUF file's attention metadata as config.json's keys, read from its header alone
    (no tensor is loaded or dequantized) by the table the model's own reader reads too,
    gguf_file.CONFIG_KEYS: llama.cpp's ARCH.block_count, ARCH.attention.head_count, … and
    DeepSeek's ARCH.attention.kv_lora_rank."""
    from attncli.reading.models.gguf_file import CONFIG_KEYS, IMPLIED, metadata

    model = metadata(path)
    arch, key = model.architecture, model.key
    config: dict[str, Any] = {"model_type": model.model_type}
    for name in CONFIG_KEYS:
        found = model.value(key(name))
        if found is not None:
            config[name] = found
    if isinstance(config.get("num_key_value_heads"), list):  # a count per layer
        counts = held(config["num_key_value_heads"], path, key("num_key_value_heads"), ONE_COUNT)
        config["num_key_value_heads"] = counts[0]
    if config.get("kv_lora_rank") is not None:  # MLA: key_length is nope + rope
        rope = model.value(key("rope.dimension_count"))
        config["qk_rope_head_dim"] = rope
        total = config.pop("head_dim", None)
        config["qk_nope_head_dim"] = None if total is None or rope is None else total - rope
    config.update(IMPLIED.get(arch, {}))
    return config


def read_shape(name: str) -> tuple[Shape, str, dict[str, Any]]:
    """The shape of the model `name` names, the source it was read from (a path, or the
    published config.json of a well-known model) and the config it came from: a config.json,
    a folder holding one, a GGUF file, a model folder or GGUF file found by name on this
    machine as --model finds it, else a name of the table (llama-3.1-70b)."""
    from attncli.reading.models.known_attention import KNOWN, known_name
    from attncli.reading.models.locate import gguf_file, on_this_machine

    # the model on this machine first, as --model finds it; then the published table
    found = on_this_machine(name, Message(_("the model")), "llama-3.1-8b")
    if found is None:
        table = known_name(name)
        if table is None:
            raise InputError(
                _(
                    "model {name!r} is not on this machine nor among the models attn cost "
                    "knows ({known}); give a config.json, a model folder or a .gguf file"
                ),
                name=shown(name),
                known=", ".join(KNOWN),
            )
        entry = KNOWN[table]
        return shape_of(entry["config"], table), entry["source"], entry["config"]
    if os.path.isdir(found):
        return _from_file(os.path.join(found, "config.json"))
    if gguf_file(found):
        config = gguf_config(found)
        return shape_of(config, found), found, config
    return _from_file(found)


def _from_file(path: str) -> tuple[Shape, str, dict[str, Any]]:
    absent = InputError(
        _("{path}: no such file; give a model's config.json or its folder"), path=path
    )
    config = config_json(path, absent)
    return shape_of(config, path), path, config
