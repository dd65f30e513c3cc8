"""A whole BERT, RoBERTa or GPT-2 checkpoint as core.transformer.Network, by the names
transformers gives it (the attention layers through reading/models/checkpoint.py's table):

    BERT/RoBERTa {root}embeddings.word_embeddings / position_embeddings /
                 token_type_embeddings / LayerNorm; {root}encoder.layer.N.attention (the
                 table), .attention.output.LayerNorm, .intermediate.dense (nn.Linear),
                 .output.dense (nn.Linear), .output.LayerNorm
    GPT-2        {root}wte, wpe; {root}h.N.ln_1, .attn (the table), .ln_2, .mlp.c_fc and
                 .mlp.c_proj (Conv1D), {root}ln_f
    Llama family {root}embed_tokens; {root}layers.N.input_layernorm, .self_attn (the table),
                 .post_attention_layernorm, .mlp.gate_proj, .up_proj, .down_proj
                 (nn.Linear, no biases); {root}norm (RMSNorm: a weight alone); lm_head
                 outside the root, unless the config ties it to embed_tokens

{root} is whatever the checkpoint puts in front ("", "bert.", "roberta.", "transformer.").
LayerNorm's weight/bias may be named gamma/beta, as older checkpoints do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import numpy as np

from attncli.core.experts import Experts
from attncli.core.transformer import Architecture, Block, Network
from attncli.errors import InputError, ShapeError, shape_text
from attncli.messages import _
from attncli.reading.models.checkpoint import (
    LayerWeights,
    bert_attention,
    conv1d,
    expect_shape,
    gpt2_attention,
    joined,
    linear,
    llama_attention,
    optional_named,
)


def checkpoint_root(names: list[str], family: str) -> str:
    """What a checkpoint puts before the model's own names ("", "bert.", "transformer.",
    "model.")."""
    markers = {"gpt2": "wte.weight", "llama": "embed_tokens.weight"}
    marker = markers.get(family, "embeddings.word_embeddings.weight")
    for name in names:
        if name == marker or name.endswith("." + marker):
            return name[: -len(marker)]
    raise InputError(
        _("no {marker} in the checkpoint: it does not hold a {family} model's weights"),
        marker=marker,
        family=family,
    )


def _norm(
    state: Mapping[str, Any], prefix: str, width: int, kind: str
) -> tuple[np.ndarray, np.ndarray]:
    # gamma/beta only where the checkpoint uses those names: a missing weight is named as
    # the checkpoint would name it
    names = ("gamma", "beta") if joined(prefix, "gamma") in state else ("weight", "bias")
    gamma, beta = (state[_present(state, prefix, name, kind)] for name in names)
    return (
        expect_shape(np.asarray(gamma), (width,), joined(prefix, names[0])),
        expect_shape(np.asarray(beta), (width,), joined(prefix, names[1])),
    )


class _Rows:
    """A 2-D array of a checkpoint whose rows are read when they are asked for."""

    def __init__(self, state: Mapping[str, Any], name: str) -> None:
        self.state, self.name = state, name
        reader = getattr(state, "shape", None)
        self.shape = tuple(reader(name) if reader else np.shape(state[name]))

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        # [T] of int -> [T, d]
        rows = getattr(self.state, "rows", None)
        whole = len(ids) == self.shape[0] and np.array_equal(ids, np.arange(self.shape[0]))
        if rows is not None and not whole:  # a head's whole table: one read, not V
            return np.asarray(rows(self.name, ids))
        table = np.asarray(self.state[self.name])
        return table if whole else table[ids]  # the whole table: not copied again


class _Blocks(Sequence[Block]):
    """The layers of a checkpoint, each read (in float64, contiguous) when asked for."""

    def __init__(self, build: Callable[[int], Block], count: int) -> None:
        self._build, self._count = build, count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, number: int) -> Block: ...
    @overload
    def __getitem__(self, number: slice) -> Sequence[Block]: ...
    def __getitem__(self, number: int | slice) -> Block | Sequence[Block]:
        if isinstance(number, slice):
            return [self[i] for i in range(*number.indices(self._count))]
        if not 0 <= number < self._count:
            raise IndexError(number)
        return _as_float64(self._build(number))


def _as_float64(block: Block) -> Block:
    @overload
    def f(array: np.ndarray) -> np.ndarray: ...
    @overload
    def f(array: None) -> None: ...
    def f(array: np.ndarray | None) -> np.ndarray | None:
        # The layout kept: nn.Linear's W^T stays a transposed view of a contiguous W, copied
        # in order, which BLAS reads as transposed at no cost.
        return None if array is None else np.asarray(array, dtype=np.float64, order="K")

    def norm(pair: tuple[np.ndarray, np.ndarray | None] | None) -> Any:
        return None if pair is None else (f(pair[0]), f(pair[1]))

    return Block(
        {name: f(value) for name, value in block.attention.items()},
        norm(block.norm_1),
        f(block.w_in),
        f(block.b_in),
        f(block.w_out),
        f(block.b_out),
        norm(block.norm_2),
        f(block.w_gate),
        f(block.q_norm),
        f(block.k_norm),
        f(block.post_attention_norm),
        f(block.post_feedforward_norm),
        f(block.sinks),
        None if block.experts is None else block.experts.as_float64(),
    )


def _present(state: Mapping[str, Any], prefix: str, name: str, kind: str) -> str:
    full = joined(prefix, name) if prefix else name
    if full not in state:
        raise InputError(_("{full} is missing: a {kind} checkpoint needs it"), full=full, kind=kind)
    return full


def network(
    state: Mapping[str, Any], architecture: Architecture, layers: int | None = None
) -> Network:
    """A whole checkpoint's weights (the first `layers` layers, all by default). The word
    and position tables are read row by row as ids ask for them; each layer when the
    forward pass reaches it, so memory holds one layer at a time."""
    arch = architecture
    if arch.rms:
        return _llama_network(state, arch, layers)
    gpt2 = arch.family == "gpt2"
    root = checkpoint_root(list(state), "gpt2" if gpt2 else "bert")
    count = arch.layers if layers is None else layers
    kind, embeddings = ("GPT-2", root) if gpt2 else ("BERT", root + "embeddings")
    word_name, position_name = (
        ("wte.weight", "wpe.weight")
        if gpt2
        else ("word_embeddings.weight", "position_embeddings.weight")
    )
    word = _Rows(state, _present(state, embeddings, word_name, kind))
    position = _Rows(state, _present(state, embeddings, position_name, kind))
    _check_tables(word, position, arch)
    _check_layer_count(list(state), f"{root}h." if gpt2 else f"{root}encoder.layer.", count)
    build = _gpt2_block if gpt2 else _bert_block
    blocks = _Blocks(
        lambda i: build(state, f"{root}{'h' if gpt2 else 'encoder.layer'}.{i}", arch.d_model), count
    )
    if gpt2:
        final = _float_norm(_norm(state, root + "ln_f", arch.d_model, kind))
        return Network(arch, word, position, blocks, final_norm=final)
    types = optional_named(state, embeddings, "token_type_embeddings.weight")
    if types is None:  # transformers would draw it at random: the numbers would be no model's
        raise _missing(f"{embeddings}.token_type_embeddings.weight")
    _check_token_types(types, f"{embeddings}.token_type_embeddings.weight", arch.d_model)
    norm = _float_norm(_norm(state, embeddings + ".LayerNorm", arch.d_model, kind))
    return Network(arch, word, position, blocks, token_type=types, embedding_norm=norm)


def _llama_network(state: Mapping[str, Any], arch: Architecture, layers: int | None) -> Network:
    """A Llama, Mistral or Qwen2 checkpoint: no position table (the positions turn q and
    k), RMSNorms of a weight alone, and lm_head beside the model's root unless tied."""
    root = checkpoint_root(list(state), "llama")
    count = arch.layers if layers is None else layers
    kind = "Llama-family"
    word = _Rows(state, _present(state, root, "embed_tokens.weight", kind))
    if len(word.shape) != 2 or word.shape[1] != arch.d_model:
        raise ShapeError(
            _("{name} is {shape}; expected {width} columns (the width config.json gives)"),
            name=word.name,
            shape=shape_text(word.shape),
            width=arch.d_model,
        )
    _check_layer_count(list(state), f"{root}layers.", count)
    blocks = _Blocks(lambda i: _llama_block(state, f"{root}layers.{i}", arch), count)
    final = (np.asarray(_rms(state, root + "norm", arch.d_model), dtype=np.float64), None)
    head = None
    if arch.tied and "lm_head.weight" in state:
        _tied_head_agrees(state, word.name)
    if not arch.tied:
        # LlamaForCausalLM keeps lm_head beside "model."; a bare LlamaModel has none
        name = "lm_head.weight"
        if name in state:
            head = _Rows(state, name)
            if head.shape != word.shape:
                raise ShapeError(
                    _("{name} is {shape}; expected {expected}, the shape of {word}"),
                    name=name,
                    shape=shape_text(head.shape),
                    expected=shape_text(word.shape),
                    word=word.name,
                )
    return Network(arch, word, None, blocks, final_norm=final, head=head)


