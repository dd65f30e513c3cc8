"""GGUF models found by name where their programs keep them (reading/models/gguf_places.py):
Ollama's manifests and blobs, LM Studio's models folder, the Hugging Face cache; never
downloaded. Each place is made in a tmp folder, as the program lays it out."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from attncli.errors import InputError
from attncli.reading.models import gguf_places
from attncli.reading.models.model import load_model
from tests.meaning import told


def _ollama(root, source, parts, tag="latest", digest="0123abcd"):
    blob = root / "blobs" / f"sha256-{digest}"
    blob.parent.mkdir(exist_ok=True)
    shutil.copy(source, blob)
    manifest = root.joinpath("manifests", *parts, tag)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    layers = [{"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:ffff"},
              {"mediaType": gguf_places.OLLAMA_MODEL, "digest": f"sha256:{digest}"}]  # fmt: skip
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))
    return blob


@pytest.mark.parametrize(
    "name, parts, tag",
    [
        ("tinyllama", ["registry.ollama.ai", "library", "tinyllama"], "latest"),
        ("tinyllama:2l", ["registry.ollama.ai", "library", "tinyllama"], "2l"),
        ("someone/tiny:q4", ["registry.ollama.ai", "someone", "tiny"], "q4"),
        ("hf.co/owner/tiny-GGUF:Q8_0", ["hf.co", "owner", "tiny-gguf"], "Q8_0"),
    ],
)
def test_an_ollama_model_is_read_from_the_blob_its_manifest_names(places, tiny_ggufs, name,
                                                                  parts, tag):  # fmt: skip
    _ollama(places["ollama"], tiny_ggufs["tiny-qwen2"], parts, tag)
    model = load_model(name)
    assert model.model_type == "qwen2" and model.name == name


def test_an_ollama_manifest_whose_blob_is_missing_is_refused(places, tiny_ggufs):
    blob = _ollama(places["ollama"], tiny_ggufs["tiny-qwen2"], ["registry.ollama.ai",
                                                                 "library", "gone"])  # fmt: skip
    blob.unlink()
    with pytest.raises(InputError) as caught:
        load_model("gone")
    assert caught.value.fields["blob"] == str(blob)


def test_an_lm_studio_model_is_found_by_publisher_and_repo_or_file(places, tiny_ggufs):
    folder = places["lmstudio"] / "someone" / "Tiny-GGUF"
    folder.mkdir(parents=True)
    shutil.copy(tiny_ggufs["tiny-llama"], folder / "tiny.Q4_K_M.gguf")
    for name in ("someone/Tiny-GGUF", "Tiny-GGUF", "tiny.Q4_K_M"):
        assert load_model(name).model_type == "llama"


def test_several_quantizations_are_picked_with_a_tag_or_refused_naming_them(places, tiny_ggufs):
    folder = places["lmstudio"] / "someone" / "Tiny-GGUF"
    folder.mkdir(parents=True)
    shutil.copy(tiny_ggufs["tiny-llama"], folder / "tiny.Q4_K_M.gguf")
    shutil.copy(tiny_ggufs["tiny-qwen2"], folder / "tiny.Q8_0.gguf")
    with pytest.raises(InputError) as caught:
        load_model("someone/Tiny-GGUF")
    told(
        caught.value,
        InputError,
        gguf_places.SEVERAL,
        files="tiny.Q4_K_M.gguf, tiny.Q8_0.gguf",
        example="--model someone/Tiny-GGUF:Q4_K_M",
    )
    assert load_model("someone/Tiny-GGUF:Q8_0").model_type == "qwen2"
    assert load_model("Tiny-GGUF:q4_k_m").model_type == "llama"


def test_a_gguf_repository_in_the_hugging_face_cache_is_found(places, tiny_ggufs):
    repo = places["hub"] / "models--owner--tiny-GGUF"
    snapshot = repo / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    shutil.copy(tiny_ggufs["tiny-qwen2"], snapshot / "tiny-q4_0.gguf")
    assert load_model("owner/tiny-GGUF").model_type == "qwen2"
    assert os.path.isdir(load_model("tiny-GGUF").folder)
