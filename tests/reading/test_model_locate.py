"""A model found once for --model and for attn cost (reading/models/locate.on_this_machine):
a path, or a name looked up where models are kept; each caller then reads what it needs
(--model converts a GGUF file, attn cost reads its metadata alone)."""

from __future__ import annotations

import json
import shutil

import pytest

from attncli.errors import InputError
from attncli.reading.models import gguf_file, gguf_places
from attncli.reading.models.attention_config import read_shape
from attncli.reading.models.model import load_model
from tests import tiny_gguf
from tests.meaning import told


def test_an_ollama_model_of_another_host_is_found_for_attn_cost_too(places, tiny_ggufs):
    """hf.co/OWNER/REPO:TAG reads as a path, and is looked up among Ollama's manifests for
    both."""
    root = places["ollama"]
    blob = root / "blobs" / "sha256-0123abcd"
    blob.parent.mkdir()
    shutil.copy(tiny_ggufs["tiny-llama"], blob)
    manifest = root / "manifests" / "hf.co" / "owner" / "tiny-gguf" / "Q8_0"
    manifest.parent.mkdir(parents=True)
    layer = {"mediaType": gguf_places.OLLAMA_MODEL, "digest": "sha256:0123abcd"}
    manifest.write_text(json.dumps({"layers": [layer]}))
    shape, source, _config = read_shape("hf.co/owner/tiny-GGUF:Q8_0")
    assert source == str(blob) and shape.kv_heads == tiny_gguf.KV_HEADS
    assert load_model("hf.co/owner/tiny-GGUF:Q8_0").architecture.kv_heads == tiny_gguf.KV_HEADS


def test_a_file_that_is_no_model_is_refused_as_not_gguf(places, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("the keys of the car")
    with pytest.raises(InputError) as caught:
        load_model(str(notes))
    told(caught.value, InputError, gguf_file.NOT_GGUF, path=str(notes))


def test_a_gguf_path_that_is_no_regular_file_is_refused_by_both(tmp_path):
    import os

    pipe = tmp_path / "model.gguf"
    os.mkfifo(pipe)
    for read in (load_model, read_shape):
        with pytest.raises(InputError) as caught:
            read(str(pipe))
        assert caught.value.msgid.startswith("{path}: not a regular file"), caught.value.msgid