def _tied_head_agrees(state: Mapping[str, Any], word: str) -> None:
    """config.json ties the head to the word embeddings, and the checkpoint holds a head of
    its own: the two must be the same numbers, else which one unembeds is not known (the
    tie would drop the file's head without a word)."""
    own = np.asarray(state["lm_head.weight"])
    if own.shape != tuple(state[word].shape) or not np.array_equal(own, np.asarray(state[word])):
        raise InputError(
            _(
                "config.json ties the head to the word embeddings (tie_word_embeddings true), "
                "but the checkpoint's own lm_head.weight holds other numbers than {word}; "
                "set tie_word_embeddings to false to use the file's head, or save the model "
                "again"
            ),
            word=word,
        )


def _rms(state: Mapping[str, Any], prefix: str, width: int) -> np.ndarray:
    name = _present(state, prefix, "weight", "Llama-family")
    return expect_shape(np.asarray(state[name]), (width,), name)


def _llama_block(state: Mapping[str, Any], prefix: str, arch: Architecture) -> Block:
    width, size = arch.d_model, arch.size_per_head
    kv_heads = arch.kv_heads or arch.heads
    if arch.latent is not None:
        return _dense_block(state, prefix, arch, _latent(state, prefix + ".self_attn", arch))
    attention = llama_attention(
        state, prefix + ".self_attn", width, (arch.heads * size, kv_heads * size), arch.biases
    ).params
    if arch.family == "gpt_oss":
        sinks_name = _present(state, prefix, "self_attn.sinks", "gpt-oss")
        return Block(
            attention,
            (_rms(state, prefix + ".input_layernorm", width), None),
            None,
            None,
            None,
            None,
            (_rms(state, prefix + ".post_attention_layernorm", width), None),
            sinks=expect_shape(np.asarray(state[sinks_name]), (arch.heads,), sinks_name),
            experts=_experts(state, prefix + ".mlp", width),
        )
    return _dense_block(state, prefix, arch, attention)


