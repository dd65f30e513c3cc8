"""A Llama 3 GGUF file's rope_freqs.weight: llama.cpp's converter writes there, a number per
pair, the llama3 scaling's divisors, and llama.cpp divides each θ_i by its number. attn reads
it so (core/rotary.py's rope_type "factors"): the frequencies are transformers' llama3 ones
for the config the numbers came from, and so is every layer's attention."""

from __future__ import annotations

import io
import math
from dataclasses import replace

import numpy as np
import pytest

from attncli.core.rotary import Scaling, model_frequencies
from attncli.core.transformer import forward
from attncli.errors import InputError, ShapeError
from attncli.reading.models import gguf_rope
from attncli.reading.models.model import load_model
from tests import tiny_gguf
from tests.meaning import WRONG, in_file, told
from tests.meaning import plain as as_data

# a tensor of a file, where a refusal of its shape points (config_fields.IN_TENSOR)
IN_TENSOR = "{path}: tensor {name}"

# Llama 3.2's published rope_scaling and rope_theta (its head_dim 64, as the tiny file's)
LLAMA_32 = {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192, "rope_theta": 500000.0}  # fmt: skip
LLAMA_32_SCALING = Scaling("llama3", 32.0, 1.0, 4.0, 8192)


def llama3_divisors(head_dim: int, config: dict) -> list[float]:
    """What convert_hf_to_gguf.py's LlamaModel writes into rope_freqs, pair by pair."""
    base, factor = config["rope_theta"], config["factor"]
    low, high = config["low_freq_factor"], config["high_freq_factor"]
    old = config["original_max_position_embeddings"]
    low_wavelength, high_wavelength = old / low, old / high
    divisors = []
    for i in range(head_dim // 2):
        theta = 1.0 / base ** (2 * i / head_dim)
        wavelength = 2 * math.pi / theta
        if wavelength < high_wavelength:
            divisors.append(1.0)
        elif wavelength > low_wavelength:
            divisors.append(factor)
        else:
            smooth = (old / wavelength - low) / (high - low)
            divisors.append(1 / ((1 - smooth) / factor + smooth))
    return divisors


@pytest.fixture(scope="module")
def llama3_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rope-freqs")
    divisors = llama3_divisors(tiny_gguf.HEAD_DIM, LLAMA_32)
    # the three kinds of pair are all there: kept, divided, blended
    assert 1.0 in divisors and 32.0 in divisors and any(1 < d < 32 for d in divisors)
    return tiny_gguf.write_gguf(folder / "llama3.gguf", rope_base=500000.0,
                                rope_freqs=np.asarray(divisors))  # fmt: skip


def test_the_frequencies_are_transformers_llama3_ones(llama3_file):
    model = load_model(str(llama3_file))
    arch = model.architecture
    assert arch.rope_base == 500000.0 and arch.rope_scaling.kind == "factors"
    theta = arch.rope_frequencies()
    llama3 = model_frequencies(tiny_gguf.HEAD_DIM, 500000.0, LLAMA_32_SCALING)
    # the file keeps its divisors in float32
    np.testing.assert_allclose(theta, llama3, rtol=2e-7, atol=0)
    unscaled = model_frequencies(tiny_gguf.HEAD_DIM, 500000.0)
    assert np.abs(theta / unscaled - 1).max() > 0.9  # the divisors are used


def test_every_layer_equals_the_same_layers_with_the_llama3_config(llama3_file):
    model = load_model(str(llama3_file))
    ids = model.tokenizer.encode("the keys to the cabinet are on the table " * 3).ids
    run = forward(model.network, ids)

    def scaled(scaling: Scaling | None) -> object:
        return replace(model.network, architecture=replace(model.architecture,
                                                           rope_scaling=scaling))  # fmt: skip

    same = forward(scaled(LLAMA_32_SCALING), ids)
    unscaled = forward(scaled(None), ids)
    for ours, theirs, plain in zip(run.layers, same.layers, unscaled.layers, strict=True):
        np.testing.assert_allclose(ours.attention.weights, theirs.attention.weights, atol=1e-9)
        assert np.abs(ours.attention.weights - plain.attention.weights).max() > 1e-4


def test_rope_freqs_of_another_length_are_refused_as_a_tensors_shape(tmp_path):
    path = tiny_gguf.write_gguf(tmp_path / "bad.gguf", rope_freqs=np.ones(31))
    with pytest.raises(ShapeError) as caught:
        load_model(str(path))
    told(caught.value, ShapeError, WRONG,
         where=(IN_TENSOR, {"path": str(path), "name": "rope_freqs.weight"}), kind="31",
         expected=(gguf_rope.PAIRS, {"expected": "32", "head_dim": 64}))  # fmt: skip


@pytest.mark.parametrize(
    ("divisors", "pair", "found"),
    [(np.r_[np.ones(31), 0.0], 31, "0.0"), (np.r_[np.nan, np.ones(31)], 0, "NaN"),
     (np.r_[np.ones(30), -2.0, 1.0], 30, "-2.0")],
)  # fmt: skip
def test_rope_freqs_that_are_not_a_positive_divisor_a_pair_are_refused(tmp_path, divisors,
                                                                        pair, found):  # fmt: skip
    path = tiny_gguf.write_gguf(tmp_path / "bad.gguf", rope_freqs=divisors)
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG, kind=found,
         where=in_file(str(path), (gguf_rope.PAIR, {"name": "rope_freqs.weight", "pair": pair})),
         expected=as_data(gguf_rope.DIVISOR.expected))  # fmt: skip


def test_the_steps_table_says_each_pair_is_divided_by_the_files_number():
    """--steps' rotary table: the ÷ column is the file's numbers, and its heading names no
    trained length (a file's divisors carry none)."""
    from rich.console import Console

    from attncli.explain.rope_scaling import rope_pairs
    from attncli.present.format import Format
    from attncli.present.model.rope_table import rope_pairs_table

    divisors = llama3_divisors(64, LLAMA_32)
    steps = rope_pairs(64, 500000.0, Scaling("factors", divisors=tuple(divisors)), 6)
    np.testing.assert_allclose([row.divided_by for row in steps.rows], divisors, rtol=1e-12)
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(rope_pairs_table(steps, Format()))
    text = console.export_text()
    assert "factors" in text and "8,192" not in text and "8192" not in text
