"""A sentencepiece-style tokenizer.json (Llama 2's and Mistral's: ▁ for a space, no
pre-tokenizer, so every token is word 0): its words are still told apart at the spaces."""

from __future__ import annotations

import shutil
from pathlib import Path

from attncli.reading.models.model import load_model

MODELS = Path(__file__).resolve().parent.parent / "models"
WORDS = ["the", "keys", "to", "cabinet", "are", "on", "table"]


def _metaspace_folder(tmp_path: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, normalizers, processors

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for char in sorted(set("".join(WORDS)) | {"▁"}):
        vocab[char] = len(vocab)
    merges = []
    for word in WORDS:  # ▁word merged left to right, as sentencepiece's BPE keeps it
        merged = "▁"
        for char in word:
            if merged + char not in vocab:
                merges.append((merged, char))
                vocab[merged + char] = len(vocab)
            merged += char
    tokenizer = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>"))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]
    )
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.Strip(" ", 1, 0)])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", 1)]
    )
    tokenizer.add_special_tokens(["<unk>", "<s>", "</s>"])
    folder = tmp_path / "metaspace"
    shutil.copytree(MODELS / "tiny-mistral", folder)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_the_words_of_a_metaspace_tokenizer(tmp_path):
    model = load_model(str(_metaspace_folder(tmp_path)))
    encoded = model.tokenizer.encode("the keys to the cabinets")
    assert encoded.tokens == ("<s>", "the", "keys", "to", "the", "cabinet", "s")
    assert encoded.words == ("<s>", "the", "keys", "to", "the", "cabinets")
    assert encoded.groups == ((0,), (1,), (2,), (3,), (4,), (5, 6))
    # the tokenizers package itself gives every piece word 0
    assert set(model.tokenizer.tokenizer.encode("the keys").word_ids[1:]) == {0}