def _dense_block(
    state: Mapping[str, Any], prefix: str, arch: Architecture, attention: dict[str, np.ndarray]
) -> Block:
    """A layer's norms and its gated MLP (gate_proj, up_proj, down_proj), around
    `attention`, placed as the family places them."""
    width = arch.d_model
    kv_heads = arch.kv_heads or arch.heads
    size = arch.size_per_head
    gate, _none = linear(state, prefix, "mlp.gate_proj", "Llama-family", width)
    up, _none = linear(state, prefix, "mlp.up_proj", "Llama-family", width)
    expect_shape(up, gate.shape, f"{prefix}.mlp.up_proj.weight (as x @ W)")
    down, _none = linear(state, prefix, "mlp.down_proj", "Llama-family", gate.shape[1])
    expect_shape(down, (gate.shape[1], width), f"{prefix}.mlp.down_proj.weight (as x @ W)")
    q_norm = k_norm = None
    if arch.qk_norm is not None:  # per head (Qwen3) or over the whole projection (OLMo 2)
        whole = arch.qk_norm == "projection"
        q_norm = _rms(state, prefix + ".self_attn.q_norm", arch.heads * size if whole else size)
        k_norm = _rms(state, prefix + ".self_attn.k_norm", kv_heads * size if whole else size)
    if arch.family in ("gemma2", "gemma3_text"):  # a norm before and after each sublayer
        return Block(
            attention,
            (_rms(state, prefix + ".input_layernorm", width), None),
            up,
            None,
            down,
            None,
            (_rms(state, prefix + ".pre_feedforward_layernorm", width), None),
            w_gate=gate,
            q_norm=q_norm,
            k_norm=k_norm,
            post_attention_norm=_rms(state, prefix + ".post_attention_layernorm", width),
            post_feedforward_norm=_rms(state, prefix + ".post_feedforward_layernorm", width),
        )
    if arch.family == "olmo2":  # the norms after the attention and the MLP, none before
        return Block(
            attention, None, up, None, down, None, None, w_gate=gate, q_norm=q_norm,
            k_norm=k_norm,
            post_attention_norm=_rms(state, prefix + ".post_attention_layernorm", width),
            post_feedforward_norm=_rms(state, prefix + ".post_feedforward_layernorm", width),
        )  # fmt: skip
    return Block(
        attention,
        (_rms(state, prefix + ".input_layernorm", width), None),
        up,
        None,
        down,
        None,
        (_rms(state, prefix + ".post_attention_layernorm", width), None),
        w_gate=gate,
        q_norm=q_norm,
        k_norm=k_norm,
    )


