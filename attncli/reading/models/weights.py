"""A whole BERT, RoBERTa or GPT-2 checkpoint as core.transformer.Network, by the names
transformers gives it (the attention layers through reading/models/checkpoint.py's table):

    BERT/RoBERTa {root}embeddings.word_embeddings / position_embeddings /
                 token_type_embeddings / LayerNorm; {root}encoder.layer.N.attention (the
                 table), .attention.output.LayerNorm, .intermediate.dense (nn.Linear),
                 .output.dense (nn.Linear), .output.LayerNorm
    GPT-2        {root}wte, wpe; {root}h.N.ln_1, .attn (the table), .ln_2, .mlp.c_fc and
                 .mlp.c_proj (Conv1D), {root}ln_f
    Llama family reading/models/decoder_weights.py

{root} is whatever the checkpoint puts in front ("", "bert.", "roberta.", "transformer.").
LayerNorm's weight/bias may be named gamma/beta, as older checkpoints do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attncli.core.transformer import Architecture, Block, Network
from attncli.messages import Message, _
from attncli.reading.models.checkpoint import (
    CONFIG_WIDTH,
    LayerWeights,
    at_least,
    bert_attention,
    conv1d,
    expect_columns,
    expect_shape,
    gpt2_attention,
    joined,
    linear,
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


def _norm(state: Mapping[str, Any], prefix: str, width: int) -> tuple[np.ndarray, np.ndarray]:
    # gamma/beta only where the checkpoint uses those names: a missing weight is named as
    # the checkpoint would name it
    names = ("gamma", "beta") if joined(prefix, "gamma") in state else ("weight", "bias")
    return shaped(state, prefix, names[0], (width,)), shaped(state, prefix, names[1], (width,))


def network(
    state: Mapping[str, Any], architecture: Architecture, layers: int | None = None
) -> Network:
    """A whole checkpoint's weights (the first `layers` layers, all by default). The word
    and position tables are read row by row as ids ask for them; each layer when the
    forward pass reaches it, so memory holds one layer at a time."""
    arch = architecture
    if arch.rms:
        from attncli.reading.models.decoder_weights import llama_network

        return llama_network(state, arch, layers)
    gpt2 = arch.family == "gpt2"
    root = checkpoint_root(list(state), "gpt2" if gpt2 else "bert")
    count = arch.layers if layers is None else layers
    embeddings = root if gpt2 else root + "embeddings"
    word_name, position_name = (
        ("wte.weight", "wpe.weight")
        if gpt2
        else ("word_embeddings.weight", "position_embeddings.weight")
    )
    word = Rows(state, present(state, embeddings, word_name))
    position = Rows(state, present(state, embeddings, position_name))
    _check_tables(word, position, arch)
    check_layer_count(list(state), f"{root}h." if gpt2 else f"{root}encoder.layer.", count)
    build = _gpt2_block if gpt2 else _bert_block
    blocks = Blocks(
        lambda i: build(state, f"{root}{'h' if gpt2 else 'encoder.layer'}.{i}", arch.d_model), count
    )
    if gpt2:
        final = _float_norm(_norm(state, root + "ln_f", arch.d_model))
        return Network(arch, word, position, blocks, final_norm=final)
    # transformers would draw a missing one at random: the numbers would be no model's
    types = np.asarray(state[present(state, embeddings, "token_type_embeddings.weight")])
    _check_token_types(types, f"{embeddings}.token_type_embeddings.weight", arch.d_model)
    norm = _float_norm(_norm(state, embeddings + ".LayerNorm", arch.d_model))
    return Network(arch, word, position, blocks, token_type=types, embedding_norm=norm)


def _check_tables(word: Rows, position: Rows, arch: Architecture) -> None:
    for table in (word, position):
        expect_columns(table, arch.d_model, table.name, CONFIG_WIDTH)
    positions = Message(_("at least {positions} rows, as config.json says {positions} positions"),
                        positions=arch.max_positions)  # fmt: skip
    expect_shape(position, (at_least(arch.max_positions), arch.d_model), position.name,
                 shown=positions)  # fmt: skip


def _check_token_types(types: np.ndarray, name: str, width: int) -> None:
    """BERT adds row 0 of the token-type table to every token of a single sentence: the
    table must be rows of the model's width, one row at least (a row of another width would
    be broadcast into the wrong numbers, or refused by numpy with no name)."""
    expect_columns(types, width, name, CONFIG_WIDTH)
    one = Message(_("a row at least: a single sentence's tokens all take its row 0"))
    expect_shape(types, (at_least(1), width), name, shown=one)


def check_vocabulary(word: Any, largest_id: int, source: str) -> None:
    """The word-embedding table against the tokenizer: every id the tokenizer can give must
    be a row of the table (transformers would fail on the first such id, mid-sentence)."""
    ids = _("a row for each id up to {largest}, which {source} gives; the tokenizer and the "
            "weights are not of one model")  # fmt: skip
    expect_shape(word, (at_least(largest_id + 1), None), word.name,
                 shown=Message(ids, largest=largest_id, source=source))  # fmt: skip


def _float_norm(norm: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(norm[0], dtype=np.float64), np.asarray(norm[1], dtype=np.float64))


def _bert_block(state: Mapping[str, Any], prefix: str, width: int) -> Block:
    attention = _attention(state, bert_attention(state, prefix + ".attention"), prefix, width)
    w_in, b_in = linear(state, prefix, "intermediate.dense", "BERT", width)
    w_out, b_out = linear(state, prefix, "output.dense", "BERT", w_in.shape[1])
    expect_shape(w_out, (w_in.shape[1], width), f"{prefix}.output.dense.weight (as x @ W)")
    return Block(
        attention,
        _norm(state, prefix + ".attention.output.LayerNorm", width),
        w_in,
        needed(b_in, f"{prefix}.intermediate.dense.bias"),
        w_out,
        needed(b_out, f"{prefix}.output.dense.bias"),
        _norm(state, prefix + ".output.LayerNorm", width),
    )


def _gpt2_block(state: Mapping[str, Any], prefix: str, width: int) -> Block:
    attention = _attention(state, gpt2_attention(state, prefix + ".attn"), prefix, width)
    w_in, b_in = conv1d(state, prefix, "mlp.c_fc")
    expect_shape(w_in, (width, w_in.shape[1]), f"{prefix}.mlp.c_fc.weight")
    w_out, b_out = conv1d(state, prefix, "mlp.c_proj", width)
    return Block(
        attention,
        _norm(state, prefix + ".ln_1", width),
        w_in,
        needed(b_in, f"{prefix}.mlp.c_fc.bias"),
        w_out,
        needed(b_out, f"{prefix}.mlp.c_proj.bias"),
        _norm(state, prefix + ".ln_2", width),
    )


def _attention(
    state: Mapping[str, Any], layer: LayerWeights, prefix: str, width: int
) -> dict[str, np.ndarray]:
    """A block's attention weights, each d_model × d_model as config.json's width says (a
    wrong one named by its checkpoint name and stored shape), and its four biases, which
    every BERT, RoBERTa and GPT-2 layer has (a missing one named as its weight's bias)."""
    for name in ("w_q", "w_k", "w_v", "w_o"):
        if layer.params[name].shape != (width, width):
            source = layer.sources[name]
            packed = source.endswith("c_attn.weight")  # GPT-2's q, k, v side by side
            expected = (width, 3 * width) if packed else (width, width)
            expect_shape(Rows(state, source), expected, source, CONFIG_WIDTH)
    for name in ("b_q", "b_k", "b_v", "b_o"):
        bias = layer.sources["w" + name[1:]].removesuffix(".weight") + ".bias"
        needed(layer.params.get(name), bias)
    return layer.params
