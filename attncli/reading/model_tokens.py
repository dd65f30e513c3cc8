"""A model's own tokenizer, through the tokenizers package (as transformers reads it).

tokenizer.json is read as it is; a BERT folder with vocab.txt alone gets the WordPiece
tokenizer that transformers builds from it (lower-casing and accents as
tokenizer_config.json says). Special tokens are added as the model was trained with them
([CLS] … [SEP] for BERT, <s> … </s> for RoBERTa, none for GPT-2).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.errors import InputError, install_command

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
            raise InputError(
                "the sentence gives no tokens; give some words",
                "la frase no da ningún token; da algunas palabras",
            )
        if len(ids) > self.positions:
            raise InputError(
                f"the sentence is {len(ids)} tokens and the model takes at most {self.positions} "
                f"({self.length_field} in its config.json); shorten it",
                f"la frase tiene {len(ids)} tokens y el modelo admite como mucho "
                f"{self.positions} ({self.length_field} en su config.json); acórtala",
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
    try:
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise InputError(
            f"{path} could not be read as JSON ({error})",
            f"no se pudo leer {path} como JSON ({error})",
        ) from None
    return config if isinstance(config, dict) else {}


def load_tokenizer(folder: str, model_type: str, positions: int) -> ModelTokenizer:
    """The model's tokenizer: tokenizer.json, else (BERT) vocab.txt."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        command = install_command("tokenizers")  # as attn was installed (a clone too)
        raise InputError(
            f"a model's tokenizer needs the tokenizers package: {command}",
            f"el tokenizador de un modelo necesita el paquete tokenizers: {command}",
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
                f"{path} could not be read ({reason}); the file may be truncated or corrupt",
                f"no se pudo leer {path} ({reason}); el archivo puede estar truncado o dañado",
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
    needs = "tokenizer.json or vocab.txt" if model_type == "bert" else "tokenizer.json"
    raise InputError(
        f"{folder} has no {needs}; save the model's tokenizer beside it (with transformers: "
        f"AutoTokenizer.from_pretrained(NAME).save_pretrained('{folder}'))",
        f"{folder} no tiene {needs}; guarda el tokenizador del modelo a su lado (con "
        f"transformers: AutoTokenizer.from_pretrained(NAME).save_pretrained('{folder}'))",
    )
