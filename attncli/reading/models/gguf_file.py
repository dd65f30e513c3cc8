"""A GGUF file (llama.cpp, Ollama, LM Studio) as the model folder attn already reads.

GGUF keeps a model in one file: its settings as metadata under llama.cpp's keys
(`llama.embedding_length`, `llama.attention.head_count_kv`, …), its tokenizer as metadata too
(`tokenizer.ggml.tokens`, `.merges`, …), and its tensors under llama.cpp's names, most of them
quantized in blocks. It is read with the `gguf` package (ggml's own reader) and turned into
what transformers would have saved:

    metadata                           config.json (model_type llama, qwen2 or gemma3_text)
    token_embd.weight                  model.embed_tokens.weight
    blk.N.attn_norm.weight             model.layers.N.input_layernorm.weight
    blk.N.attn_q / attn_k / attn_v     model.layers.N.self_attn.q_proj / k_proj / v_proj
      / attn_output (.weight, .bias)     / o_proj (.weight, .bias)
    blk.N.ffn_norm.weight              model.layers.N.post_attention_layernorm.weight
    blk.N.ffn_gate / ffn_up / ffn_down model.layers.N.mlp.gate_proj / up_proj / down_proj
    output_norm.weight                 model.norm.weight
    output.weight                      lm_head.weight (none: tied to the embeddings)
    Gemma 3's blk.N.attn_q_norm,       .self_attn.q_norm, .k_norm, .post_attention_layernorm,
      attn_k_norm, post_attention_norm,  .pre_feedforward_layernorm,
      ffn_norm, post_ffw_norm            .post_feedforward_layernorm (each norm stored as
                                         1 + w by llama.cpp's converter: w read back, as
                                         transformers' GGUF reader does)
    rope_freqs.weight (Llama 3)        rope_parameters {rope_type factors, factors}: each
                                       pair's θ_i divided by its number, as llama.cpp does

Each tensor is dequantized to float32 with `gguf.quants.dequantize`. llama.cpp's converter
reorders the rows of each head of W^Q and W^K for llama (and Mistral, whose files say
llama): HF row i of a head of size d becomes row 2i, row i + d/2 becomes 2i + 1, so that
ggml turns neighbouring coordinates. `hf_order` undoes it, as transformers does; without it
the model runs without an error and every score is another model's.

Every refusal is one line, before anything is dequantized: not GGUF, truncated, a version,
an architecture or a tensor type attn does not read, metadata that contradicts a tensor's
shape, a model too large for the memory free.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.errors import AttnError, InputError, first_line, imported
from attncli.messages import Message, _
from attncli.reading.models.checkpoint import expect_shape, needed
from attncli.reading.models.config_fields import (
    IN_TENSOR,
    Rule,
    epsilon,
    held,
    number,
    one_of,
    whole,
)
from attncli.reading.models.gguf_rope import ROPE_FREQS, rope_freqs
from attncli.reading.models.rope_config import NOT_COMPUTED, PARTIAL
from attncli.reading.parse.opening import reading

MAGIC = b"GGUF"
# general.architecture -> config.json's model_type, where llama.cpp names it otherwise (read
# for attn cost too); the architectures attn runs (Mistral's files say llama); what a
# family's config.json says that its metadata has no key for
MODEL_TYPES = {"gemma3": "gemma3_text", "deepseek2": "deepseek_v3", "gpt-oss": "gpt_oss"}
ARCHITECTURES = ("llama", "qwen2", "gemma3")
IMPLIED = {"qwen2": {"use_sliding_window": False}}
TYPES = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K")
REORDERED = ("llama",)  # the architectures whose W^Q, W^K rows llama.cpp reorders
GEMMA3_27B_BLOCKS = 62  # llama.cpp knows Gemma 3 27B by its block_count (LLM_TYPE_27B)

# llama.cpp's tensor names -> transformers' (N: the layer)
LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "attn_q.bias": "self_attn.q_proj.bias",
    "attn_k.bias": "self_attn.k_proj.bias",
    "attn_v.bias": "self_attn.v_proj.bias",
    "attn_output.bias": "self_attn.o_proj.bias",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}
# Gemma 3: QK-norm, and a norm before and after each sublayer (llama.cpp's ffn_norm is the
# one before the MLP); every norm stored as 1 + w, read back as w (GEMMA_NORMS)
GEMMA3_NAMES = {
    **{short: name for short, name in LAYER_NAMES.items() if "bias" not in short},
    "attn_q_norm.weight": "self_attn.q_norm.weight",
    "attn_k_norm.weight": "self_attn.k_norm.weight",
    "post_attention_norm.weight": "post_attention_layernorm.weight",
    "ffn_norm.weight": "pre_feedforward_layernorm.weight",
    "post_ffw_norm.weight": "post_feedforward_layernorm.weight",
}
GEMMA_NORMS = ("gemma3",)  # llama.cpp's converter adds 1 to their RMSNorm weights
NAMES = {"llama": LAYER_NAMES, "qwen2": LAYER_NAMES, "gemma3": GEMMA3_NAMES}
MODEL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}


# config.json's fields and the metadata keys (under ARCH.) llama.cpp writes them as: read
# for the model attn runs (config_of) and for attn cost (attention_config.gguf_config)
CONFIG_KEYS = {
    "num_hidden_layers": "block_count",
    "hidden_size": "embedding_length",
    "intermediate_size": "feed_forward_length",
    "max_position_embeddings": "context_length",
    "num_attention_heads": "attention.head_count",
    "num_key_value_heads": "attention.head_count_kv",
    "head_dim": "attention.key_length",
    "v_head_dim": "attention.value_length",
    "sliding_window": "attention.sliding_window",
    "kv_lora_rank": "attention.kv_lora_rank",
    "q_lora_rank": "attention.q_lora_rank",
}


@dataclass
class GGUF:
    """An opened GGUF file: its metadata (key -> value, the tokenizer's long lists left in
    the reader until asked for) and its tensors, not yet dequantized."""

    path: str
    reader: Any  # gguf.GGUFReader
    architecture: str

    @property
    def model_type(self) -> str:
        """config.json's model_type of the file's architecture (MODEL_TYPES)."""
        return MODEL_TYPES.get(self.architecture, self.architecture)

    def key(self, name: str) -> str:
        """The metadata key of config.json's field `name` (CONFIG_KEYS), or of llama.cpp's
        own `name` (rope.freq_base), under the file's architecture."""
        return f"{self.architecture}.{CONFIG_KEYS.get(name, name)}"

    def value(self, key: str, default: Any = None) -> Any:
        field = self.reader.get_field(key)
        if field is None:
            return default
        return contents(self.path, field)

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The metadata as a mapping of keys to values, read by config_fields as a config's
        fields are, so that a refusal names the file and its key."""
        return Metadata(self)


class Metadata(Mapping[str, Any]):
    """A GGUF file's metadata, each value read when asked for (GGUF.value)."""

    def __init__(self, model: GGUF) -> None:
        self.model = model

    def __getitem__(self, key: str) -> Any:
        return contents(self.model.path, self.model.reader.fields[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.model.reader.fields)

    def __len__(self) -> int:
        return len(self.model.reader.fields)


def contents(path: str, field: Any) -> Any:
    """A metadata field's value, read when asked: text that is not UTF-8 (a corrupt byte)
    is refused in one line naming its key."""
    try:
        return field.contents()
    except (UnicodeDecodeError, ValueError, IndexError):
        raise InputError(
            TRUNCATED,
            path=path,
            reason=Message(_("its metadata {key} could not be read"), key=field.name),
        ) from None


def _gguf_package() -> Any:
    return imported("gguf", Message(_("a GGUF file")))


def _header(path: str) -> bytes:
    """The magic and the version's bytes, read before the gguf package: a file that is not
    GGUF is said so, whether the package is installed or not. A file too short for them is
    left to the package's reader, which says where it ends."""
    with reading(path), open(path, "rb") as file:
        head = file.read(8)
    if head[:4] != MAGIC:
        raise InputError(NOT_GGUF, path=path)
    return head


def _version(head: bytes, path: str, supported: list[int]) -> None:
    """The version the header gives, one the gguf package reads (`supported`, its own list),
    held as any field of the file is (a header too short to give one is left to the
    package's reader, which says where it ends)."""
    version = int.from_bytes(head[4:8], "little")
    if version & 0xFFFF == 0:  # a file of the other byte order
        version = int.from_bytes(head[4:8], "big")
    if len(head) == 8:
        reads = Message(VERSION, versions=", ".join(map(str, supported)))
        held(version, path, Message(GGUF_VERSION), one_of(supported, reads))


NOT_GGUF = _(
    "{path} is not a GGUF file (it does not start with the bytes GGUF); give a "
    ".gguf model file as llama.cpp, Ollama or LM Studio keep it"
)
# the header's version, and what a file's version is held to (values.WRONG's {expected})
GGUF_VERSION = _("the GGUF version")
VERSION = _("one attn reads ({versions}): convert the file again with a current llama.cpp")
# a tensor's type, and what it is held to: a number the gguf package knows (any file, read
# for its metadata alone), a type attn dequantizes (a model attn runs)
TENSOR_TYPE = _("tensor {name}'s type")
UNKNOWN_TYPE = _("a type number the gguf package knows; attn reads {types}")
UNSUPPORTED_TYPE = _("a type attn dequantizes: {types} (convert the model again with one of those)")
DEQUANTIZED = one_of(TYPES, Message(UNSUPPORTED_TYPE, types=", ".join(TYPES)))
ARCHITECTURE = _("one attn runs: {supported} (Mistral's files say llama)")
# why a tensor's shape is expected (values.WRONG's {expected}), and the weight it lacks
SHAPE = _("{expected}, as {meaning} make it; the metadata and the tensors are not of one model")
WHOLE_FILE = _("a {arch} model of {layers} layers needs it, so {path} is not a whole model")
NOT_A_WEIGHT = _(
    "{path}: tensor {name} is not a weight attn reads; {hint}, so this model is not supported"
)
TRUNCATED = _(
    "{path} could not be read as GGUF ({reason}); the file may be truncated or corrupt: "
    "download or convert it again"
)


ENDS_EARLY = _("its {size} bytes end before the header, metadata and tensors it lists")


# what the gguf package raises on a file it cannot make sense of
_MISREAD = (ValueError, IndexError, OverflowError, UnicodeDecodeError, KeyError, TypeError)


class _EndsEarly(Exception):
    """A part the gguf package reads runs past the file's end."""


def _checked_reader(gguf: Any, path: str) -> Any:
    """The gguf package's reader of `path`, asked two questions first from the file's own
    bytes, where the package would answer them only in its words or numpy's: whether a
    part it reads runs past the file's end (_EndsEarly), and whether a tensor's type is one
    of the numbers of its GGMLQuantizationType (held as a field of the file)."""
    known = {int(kind) for kind in gguf.GGMLQuantizationType}
    knows = Rule(lambda number: number in known, Message(UNKNOWN_TYPE, types=", ".join(TYPES)))

    class Reader(gguf.GGUFReader):  # type: ignore[misc,name-defined]
        def _get(self, offset: int, dtype: Any, count: int = 1, **order: Any) -> Any:
            if offset + np.dtype(dtype).itemsize * int(count) > len(self.data):
                raise _EndsEarly
            return super()._get(offset, dtype, count, **order)

        def _build_tensors(self, start_offs: int, fields: list[Any]) -> None:
            for field in fields:  # its parts: name's length, name, n_dims, dims, type, offset
                where = Message(TENSOR_TYPE, name=field.name)
                held(int(field.parts[4][0]), path, where, knows)
            super()._build_tensors(start_offs, fields)

    return Reader(path)


def open_gguf(path: str) -> GGUF:
    """The file opened by the gguf package, its architecture one attn runs."""
    model = metadata(path)
    runs = one_of(ARCHITECTURES, Message(ARCHITECTURE, supported=", ".join(ARCHITECTURES)))
    held(model.value("general.architecture"), path, "general.architecture", runs)
    return model


def metadata(path: str) -> GGUF:
    """The file's metadata alone, of any architecture (attn cost reads its attention's
    sizes): no tensor is read, dequantized or checked."""
    reader = _reader(path)  # a tensor past the file's end is refused there
    field = reader.get_field("general.architecture")
    architecture = contents(path, field) if field is not None else None
    return GGUF(path, reader, str(architecture))


def _reader(path: str) -> Any:
    """The gguf package's reader of the file, its header checked first; a file it cannot
    read refused in one line."""
    head = _header(path)
    gguf = _gguf_package()
    _version(head, path, gguf.READER_SUPPORTED_VERSIONS)
    try:
        return _checked_reader(gguf, path)
    except AttnError:  # a tensor's type held (an InputError is a ValueError too)
        raise
    except (_EndsEarly, *_MISREAD) as error:  # else the package's own first line
        early = isinstance(error, _EndsEarly)
        reason = Message(ENDS_EARLY, size=os.path.getsize(path)) if early else first_line(error, 80)
        raise InputError(TRUNCATED, path=path, reason=reason) from None


def _whole(model: GGUF, name: str, default: int | None = None) -> int:
    """config.json's field `name`, a whole number read from the metadata key that gives it."""
    return whole(model.metadata, model.key(name), model.path, default)


def config_of(model: GGUF) -> dict[str, Any]:
    """The metadata as the config.json transformers would write for the model (read again
    by reading/models/model.read_config, which checks it as it checks any config.json)."""
    arch = model.architecture
    key = model.key
    width = _whole(model, "hidden_size")
    heads = _whole(model, "num_attention_heads")
    kv_heads = _whole(model, "num_key_value_heads", heads)
    head_dim = _whole(model, "head_dim", width // heads if width % heads == 0 else None)
    # the rotary and norm settings held to their rules here, naming the file's own keys
    path, metadata = model.path, model.metadata
    every = one_of((head_dim,), Message(PARTIAL, whole=head_dim))
    held(metadata.get(key("rope.dimension_count"), head_dim), path, key("rope.dimension_count"),
         every)  # fmt: skip
    scalings = one_of(("none", "linear"), Message(NOT_COMPUTED, known="none, linear"))
    scaling = held(metadata.get(key("rope.scaling.type"), "none"), path,
                   key("rope.scaling.type"), scalings)  # fmt: skip
    rope: dict[str, Any] = {"rope_type": "default"}
    if scaling == "linear":
        rope = {"rope_type": "linear", "factor": number(metadata, key("rope.scaling.factor"), path)}
    freqs = next((t for t in model.reader.tensors if t.name == ROPE_FREQS), None)
    if freqs is not None:  # llama.cpp divides θ_i by its number (and a linear factor too)
        divisors = rope_freqs(model.path, dequantize(model.path, freqs), head_dim)
        factor = rope.get("factor") or 1.0
        rope = {"rope_type": "factors", "factors": [d * factor for d in divisors]}
    rope["rope_theta"] = number(metadata, key("rope.freq_base"), path, 10000.0)
    names = {t.name for t in model.reader.tensors}
    tokens = model.reader.get_field("tokenizer.ggml.tokens")
    config: dict[str, Any] = {
        "model_type": model.model_type,
        "architectures": [f"{model.model_type.capitalize()}ForCausalLM"],
        "hidden_size": width,
        "intermediate_size": _whole(model, "intermediate_size"),
        "num_hidden_layers": _whole(model, "num_hidden_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "max_position_embeddings": _whole(model, "max_position_embeddings"),
        "rms_norm_eps": epsilon(metadata, key("attention.layer_norm_rms_epsilon"), path, 1e-6),
        "rope_parameters": rope,
        "hidden_act": "silu",
        "tie_word_embeddings": "output.weight" not in names,
        "vocab_size": _whole(model, "vocab_size", len(tokens.data) if tokens else None),
        "torch_dtype": "float32",
        "gguf": {"file": os.path.abspath(model.path), "architecture": arch},
    }
    if arch == "llama" and "blk.0.attn_q.bias" in names:
        config["attention_bias"] = True
    config.update(IMPLIED.get(arch, {}))
    if arch == "gemma3":
        config.update(_gemma3(model, config, rope))
    return config


def gemma3_query_scalar(config: dict[str, Any]) -> int:
    """What Gemma 3's scores are divided by the root of, as llama.cpp works it out from the
    metadata (src/llama-model.cpp, LLM_ARCH_GEMMA3's f_attention_scale): a file of 62 blocks
    is Gemma 3 27B, scaled by hidden_size ÷ heads (5,376 ÷ 32 = 168, its config.json's
    query_pre_attn_scalar), every other by the head size (256 for 270M to 12B, as theirs
    say). transformers' GGUF reader leaves Gemma3TextConfig's 256 for every size."""
    if config["num_hidden_layers"] == GEMMA3_27B_BLOCKS:
        return int(config["hidden_size"] // config["num_attention_heads"])
    return int(config["head_dim"])


def _gemma3(model: GGUF, config: dict[str, Any], rope: dict[str, Any]) -> dict[str, Any]:
    """What Gemma 3's file leaves to the model's code, as llama.cpp computes it (and
    transformers' GGUF reader fills it with Gemma3TextConfig's defaults): every sixth layer
    full and the others sliding (or the file's own pattern), the sliding layers' rotary base
    10,000 (or the file's rope.freq_base_swa), the full layers' the file's,
    query_pre_attn_scalar by llama.cpp's rule (gemma3_query_scalar), GELU's tanh form, no
    softcapping unless the file gives one."""
    key = model.key
    local = number(model.metadata, key("rope.freq_base_swa"), model.path, 10000.0)
    del config["hidden_act"]  # Gemma 3 names its own: hidden_activation
    fields: dict[str, Any] = {
        "architectures": ["Gemma3ForCausalLM"],
        "hidden_activation": "gelu_pytorch_tanh",
        "sliding_window": _whole(model, "sliding_window", 4096),
        "query_pre_attn_scalar": gemma3_query_scalar(config),
        "final_logit_softcapping": model.value(key("final_logit_softcapping")),
        "attn_logit_softcapping": model.value(key("attn_logit_softcapping")),
        "rope_parameters": {
            "full_attention": rope,
            "sliding_attention": {"rope_type": "default", "rope_theta": float(local)},
        },
    }
    pattern = model.value(key("attention.sliding_window_pattern"))
    if isinstance(pattern, list):  # a flag per layer: sliding or not
        fields["layer_types"] = ["sliding_attention" if p else "full_attention" for p in pattern]
    elif pattern is not None:
        fields["sliding_window_pattern"] = pattern
    return fields


def hf_order(weight: np.ndarray, heads: int) -> np.ndarray:
    """W^Q or W^K (out × in, `heads` heads: the key/value heads for W^K) back in
    transformers' row order: within each head, rows 2i and 2i + 1 (ggml's neighbours)
    become rows i and i + d/2 (rotate_half's pair), as transformers' GGUF loader does."""
    half = weight.shape[0] // heads // 2
    turned = weight.reshape(heads, half, 2, *weight.shape[1:]).swapaxes(1, 2)
    return np.ascontiguousarray(turned.reshape(weight.shape))


@dataclass(frozen=True)
class Planned:
    """One tensor of the file: its name there and in transformers, its type, the shape
    transformers keeps (out × in), and how many heads its rows are reordered in (0: none)."""

    gguf_name: str
    name: str
    kind: str  # the ggml type's name (Q4_1, F32, …)
    shape: tuple[int, ...]
    heads: int
    index: int  # in reader.tensors
    less_one: bool = False  # a Gemma norm, stored as 1 + w


def _layer_shapes(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The shape (out × in) config's numbers give each tensor of a layer."""
    width, ffn = config["hidden_size"], config["intermediate_size"]
    q = config["num_attention_heads"] * config["head_dim"]
    kv = config["num_key_value_heads"] * config["head_dim"]
    return {
        "attn_norm.weight": (width,),
        "ffn_norm.weight": (width,),
        "attn_q.weight": (q, width),
        "attn_k.weight": (kv, width),
        "attn_v.weight": (kv, width),
        "attn_output.weight": (width, q),
        "attn_q.bias": (q,),
        "attn_k.bias": (kv,),
        "attn_v.bias": (kv,),
        "attn_output.bias": (width,),
        "ffn_gate.weight": (ffn, width),
        "ffn_up.weight": (ffn, width),
        "ffn_down.weight": (width, ffn),
        "attn_q_norm.weight": (config["head_dim"],),
        "attn_k_norm.weight": (config["head_dim"],),
        "post_attention_norm.weight": (width,),
        "post_ffw_norm.weight": (width,),
    }


def _table(model: GGUF, config: dict[str, Any]) -> dict[str, tuple[str, tuple[int, ...], Any]]:
    """Every tensor the metadata's model has: llama.cpp's name -> (transformers' name, the
    shape the metadata gives it, and which numbers of the metadata give it)."""
    width, arch = config["hidden_size"], model.architecture
    embedding = Message(_("{key} {width}"), key=f"{arch}.embedding_length", width=width)
    vocabulary = Message(_("{vocab} tokens of {width}"), vocab=config["vocab_size"], width=width)
    table: dict[str, tuple[str, tuple[int, ...], Any]] = {
        "token_embd.weight": (MODEL_NAMES["token_embd.weight"], (config["vocab_size"], width),
                              vocabulary),
        "output.weight": (MODEL_NAMES["output.weight"], (config["vocab_size"], width), vocabulary),
        "output_norm.weight": (MODEL_NAMES["output_norm.weight"], (width,), embedding),
    }  # fmt: skip
    sizes, shapes = Message(_("the metadata's sizes")), _layer_shapes(config)
    for layer in range(config["num_hidden_layers"]):
        for short, name in NAMES[arch].items():
            table[f"blk.{layer}.{short}"] = (f"model.layers.{layer}.{name}", shapes[short], sizes)
    return table


def _not_read(model: GGUF, gguf_name: str, layers: int) -> Message:
    """Why a tensor of the file is none attn reads: of a layer past the metadata's count,
    or no weight of the architecture's."""
    block, _dot, rest = gguf_name.partition(".")
    layer, _dot, short = rest.partition(".")
    if block == "blk" and layer.isdigit() and short in NAMES[model.architecture]:
        return Message(_("it is of layer {number}, and {key} says {layers} layers (0 … {last})"),
                       number=int(layer), key=f"{model.architecture}.block_count",
                       layers=layers, last=layers - 1)  # fmt: skip
    return Message(_("attn reads a {arch} model's own tensors only"), arch=model.architecture)


def plan(model: GGUF, config: dict[str, Any]) -> list[Planned]:
    """Every tensor named, typed and held to the metadata's shape, before any is read: an
    unknown name, a type attn does not dequantize, a shape the metadata contradicts, or a
    weight missing is refused here."""
    gguf = _gguf_package()
    path, layers = model.path, config["num_hidden_layers"]
    table = _table(model, config)
    found: dict[str, Planned] = {}
    for index, tensor in enumerate(model.reader.tensors):
        gguf_name = tensor.name
        if gguf_name == ROPE_FREQS and config["rope_parameters"]["rope_type"] == "factors":
            continue  # read into the config's rotary settings
        if gguf_name not in table:
            raise InputError(NOT_A_WEIGHT, path=path, name=gguf_name,
                             hint=_not_read(model, gguf_name, layers))  # fmt: skip
        name, expected, meaning = table[gguf_name]
        short = gguf_name.partition(".")[2].partition(".")[2]
        heads = 0
        if model.architecture in REORDERED and short in ("attn_q.weight", "attn_k.weight"):
            heads = config["num_attention_heads" if "q" in short else "num_key_value_heads"]
        kind = gguf.GGMLQuantizationType(tensor.tensor_type).name
        shape = tuple(int(n) for n in reversed(tensor.shape.tolist()))
        less_one = model.architecture in GEMMA_NORMS and gguf_name.endswith("norm.weight")
        planned = Planned(gguf_name, name, kind, shape, heads, index, less_one)
        where = Message(IN_TENSOR, path=path, name=gguf_name)
        expect_shape(planned, expected, where, SHAPE, meaning=meaning)
        held(kind, path, Message(TENSOR_TYPE, name=gguf_name), DEQUANTIZED)
        found[gguf_name] = planned
    whole = Message(WHOLE_FILE, arch=model.architecture, layers=layers, path=path)
    for gguf_name in table:  # every weight but the head (none: tied to the embeddings)
        if gguf_name.endswith("weight") and gguf_name != "output.weight":
            needed(found.get(gguf_name), gguf_name, whole)
    return list(found.values())


def float32_bytes(planned: list[Planned]) -> int:
    """What the dequantized tensors take in float32."""
    return sum(4 * int(np.prod(p.shape)) for p in planned)


def dequantize(path: str, tensor: Any) -> np.ndarray:
    """The numbers of the file's `tensor` (a gguf ReaderTensor), dequantized by the gguf
    package; a tensor it cannot dequantize is refused naming it."""
    try:
        return np.asarray(_gguf_package().quants.dequantize(tensor.data, tensor.tensor_type))
    except (ValueError, NotImplementedError, TypeError) as error:
        raise InputError(
            _("{path}: tensor {name} could not be dequantized ({reason})"),
            path=path,
            name=tensor.name,
            reason=first_line(error, 80),
        ) from None


def dequantized(model: GGUF, planned: list[Planned]) -> Iterator[tuple[str, np.ndarray]]:
    """Each tensor in float32 under transformers' name, W^Q and W^K in its row order."""
    for item in planned:
        array = dequantize(model.path, model.reader.tensors[item.index])
        array = np.asarray(array, dtype=np.float32).reshape(item.shape)
        if item.heads:
            array = hf_order(array, item.heads)
        if item.less_one:  # as transformers' GGUF reader reads a Gemma norm back
            array = array - np.float32(1)
        yield item.name, array
