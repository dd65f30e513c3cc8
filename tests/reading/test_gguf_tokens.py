"""A GGUF file's tokenizer rebuilt from its metadata with the tokenizers package
(reading/models/gguf_tokens.py): the ids transformers gives from the same files
(tests/references/gguf.json), llama.cpp's pre-tokenizer rule where transformers has none,
and a vocabulary it cannot rebuild refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.errors import InputError
from attncli.reading.models import gguf_tokens
from attncli.reading.models.model import load_model
from tests import tiny_gguf
from tests.meaning import told

REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "gguf.json").read_text()
)["models"]


@pytest.mark.parametrize("name", ["tiny-llama", "tiny-qwen2", "tiny-llama-spm"])
def test_the_ids_are_transformers(name, tiny_ggufs):
    tokenizer = load_model(str(tiny_ggufs[name])).tokenizer
    for case in REFERENCE[name]["ids"]:
        assert tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"], case


def test_a_sentencepiece_vocabulary_adds_its_bos_and_spells_unknown_characters_in_bytes(
    tiny_ggufs,
):
    tokenizer = load_model(str(tiny_ggufs["tiny-llama-spm"])).tokenizer
    encoded = tokenizer.encode("the ☃")
    assert encoded.ids[0] == 1  # <s>
    pieces = [tokenizer.tokenizer.id_to_token(int(i)) for i in encoded.ids]
    assert pieces[-3:] == ["<0xE2>", "<0x98>", "<0x83>"]  # ☃'s three bytes
    assert tokenizer.tokenizer.decode(encoded.ids.tolist()) == "the ☃"


def test_control_tokens_stay_whole_and_the_bos_is_added_as_the_file_says(tiny_ggufs):
    tokenizer = load_model(str(tiny_ggufs["tiny-qwen2"])).tokenizer  # add_bos_token false
    vocabulary = tokenizer.tokenizer.get_vocab()
    encoded = tokenizer.encode("<|im_start|>the keys<|im_end|>")
    assert encoded.ids[0] == vocabulary["<|im_start|>"]
    assert encoded.ids[-1] == vocabulary["<|im_end|>"]
    assert tokenizer.encode("the").ids.tolist() == [vocabulary["the"]]
    llama = load_model(str(tiny_ggufs["tiny-llama"])).tokenizer  # add_bos_token true
    assert llama.encode("the").ids.tolist() == [vocabulary["<|im_start|>"], vocabulary["the"]]


def test_smollm_splits_every_digit_first_as_llama_cpp_does(tiny_ggufs):
    """transformers' GGUF reader has no `smollm` rule and keeps ' 12' whole; llama.cpp (and
    the model's own tokenizer.json) split the digits first, then apply GPT-2's rule."""
    tokenizer = load_model(str(tiny_ggufs["tiny-llama"])).tokenizer.tokenizer
    pieces = tokenizer.pre_tokenizer.pre_tokenize_str("the  12 keys")
    assert [piece for piece, _span in pieces] == ["the", "ĠĠ", "1", "2", "Ġkeys"]
    qwen2 = load_model(str(tiny_ggufs["tiny-qwen2"])).tokenizer.tokenizer
    assert [p for p, _s in qwen2.pre_tokenizer.pre_tokenize_str("the 12")] == [
        "the", "Ġ", "1", "2"]  # fmt: skip


def test_a_pre_tokenizer_rule_it_does_not_know_is_refused(tmp_path):
    path = tiny_gguf.write_gguf(tmp_path / "jais.gguf", pre="jais")
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, gguf_tokens.CANNOT_REBUILD, path=str(path))
    reason = caught.value.fields["reason"]
    assert (reason.msgid, reason.fields["key"]) == (gguf_tokens.KEY_IS, "tokenizer.ggml.pre")
    assert reason.fields["value"] == "'jais'" and "smollm" in reason.fields["known"].split(", ")


def test_a_vocabulary_of_another_kind_is_refused(tmp_path):
    path = tiny_gguf.write_gguf(tmp_path / "rwkv.gguf", tokenizer="rwkv")
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(
        caught.value,
        InputError,
        gguf_tokens.CANNOT_REBUILD,
        path=str(path),
        reason=(gguf_tokens.KEY_IS, {"key": "tokenizer.ggml.model", "value": "'rwkv'",
                                     "known": "gpt2, llama"}),
    )  # fmt: skip
