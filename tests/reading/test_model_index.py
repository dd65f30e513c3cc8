"""A sharded model's index, model.safetensors.index.json: its weight_map read as an object of
tensor names and shard files, anything else refused in one line naming the index and the
field (reading/models/files.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from attncli.errors import InputError
from attncli.reading.models.model import load_model
from tests import tiny_models
from tests.meaning import A_LIST_NOT_FIELDS, WRONG, in_file, told

WEIGHT_MAP = "an object of each tensor's name and the shard file that holds it"


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    folder = tmp_path_factory.mktemp("original") / "bert"
    tiny_models.write_bert(folder)
    return folder


@pytest.mark.parametrize(
    ("index", "value"),
    [({"metadata": {}}, "null"),
     ({"weight_map": ["model-00001-of-00001.safetensors"]},
      '["model-00001-of-00001.safetensors"]'),
     ({"weight_map": {"embeddings.word_embeddings.weight": 1}},
      '{"embeddings.word_embeddings.weight": 1}')],
)  # fmt: skip
def test_a_weight_map_that_names_no_shards_is_refused(original, tmp_path, index, value):
    folder = tmp_path / "bert"
    shutil.copytree(original, folder)
    (folder / "model.safetensors").rename(folder / "model-00001-of-00001.safetensors")
    path = folder / "model.safetensors.index.json"
    path.write_text(json.dumps(index))
    with pytest.raises(InputError) as caught:
        load_model(str(folder))
    told(caught.value, InputError, WRONG, where=in_file(str(path), "weight_map"), kind=value,
         expected=(WEIGHT_MAP, {}))  # fmt: skip


def test_an_index_that_is_no_object_is_refused(original, tmp_path):
    folder = tmp_path / "bert"
    shutil.copytree(original, folder)
    (folder / "model.safetensors").unlink()
    path = folder / "model.safetensors.index.json"
    path.write_text("[1, 2]")
    with pytest.raises(InputError) as caught:
        load_model(str(folder))
    told(caught.value, InputError, WRONG, where=str(path), **A_LIST_NOT_FIELDS)
