"""tokenizer_config.json read by the shared reader of a model folder's JSON
(config_fields.config_json): left out, it gives no fields; a file that is no JSON object is
refused, as config.json is, where its lower-casing and special tokens would be taken from the
defaults without a word (reading/models/tokens.py, chat.py)."""

from __future__ import annotations

import pytest

from attncli.errors import InputError
from attncli.reading.models.chat import chat_prompt
from attncli.reading.models.model import load_model
from attncli.reading.models.tokens import tokenizer_config
from tests import tiny_models
from tests.meaning import A_LIST_NOT_FIELDS, WRONG, told


@pytest.fixture(scope="module")
def vocab_only(tmp_path_factory):
    """A BERT folder whose tokenizer is vocab.txt alone, read by tokenizer_config.json."""
    folder = tmp_path_factory.mktemp("bert") / "vocab"
    tiny_models.write_bert(folder, tokenizer_json=False)
    return folder


def test_a_folder_without_the_file_gives_no_fields(tmp_path):
    assert tokenizer_config(str(tmp_path)) == {}


def test_a_file_that_is_no_object_is_refused(vocab_only, tmp_path):
    import shutil

    folder = tmp_path / "vocab"
    shutil.copytree(vocab_only, folder)
    path = folder / "tokenizer_config.json"
    path.write_text('["do_lower_case", false]')
    for read in (lambda: load_model(str(folder)),
                 lambda: chat_prompt(str(folder), "vocab", "hello")):  # fmt: skip
        with pytest.raises(InputError) as caught:
            read()
        told(caught.value, InputError, WRONG, where=str(path), **A_LIST_NOT_FIELDS)
