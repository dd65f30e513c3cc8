"""A .npy or .npz file read by its headers once, for -i and --weights alike: an array of
Python objects, a header that claims more than the file holds and a file that is no numpy
file are each refused in one line, whichever option gave the file."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.errors import InputError
from attncli.reading.parse import sources
from attncli.reading.parse.tensor_files import open_tensors
from tests.meaning import PICKLED_ARRAY, told

CUT_SHORT = (
    "{source}: the header says shape {tuple} ({claimed:,} bytes) but the file holds "
    "{total_bytes:,} bytes; the file is cut short or not written by numpy.save"
)
CORRUPT = (
    "{path} could not be read ({reason}); the file may be truncated or corrupt: save it again "
    "or download it again"
)
NOT_NUMPY = "{path}: not a .npy or .npz file (save arrays with numpy.save/savez)"


def _both(path) -> list[InputError]:
    """What -i's reader and --weights' reader each refuse the file at `path` with."""
    refused = []
    for read in (sources.load_arrays, open_tensors):
        with pytest.raises(InputError) as caught:
            read(str(path))
        refused.append(caught.value)
    return refused


def test_an_array_of_objects_is_refused_by_its_header_for_both(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    for error in _both(path):
        told(error, InputError, PICKLED_ARRAY, where=str(path))


def test_a_file_cut_short_is_refused_by_its_header_for_both(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.ones((40, 40)))
    path.write_bytes(path.read_bytes()[:1000])
    for error in _both(path):
        told(error, InputError, CUT_SHORT, source=str(path), tuple=(40, 40), claimed=12800,
             total_bytes=1000)  # fmt: skip


def test_a_file_that_is_no_numpy_file_is_said_so_for_both(tmp_path):
    path = tmp_path / "w.npz"
    path.write_text("in_proj_weight = [[1, 0]]", encoding="utf-8")
    for error in _both(path):
        told(error, InputError, NOT_NUMPY, path=str(path))


def test_an_archive_s_shapes_come_from_its_headers(tmp_path):
    path = tmp_path / "w.npz"
    np.savez(path, in_proj_weight=np.ones((12, 4)), in_proj_bias=np.zeros(12))
    tensors = open_tensors(str(path))
    assert tensors.shape("in_proj_weight") == (12, 4) and tensors.nbytes == 8 * (48 + 12)
    assert np.array_equal(tensors["in_proj_bias"], np.zeros(12))


def test_a_safetensors_header_whose_offsets_disagree_with_a_shape_is_refused_on_opening(tmp_path):
    """safe_open holds each tensor's offsets to its dtype and shape before any array is
    mapped: a bfloat16 array, mapped by attn itself, is never read from such a header."""
    import json
    import struct

    header = json.dumps({"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 6]}})
    path = tmp_path / "w.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + bytes(6))
    with pytest.raises(InputError) as caught:
        open_tensors(str(path))
    told(caught.value, InputError, CORRUPT, path=str(path))
