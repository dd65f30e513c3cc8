"""A model's own tokenizer, through the tokenizers package (as transformers reads it).

tokenizer.json is read as it is; a BERT folder with vocab.txt alone gets the WordPiece
tokenizer that transformers builds from it (lower-casing and accents as
tokenizer_config.json says). Special tokens are added as the model was trained with them
([CLS] … [SEP] for BERT, <s> … </s> for RoBERTa, none for GPT-2).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.errors import InputError, install_command
from attncli.messages import _, either

LENGTH_FIELDS = {"gpt2": "n_positions"}  # else max_position_embeddings


@dataclass(frozen=True)
class Encoded:
    """A sentence as the model reads it."""

    ids: np.ndarray  # [T] of int64
    tokens: tuple[str, ...]  # [T]: the model's tokens as shown ([CLS], the, key, ##s, …)
    words: tuple[str, ...]  # [W]: the words the tokens make (a special token is a word)
    groups: tuple[tuple[int, ...], ...]  # [W]: each word's token positions


@dataclass
class ModelTokenizer:
    """The tokenizers.Tokenizer of a model, and the longest input the model takes."""

    tokenizer: Any  # tokenizers.Tokenizer
    positions: int  # the longest input, in tokens
    length_field: str  # the config field that sets it
    pieces: str  # "wordpiece" (## joins a word) or "bytes" (byte-level BPE)

    def encode(self, sentence: str) -> Encoded:
        """The ids, tokens and words of a sentence; more tokens than the model's positions
        are refused, naming the config field."""
        encoding = self.tokenizer.encode(sentence)
        ids = np.asarray(encoding.ids, dtype=np.int64)
        if len(ids) == 0:
            raise InputError(_("the sentence gives no tokens; give some words"))
        if len(ids) > self.positions:
            raise InputError(
                _(
                    "the sentence is {tokens} tokens and the model takes at most {positions} "
                    "({field} in its config.json); shorten it"
                ),
                tokens=len(ids),
                positions=self.positions,
                field=self.length_field,
            )
        tokens = [
            self._shown(token, span, sentence)
            for token, span in zip(encoding.tokens, encoding.offsets, strict=True)
        ]
        words, groups = self._words(tokens, encoding, sentence)
        return Encoded(ids, tuple(tokens), tuple(words), tuple(groups))

    def _shown(self, token: str, span: tuple[int, int], sentence: str) -> str:
        if self.pieces == "bytes":
            start, end = span
            return sentence[start:end].strip() or token
        return token

    def _words(
        self, tokens: list[str], encoding: Any, sentence: str
    ) -> tuple[list[str], list[tuple[int, ...]]]:
        groups: list[list[int]] = []
        previous = None
        for position, word in enumerate(encoding.word_ids):
            if word is None or word != previous or not groups:
                groups.append([position])
            else:
                groups[-1].append(position)
            previous = word
        words = []
        for group in groups:
            if self.pieces == "bytes" and encoding.word_ids[group[0]] is not None:
                start, end = encoding.offsets[group[0]][0], encoding.offsets[group[-1]][1]
                words.append(sentence[start:end].strip() or tokens[group[0]])
            else:
                words.append(
                    "".join(
                        tokens[i].removeprefix("##") if n else tokens[i]
                        for n, i in enumerate(group)
                    )
                )
        return words, [tuple(group) for group in groups]


def _tokenizer_config(folder: str) -> dict[str, Any]:
    path = os.path.join(folder, "tokenizer_config.json")
    from attncli.reading.parse.sources import json_file

    try:
        config = json_file(path)
    except FileNotFoundError:
        return {}
    return config if isinstance(config, dict) else {}


def load_tokenizer(folder: str, model_type: str, positions: int) -> ModelTokenizer:
    """The model's tokenizer: tokenizer.json, else (BERT) vocab.txt."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        command = install_command("tokenizers")  # as attn was installed (a clone too)
        raise InputError(
            _("a model's tokenizer needs the tokenizers package: {command}"), command=command
        ) from None
    pieces = "wordpiece" if model_type == "bert" else "bytes"
    field = LENGTH_FIELDS.get(model_type, "max_position_embeddings")
    path = os.path.join(folder, "tokenizer.json")
    if os.path.isfile(path):
        try:
            tokenizer = Tokenizer.from_file(path)
        except Exception as error:  # the package's own exception
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise InputError(
                _("{path} could not be read ({reason}); the file may be truncated or corrupt"),
                path=path,
                reason=reason,
            ) from None
        tokenizer.no_truncation()
        tokenizer.no_padding()
        return ModelTokenizer(tokenizer, positions, field, pieces)
    vocab = os.path.join(folder, "vocab.txt")
    if model_type == "bert" and os.path.isfile(vocab):
        from tokenizers.implementations import BertWordPieceTokenizer

        config = _tokenizer_config(folder)
        wordpiece = BertWordPieceTokenizer(
            vocab,
            lowercase=bool(config.get("do_lower_case", True)),
            strip_accents=config.get("strip_accents"),
            handle_chinese_chars=bool(config.get("tokenize_chinese_chars", True)),
        )
        return ModelTokenizer(wordpiece, positions, field, pieces)
    needs = either(["tokenizer.json", "vocab.txt"]) if model_type == "bert" else "tokenizer.json"
    raise InputError(
        _(
            "{folder} has no {needs}; save the model's tokenizer beside it (with transformers: "
            "AutoTokenizer.from_pretrained(NAME).save_pretrained('{folder}'))"
        ),
        folder=folder,
        needs=needs,
    )
