"""Files of named arrays, read lazily: .safetensors (one file, or shards with their index),
.npz, .npy and JSON. Pickle (.pt, .bin, .pth, .ckpt) is never opened.

    tensors = open_tensors("layer.safetensors")   # a Tensors: Mapping[str, np.ndarray]
    tensors.shape("in_proj_weight")               # (12, 4), without reading the array
    tensors["in_proj_weight"]                     # read now, as stored (float32 stays float32)
    tensors.nbytes                                # what reading every array would take

safetensors files are read through the safetensors package's numpy API (safe_open), which
maps the file and reads one array when it is asked for; but for bfloat16, the dtype Llama,
Mistral and Qwen2 checkpoints are stored in, that API refuses to make an array
(safetensors 0.8: "TypeError: data type 'bfloat16' not understood", numpy having no such
dtype), so a BF16 array is memory-mapped here from the offsets in the file's header and
widened to float32 when it is read: a bfloat16 is the top 16 bits of a float32, so the
widening is exact (bfloat16_to_float32). Every failure is an InputError of one line naming
the file.
"""

from __future__ import annotations

import codecs
import math
import os
import zipfile
from collections.abc import Iterator, Mapping
from typing import IO, Any

import numpy as np

from attncli.errors import InputError, imported
from attncli.messages import Message, _
from attncli.reading.parse.opening import check_regular, decoded, reading

PICKLE_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt", ".pkl", ".pickle")
SUFFIXES = (".safetensors", ".npz", ".npy", ".json")
SAFE_DTYPES = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
    "BF16": 2,  # read by attn itself: see the module's docstring
}
CONVERT = 'safetensors.torch.save_file(module.state_dict(), "layer.safetensors")'
# What to give in place of a weight file that is not there.
WEIGHT_FILES = _("give the path of a .safetensors, .npz, .npy or .json file")


def npy_header(stream: IO[bytes], where: str) -> tuple[tuple[int, ...], np.dtype]:
    """A .npy array's shape and dtype from its header by numpy's own format module, its data
    not read; an array of an object dtype (`where`: the file, or an archive's member) is
    refused: its data is pickled Python objects, which attn never loads. A stream that is no
    .npy array is a ValueError."""
    from numpy.lib import format as npy

    version = npy.read_magic(stream)
    read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
    shape, _fortran_order, dtype = read_header(stream)
    if dtype.hasobject:
        raise InputError(
            _(
                "{where} holds Python objects (pickled data), which attn never loads; save "
                "plain numeric arrays, e.g. numpy.savez(path, name=array.astype(float))"
            ),
            where=where,
        )
    return shape, dtype


def numpy_headers(path: str) -> list[tuple[str, str, tuple[int, ...], int]]:
    """The arrays of a .npy file or an .npz archive from their headers alone, their data not
    read: each one's name (an archive's, or '' for a .npy file), where a message says it
    is, its shape and the bytes it takes. An array of Python objects is refused
    (npy_header), and one whose header claims more bytes than the file holds for it; a
    file that is neither refused as such. A file that is no numpy file inside is a
    ValueError (zipfile.BadZipFile too), for the caller to say."""
    with open(path, "rb") as file:
        magic = file.read(6)
        file.seek(0)
        if magic.startswith(b"\x93NUMPY"):
            return [_checked_header("", path, file, os.fstat(file.fileno()).st_size)]
        if not magic.startswith(b"PK"):
            raise InputError(
                _("{path}: not a .npy or .npz file (save arrays with numpy.save/savez)"),
                path=path,
            )
        read = []
        with zipfile.ZipFile(file) as archive:
            for member in archive.infolist():
                with archive.open(member) as stream:
                    name, where = member.filename.removesuffix(".npy"), f"{path}: {member.filename}"
                    read.append(_checked_header(name, where, stream, member.file_size))
    return read


def _checked_header(
    name: str, where: str, stream: IO[bytes], total_bytes: int
) -> tuple[str, str, tuple[int, ...], int]:
    """One array's name, where, shape and bytes from its header, held to the bytes that
    follow it (`total_bytes`, the header's own included)."""
    shape, dtype = npy_header(stream, where)
    claimed = dtype.itemsize * math.prod(shape)
    if claimed > total_bytes:
        raise InputError(
            _(
                "{source}: the header says shape {tuple} ({claimed:,} bytes) but the file "
                "holds {total_bytes:,} bytes; the file is cut short or not written by "
                "numpy.save"
            ),
            source=where,
            tuple=tuple(shape),
            claimed=claimed,
            total_bytes=total_bytes,
        )
    return name, where, tuple(shape), claimed


def refuse_pickle(path: str) -> None:
    """A pickle file (.pt, .bin…), named by its suffix, is refused wherever a file is
    given, in one line with the conversion that makes it safe."""
    if not path.lower().endswith(PICKLE_SUFFIXES):
        return
    name = os.path.basename(path)
    raise InputError(
        _(
            "{name} is a pickle file, which can run code when it is opened, and attn never opens "
            "one; save the weights as safetensors with torch: {command}"
        ),
        name=name,
        command=CONVERT,
    )


