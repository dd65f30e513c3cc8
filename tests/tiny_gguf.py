"""A tiny GGUF file as llama.cpp would write it, made with the gguf package's own writer (no
torch): 2 layers of width 256, 4 query heads sharing 2 key/value heads of 64, random weights
in eleven tensor types, the byte-level BPE vocabulary of tests/tiny_models.py with ChatML's
special tokens, and llama.cpp's order of W^Q's and W^K's rows (the file is written as
llama.cpp's converter leaves it; attn must undo it).

    llama  an untied output.weight, add_bos_token true (<|im_start|> put first),
           pre-tokenizer smollm
    qwen2  tied to the embeddings, q/k/v biases, no reordered rows
    llama with sentencepiece=True: the same weights, a Llama 2-style vocabulary (▁ for a
           space, byte tokens, merges from the scores, <s> added)

The same bytes on every machine: the draws come from numpy's PCG64, the K-quants' blocks are
drawn as bytes, the others quantized by gguf.quants. tests/references/make_gguf.py reads these
files with transformers and commits what it computes (tests/references/gguf.json).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tests import tiny_models

WIDTH, HEADS, KV_HEADS, LAYERS, FFN, POSITIONS = 256, 4, 2, 2, 512, 64
HEAD_DIM = WIDTH // HEADS
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
# Every tensor type attn dequantizes, at least once
TYPES = {
    0: {"attn_q": "Q4_0", "attn_k": "Q4_1", "attn_v": "Q5_0", "attn_output": "Q5_1",
        "ffn_gate": "Q4_K", "ffn_up": "Q5_K", "ffn_down": "F16"},
    1: {"attn_q": "BF16", "attn_k": "Q8_0", "attn_v": "Q6_K", "attn_output": "F32",
        "ffn_gate": "Q4_1", "ffn_up": "Q4_K", "ffn_down": "Q5_K"},
}  # fmt: skip
SEEDS = {"llama": 31, "qwen2": 32}


def vocabulary() -> tuple[list[str], list[str]]:
    """The tokens (ChatML's specials first) and the merges."""
    vocab, merges = tiny_models._bpe(SPECIALS, specials_first=True)
    return sorted(vocab, key=vocab.__getitem__), merges


SPM_SPECIALS = ["<unk>", "<s>", "</s>"]


def sentencepiece_vocabulary() -> tuple[list[str], list[float], list[int]]:
    """A SentencePiece-style vocabulary as Llama 2's files hold one: <unk>, <s>, </s>, the
    256 byte tokens <0x00> … <0xFF>, then ▁ and the letters, then each word after ▁ merged
    left to right (a piece made earlier scores higher: the merges come from the scores)."""
    tokens = SPM_SPECIALS + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256  # unknown, control, byte
    pieces: list[str] = []
    for word in tiny_models.WORDS:
        for char in "▁" + word:
            if char not in pieces:
                pieces.append(char)
    for word in tiny_models.WORDS:
        text = "▁" + word
        for end in range(2, len(text) + 1):
            if text[:end] not in pieces:
                pieces.append(text[:end])
    tokens += pieces
    types += [1] * len(pieces)
    scores = [0.0] * (len(SPM_SPECIALS) + 256) + [-float(n) for n in range(len(pieces))]
    return tokens, scores, types


def _k_blocks(rng: np.random.Generator, kind: str, shape: tuple[int, int]) -> np.ndarray:
    """Random K-quant blocks (their bytes drawn, the scales set small), scaled so that the
    weights are about ±1.6/√in like the others."""
    import gguf

    qtype = gguf.GGMLQuantizationType[kind]
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    rows, columns = shape
    raw = rng.integers(0, 256, size=(rows, columns // block, size), dtype=np.uint8)
    # the f16 scales: d, dmin first (Q4_K, Q5_K), d last (Q6_K)
    places = [slice(size - 2, size)] if kind == "Q6_K" else [slice(0, 2), slice(2, 4)]

    def scaled(factor: float) -> np.ndarray:
        blocks = raw.copy()
        for place in places:
            scale = (rng_scales * factor).astype(np.float16)
            blocks[:, :, place] = scale.view(np.uint8).reshape(rows, columns // block, 2)
        return blocks.reshape(rows, -1)

    rng_scales = rng.random((rows, columns // block)) * 0.5 + 0.5
    trial = gguf.quants.dequantize(scaled(1e-3), qtype)
    target = 1.6 / np.sqrt(columns) / np.sqrt(3)  # a uniform ± 1.6/√in's deviation
    return scaled(1e-3 * target / float(np.std(trial)))


def _tensor(rng: np.random.Generator, kind: str, shape: tuple[int, ...], scale: float) -> Any:
    """(data, raw_dtype) for the writer: a weight drawn and stored as `kind`."""
    import gguf

    if kind.endswith("_K"):
        assert len(shape) == 2
        return _k_blocks(rng, kind, (shape[0], shape[1])), gguf.GGMLQuantizationType[kind]
    drawn = tiny_models._uniform(rng, shape, scale)
    if kind == "F32":
        return drawn, None
    if kind == "F16":
        return drawn.astype(np.float16), None
    qtype = gguf.GGMLQuantizationType[kind]
    return gguf.quants.quantize(drawn, qtype), qtype


def write_gguf(
    path: Path,
    architecture: str = "llama",
    *,
    sentencepiece: bool = False,
    pre: str | None = None,
    claimed_kv_heads: int = KV_HEADS,
    tokenizer: str | None = None,
    rope_base: float | None = None,
    rope_freqs: np.ndarray | None = None,
) -> Path:
    """The tiny model of `architecture` (llama or qwen2) at `path`; with `sentencepiece`, a
    Llama 2-style vocabulary in place of the byte-level one. `pre`, `claimed_kv_heads` and
    `tokenizer` (tokenizer.ggml.model) write other metadata than the file's own (for the
    refusals' tests); `rope_base` another rope.freq_base, and `rope_freqs` a
    rope_freqs.weight tensor (float32) as Llama 3's files carry one."""
    import gguf

    rng = np.random.Generator(np.random.PCG64(SEEDS[architecture]))
    if sentencepiece:
        tokens, scores, types = sentencepiece_vocabulary()
    else:
        tokens, merges = vocabulary()
        types = [3 if t in SPECIALS else 1 for t in tokens]
    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_name(f"tiny-{architecture}")
    writer.add_block_count(LAYERS)
    writer.add_context_length(POSITIONS)
    writer.add_embedding_length(WIDTH)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(claimed_kv_heads)
    writer.add_rope_freq_base(rope_base or (10000.0 if architecture == "llama" else 1000000.0))
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_1)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if sentencepiece:
        writer.add_tokenizer_model("llama")
        writer.add_token_scores(scores)
        writer.add_bos_token_id(1)
        writer.add_eos_token_id(2)
        writer.add_unk_token_id(0)
        writer.add_add_bos_token(True)
    else:
        writer.add_tokenizer_model(tokenizer or "gpt2")
        writer.add_tokenizer_pre(pre or ("smollm" if architecture == "llama" else "qwen2"))
        writer.add_token_merges(merges)
        writer.add_bos_token_id(tokens.index("<|im_start|>"))
        writer.add_eos_token_id(tokens.index("<|im_end|>"))
        writer.add_add_bos_token(architecture == "llama")
        writer.add_chat_template(CHAT_TEMPLATE)

    def add(name: str, kind: str, shape: tuple[int, ...], scale: float) -> None:
        data, qtype = _tensor(rng, kind, shape, scale)
        writer.add_tensor(name, data, raw_dtype=qtype)

    def norm(name: str) -> None:
        writer.add_tensor(name, 1.0 + tiny_models._uniform(rng, (WIDTH,), 0.2))

    add("token_embd.weight", "Q8_0", (len(tokens), WIDTH), 1.0)
    q, kv = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    for layer in range(LAYERS):
        kinds = TYPES[layer]
        prefix = f"blk.{layer}"
        norm(f"{prefix}.attn_norm.weight")
        shapes = {"attn_q": (q, WIDTH), "attn_k": (kv, WIDTH), "attn_v": (kv, WIDTH),
                  "attn_output": (WIDTH, q), "ffn_gate": (FFN, WIDTH), "ffn_up": (FFN, WIDTH),
                  "ffn_down": (WIDTH, FFN)}  # fmt: skip
        for short, shape in shapes.items():
            add(f"{prefix}.{short}.weight", kinds[short], shape, 1.6 / np.sqrt(shape[1]))
            if architecture == "qwen2" and short in ("attn_q", "attn_k", "attn_v"):
                add(f"{prefix}.{short}.bias", "F32", (shape[0],), 0.1)
        norm(f"{prefix}.ffn_norm.weight")
    norm("output_norm.weight")
    if architecture == "llama":
        add("output.weight", "Q6_K", (len(tokens), WIDTH), 0.0)
    if rope_freqs is not None:
        writer.add_tensor("rope_freqs.weight", np.asarray(rope_freqs, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def type_offset(path: Path, name: str) -> int:
    """Where the file keeps the type number of tensor `name`."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    tensor = next(t for t in reader.tensors if t.name == name)
    return int(tensor.field.offset + sum(part.nbytes for part in tensor.field.parts[:4]))


def with_type(source: Path, target: Path, name: str, number: int) -> Path:
    """A copy of `source` at `target` whose tensor `name` says it is of type `number`."""
    import shutil

    shutil.copy(source, target)
    offset = type_offset(target, name)
    with open(target, "r+b") as file:
        file.seek(offset)
        file.write(number.to_bytes(4, "little"))
    return target


def other_architecture(path: Path, architecture: str = "phi3") -> Path:
    """A header-only GGUF file of an architecture attn does not run."""
    import gguf

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_block_count(1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def broken(kind: str, source: Path, folder: Path) -> Path:
    """A GGUF file wrong in one way, made from the good file `source`, in `folder`."""
    import gguf

    path = folder / f"{kind}.gguf"
    data = source.read_bytes()
    if kind == "not GGUF":
        path.write_bytes(b"PK\x03\x04 not a model")
    elif kind == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "version":
        path.write_bytes(data[:4] + (1).to_bytes(4, "little") + data[8:])
    elif kind == "unknown type":
        with_type(source, path, "blk.0.attn_q.weight", 250)
    elif kind == "unsupported type":  # Q4_K's blocks read as Q2_K's, which are smaller
        with_type(source, path, "blk.0.ffn_gate.weight", int(gguf.GGMLQuantizationType.Q2_K))
    elif kind == "architecture":
        other_architecture(path)
    elif kind == "shape":
        write_gguf(path, claimed_kv_heads=4)
    elif kind == "pre-tokenizer":
        write_gguf(path, pre="jais")
    elif kind == "tokenizer model":
        write_gguf(path, tokenizer="rwkv")
    elif kind == "not UTF-8":  # a byte of tokenizer.ggml.pre's text ("smollm") corrupted
        assert data.count(b"smollm") == 1
        path.write_bytes(data.replace(b"smollm", b"\xffmollm"))
    else:
        raise ValueError(kind)
    return path
