"""A GGUF file's tokenizer rebuilt with the tokenizers package, from its metadata alone.

    tokenizer.ggml.model "gpt2"   byte-level BPE: the tokens and the merges as they are, the
                                  text split first by the file's pre-tokenizer rule
                                  (tokenizer.ggml.pre, as llama.cpp splits it), then each
                                  piece's bytes; no token added before or after
    tokenizer.ggml.model "llama"  SentencePiece-style BPE: ▁ for a space (one before the text
                                  when add_space_prefix), merges from the file or, without
                                  them, from the tokens' scores; unknown characters as their
                                  bytes (<0xE2> …)

Either puts its BOS first when add_bos_token says so (a SentencePiece vocabulary that does not
say: yes), and its EOS last when add_eos_token does.

Tokens the file marks as control (<|im_start|>, <s>) are special tokens, kept whole; those
marked user-defined are added tokens, kept whole too. llama.cpp's rule for `smollm` (and
starcoder's, refact's) splits every digit on its own before GPT-2's rule: transformers' GGUF
reader does not know that rule, and differs from llama.cpp (and from the model's own
tokenizer.json) on runs of spaces before a digit; attn follows llama.cpp.
"""

from __future__ import annotations

from typing import Any

from attncli.errors import InputError, shown
from attncli.messages import Message, _, either
from attncli.reading.models.config_fields import Rule, one_of

CONTROL, USER_DEFINED = 3, 4

_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
_LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# tokenizer.ggml.pre -> (digits one by one first, the split rule), as llama.cpp reads them
PRE_TOKENIZERS: dict[str, tuple[bool, str]] = {
    "gpt-2": (False, _GPT2),
    "gpt2": (False, _GPT2),
    "smollm": (True, _GPT2),
    "starcoder": (True, _GPT2),
    "refact": (True, _GPT2),
    "llama3": (False, _LLAMA3),
    "llama-v3": (False, _LLAMA3),
    "llama-bpe": (False, _LLAMA3),
    "smaug-bpe": (False, _LLAMA3),
    "qwen2": (False, _QWEN2),
    "deepseek-r1-qwen": (False, _QWEN2),
}
MODELS = ("gpt2", "llama")
# what the keys that name a kind hold: one attn reads (KEY_IS's {known})
KINDS = one_of(MODELS, ", ".join(MODELS))
PRE_RULES = one_of(list(PRE_TOKENIZERS), ", ".join(PRE_TOKENIZERS))


CANNOT_REBUILD = _("{path}: its tokenizer cannot be rebuilt ({reason})")


# why: a metadata key the tokenizer needs, missing, or holding what attn does not read
NO_KEY = _("no {key}")
KEY_IS = _("{key} is {value}, which attn does not read; it reads {known}")


def _cannot(path: str, reason: Any) -> InputError:
    return InputError(CANNOT_REBUILD, path=path, reason=reason)


def _key(model: Any, key: str, rule: Rule | None = None, default: Any = None,
         missing: Any = None) -> Any:  # fmt: skip
    """The metadata `key` the tokenizer is rebuilt from: given (an empty text or list is
    not: `default` stands for it), and held to `rule` where one is given; else the tokenizer
    cannot be rebuilt, said naming the key (`missing`: what is said missing, else the
    key)."""
    value = model.value(key)
    value = default if value in (None, "", []) else value
    if value is None:
        reason = Message(NO_KEY, key=missing or key)
    elif rule is not None and not rule.accepts(value):
        reason = Message(KEY_IS, key=key, value=shown(repr(value), 60), known=rule.expected)
    else:
        return value
    raise _cannot(model.path, reason)


def _one_each(tokens: list[str], what: str) -> Rule:
    """A list of one `what` (a type, a score) per token."""
    return Rule(lambda given: isinstance(given, list) and len(given) == len(tokens),
                Message(what, count=len(tokens)))  # fmt: skip


def _ids(tokens: list[str]) -> Rule:
    """A token's id: a whole number below the tokens' count."""
    return Rule(lambda number: isinstance(number, int) and 0 <= number < len(tokens),
                Message(_("a token's id, below {count}"), count=len(tokens)))  # fmt: skip


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in for every byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]  # fmt: skip
    codes, extra = printable[:], 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {byte: chr(code) for byte, code in zip(printable, codes, strict=True)}


def tokenizer_files(model: Any) -> tuple[str, dict[str, Any]]:
    """tokenizer.json's text and tokenizer_config.json's fields (the special tokens, whether
    a BOS is added, the chat template) for the GGUF `model` (gguf_file.GGUF)."""
    kind = _key(model, "tokenizer.ggml.model", KINDS)
    tokens = _key(model, "tokenizer.ggml.tokens")
    one_each = _one_each(tokens, _("one type per token ({count})"))
    types = _key(model, "tokenizer.ggml.token_type", one_each, [1] * len(tokens))
    if kind == "gpt2":
        tokenizer = _byte_level(model, tokens, types)
    else:
        tokenizer = _sentencepiece(model, tokens, types)
    # the file's own flags, as llama.cpp and transformers read them (a SentencePiece
    # vocabulary that does not say adds its BOS)
    bos = bool(model.value("tokenizer.ggml.add_bos_token", kind == "llama"))
    eos = bool(model.value("tokenizer.ggml.add_eos_token", False))
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "add_bos_token": bos,
        "add_eos_token": eos,
        "model_max_length": None,
    }
    ids = _ids(tokens)
    for name, key in (("bos_token", "bos"), ("eos_token", "eos"), ("unk_token", "unknown"),
                      ("pad_token", "padding")):  # fmt: skip
        number = model.value(f"tokenizer.ggml.{key}_token_id")
        if ids.accepts(number):  # one the tokenizer adds is held to it below
            config[name] = tokens[number]
    template = model.value("tokenizer.chat_template")
    if isinstance(template, str):
        config["chat_template"] = template
    if bos or eos:
        from tokenizers import processors

        added = [tokens[_key(model, f"tokenizer.ggml.{name}_token_id", ids)]
                 for flag, name in ((bos, "bos"), (eos, "eos")) if flag]  # fmt: skip
        first = f"{config['bos_token']} " if bos else ""
        last = f" {config['eos_token']}" if eos else ""
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{first}$A{last}",
            pair=f"{first}$A{last} {first}$B:1{last}",
            special_tokens=[(token, tokens.index(token)) for token in dict.fromkeys(added)],
        )
    return tokenizer.to_str(), config


