"""A GGUF file shipped in parts (FILE.gguf.part00, .part01, … each in a package of its own, a
main package holding data/SHA256SUMS), as the Gemma 3 270M packages ship one: found by the
model's name, joined once in order into the cache, checked against the sums
(reading/models/gguf_places.py, gguf_cache.joined). The packages are made in a tmp folder put
on sys.path, laid out as pip installs them."""

from __future__ import annotations

import hashlib
import os

import pytest

from attncli.errors import InputError
from attncli.reading.models import gguf_cache, gguf_places
from attncli.reading.models.model import load_model
from tests.meaning import told

FILE = "tiny-chunked-q4_k_m.gguf"


def _package(site, name: str, files: dict[str, bytes]) -> None:
    module = name.replace("-", "_")
    record = []
    for relative, data in files.items():
        path = site / module / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        record.append(f"{module}/{relative},sha256=x,{len(data)}")
    info = site / f"{module}-1.0.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("\n".join([*record, f"{info.name}/RECORD,,"]) + "\n")


@pytest.fixture
def shipped_in_parts(tmp_path, monkeypatch, tiny_ggufs):
    """The tiny llama in three parts, in three packages, and a main package with its sums;
    an empty cache of its own."""
    data = tiny_ggufs["tiny-llama"].read_bytes()
    site = tmp_path / "site"
    site.mkdir()
    third = len(data) // 3
    pieces = [data[:third], data[third : 2 * third], data[2 * third :]]
    # numbered out of the packages' order: the parts are joined by their own numbers
    for number, piece in zip((2, 0, 1), (pieces[2], pieces[0], pieces[1]), strict=True):
        _package(site, f"tiny-chunked-gguf-part{number + 1}",
                 {f"data/{FILE}.part{number:02d}": piece})  # fmt: skip
    sums = f"{hashlib.sha256(data).hexdigest()}  {FILE}\n".encode()
    _package(site, "tiny-chunked-gguf", {"data/SHA256SUMS": sums, "__init__.py": b""})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path / "cache"))
    return {"site": site, "data": data, "cache": tmp_path / "cache"}


def test_a_model_shipped_in_parts_is_joined_once_in_order(shipped_in_parts):
    path = gguf_places.in_packages("tiny-chunked")
    assert path == str(shipped_in_parts["cache"] / "joined" / FILE)
    with open(path, "rb") as file:
        assert file.read() == shipped_in_parts["data"]
    before = os.stat(path).st_mtime_ns
    assert gguf_places.in_packages("tiny-chunked:Q4_K_M") == path
    assert os.stat(path).st_mtime_ns == before  # not joined again
    assert [n for n in os.listdir(os.path.dirname(path)) if n != FILE] == []  # no leftovers
    model = load_model("tiny-chunked")
    assert model.model_type == "llama" and model.architecture.layers == 2


def test_parts_whose_size_changed_are_joined_again(shipped_in_parts, tiny_ggufs):
    path = gguf_places.in_packages("tiny-chunked")
    with open(path, "ab") as file:
        file.write(b"stale")
    assert gguf_places.in_packages("tiny-chunked") == path
    with open(path, "rb") as file:
        assert file.read() == shipped_in_parts["data"]


def test_parts_that_do_not_give_the_sums_file_are_refused(shipped_in_parts):
    part = shipped_in_parts["site"] / "tiny_chunked_gguf_part2" / "data" / f"{FILE}.part01"
    damaged = bytearray(part.read_bytes())
    damaged[100] ^= 1
    part.write_bytes(bytes(damaged))
    with pytest.raises(InputError) as caught:
        gguf_places.in_packages("tiny-chunked")
    told(caught.value, InputError, gguf_cache.NOT_THE_FILE, path=FILE, sums="SHA256SUMS")
    joined = shipped_in_parts["cache"] / "joined"
    assert os.listdir(joined) == []  # nothing half-made or wrong left to be read


def test_a_missing_part_is_refused_naming_it(shipped_in_parts, monkeypatch):
    os.remove(shipped_in_parts["site"] / "tiny_chunked_gguf_part2" / "data" / f"{FILE}.part01")
    with pytest.raises(InputError) as caught:
        gguf_places.in_packages("tiny-chunked")
    assert caught.value.fields["number"] == "01" and caught.value.fields["file"] == FILE


def test_with_the_cache_off_the_parts_are_joined_into_a_temporary_folder(shipped_in_parts,
                                                                         monkeypatch):  # fmt: skip
    monkeypatch.setenv("ATTN_GGUF_CACHE", "off")
    path = gguf_places.in_packages("tiny-chunked")
    assert not path.startswith(str(shipped_in_parts["cache"]))
    with open(path, "rb") as file:
        assert file.read() == shipped_in_parts["data"]
    assert not shipped_in_parts["cache"].exists()


def test_another_name_finds_no_parts(shipped_in_parts):
    assert gguf_places.in_packages("tiny-other") is None
    assert not shipped_in_parts["cache"].exists()  # nothing joined