def _latent(state: Mapping[str, Any], prefix: str, arch: Architecture) -> dict[str, np.ndarray]:
    """DeepSeek-V3's latent attention under `prefix` (…self_attn), in attn's names, x @ W:
    q_proj (or q_a_proj, q_a_layernorm, q_b_proj), kv_a_proj_with_mqa, kv_a_layernorm,
    kv_b_proj, o_proj; each shape held to the config's sizes, a bias the config asks for
    (attention_bias) refused when missing."""
    assert arch.latent is not None
    s, width = arch.latent, arch.d_model
    kind = "DeepSeek-V3"
    biased = bool(arch.biases)
    read: dict[str, np.ndarray] = {}

    def take(name: str, part: str, rows: int, columns: int, bias: bool = False) -> None:
        full = joined(prefix, f"{part}.weight")
        expect_shape(np.asarray(state[_present(state, prefix, f"{part}.weight", kind)]),
                     (rows, columns), full)  # fmt: skip
        weight, own_bias = linear(state, prefix, part, kind, columns)
        read[f"w_{name}"] = weight
        if bias:
            if own_bias is None:
                raise InputError(
                    _(
                        "{name} is missing from the checkpoint; the model's config gives "
                        "its attention biases, so the file is not this model's whole"
                    ),
                    name=joined(prefix, f"{part}.bias"),
                )
            read[f"b_{name}"] = own_bias

    qk = s.heads * (s.nope + s.rope)
    if s.q_rank is None:
        take("q", "q_proj", qk, width)
    else:
        take("q_a", "q_a_proj", s.q_rank, width, biased)
        read["q_a_norm"] = _rms(state, prefix + ".q_a_layernorm", s.q_rank)
        take("q_b", "q_b_proj", qk, s.q_rank)
    take("kv_a", "kv_a_proj_with_mqa", s.rank + s.rope, width, biased)
    read["kv_a_norm"] = _rms(state, prefix + ".kv_a_layernorm", s.rank)
    take("kv_b", "kv_b_proj", s.heads * (s.nope + s.v), s.rank)
    take("o", "o_proj", width, s.heads * s.v, biased)
    return read


