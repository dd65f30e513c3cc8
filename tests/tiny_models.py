"""Tiny random models written to a folder as transformers saves them: a 2-layer BERT, a
2-layer RoBERTa and a 2-layer GPT-2, a few hundred tokens of vocabulary each, made with
numpy, safetensors and tokenizers alone (no torch), the same on every machine.

tests/references/make.py reads the same folders with transformers and torch and writes
what they compute to tests/references/*.json; the tests compare attn with those numbers.
The weights' fingerprint is kept beside the numbers, so a change here shows as a changed
model, not as a wrong forward pass.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

WIDTH, HEADS, LAYERS, FFN, POSITIONS = 32, 4, 2, 64, 48
WORDS = [
    *["the", "keys", "to", "cabinet", "are", "on", "table"],
    *["pictures", "of", "dog", "is", "here", "car"],
    *["en", "las", "llaves", "del", "coche", "están", "ahí", "café", "niño"],
]
PUNCTUATION = list(".,;:!?¿¡'\"-()")
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
END = "<|endoftext|>"


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], scale: float) -> np.ndarray:
    # Generator.random() is the draw numpy keeps stable from release to release.
    return ((rng.random(shape) * 2.0 - 1.0) * scale).astype(np.float32)


def _norm(rng: np.random.Generator, name: str, weights: dict[str, np.ndarray]) -> None:
    weights[f"{name}.weight"] = 1.0 + _uniform(rng, (WIDTH,), 0.2)
    weights[f"{name}.bias"] = _uniform(rng, (WIDTH,), 0.1)


def _linear(
    rng: np.random.Generator,
    name: str,
    d_in: int,
    d_out: int,
    weights: dict[str, np.ndarray],
    conv1d: bool = False,
) -> None:
    # nn.Linear keeps weight as d_out × d_in; GPT-2's Conv1D as d_in × d_out.
    shape = (d_in, d_out) if conv1d else (d_out, d_in)
    weights[f"{name}.weight"] = _uniform(rng, shape, 1.6 / np.sqrt(d_in))
    weights[f"{name}.bias"] = _uniform(rng, (d_out,), 0.1)


def bert_weights(
    vocab_size: int, seed: int, positions: int = POSITIONS, root: str = ""
) -> dict[str, np.ndarray]:
    """BertModel's state dict (RoBERTa's too: the same names)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    weights: dict[str, np.ndarray] = {}
    weights[f"{root}embeddings.word_embeddings.weight"] = _uniform(rng, (vocab_size, WIDTH), 1.0)
    weights[f"{root}embeddings.position_embeddings.weight"] = _uniform(rng, (positions, WIDTH), 0.5)
    weights[f"{root}embeddings.token_type_embeddings.weight"] = _uniform(rng, (2, WIDTH), 0.2)
    _norm(rng, f"{root}embeddings.LayerNorm", weights)
    for layer in range(LAYERS):
        prefix = f"{root}encoder.layer.{layer}"
        for part in ("query", "key", "value"):
            _linear(rng, f"{prefix}.attention.self.{part}", WIDTH, WIDTH, weights)
        _linear(rng, f"{prefix}.attention.output.dense", WIDTH, WIDTH, weights)
        _norm(rng, f"{prefix}.attention.output.LayerNorm", weights)
        _linear(rng, f"{prefix}.intermediate.dense", WIDTH, FFN, weights)
        _linear(rng, f"{prefix}.output.dense", FFN, WIDTH, weights)
        _norm(rng, f"{prefix}.output.LayerNorm", weights)
    return weights


def gpt2_weights(vocab_size: int, seed: int, root: str = "") -> dict[str, np.ndarray]:
    """GPT2Model's state dict."""
    rng = np.random.Generator(np.random.PCG64(seed))
    weights: dict[str, np.ndarray] = {}
    weights[f"{root}wte.weight"] = _uniform(rng, (vocab_size, WIDTH), 1.0)
    weights[f"{root}wpe.weight"] = _uniform(rng, (POSITIONS, WIDTH), 0.5)
    for layer in range(LAYERS):
        prefix = f"{root}h.{layer}"
        _norm(rng, f"{prefix}.ln_1", weights)
        _linear(rng, f"{prefix}.attn.c_attn", WIDTH, 3 * WIDTH, weights, conv1d=True)
        _linear(rng, f"{prefix}.attn.c_proj", WIDTH, WIDTH, weights, conv1d=True)
        _norm(rng, f"{prefix}.ln_2", weights)
        _linear(rng, f"{prefix}.mlp.c_fc", WIDTH, FFN, weights, conv1d=True)
        _linear(rng, f"{prefix}.mlp.c_proj", FFN, WIDTH, weights, conv1d=True)
    _norm(rng, f"{root}ln_f", weights)
    return weights


