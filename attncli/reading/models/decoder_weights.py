"""A Llama-family checkpoint as core.transformer.Network, by the names transformers gives
it: {root}embed_tokens; {root}layers.N.input_layernorm, .self_attn (the name table's
llama_attention, with QK-norm's q_norm and k_norm; DeepSeek-V3's latent projections; gpt-oss'
sinks), .post_attention_layernorm (Gemma 2 and 3 and OLMo 2: after the attention, with
pre_feedforward_layernorm and post_feedforward_layernorm), .mlp.gate_proj, .up_proj,
.down_proj (nn.Linear, no biases), or a mixture of experts (gpt-oss' router and experts,
DeepSeek's gate, experts.N and shared_experts); {root}norm (RMSNorm: a weight alone);
lm_head outside the root, unless the config ties it to embed_tokens."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attncli.core.experts import Experts, GroupedExperts
from attncli.core.transformer import Architecture, Block, Network
from attncli.errors import InputError
from attncli.messages import _
from attncli.reading.models.checkpoint import (
    CONFIG_WIDTH,
    expect_columns,
    expect_shape,
    joined,
    linear,
    llama_attention,
    needed,
)
from attncli.reading.models.stored import (
    Blocks,
    Rows,
    check_layer_count,
    checkpoint_root,
    present,
    shaped,
)


def llama_network(state: Mapping[str, Any], arch: Architecture, layers: int | None) -> Network:
    """A Llama, Mistral or Qwen2 checkpoint: no position table (the positions turn q and
    k), RMSNorms of a weight alone, and lm_head beside the model's root unless tied."""
    root = checkpoint_root(list(state), "llama")
    count = arch.layers if layers is None else layers
    word = Rows(state, present(state, root, "embed_tokens.weight"))
    expect_columns(word, arch.d_model, word.name, CONFIG_WIDTH)
    check_layer_count(list(state), f"{root}layers.", count)
    blocks = Blocks(lambda i: _llama_block(state, f"{root}layers.{i}", arch), count)
    final = (np.asarray(_rms(state, root + "norm", arch.d_model), dtype=np.float64), None)
    head = None
    if arch.tied and "lm_head.weight" in state:
        _tied_head_agrees(state, word.name)
    # LlamaForCausalLM keeps lm_head beside "model."; a bare LlamaModel has none
    if not arch.tied and "lm_head.weight" in state:
        head = Rows(state, "lm_head.weight")
        same = _("{expected}, the shape of {word}")
        expect_shape(head, word.shape, head.name, same, word=word.name)
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
    return shaped(state, prefix, "weight", (width,))