def _experts(state: Mapping[str, Any], prefix: str, width: int) -> Experts:
    """gpt-oss' router (nn.Linear: router.weight [E, d]) and experts, stored x @ W already:
    gate_up_proj [E, d, 2F], down_proj [E, F, d], and their biases; each shape held to the
    router's E and the model's d."""
    router_name = _present(state, prefix, "router.weight", "gpt-oss")
    router = np.asarray(state[router_name])
    if router.ndim != 2 or router.shape[1] != width:
        raise ShapeError(
            _("{name} is {shape}; expected {width} columns (the width config.json gives)"),
            name=router_name,
            shape=shape_text(router.shape),
            width=width,
        )
    count = router.shape[0]
    gate_up_name = _present(state, prefix, "experts.gate_up_proj", "gpt-oss")
    gate_up = np.asarray(state[gate_up_name])
    if gate_up.ndim != 3 or gate_up.shape[:2] != (count, width) or gate_up.shape[2] % 2:
        raise ShapeError(
            _("{name} is {shape}; expected {expected}"),
            name=gate_up_name,
            shape=shape_text(gate_up.shape),
            expected=f"{count} × {width} × 2F",
        )
    inner = gate_up.shape[2] // 2
    down_name = _present(state, prefix, "experts.down_proj", "gpt-oss")
    down = expect_shape(np.asarray(state[down_name]), (count, inner, width), down_name)

    def bias(name: str, shape: tuple[int, ...]) -> np.ndarray:
        full = _present(state, prefix, name, "gpt-oss")
        return expect_shape(np.asarray(state[full]), shape, full)

    return Experts(
        router.T, bias("router.bias", (count,)), gate_up,
        bias("experts.gate_up_proj_bias", (count, 2 * inner)), down,
        bias("experts.down_proj_bias", (count, width)),
    )  # fmt: skip


def _check_layer_count(names: list[str], start: str, count: int) -> None:
    """config.json's layers against those the checkpoint holds (layer N is named start + N),
    which are numbered from 0 without a gap."""
    held = {
        int(number)
        for name in names
        if name.startswith(start) and (number := name[len(start) :].split(".")[0]).isdigit()
    }
    if not held:
        raise InputError(
            _(
                "config.json asks for {count} layers and the checkpoint holds none (no tensor "
                "is named {start}0…); these weights are not this model's, or they lack their "
                "layers: download the model again"
            ),
            count=count,
            start=start,
        )
    missing = min(set(range(max(held) + 1)) - held, default=None)
    if missing is not None:
        raise InputError(
            _(
                "the checkpoint's layers skip {start}{missing}: it holds {held} layers, "
                "numbered up to {start}{last}; a checkpoint numbers its layers from 0 without "
                "a gap: download the model again"
            ),
            start=start,
            missing=missing,
            held=len(held),
            last=max(held),
        )
    if len(held) < count:
        raise InputError(
            _(
                "config.json asks for {count} layers and the checkpoint holds {held} "
                "({start}0 … {start}{last}); make num_hidden_layers (n_layer for GPT-2) "
                "say {held}"
            ),
            count=count,
            held=len(held),
            start=start,
            last=max(held),
        )


def _check_tables(word: _Rows, position: _Rows, arch: Architecture) -> None:
    width = arch.d_model
    for table in (word, position):
        if len(table.shape) != 2 or table.shape[1] != width:
            raise ShapeError(
                _("{name} is {shape}; expected {width} columns (the width config.json gives)"),
                name=table.name,
                shape=shape_text(table.shape),
                width=width,
            )
    if position.shape[0] < arch.max_positions:
        raise ShapeError(
            _("{name} has {rows} rows and config.json says {positions} positions"),
            name=position.name,
            rows=position.shape[0],
            positions=arch.max_positions,
        )


def _check_token_types(types: np.ndarray, name: str, width: int) -> None:
    """BERT adds row 0 of the token-type table to every token of a single sentence: the
    table must be rows of the model's width, one row at least (a row of another width would
    be broadcast into the wrong numbers, or refused by numpy with no name)."""
    if types.ndim != 2 or types.shape[1] != width:
        raise ShapeError(
            _("{name} is {shape}; expected {width} columns (the width config.json gives)"),
            name=name,
            shape=shape_text(types.shape),
            width=width,
        )
    if types.shape[0] == 0:
        raise ShapeError(
            _("{name} has no rows; a single sentence's tokens all take its row 0"), name=name
        )