def fingerprint(weights: dict[str, np.ndarray]) -> str:
    """SHA-256 over the names and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(weights):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(weights[name]).tobytes())
    return digest.hexdigest()[:16]


def _bert_vocab() -> list[str]:
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + list("0123456789ñ")
    pieces = ["##" + c for c in letters] + ["##s", "##es", "##er", "##ing"]
    words = sorted({w.replace("á", "a").replace("é", "e").replace("í", "i") for w in WORDS})
    return BERT_SPECIALS + letters + PUNCTUATION + pieces + [w for w in words if len(w) > 1]


def _write_bert_tokenizer(folder: Path, vocab: list[str]) -> None:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    ids = {token: i for i, token in enumerate(vocab)}
    tokenizer = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    tokenizer.decoder = decoders.WordPiece(prefix="##")
    tokenizer.save(str(folder / "tokenizer.json"))


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in for every byte (Radford et al.'s encoder.py)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    codes, extra = printable[:], 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {byte: chr(code) for byte, code in zip(printable, codes, strict=True)}


def _bpe(specials: list[str], specials_first: bool) -> tuple[dict[str, int], list[str]]:
    """A byte-level vocabulary: the 256 bytes, then each word merged left to right."""
    stand_in = _bytes_to_unicode()
    tokens = [stand_in[b] for b in range(256)]
    merges: list[str] = []
    known = set(tokens)
    # The words after a space first, so that " keys" merges into one token, as in GPT-2.
    for text in [" " + word for word in WORDS] + WORDS:
        pieces = [stand_in[b] for b in text.encode("utf-8")]
        merged = pieces[0]
        for piece in pieces[1:]:
            if merged + piece not in known:
                merges.append(f"{merged} {piece}")
                tokens.append(merged + piece)
                known.add(merged + piece)
            merged += piece
    ordered = specials + tokens if specials_first else tokens + specials
    return {token: i for i, token in enumerate(ordered)}, merges


def _write_bpe_tokenizer(folder: Path, roberta: bool) -> dict[str, int]:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    specials = ROBERTA_SPECIALS if roberta else [END]
    vocab, merges = _bpe(specials, specials_first=roberta)
    pairs = [tuple(m.split(" ")) for m in merges]
    tokenizer = Tokenizer(models.BPE(vocab, pairs, unk_token=None))
    tokenizer.add_special_tokens(specials)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    if roberta:
        tokenizer.post_processor = processors.RobertaProcessing(
            ("</s>", vocab["</s>"]),
            ("<s>", vocab["<s>"]),
            trim_offsets=True,
            add_prefix_space=False,
        )
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (folder / "merges.txt").write_text(
        "#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8"
    )
    return vocab


def _save(folder: Path, weights: dict[str, np.ndarray], config: dict) -> None:
    from safetensors.numpy import save_file

    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")


def write_bert(folder: Path, seed: int = 1, tokenizer_json: bool = True) -> dict[str, np.ndarray]:
    """A 2-layer BERT in `folder`; with tokenizer_json false, vocab.txt alone."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = _bert_vocab()
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    if tokenizer_json:
        _write_bert_tokenizer(folder, vocab)
    (folder / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "BertTokenizer",
                "do_lower_case": True,
                "model_max_length": POSITIONS,
                "unk_token": "[UNK]",
                "sep_token": "[SEP]",
                "pad_token": "[PAD]",
                "cls_token": "[CLS]",
                "mask_token": "[MASK]",
            }
        ),
        encoding="utf-8",
    )
    weights = bert_weights(len(vocab), seed)
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": len(vocab),
        "hidden_size": WIDTH,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": FFN,
        "hidden_act": "gelu",
        "max_position_embeddings": POSITIONS,
        "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "position_embedding_type": "absolute",
    }
    _save(folder, weights, config)
    return weights


def write_roberta(folder: Path, seed: int = 3) -> dict[str, np.ndarray]:
    """A 2-layer RoBERTa in `folder`: positions counted from padding_idx + 1 = 2."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = _write_bpe_tokenizer(folder, roberta=True)
    weights = bert_weights(len(vocab), seed, positions=POSITIONS + 2)
    weights.pop("embeddings.token_type_embeddings.weight")
    weights["embeddings.token_type_embeddings.weight"] = np.zeros((1, WIDTH), np.float32)
    config = {
        "architectures": ["RobertaModel"],
        "model_type": "roberta",
        "vocab_size": len(vocab),
        "hidden_size": WIDTH,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": FFN,
        "hidden_act": "gelu",
        "max_position_embeddings": POSITIONS + 2,
        "type_vocab_size": 1,
        "layer_norm_eps": 1e-5,
        "pad_token_id": 1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
    }
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "RobertaTokenizer", "model_max_length": POSITIONS}),
        encoding="utf-8",
    )
    _save(folder, weights, config)
    return weights


def write_gpt2(folder: Path, seed: int = 2, root: str = "transformer.") -> dict[str, np.ndarray]:
    """A 2-layer GPT-2 in `folder`, its names as GPT2LMHeadModel saves them (root)."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = _write_bpe_tokenizer(folder, roberta=False)
    weights = gpt2_weights(len(vocab), seed, root=root)
    config = {
        "architectures": ["GPT2Model"],
        "model_type": "gpt2",
        "vocab_size": len(vocab),
        "n_embd": WIDTH,
        "n_layer": LAYERS,
        "n_head": HEADS,
        "n_positions": POSITIONS,
        "n_inner": FFN,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "bos_token_id": vocab[END],
        "eos_token_id": vocab[END],
    }
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "GPT2Tokenizer", "model_max_length": POSITIONS}),
        encoding="utf-8",
    )
    _save(folder, weights, config)
    return weights


WRITERS = {"bert": write_bert, "roberta": write_roberta, "gpt2": write_gpt2}

SENTENCES = [
    "the keys to the cabinet are on the table",
    "The pictures of the dog are here!",
    "en las llaves del coche están ahí",
    "¿el café del niño? ¡ahí está!",
    'keys, keys; keys: (the car) "is" here...',
    "unknown ☃ snowman and 日本 and 🙂 here",
    "Tháe KEYS   are\ton the\ntable",
]