class Tensors(Mapping[str, np.ndarray]):
    """Named arrays from a file, each read when it is first asked for."""

    def __init__(
        self,
        path: str,
        shapes: dict[str, tuple[int, ...]],
        sizes: dict[str, int],
        load: Any,
        others: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.others = others  # a JSON document's fields that are not arrays (tokens, notes)
        self._rows: Any = None  # (name, row) -> that row alone, where the format allows
        self._shapes = shapes
        self._sizes = sizes
        self._load = load  # name -> np.ndarray

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._shapes:
            raise KeyError(name)
        return self._read(name, lambda: self._load(name))

    def _read(self, name: str, read: Any) -> np.ndarray:
        """What `read()` gives of the array `name`; an array the file holds but cannot give
        is one line naming it."""
        with reading(f"{self.path}: {name}", refused=(ValueError, TypeError, RuntimeError)):
            return np.asarray(read())

    def __contains__(self, name: object) -> bool:
        return name in self._shapes  # Mapping's own would read the array

    def __iter__(self) -> Iterator[str]:
        return iter(self._shapes)

    def __len__(self) -> int:
        return len(self._shapes)

    def rows(self, name: str, ids: np.ndarray) -> np.ndarray:
        """array[ids] for a 2-D array, reading only those rows where the file allows."""
        # [V, d], [T] of int -> [T, d]
        if self._rows is None:
            return self[name][ids]
        rows = lambda: np.concatenate([self._rows(name, int(i)) for i in ids])  # noqa: E731
        return self._read(name, rows).reshape(len(ids), *self._shapes[name][1:])

    def shape(self, name: str) -> tuple[int, ...]:
        """An array's shape, read from the header alone."""
        return self._shapes[name]

    @property
    def nbytes(self) -> int:
        """The bytes of every array, as stored."""
        return sum(self._sizes.values())

    @property
    def computed_bytes(self) -> int:
        """The bytes of every array as attn computes with it, float64: from the shapes the
        file's header gives, before any array is read (an F16 file takes four times its size)."""
        return 8 * sum(math.prod(shape) for shape in self._shapes.values())


def bfloat16_to_float32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 numbers, given as their 16 bits (uint16), as float32: the same sign,
    exponent and leading mantissa bits with 16 zero bits below, so every value is exact.

    >>> bfloat16_to_float32(np.array([0x3F80, 0xC040, 0x3EAB], dtype=np.uint16)).tolist()
    [1.0, -3.0, 0.333984375]
    """
    # [...] of uint16 -> [...] of float32
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


# The dtypes of a safetensors file read through a map of its bytes rather than copied out:
# bfloat16, which numpy has no dtype for, as its 16 bits (widened when it is read).
MAPPED = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2"}


class _Mapped:
    """The arrays of one safetensors file mapped from its header's offsets (a safetensors
    file: 8 bytes of header length, the JSON header, then the data), copy on write (an
    array written to is the process's own): a model's weights are read once, as they are
    turned into float64, rather than copied out of the file first; a bfloat16 array is
    widened to float32 as it is read."""

    def __init__(self, path: str) -> None:
        import json
        import struct

        with open(path, "rb") as file:
            (length,) = struct.unpack("<Q", file.read(8))
            self.header = json.loads(file.read(length))
        self.path, self.start = path, 8 + length

    def array(self, name: str, rows: slice = slice(None)) -> np.ndarray:
        entry = self.header[name]
        begin, end = (int(n) for n in entry["data_offsets"])
        shape = tuple(int(n) for n in entry["shape"])
        dtype = np.dtype(MAPPED[entry["dtype"]])  # offsets held to the shape by safe_open
        if not shape or end == begin:  # a map of no bytes: numpy refuses it
            mapped = np.zeros(shape, dtype=dtype)
        else:
            mapped = np.memmap(self.path, dtype=dtype, mode="c", offset=self.start + begin,
                               shape=shape)[rows]  # fmt: skip
        return bfloat16_to_float32(mapped) if entry["dtype"] == "BF16" else mapped


def open_tensors(path: str) -> Tensors:
    """The arrays of a .safetensors, .npz, .npy or .json file (a .npy holds one array,
    named by the file's stem); a pickle file is refused with the conversion to make."""
    refuse_pickle(path)
    missing = Message(WEIGHT_FILES)  # what to give, for a path not there (said by reading())
    check_regular(path, missing)  # a folder, or a pipe that no one writes
    lower = path.lower()
    if lower.endswith(".safetensors"):
        return open_safetensors([path], missing)
    if lower.endswith((".npz", ".npy")):
        return _open_numpy(path, missing)
    if lower.endswith(".json"):
        return _open_json(path, missing)
    raise InputError(
        _(
            "{path}: attn reads weights from {suffixes} files; a torch module's are saved "
            "safely with {command}"
        ),
        path=path,
        suffixes=", ".join(SUFFIXES),
        command=CONVERT,
    )


def open_safetensors(paths: list[str], missing: Message | None = None) -> Tensors:
    """One safetensors file, or the shards of one checkpoint, as a single Tensors (`missing`:
    what to give where a path is not there)."""
    safe_open = imported("safetensors", Message(_("reading .safetensors"))).safe_open
    shapes: dict[str, tuple[int, ...]] = {}
    sizes: dict[str, int] = {}
    owners: dict[str, Any] = {}
    owners_path: dict[str, str] = {}
    maps: dict[str, _Mapped] = {}  # a mapped array's name (MAPPED) -> its file's map

    def load(name: str) -> np.ndarray:
        if name in maps:
            return maps[name].array(name)
        return owners[name].get_tensor(name)

    for path in paths:
        with reading(path, refused=(Exception,), missing=missing):  # SafetensorError too
            handle = safe_open(path, framework="numpy")
            names = list(handle.keys())
            slices = {name: handle.get_slice(name) for name in names}
            mapped = _Mapped(path)
        for name, piece in slices.items():
            dtype = piece.get_dtype()
            if dtype not in SAFE_DTYPES:
                raise InputError(
                    _(
                        "{path}: {name} is stored as {dtype}, which numpy cannot hold; save it "
                        "as float32 (tensor.float()) or float16"
                    ),
                    path=path,
                    name=name,
                    dtype=dtype,
                )
            if name in owners:  # a tensor in two shards: used only when both copies agree
                first = load(name)
                second = mapped.array(name) if dtype in MAPPED else handle.get_tensor(name)
                if first.shape != second.shape or not np.array_equal(first, second):
                    raise InputError(
                        _(
                            "{name} is in two shards, {first} and {second}, with different "
                            "values; a checkpoint holds each tensor once: download the model "
                            "again"
                        ),
                        name=name,
                        first=owners_path[name],
                        second=path,
                    )
            shape = tuple(int(n) for n in piece.get_shape())
            shapes[name] = shape
            sizes[name] = int(np.prod(shape, dtype=np.int64)) * SAFE_DTYPES[dtype]
            owners[name], owners_path[name] = handle, path
            maps.pop(name, None)
            if dtype in MAPPED:
                maps[name] = mapped
    where = paths[0] if len(paths) == 1 else os.path.dirname(paths[0]) or "."

    def row(name: str, number: int) -> np.ndarray:
        if name in maps:
            return maps[name].array(name, slice(number, number + 1))
        return owners[name].get_slice(name)[number : number + 1]

    tensors = Tensors(where, shapes, sizes, load)
    tensors._rows = row
    return tensors


def _open_numpy(path: str, missing: Message) -> Tensors:
    """A .npy file (one array, named by the file's stem) or an .npz archive: its shapes from
    the headers (numpy_headers), each array read when it is asked for."""
    with reading(path, missing=missing):  # the headers' own refusals said as they are
        headers = numpy_headers(path)
        loaded = np.load(path, mmap_mode="r", allow_pickle=False)
    shapes = {name: shape for name, _where, shape, _bytes in headers}
    sizes = {name: size for name, _where, _shape, size in headers}
    if isinstance(loaded, np.ndarray):  # a .npy file: its one array, by the file's name
        stem = os.path.splitext(os.path.basename(path))[0]
        return Tensors(path, {stem: shapes[""]}, {stem: sizes[""]}, lambda _: np.array(loaded))
    return Tensors(path, shapes, sizes, lambda name: loaded[name])


def _open_json(path: str, missing: Message) -> Tensors:
    """A JSON object of named arrays, read by the one JSON reader (a key given twice is
    refused) and checked number by number as an -i document's fields are. A field that
    holds only text (tokens, a note) is no array: it is kept in `others`."""
    from attncli.reading.parse.json_text import parse_json
    from attncli.reading.parse.values import json_object, to_tensor

    with reading(path, missing=missing), open(path, "rb") as handle:  # what opening it said
        text = decoded(handle.read().removeprefix(codecs.BOM_UTF8), path)
    document = parse_json(
        text,
        path,
        Message(
            _("a weight file in JSON is an object of named arrays, such as {example}"),
            example='{"in_proj_weight": [[…]], "out_proj.weight": [[…]]}',
        ),
    )
    document = json_object(document, path, Message(_("a JSON object of named arrays")))
    arrays: dict[str, np.ndarray] = {}
    others: list[str] = []
    for name, value in document.items():
        if _only_text(value):
            others.append(name)  # not an array (tokens, a note): the caller decides about it
        else:
            arrays[name] = to_tensor(value, f"{path}: {name}")
    return Tensors(
        path,
        {n: tuple(a.shape) for n, a in arrays.items()},
        {n: int(a.nbytes) for n, a in arrays.items()},
        arrays.__getitem__,
        tuple(others),
    )


def _only_text(value: Any) -> bool:
    """True for a string, or a list of strings none of which reads as a number (a list of
    "1", "0.5" is a matrix written with quotes: it goes to the number check, which refuses
    it)."""
    if isinstance(value, str):
        return True
    if not isinstance(value, list) or not value:
        return False
    if not all(isinstance(item, str) for item in value):
        return False
    try:
        [float(item) for item in value]
    except ValueError:
        return True
    return False
