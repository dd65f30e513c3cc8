"""A safetensors file's float arrays are mapped from the file rather than copied out of it
(reading/parse/tensor_files.py): the same numbers, an array written to stays the process's
own, and a file cut short is refused in one line when the array is read."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.errors import InputError
from attncli.reading.parse.tensor_files import open_safetensors


@pytest.fixture
def weights(tmp_path):
    from safetensors.numpy import save_file

    arrays = {
        "a": np.arange(12, dtype=np.float32).reshape(3, 4),
        "b": np.linspace(0, 1, 5).astype(np.float64),
        "c": np.array([1.5, -2.0], dtype=np.float16),
        "n": np.arange(3, dtype=np.int64),
    }
    path = tmp_path / "w.safetensors"
    save_file(arrays, str(path))
    return path, arrays


def test_the_mapped_arrays_are_the_files_numbers(weights):
    path, arrays = weights
    tensors = open_safetensors([str(path)])
    for name, array in arrays.items():
        np.testing.assert_array_equal(tensors[name], array)
        assert tensors[name].dtype == array.dtype


def test_an_array_written_to_leaves_the_file_as_it_was(weights):
    path, arrays = weights
    before = path.read_bytes()
    array = open_safetensors([str(path)])["a"]
    array[0, 0] = 99.0
    assert path.read_bytes() == before
    np.testing.assert_array_equal(open_safetensors([str(path)])["a"], arrays["a"])


def test_a_file_cut_short_is_refused_when_its_array_is_read(weights):
    path, _arrays = weights
    data = path.read_bytes()
    path.write_bytes(data[:-30])
    try:
        tensors = open_safetensors([str(path)])
    except InputError:
        return  # refused on opening: as good
    with pytest.raises(InputError):
        tensors["b"]
