"""A Llama-family layer reads each tensor of its checkpoint once: its name found, its shape
held to the config's, its numbers read, in one pass (reading/models/checkpoint.linear), where
a second read of the same weight would load it from the file again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

from attncli.reading.models.model import read_config
from attncli.reading.models.weights import network
from attncli.reading.parse.tensor_files import open_safetensors

MODELS = Path(__file__).resolve().parent.parent / "models"


class Counted(Mapping[str, np.ndarray]):
    """A checkpoint that counts how often each tensor is read."""

    def __init__(self, tensors: Mapping[str, np.ndarray]) -> None:
        self.tensors, self.reads = tensors, Counter[str]()

    def __getitem__(self, name: str) -> np.ndarray:
        self.reads[name] += 1
        return self.tensors[name]

    def __contains__(self, name: object) -> bool:  # by the names, as the file's header
        return name in self.tensors

    def __iter__(self) -> Iterator[str]:
        return iter(self.tensors)

    def __len__(self) -> int:
        return len(self.tensors)


@pytest.mark.parametrize("name", ["tiny-llama", "tiny-qwen2", "tiny-gpt-oss", "tiny-deepseek-v3"])
def test_each_tensor_of_a_layer_is_read_once(name):
    tensors = open_safetensors([str(MODELS / name / "model.safetensors")])
    state = Counted({tensor: np.asarray(tensors[tensor]) for tensor in tensors})
    block = network(state, read_config(str(MODELS / name))[1]).blocks[1]
    assert block.attention
    layer = {tensor: count for tensor, count in state.reads.items() if ".layers.1." in tensor}
    assert any("self_attn" in tensor for tensor in layer)
    assert set(layer.values()) == {1}, {tensor: n for tensor, n in layer.items() if n > 1}
