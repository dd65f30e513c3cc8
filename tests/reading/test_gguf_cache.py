"""A GGUF file converted once into the cache (reading/models/gguf_cache.py): said on stderr
the first time only, read from the cache after, converted again when the file changes or the
cache's copy is not whole, and not kept at all with ATTN_GGUF_CACHE=off."""

from __future__ import annotations

import os
import shutil

import pytest

from attncli.reading.models import gguf_cache
from attncli.reading.models.model import load_model


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(folder))
    return folder


@pytest.fixture
def said(monkeypatch):
    """The notices the cache says on stderr, as messages."""
    notices = []
    monkeypatch.setattr(gguf_cache, "_notice", notices.append)
    return notices


def test_the_first_run_converts_and_says_so_the_next_reads_the_cache(tiny_ggufs, cache, said):
    path = str(tiny_ggufs["tiny-llama"])
    first = load_model(path)
    assert [m.msgid for m in said] == [gguf_cache.CONVERTING]
    assert said[0].fields["path"] == path and said[0].fields["folder"] == first.folder
    assert os.path.dirname(first.folder) == str(cache)
    assert sorted(os.listdir(first.folder)) == sorted((*gguf_cache.FILES, gguf_cache.RECORD))
    second = load_model(path)
    assert second.folder == first.folder and len(said) == 1
    assert [n for n in os.listdir(cache) if n.startswith(".")] == []  # no work folder left


def test_a_changed_file_is_converted_again_and_the_old_copy_removed(tiny_ggufs, cache, said,
                                                                   tmp_path):  # fmt: skip
    path = tmp_path / "model.gguf"
    shutil.copy(tiny_ggufs["tiny-llama"], path)
    before = load_model(str(path)).folder
    os.utime(path, ns=(1, 1))  # another modification time: another file for the cache
    after = load_model(str(path)).folder
    assert after != before and not os.path.exists(before)
    assert [m.msgid for m in said] == [gguf_cache.CONVERTING] * 2


@pytest.mark.parametrize("damage", ["truncated", "record", "missing"])
def test_a_copy_that_is_not_whole_is_converted_again_never_read(tiny_ggufs, cache, said, damage):
    path = str(tiny_ggufs["tiny-qwen2"])
    folder = load_model(path).folder
    weights = os.path.join(folder, "model.safetensors")
    if damage == "truncated":
        with open(weights, "r+b") as file:
            file.truncate(os.path.getsize(weights) // 2)
    elif damage == "record":
        with open(os.path.join(folder, gguf_cache.RECORD), "w") as file:
            file.write("{")
    else:
        os.remove(os.path.join(folder, "tokenizer.json"))
    again = load_model(path)
    assert [m.msgid for m in said] == [gguf_cache.CONVERTING, gguf_cache.NOT_WHOLE]
    assert again.folder == folder and gguf_cache.is_whole(folder)


def test_with_the_cache_off_nothing_is_kept(tiny_ggufs, tmp_path, monkeypatch, said):
    monkeypatch.setenv("ATTN_GGUF_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = load_model(str(tiny_ggufs["tiny-llama"]))
    assert not os.path.exists(tmp_path / "attncli")
    assert os.path.basename(model.folder).startswith("attn-gguf-")
    assert said == []  # nothing to announce: nothing is kept for later


def test_the_cache_is_in_the_users_cache_folder_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv("ATTN_GGUF_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert gguf_cache.cache_root() == str(tmp_path / "attncli" / "gguf")


def test_two_runs_converting_at_once_keep_the_copy_that_is_whole(tiny_ggufs, cache, said,
                                                                 monkeypatch):  # fmt: skip
    """Another run renames its conversion into place first: this run's rename fails, the
    other's whole copy is read, and no work folder is left."""
    path = str(tiny_ggufs["tiny-llama"])
    real = gguf_cache.convert
    folder = gguf_cache.entry_folder(path, str(cache))

    def raced(source, work, announce=None):
        real(source, work, announce)
        os.makedirs(folder)
        real(source, folder)  # the other run, done first

    monkeypatch.setattr(gguf_cache, "convert", raced)
    assert load_model(path).folder == folder and gguf_cache.is_whole(folder)
    assert [n for n in os.listdir(cache) if n.startswith(".")] == []


def test_a_cache_folder_that_cannot_be_made_is_one_line(tiny_ggufs, tmp_path, monkeypatch):
    from attncli.errors import InputError

    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    for folder in (taken, taken / "under-it"):
        monkeypatch.setenv("ATTN_GGUF_CACHE", str(folder))
        with pytest.raises(InputError) as caught:
            load_model(str(tiny_ggufs["tiny-llama"]))
        assert caught.value.msgid == gguf_cache.UNWRITABLE
        assert caught.value.fields["folder"] == str(folder)


def test_a_full_disk_while_converting_is_one_line_and_leaves_nothing(tiny_ggufs, cache, said,
                                                                   monkeypatch):  # fmt: skip
    """safetensors says an I/O error in its own exception, not an OSError."""
    import safetensors.numpy
    from safetensors import SafetensorError

    from attncli.errors import InputError

    def full(*args, **kwargs):
        raise SafetensorError("Error while serializing: I/O error: No space left on device")

    monkeypatch.setattr(safetensors.numpy, "save_file", full)
    with pytest.raises(InputError) as caught:
        load_model(str(tiny_ggufs["tiny-llama"]))
    assert caught.value.msgid == gguf_cache.UNWRITABLE
    assert caught.value.fields["folder"].startswith(str(cache))
    assert "No space left on device" in caught.value.fields["reason"]
    assert os.listdir(cache) == []  # no work folder, no half-written copy
