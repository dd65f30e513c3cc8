"""A model's own tokenizer, through the tokenizers package (as transformers reads it).

tokenizer.json is read as it is; a BERT folder with vocab.txt alone gets the WordPiece
tokenizer that transformers builds from it (lower-casing and accents as
tokenizer_config.json says). Special tokens are added as the model was trained with them
([CLS] … [SEP] for BERT, <s> … </s> for RoBERTa, none for GPT-2).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.errors import InputError, first_line, imported, shown
from attncli.messages import Message, _, either
from attncli.reading.models.config_fields import FLAG, Rule, config_json, held
from attncli.reading.parse.json_text import as_json_text

LENGTH_FIELDS = {"gpt2": "n_positions"}  # else max_position_embeddings


# What a sentence itself can be refused for (attn heads names the sentence of several).
NO_TOKENS = _("the sentence gives no tokens; give some words")
TOO_LONG = _(
    "the sentence is {tokens} tokens and the model takes at most {positions} ({field} in its "
    "config.json); shorten it"
)


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
    source: str = "the tokenizer"  # the file it was read from

    def largest_id(self) -> int:
        """The largest id this tokenizer gives, its added tokens included."""
        return max(self.tokenizer.get_vocab(with_added_tokens=True).values(), default=-1)

    def encode(self, sentence: str) -> Encoded:
        """The ids, tokens and words of a sentence; more tokens than the model's positions
        are refused, naming the config field."""
        encoding = self.tokenizer_call(lambda: self.tokenizer.encode(sentence))
        ids = np.asarray(encoding.ids, dtype=np.int64)
        if len(ids) == 0:
            raise InputError(NO_TOKENS)
        if len(ids) > self.positions:
            raise InputError(
                TOO_LONG,
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

    def tokenizer_call(self, call: Callable[[], Any]) -> Any:
        """A call of the tokenizers package on the user's text. A tokenizer.json whose
        pattern backtracks past the regex engine's limit makes the package panic: its
        lines, printed from Rust past any except, are set aside with the process's stderr,
        and the panic is said in one line."""
        import sys
        import tempfile

        sys.stderr.flush()
        try:
            saved = os.dup(2)
        except OSError:  # no stderr to set aside
            saved = None
        try:
            with tempfile.TemporaryFile() as sink:
                if saved is not None:
                    os.dup2(sink.fileno(), 2)
                try:
                    return call()
                finally:
                    if saved is not None:
                        os.dup2(saved, 2)
                        os.close(saved)
        except BaseException as error:
            if type(error).__name__ != "PanicException":  # pyo3's, a BaseException
                raise
            raise InputError(
                _(
                    "{path}: the tokenizer failed on this sentence ({reason}); the file's "
                    "patterns cannot read it: save the tokenizer again, or give another sentence"
                ),
                path=self.source,
                reason=first_line(error, 80),
            ) from None

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
        # read once: each read of an Encoding's offsets or word_ids builds the whole list
        # again (per token, a 20,000-token sentence took minutes)
        offsets, word_ids = encoding.offsets, encoding.word_ids
        for position, word in enumerate(word_ids):
            # A sentencepiece-style tokenizer (Llama 2, Mistral: ▁ for a space, no
            # pre-tokenizer) gives every token word 0: a token whose span starts at a space
            # of the sentence starts a word.
            start, end = offsets[position]
            spaced = self.pieces == "bytes" and end > start and sentence[start].isspace()
            if word is None or word != previous or not groups or spaced:
                groups.append([position])
            else:
                groups[-1].append(position)
            previous = word
        words = []
        for group in groups:
            if self.pieces == "bytes" and word_ids[group[0]] is not None:
                start, end = offsets[group[0]][0], offsets[group[-1]][1]
                words.append(sentence[start:end].strip() or tokens[group[0]])
            else:
                words.append(
                    "".join(
                        tokens[i].removeprefix("##") if n else tokens[i]
                        for n, i in enumerate(group)
                    )
                )
        return words, [tuple(group) for group in groups]


def tokenizer_config(folder: str) -> dict[str, Any]:
    """tokenizer_config.json's fields (none when the folder has no such file); a file that
    is no JSON object is refused, as config.json is, never read as no fields."""
    return config_json(os.path.join(folder, "tokenizer_config.json"), None)


def load_tokenizer(folder: str, model_type: str, positions: int) -> ModelTokenizer:
    """The model's tokenizer: tokenizer.json, else (BERT) vocab.txt."""
    Tokenizer = imported("tokenizers", Message(_("a model's tokenizer"))).Tokenizer
    pieces = "wordpiece" if model_type == "bert" else "bytes"
    field = LENGTH_FIELDS.get(model_type, "max_position_embeddings")
    path = os.path.join(folder, "tokenizer.json")
    if os.path.isfile(path):
        tokenizer = _read(path, lambda: Tokenizer.from_file(path))
        _check_post_processor(tokenizer.post_processor, path)
        tokenizer.no_truncation()
        tokenizer.no_padding()
        return ModelTokenizer(tokenizer, positions, field, pieces, path)
    vocab = os.path.join(folder, "vocab.txt")
    if model_type == "bert" and os.path.isfile(vocab):
        from tokenizers.implementations import BertWordPieceTokenizer

        config = tokenizer_config(folder)
        options = _wordpiece_options(config, os.path.join(folder, "tokenizer_config.json"))
        _check_vocab(vocab, [options[name] for name in SPECIALS])
        wordpiece = _read(vocab, lambda: BertWordPieceTokenizer(vocab, **options))
        return ModelTokenizer(wordpiece, positions, field, pieces, vocab)
    needs = either(["tokenizer.json", "vocab.txt"]) if model_type == "bert" else "tokenizer.json"
    raise InputError(
        _(
            "{folder} has no {needs}; save the model's tokenizer beside it (with transformers: "
            "AutoTokenizer.from_pretrained(NAME).save_pretrained('{folder}'))"
        ),
        folder=folder,
        needs=needs,
    )


