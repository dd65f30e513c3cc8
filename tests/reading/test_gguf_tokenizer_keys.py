"""The metadata keys a GGUF file's tokenizer is rebuilt from, each read by one reader
(gguf_tokens._key): a key missing or empty, or holding a kind attn does not read, refused in
one line naming the key (reading/models/gguf_tokens.py)."""

from __future__ import annotations

from typing import Any

import pytest

from attncli.errors import InputError
from attncli.reading.models import gguf_tokens
from tests import tiny_gguf
from tests.meaning import told


class Metadata:
    """A GGUF file's metadata alone, as gguf_file.GGUF gives it."""

    path = "model.gguf"

    def __init__(self, **keys: Any) -> None:
        tokens, merges = tiny_gguf.vocabulary()
        self.keys = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": tokens,
                     "tokenizer.ggml.merges": merges, **keys}  # fmt: skip

    def value(self, key: str, default: Any = None) -> Any:
        value = self.keys.get(key)
        return default if value is None else value


@pytest.mark.parametrize("key", ["tokenizer.ggml.tokens", "tokenizer.ggml.merges"])
@pytest.mark.parametrize("given", [None, []])
def test_a_key_missing_or_empty_is_named(key, given):
    with pytest.raises(InputError) as caught:
        gguf_tokens.tokenizer_files(Metadata(**{key: given}))
    told(caught.value, InputError, gguf_tokens.CANNOT_REBUILD, path="model.gguf",
         reason=(gguf_tokens.NO_KEY, {"key": key}))  # fmt: skip


@pytest.mark.parametrize(
    ("key", "given"), [("tokenizer.ggml.model", None), ("tokenizer.ggml.pre", "jais")]
)
def test_a_kind_attn_does_not_read_is_named_with_those_it_reads(key, given):
    with pytest.raises(InputError) as caught:
        gguf_tokens.tokenizer_files(Metadata(**{key: given}))
    reason = caught.value.fields["reason"]
    assert (reason.msgid, reason.fields["key"]) == (gguf_tokens.KEY_IS, key)
    assert reason.fields["value"] == repr(given) and reason.fields["known"]


def test_the_keys_as_given_rebuild_the_tokenizer():
    text, config = gguf_tokens.tokenizer_files(Metadata())
    assert '"type":"BPE"' in text.replace(" ", "") and config["add_bos_token"] is False