def _llama_block(state: Mapping[str, Any], prefix: str, arch: Architecture) -> Block:
    width, size = arch.d_model, arch.size_per_head
    kv_heads = arch.kv_heads or arch.heads
    if arch.latent is not None:
        attention = _latent(state, prefix + ".self_attn", arch)
        number = int(prefix.rsplit(".", 1)[-1])
        if arch.routing is None or number < (arch.dense_layers or 0):
            return _dense_block(state, prefix, arch, attention)
        return Block(
            attention,
            (_rms(state, prefix + ".input_layernorm", width), None),
            None,
            None,
            None,
            None,
            (_rms(state, prefix + ".post_attention_layernorm", width), None),
            experts=_grouped_experts(state, prefix + ".mlp", arch),
        )
    attention = llama_attention(
        state, prefix + ".self_attn", width, (arch.heads * size, kv_heads * size), arch.biases
    ).params
    if arch.family == "gpt_oss":
        return Block(
            attention,
            (_rms(state, prefix + ".input_layernorm", width), None),
            None,
            None,
            None,
            None,
            (_rms(state, prefix + ".post_attention_layernorm", width), None),
            sinks=shaped(state, prefix, "self_attn.sinks", (arch.heads,)),
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
    gate, up, down = _gated_mlp(state, prefix, "mlp", "Llama-family", width)
    q_norm = k_norm = None
    if arch.qk_norm is not None:  # per head (Qwen3) or over the whole projection (OLMo 2)
        whole = arch.qk_norm == "projection"
        q_norm = _rms(state, prefix + ".self_attn.q_norm", arch.heads * size if whole else size)
        k_norm = _rms(state, prefix + ".self_attn.k_norm", kv_heads * size if whole else size)
    sandwich = arch.family in ("gemma2", "gemma3_text")  # a norm before and after each sublayer
    after_only = arch.family == "olmo2"  # the norms after the attention and the MLP, none before

    def norm(name: str) -> np.ndarray:
        return _rms(state, f"{prefix}.{name}", width)

    before_attention = None if after_only else (norm("input_layernorm"), None)
    before_mlp = None
    if not after_only:  # Llama's post_attention_layernorm is the norm before its MLP
        before_mlp = (norm("pre_feedforward_layernorm" if sandwich else "post_attention_layernorm"),
                      None)  # fmt: skip
    normed_after = sandwich or after_only
    return Block(
        attention, before_attention, up, None, down, None, before_mlp, w_gate=gate,
        q_norm=q_norm, k_norm=k_norm,
        post_attention_norm=norm("post_attention_layernorm") if normed_after else None,
        post_feedforward_norm=norm("post_feedforward_layernorm") if normed_after else None,
    )  # fmt: skip


def _gated_mlp(
    state: Mapping[str, Any], prefix: str, part: str, kind: str, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A gated MLP's gate_proj and up_proj [d, F] and down_proj [F, d] under `prefix`.`part`,
    read as x @ W, each shape held to the others' and to the model's width d."""
    gate, _none = linear(state, prefix, f"{part}.gate_proj", kind, width)
    up, _none = linear(state, prefix, f"{part}.up_proj", kind, width)
    expect_shape(up, gate.shape, joined(prefix, f"{part}.up_proj.weight (as x @ W)"))
    down, _none = linear(state, prefix, f"{part}.down_proj", kind, gate.shape[1])
    expect_shape(
        down, (gate.shape[1], width), joined(prefix, f"{part}.down_proj.weight (as x @ W)")
    )
    return gate, up, down


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
        weight, own_bias = linear(state, prefix, part, kind, columns, rows)
        read[f"w_{name}"] = weight
        if bias:
            read[f"b_{name}"] = needed(own_bias, joined(prefix, f"{part}.bias"))

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


def _grouped_experts(state: Mapping[str, Any], prefix: str, arch: Architecture) -> GroupedExperts:
    """DeepSeek-V3's mixture under `prefix` (…mlp), each weight as nn.Linear keeps it,
    read as x @ W: gate.weight [E, d] and gate.e_score_correction_bias [E]; experts.N's and
    shared_experts' gate_proj, up_proj, down_proj."""
    assert arch.routing is not None
    width, kind = arch.d_model, "DeepSeek-V3"
    router, _none = linear(state, prefix, "gate", kind, width)
    count = router.shape[1]
    correction = shaped(state, prefix, "gate.e_score_correction_bias", (count,))
    experts = [_gated_mlp(state, prefix, f"experts.{e}", kind, width) for e in range(count)]
    for number, expert in enumerate(experts):
        name = joined(prefix, f"experts.{number}.gate_proj.weight (as x @ W)")
        expect_shape(expert[0], experts[0][0].shape, name, _("{expected}, as expert 0's"))
    return GroupedExperts(
        router, correction, np.stack([e[0] for e in experts]), np.stack([e[1] for e in experts]),
        np.stack([e[2] for e in experts]),
        _gated_mlp(state, prefix, "shared_experts", kind, width), arch.routing,
    )  # fmt: skip


def _experts(state: Mapping[str, Any], prefix: str, width: int) -> Experts:
    """gpt-oss' router (nn.Linear: router.weight [E, d]) and experts, stored x @ W already:
    gate_up_proj [E, d, 2F], down_proj [E, F, d], and their biases; each shape held to the
    router's E and the model's d."""
    router_name = present(state, prefix, "router.weight")
    router = expect_columns(np.asarray(state[router_name]), width, router_name, CONFIG_WIDTH)
    count = router.shape[0]
    gate_up_name = present(state, prefix, "experts.gate_up_proj")
    gate_up = np.asarray(state[gate_up_name])
    last = gate_up.shape[-1] if gate_up.ndim else 0  # the gate's and the up's: held even
    expect_shape(gate_up, (count, width, last + last % 2), gate_up_name,
                 shown=f"{count} × {width} × 2F")  # fmt: skip
    inner = gate_up.shape[2] // 2
    down = shaped(state, prefix, "experts.down_proj", (count, inner, width))
    return Experts(
        router.T, shaped(state, prefix, "router.bias", (count,)), gate_up,
        shaped(state, prefix, "experts.gate_up_proj_bias", (count, 2 * inner)), down,
        shaped(state, prefix, "experts.down_proj_bias", (count, width)),
    )  # fmt: skip
