"""What every checkpoint reader shares: the root a checkpoint puts before its names, a
table read row by row, the layers read one at a time in float64, a name that must be
there (of its shape), and the layers' numbering."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import numpy as np

from attncli.core.transformer import Block
from attncli.messages import Message, _
from attncli.reading.models.checkpoint import expect_shape, joined, needed


def checkpoint_root(names: list[str], family: str) -> str:
    """What a checkpoint puts before the model's own names ("", "bert.", "transformer.",
    "model.")."""
    markers = {"gpt2": "wte.weight", "llama": "embed_tokens.weight"}
    marker = markers.get(family, "embeddings.word_embeddings.weight")
    root = next((name[: -len(marker)] for name in names
                 if name == marker or name.endswith("." + marker)), None)  # fmt: skip
    whose = Message(_("a {family} model's checkpoint holds it, so these are not its weights"),
                    family=family)  # fmt: skip
    return str(needed(root, marker, whose))


class Rows:
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


class Blocks(Sequence[Block]):
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
        return as_float64(self._build(number))


def as_float64(block: Block) -> Block:
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


def present(state: Mapping[str, Any], prefix: str, name: str) -> str:
    """The checkpoint's name of the model's `name` under `prefix`; one the file lacks is
    refused (checkpoint.needed)."""
    full = joined(prefix, name) if prefix else name
    return needed(full if full in state else None, full)


def shaped(state: Mapping[str, Any], prefix: str, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """The model's `name` under `prefix`, there and of `shape`."""
    full = present(state, prefix, name)
    return expect_shape(np.asarray(state[full]), shape, full)


# why a layer the config asks for is missing (checkpoint.MISSING_PART's {needs}): the
# checkpoint holds no layers, skips a number, or holds fewer than the config asks for
LAYERS_MISSING = {
    "none": _(
        "config.json asks for {count} layers and the checkpoint holds none; these weights "
        "are not this model's, or they lack their layers: download the model again"
    ),
    "gap": _(
        "the checkpoint holds {held} layers, numbered up to {start}{last}, and a checkpoint "
        "numbers its layers from 0 without a gap: download the model again"
    ),
    "fewer": _(
        "config.json asks for {count} layers and the checkpoint holds {held} ({start}0 … "
        "{start}{last}); make num_hidden_layers (n_layer for GPT-2) say {held}"
    ),
}


def check_layer_count(names: list[str], start: str, count: int) -> None:
    """config.json's layers against those the checkpoint holds (layer N is named start + N),
    which are numbered from 0 without a gap: each is needed, the first missing refused."""
    held = {
        int(number)
        for name in names
        if name.startswith(start) and (number := name[len(start) :].split(".")[0]).isdigit()
    }
    last = max(held, default=-1)
    for layer in range(max(count, last + 1)):
        case = "none" if not held else "gap" if layer < last else "fewer"
        needs = Message(LAYERS_MISSING[case], count=count, held=len(held), start=start,
                        last=last)  # fmt: skip
        needed(layer if layer in held else None, f"{start}{layer}", needs)
