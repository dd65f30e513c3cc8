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


@pytest.mark.parametrize(
    "key", ["tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.merges"]
)
@pytest.mark.parametrize("given", [None, [], ""])
def test_a_key_missing_or_empty_is_named(key, given):
    with pytest.raises(InputError) as caught:
        gguf_tokens.tokenizer_files(Metadata(**{key: given}))
    told(caught.value, InputError, gguf_tokens.CANNOT_REBUILD, path="model.gguf",
         reason=(gguf_tokens.NO_KEY, {"key": key}))  # fmt: skip


@pytest.mark.parametrize(
    ("key", "given"), [("tokenizer.ggml.model", "bpe"), ("tokenizer.ggml.pre", "jais")]
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


def _refused_for(key: str, **keys: Any) -> tuple[str, dict[str, Any]]:
    """The reason the tokenizer of this metadata cannot be rebuilt, naming `key`."""
    with pytest.raises(InputError) as caught:
        gguf_tokens.tokenizer_files(Metadata(**keys))
    reason = caught.value.fields["reason"]
    assert reason.fields["key"] == key
    return reason.msgid, reason.fields


def test_a_type_per_token_is_held_to_the_tokens_count():
    tokens = len(tiny_gguf.vocabulary()[0])
    msgid, fields = _refused_for("tokenizer.ggml.token_type",
                                 **{"tokenizer.ggml.token_type": [1, 1]})  # fmt: skip
    assert msgid == gguf_tokens.KEY_IS
    assert (fields["known"].msgid, fields["known"].fields) == (
        "one type per token ({count})", {"count": tokens})  # fmt: skip


@pytest.mark.parametrize("given", [-1, 10**6, "0"])
def test_a_token_the_tokenizer_adds_is_held_to_the_tokens_ids(given):
    key = "tokenizer.ggml.bos_token_id"
    msgid, fields = _refused_for(key, **{"tokenizer.ggml.add_bos_token": True, key: given})
    assert msgid == gguf_tokens.KEY_IS and fields["value"] == repr(given)
    assert fields["known"].msgid == "a token's id, below {count}"


def test_a_token_the_tokenizer_adds_that_the_file_does_not_name_is_named():
    key = "tokenizer.ggml.eos_token_id"
    msgid, fields = _refused_for(key, **{"tokenizer.ggml.add_eos_token": True})
    assert msgid == gguf_tokens.NO_KEY


def test_a_sentencepiece_vocabulary_needs_merges_or_a_score_per_token():
    """Without merges, a score per token is where the merges are worked out from."""
    tokens, _scores, _types = tiny_gguf.sentencepiece_vocabulary()
    llama = {"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens,
             "tokenizer.ggml.merges": None}  # fmt: skip
    with pytest.raises(InputError) as caught:
        gguf_tokens.tokenizer_files(Metadata(**llama))
    reason = caught.value.fields["reason"]
    assert reason.msgid == gguf_tokens.NO_KEY and reason.fields["key"].msgid
    msgid, fields = _refused_for("tokenizer.ggml.scores", **llama,
                                 **{"tokenizer.ggml.scores": [0.0, 1.0]})  # fmt: skip
    assert msgid == gguf_tokens.KEY_IS
    assert fields["known"].fields == {"count": len(tokens)}