def _byte_level(model: Any, tokens: list[str], types: list[int]) -> Any:
    from tokenizers import AddedToken, Regex, decoders, pre_tokenizers, processors

    path = model.path
    pre = _key(model, "tokenizer.ggml.pre", PRE_RULES, "gpt-2")
    merges = _key(model, "tokenizer.ggml.merges")
    spelling = _bytes_to_unicode()
    alphabet = set(spelling.values())
    spelled = [
        token if set(token) <= alphabet else "".join(spelling[b] for b in token.encode("utf-8"))
        for token in tokens
    ]
    vocab = {token: number for number, token in enumerate(spelled)}
    pairs = []
    for merge in merges:
        left, space, right = merge.partition(" ")
        if not space or left + right not in vocab:
            unmade = _("the merge {merge} makes no token of the vocabulary")
            raise _cannot(path, Message(unmade, merge=repr(merge)))
        pairs.append((left, right))
    tokenizer = _bpe(path, vocab, pairs, unk_token=None, fuse_unk=False)
    digits, rule = PRE_TOKENIZERS[pre]
    steps: list[Any] = [pre_tokenizers.Digits(individual_digits=True)] if digits else []
    steps += [
        pre_tokenizers.Split(Regex(rule), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ]
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    # a token marked control spelled outside the byte alphabet is a mislabel llama.cpp
    # leaves in some files: not added, as transformers does
    control = [AddedToken(token, normalized=False, special=True)
               for token, kind in zip(tokens, types, strict=True)
               if kind == CONTROL and set(token) <= alphabet]  # fmt: skip
    tokenizer.add_special_tokens(control)
    tokenizer.add_tokens([AddedToken(token, normalized=False, special=False)
                          for token, kind in zip(tokens, types, strict=True)
                          if kind == USER_DEFINED and token in vocab])  # fmt: skip
    return tokenizer


def _sentencepiece(model: Any, tokens: list[str], types: list[int]) -> Any:
    from tokenizers import AddedToken, decoders, pre_tokenizers

    path = model.path
    vocab = {token: number for number, token in enumerate(tokens)}
    merges = model.value("tokenizer.ggml.merges")
    if merges:
        pairs = [tuple(merge.split(" ", 1)) for merge in merges]
    else:
        one_each = _one_each(tokens, _("one score per token ({count})"))
        keys = either(["tokenizer.ggml.scores", "tokenizer.ggml.merges"])
        pairs = _merges_from_scores(tokens, _key(model, "tokenizer.ggml.scores", one_each,
                                                 missing=keys))  # fmt: skip
    unknown = model.value("tokenizer.ggml.unknown_token_id")
    unk = tokens[unknown] if _ids(tokens).accepts(unknown) else None
    tokenizer = _bpe(path, vocab, pairs, unk_token=unk, fuse_unk=True, byte_fallback=True)
    prefix = bool(model.value("tokenizer.ggml.add_space_prefix", True))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement="▁", prepend_scheme="first" if prefix else "never", split=False
    )
    steps = [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
    if prefix:
        steps.append(decoders.Strip(" ", 1, 0))
    tokenizer.decoder = decoders.Sequence(steps)
    tokenizer.add_special_tokens([AddedToken(token, normalized=False, special=True)
                                  for token, kind in zip(tokens, types, strict=True)
                                  if kind == CONTROL])  # fmt: skip
    tokenizer.add_tokens([AddedToken(token, normalized=False, special=False)
                          for token, kind in zip(tokens, types, strict=True)
                          if kind == USER_DEFINED])  # fmt: skip
    return tokenizer


def _bpe(path: str, vocab: dict[str, int], pairs: list[Any], **options: Any) -> Any:
    """The BPE tokenizer of `vocab` and its merges `pairs`; what the tokenizers package
    refuses to build is said as the file's tokenizer that cannot be rebuilt."""
    from tokenizers import Tokenizer, models

    try:
        return Tokenizer(models.BPE(vocab, pairs, **options))
    except Exception as error:  # the package's own exception
        raise _cannot(path, str(error).splitlines()[0][:80]) from None


def _merges_from_scores(tokens: list[str], scores: list[float]) -> list[tuple[str, str]]:
    """The merges a SentencePiece vocabulary implies: every split of a token into two
    tokens of the vocabulary, the merge ranked by the whole token's score (best first), then
    by its halves' ids, as transformers' generate_merges ranks them."""
    ids = {token: number for number, token in enumerate(tokens)}
    found: list[tuple[float, int, int, str, str]] = []
    for token, score in zip(tokens, scores, strict=True):
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            if left in ids and right in ids:
                found.append((-float(score), ids[left], ids[right], left, right))
    found.sort()
    return [(left, right) for _s, _l, _r, left, right in found]
