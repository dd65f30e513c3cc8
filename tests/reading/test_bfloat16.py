"""bfloat16 safetensors, which safetensors' numpy API refuses: read by attn, exactly."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import InputError
from attncli.reading.parse.tensor_files import bfloat16_to_float32, open_tensors

MODELS = Path(__file__).resolve().parent.parent / "models"


def _bfloat16_file(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """A safetensors file of BF16 arrays, each the top half of its float32 bits."""
    header, data = {}, b""
    for name, array in arrays.items():
        bits = (np.asarray(array, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": "BF16", "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(bits)]}  # fmt: skip
        data += bits
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def test_a_bfloat16_array_reads_as_the_float32_it_is(tmp_path):
    exact = np.array([[1.0, -3.0, 0.5], [2.0**-20, 65280.0, -0.0]], np.float32)
    _bfloat16_file(tmp_path / "w.safetensors", {"a": exact, "b": exact[:, :2] * 2})
    tensors = open_tensors(str(tmp_path / "w.safetensors"))
    assert tensors["a"].dtype == np.float32
    np.testing.assert_array_equal(tensors["a"], exact)
    np.testing.assert_array_equal(tensors["b"], exact[:, :2] * 2)
    np.testing.assert_array_equal(tensors.rows("a", np.array([1, 0])), exact[[1, 0]])
    assert tensors.computed_bytes == 8 * (6 + 4)


def test_every_bfloat16_pattern_widens_to_its_value():
    """All 65,536 patterns, each against its value worked by hand from its bits."""
    widened = bfloat16_to_float32(np.arange(0x10000, dtype=np.uint16))
    for bits, value in enumerate(widened.tolist()):
        sign, exponent, mantissa = bits >> 15, (bits >> 7) & 0xFF, bits & 0x7F
        if exponent == 0xFF:
            assert np.isinf(value) if mantissa == 0 else np.isnan(value), bits
            continue
        # a hand-made value: subnormal below exponent 1, as IEEE 754 defines it
        expected = (mantissa / 128.0) * 2.0**-126 if exponent == 0 else (
            1 + mantissa / 128.0) * 2.0 ** (exponent - 127)  # fmt: skip
        assert value == (-expected if sign else expected), bits


def test_the_tiny_llama_is_stored_in_bfloat16():
    path = MODELS / "tiny-llama" / "model.safetensors"
    (length,) = struct.unpack("<Q", path.read_bytes()[:8])
    header = json.loads(path.read_bytes()[8 : 8 + length])
    assert {entry["dtype"] for name, entry in header.items() if name != "__metadata__"} == {"BF16"}
    tensors = open_tensors(str(path))
    norm = tensors["model.norm.weight"]
    assert norm.dtype == np.float32 and norm.shape == (32,)
    # every value is a bfloat16: its low 16 bits are zero
    assert not (norm.view(np.uint32) & 0xFFFF).any()


def test_a_bfloat16_array_shorter_than_its_shape_is_refused(tmp_path):
    path = tmp_path / "cut.safetensors"
    header = json.dumps({"a": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 4]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    with pytest.raises(InputError):
        open_tensors(str(path))["a"]