def check_vocabulary(word: Any, largest_id: int, source: str) -> None:
    """The word-embedding table against the tokenizer: every id the tokenizer can give must
    be a row of the table (transformers would fail on the first such id, mid-sentence)."""
    rows = word.shape[0]
    if largest_id >= rows:
        raise ShapeError(
            _(
                "{name} has {rows} rows, but {source} gives ids up to {largest}; the "
                "tokenizer and the weights are not of one model"
            ),
            name=word.name,
            rows=rows,
            source=source,
            largest=largest_id,
        )


def _float_norm(norm: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(norm[0], dtype=np.float64), np.asarray(norm[1], dtype=np.float64))


def _bert_block(state: Mapping[str, Any], prefix: str, width: int) -> Block:
    attention = _attention(state, bert_attention(state, prefix + ".attention"), prefix, width)
    w_in, b_in = linear(state, prefix, "intermediate.dense", "BERT", width)
    w_out, b_out = linear(state, prefix, "output.dense", "BERT", w_in.shape[1])
    expect_shape(w_out, (w_in.shape[1], width), f"{prefix}.output.dense.weight (as x @ W)")
    return Block(
        attention,
        _norm(state, prefix + ".attention.output.LayerNorm", width, "BERT"),
        w_in,
        _bias(b_in, f"{prefix}.intermediate.dense.bias"),
        w_out,
        _bias(b_out, f"{prefix}.output.dense.bias"),
        _norm(state, prefix + ".output.LayerNorm", width, "BERT"),
    )


def _gpt2_block(state: Mapping[str, Any], prefix: str, width: int) -> Block:
    attention = _attention(state, gpt2_attention(state, prefix + ".attn"), prefix, width)
    w_in, b_in = conv1d(state, prefix, "mlp.c_fc")
    expect_shape(w_in, (width, w_in.shape[1]), f"{prefix}.mlp.c_fc.weight")
    w_out, b_out = conv1d(state, prefix, "mlp.c_proj", width)
    return Block(
        attention,
        _norm(state, prefix + ".ln_1", width, "GPT-2"),
        w_in,
        _bias(b_in, f"{prefix}.mlp.c_fc.bias"),
        w_out,
        _bias(b_out, f"{prefix}.mlp.c_proj.bias"),
        _norm(state, prefix + ".ln_2", width, "GPT-2"),
    )


def _attention(
    state: Mapping[str, Any], layer: LayerWeights, prefix: str, width: int
) -> dict[str, np.ndarray]:
    """A block's attention weights, each d_model × d_model as config.json's width says (a
    wrong one named by its checkpoint name and stored shape), its four biases among them
    (see _bias)."""
    for name in ("w_q", "w_k", "w_v", "w_o"):
        if layer.params[name].shape != (width, width):
            source = layer.sources[name]
            packed = source.endswith("c_attn.weight")  # GPT-2's q, k, v side by side
            reader = getattr(state, "shape", None)
            raise ShapeError(
                _("{name} is {shape}; expected {expected} (the width config.json gives)"),
                name=source,
                shape=shape_text(tuple(reader(source) if reader else np.shape(state[source]))),
                expected=shape_text((width, 3 * width) if packed else (width, width)),
            )
    for name in ("b_q", "b_k", "b_v", "b_o"):
        if name not in layer.params:
            raise _missing(f"{prefix}: the attention's {name}")
    return layer.params


def _bias(bias: np.ndarray | None, name: str) -> np.ndarray:
    """A model's bias, which every BERT, RoBERTa and GPT-2 layer has: a missing one is
    refused, never taken for zeros."""
    if bias is None:
        raise _missing(name)
    return bias


def _missing(name: str) -> InputError:
    return InputError(
        _(
            "{name} is missing from the checkpoint; the model's layers have it (transformers "
            "would fill it with random numbers), so the file is not this model's whole"
        ),
        name=name,
    )
