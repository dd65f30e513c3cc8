"""A whole BERT, RoBERTa or GPT-2 checkpoint as core.transformer.Network, by the names
transformers gives it (the attention layers through reading/models/checkpoint.py's table):

    BERT/RoBERTa {root}embeddings.word_embeddings / position_embeddings /
                 token_type_embeddings / LayerNorm; {root}encoder.layer.N.attention (the
                 table), .attention.output.LayerNorm, .intermediate.dense (nn.Linear),
                 .output.dense (nn.Linear), .output.LayerNorm
    GPT-2        {root}wte, wpe; {root}h.N.ln_1, .attn (the table), .ln_2, .mlp.c_fc and
                 .mlp.c_proj (Conv1D), {root}ln_f

{root} is whatever the checkpoint puts in front ("", "bert.", "roberta.", "transformer.").
LayerNorm's weight/bias may be named gamma/beta, as older checkpoints do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import numpy as np

from attncli.core.transformer import Architecture, Block, Network
from attncli.errors import InputError, ShapeError
from attncli.messages import _
from attncli.reading.models.checkpoint import (
    bert_attention,
    conv1d,
    expect_shape,
    get_named,
    gpt2_attention,
    joined,
    linear,
    optional_named,
)
from attncli.reading.parse.values import shape_text


def checkpoint_root(names: list[str], family: str) -> str:
    """What a checkpoint puts before the model's own names ("", "bert.", "transformer.")."""
    marker = "wte.weight" if family == "gpt2" else "embeddings.word_embeddings.weight"
    for name in names:
        if name == marker or name.endswith("." + marker):
            return name[: -len(marker)]
    raise InputError(
        _("no {marker} in the checkpoint: it does not hold a {family} model's weights"),
        marker=marker,
        family=family,
    )


def _norm(state: Mapping[str, Any], prefix: str, width: int) -> tuple[np.ndarray, np.ndarray]:
    names = ("weight", "bias") if joined(prefix, "weight") in state else ("gamma", "beta")
    kind = "LayerNorm"
    gamma, beta = (get_named(state, prefix, name, kind) for name in names)
    return (
        expect_shape(gamma, (width,), joined(prefix, names[0])),
        expect_shape(beta, (width,), joined(prefix, names[1])),
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
        if rows is not None:
            return np.asarray(rows(self.name, ids))
        return np.asarray(self.state[self.name])[ids]


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
    def f(array: np.ndarray) -> np.ndarray:
        # The layout kept: nn.Linear's W^T stays a transposed view of a contiguous W, copied
        # in order, which BLAS reads as transposed at no cost.
        return np.asarray(array, dtype=np.float64, order="K")

    return Block(
        {name: f(value) for name, value in block.attention.items()},
        (f(block.norm_1[0]), f(block.norm_1[1])),
        f(block.w_in),
        f(block.b_in),
        f(block.w_out),
        f(block.b_out),
        (f(block.norm_2[0]), f(block.norm_2[1])),
    )


def _present(state: Mapping[str, Any], prefix: str, name: str, kind: str) -> str:
    full = joined(prefix, name)
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
    if gpt2:
        blocks = _Blocks(lambda i: _gpt2_block(state, f"{root}h.{i}"), count)
        final = _float_norm(_norm(state, root + "ln_f", arch.d_model))
        return Network(arch, word, position, blocks, final_norm=final)
    types = optional_named(state, embeddings, "token_type_embeddings.weight")
    if types is None:  # transformers would draw it at random: the numbers would be no model's
        raise _missing(f"{embeddings}.token_type_embeddings.weight")
    blocks = _Blocks(lambda i: _bert_block(state, f"{root}encoder.layer.{i}"), count)
    norm = _float_norm(_norm(state, embeddings + ".LayerNorm", arch.d_model))
    return Network(arch, word, position, blocks, token_type=types, embedding_norm=norm)


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


def _float_norm(norm: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(norm[0], dtype=np.float64), np.asarray(norm[1], dtype=np.float64))


def _bert_block(state: Mapping[str, Any], prefix: str) -> Block:
    attention = _with_biases(bert_attention(state, prefix + ".attention").params, prefix)
    width = attention["w_q"].shape[0]
    w_in, b_in = linear(state, prefix, "intermediate.dense", "BERT", width)
    w_out, b_out = linear(state, prefix, "output.dense", "BERT", w_in.shape[1])
    return Block(
        attention,
        _norm(state, prefix + ".attention.output.LayerNorm", width),
        w_in,
        _bias(b_in, f"{prefix}.intermediate.dense.bias"),
        w_out,
        _bias(b_out, f"{prefix}.output.dense.bias"),
        _norm(state, prefix + ".output.LayerNorm", width),
    )


def _gpt2_block(state: Mapping[str, Any], prefix: str) -> Block:
    attention = _with_biases(gpt2_attention(state, prefix + ".attn").params, prefix)
    width = attention["w_q"].shape[0]
    w_in, b_in = conv1d(state, prefix, "mlp.c_fc")
    w_out, b_out = conv1d(state, prefix, "mlp.c_proj", width)
    return Block(
        attention,
        _norm(state, prefix + ".ln_1", width),
        w_in,
        _bias(b_in, f"{prefix}.mlp.c_fc.bias"),
        w_out,
        _bias(b_out, f"{prefix}.mlp.c_proj.bias"),
        _norm(state, prefix + ".ln_2", width),
    )


def _bias(bias: np.ndarray | None, name: str) -> np.ndarray:
    """A model's bias, which every BERT, RoBERTa and GPT-2 layer has: a missing one is
    refused, never taken for zeros."""
    if bias is None:
        raise _missing(name)
    return bias


def _with_biases(attention: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The attention layer's weights, its four biases among them (see _bias)."""
    for name in ("b_q", "b_k", "b_v", "b_o"):
        if name not in attention:
            raise _missing(f"{prefix}: the attention's {name}")
    return attention


def _missing(name: str) -> InputError:
    return InputError(
        _(
            "{name} is missing from the checkpoint; the model's layers have it (transformers "
            "would fill it with random numbers), so the file is not this model's whole"
        ),
        name=name,
    )