def _read(path: str, reader: Callable[[], Any]) -> Any:
    """What `reader` reads of the file at `path` with the tokenizers package; a file it
    cannot read is refused with the package's reason."""
    from attncli.reading.parse.opening import corrupt

    try:
        return reader()
    except Exception as error:  # the package's own exception
        raise corrupt(path, first_line(error, 120)) from None


def _check_post_processor(processor: Any, path: str) -> None:
    """A template that adds a special token its own table does not define makes the
    tokenizers package panic at the first sentence (99 lines of Rust on stderr, past any
    except): held here, before a sentence is encoded."""
    import json

    if processor is None:
        return
    try:
        setting = json.loads(processor.__getstate__())
    except (AttributeError, TypeError, ValueError):
        return  # a processor that does not say its settings: left to the package
    for template in _templates(setting):
        defined = template.get("special_tokens") or {}
        for part in (*(template.get("single") or ()), *(template.get("pair") or ())):
            special = part.get("SpecialToken") if isinstance(part, dict) else None
            if isinstance(special, dict) and special.get("id") not in defined:
                raise InputError(
                    _(
                        "{path}: its post_processor adds the special token {token}, which its "
                        "special_tokens do not define; save the tokenizer again"
                    ),
                    path=path,
                    token=shown(repr(special.get("id")), 40),
                )


def _templates(setting: Any) -> list[dict[str, Any]]:
    """The TemplateProcessing settings in a post_processor (a Sequence holds several)."""
    if not isinstance(setting, dict):
        return []
    if setting.get("type") == "Sequence":
        return [t for one in setting.get("processors") or () for t in _templates(one)]
    return [setting] if setting.get("type") == "TemplateProcessing" else []


def _special(standard: str) -> tuple[str, Rule]:
    """A special token's default and its rule: a string (an AddedToken as transformers saves
    it gives its content)."""
    such = Message(_("the token as a string, such as {default}"), default=as_json_text(standard))
    return standard, Rule(lambda token: content(token) not in ("", None) and isinstance(
        content(token), str), such)  # fmt: skip


def content(token: Any) -> Any:
    """A special token's text: the token itself, or an AddedToken's content as transformers
    saves it (a dict)."""
    return token.get("content") if isinstance(token, dict) else token


# tokenizer_config.json's fields that BertTokenizer reads, as BertWordPieceTokenizer's
# keywords: keyword -> (field, default, rule). null strip_accents follows lowercase.
NULLABLE = Rule(lambda v: v is None or isinstance(v, bool), either(["true", "false", "null"]))
OPTIONS = {
    "lowercase": ("do_lower_case", True, FLAG),
    "strip_accents": ("strip_accents", None, NULLABLE),
    "handle_chinese_chars": ("tokenize_chinese_chars", True, FLAG),
    **{keyword: (keyword, *_special(standard)) for keyword, standard in
       (("unk_token", "[UNK]"), ("sep_token", "[SEP]"), ("cls_token", "[CLS]"))},
}  # fmt: skip
SPECIALS = ("unk_token", "sep_token", "cls_token")


def _wordpiece_options(config: dict[str, Any], path: str) -> dict[str, Any]:
    """The WordPiece tokenizer's settings from tokenizer_config.json, each held to its rule:
    a flag true, false (or null where transformers allows it), a special token a string;
    "yes" or a number is refused rather than read as true."""
    return {keyword: content(held(config.get(name, default), path, name, rule))
            for keyword, (name, default, rule) in OPTIONS.items()}  # fmt: skip


# why a special token is needed in vocab.txt (checkpoint.MISSING_PART's {needs})
SPECIAL_LINE = _(
    "the tokenizer needs it, so {path} is not this model's whole: save it again from the "
    "model's tokenizer"
)


def _check_vocab(path: str, specials: list[str]) -> None:
    """vocab.txt as text, one token a line, with every special token the tokenizer adds
    ([CLS] … [SEP]) or puts in place of an unknown word: the tokenizers package would stop
    on the first one missing, or on a byte that is not UTF-8, with no word of where."""
    from attncli.reading.models.checkpoint import needed

    with open(path, "rb") as file:
        data = file.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(
            _(
                "{path}: line {line} is not UTF-8 text (byte {byte}); vocab.txt holds one "
                "token a line in UTF-8: save it again from the model's tokenizer"
            ),
            path=path,
            line=line,
            byte=f"0x{data[error.start]:02x}",
        ) from None
    tokens = set(text.splitlines())
    for token in specials:
        place = Message(_("{path}: the line {token}"), path=path, token=shown(token))
        needed(token if token in tokens else None, place, Message(SPECIAL_LINE, path=path))
