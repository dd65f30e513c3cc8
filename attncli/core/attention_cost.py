"""What a model's attention costs, counted from its shape: the KV cache, the parameters and
the multiplications of a prefill and of one decode step. Whole numbers only (Python ints,
which never overflow); nothing here is measured.

The shape is a model's attention as its config.json gives it: L layers of width d, h query
heads of d_k (query and key) and d_v (value) numbers each, g key/value heads (g = h: multi-
head, Vaswani et al. 2017; g = 1: multi-query, Shazeer 2019; 1 < g < h: grouped-query,
Ainslie et al. 2023), a sliding window per layer (Mistral: every layer; Gemma 2, Gemma 3
and gpt-oss: some layers), learned sinks (gpt-oss: one logit per head added to each
softmax's denominator) and latent attention (MLA, DeepSeek-V2 2024: keys and values made
from a latent c_KV of r numbers per token and a rotary key of d_rope numbers shared by the
heads, the only things the cache keeps).

The conventions, as transformers' cache keeps it (tests/references/cost.json holds them):

- a layer without a window keeps every token's key and value; a layer with a window W keeps
  the last W − 1 tokens, the ones the next token reads beside its own;
- a prefill of T tokens scores each token against the keys it may see: itself and every
  earlier one, or with a window itself and the W − 1 before it;
- a FLOP is half a multiply-add: 2 × the multiplications of the matrix products (the
  projections, Q Kᵀ and the weights × V). The softmax, the √d_k division, the rotary turns,
  the norms and the sinks are elementwise and not counted;
- MLA's prefill makes each head's keys and values from the latent (W^UK, W^UV: the form
  DeepSeek-V2 trains in); its decode step absorbs W^UK into the query and W^UV into the
  output (DeepSeek-V2 §2.1.3), so that one query scores the r + d_rope cached numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# A cache dtype's bits per number: what one key or value coordinate takes.
DTYPE_BITS = {
    "float64": 64,
    "float32": 32,
    "bfloat16": 16,
    "float16": 16,
    "fp8": 8,
    "int8": 8,
    "int4": 4,
}
# The other spellings a command line or a config says them by.
DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32",
               "float": "float32", "float8": "fp8", "float8_e4m3fn": "fp8",
               "float8_e5m2": "fp8", "fp64": "float64", "double": "float64"}  # fmt: skip
DESIGNS = ("mha", "mqa", "gqa", "mla")  # --as: multi-head, multi-query, grouped, latent
MLA_ROPE = 64  # DeepSeek-V2's and V3's qk_rope_head_dim: mla:R's rotary key when not given


@dataclass(frozen=True)
class Latent:
    """Multi-head latent attention's sizes (DeepSeek-V2 and V3's config.json names)."""

    rank: int  # kv_lora_rank r: the latent c_KV, the numbers a token keeps for K and V
    rope: int  # qk_rope_head_dim d_rope: the rotary key shared by every head
    q_rank: int | None = None  # q_lora_rank: the queries' own low rank (None: W^Q whole)


@dataclass(frozen=True)
class Shape:
    """A model's attention, layer by layer."""

    layers: int  # L
    d_model: int  # d
    heads: int  # h query heads
    kv_heads: int  # g key/value heads (h: multi-head; 1: multi-query); MLA: h
    d_k: int  # a query's and key's numbers per head (MLA: qk_nope + qk_rope)
    d_v: int  # a value's numbers per head
    windows: tuple[int | None, ...]  # per layer: its sliding window W, or None (every key)
    latent: Latent | None = None
    sinks: bool = False  # a learned logit per head in each softmax (gpt-oss)
    biases: tuple[str, ...] = ()  # which projections have a bias: "q", "k", "v", "o"
    # an RMSNorm on the queries and keys: "head", d_k weights shared by the heads (Qwen3,
    # Gemma 3); "projection", over the whole of Q and of K (OLMo 2); None: none
    qk_norm: str | None = None

    @property
    def design(self) -> str:
        """mla, mha, mqa or gqa."""
        if self.latent is not None:
            return "mla"
        if self.kv_heads == self.heads:
            return "mha"
        return "mqa" if self.kv_heads == 1 else "gqa"

    @property
    def groups(self) -> list[tuple[int | None, int]]:
        """Each window the layers have (None: no window, first) and how many layers have it."""
        counted: dict[int | None, int] = {}
        for window in self.windows:
            counted[window] = counted.get(window, 0) + 1
        return sorted(counted.items(), key=lambda item: (item[0] is not None, item[0] or 0))


def kept(window: int | None, tokens: int) -> int:
    """The tokens a layer's cache holds after `tokens`: all, or the last W − 1."""
    # W or None, T -> the tokens a layer holds
    return tokens if window is None else min(tokens, window - 1)


def seen(window: int | None, position: int) -> int:
    """The keys the token at `position` (1-based) reads: itself and the earlier ones, or
    with a window W itself and the W − 1 before it."""
    # W or None, t -> the keys token t reads
    return position if window is None else min(position, window)


def pairs(window: int | None, tokens: int) -> int:
    """Query-key pairs of a causal prefill of `tokens`: Σ_t seen(window, t)."""
    # W or None, T -> the (query, key) pairs of a T × T causal grid
    if window is None or window >= tokens:
        return tokens * (tokens + 1) // 2
    return window * (window + 1) // 2 + (tokens - window) * window


def per_token(shape: Shape) -> int:
    """The numbers one token keeps in one layer's cache: g · (d_k + d_v), or MLA's r + d_rope."""
    # Shape -> numbers a token keeps in a layer
    if shape.latent is not None:
        return shape.latent.rank + shape.latent.rope
    return shape.kv_heads * (shape.d_k + shape.d_v)


def expanded_per_token(shape: Shape) -> int:
    """What a token's keys and values take once made for every head: h · (d_k + d_v) for
    MLA (what a cache that expands the latent holds), g · (d_k + d_v) otherwise."""
    heads = shape.heads if shape.latent is not None else shape.kv_heads
    return heads * (shape.d_k + shape.d_v)


def cache_numbers(shape: Shape, tokens: int, batch: int = 1) -> int:
    """The whole cache after `tokens` tokens of each of `batch` sequences, in numbers."""
    # Shape, T, B -> numbers: B × Σ_layers per_token × kept
    return batch * per_token(shape) * sum(kept(w, tokens) for w in shape.windows)


def cache_bytes(numbers: int, dtype: str) -> int:
    """`numbers` at `dtype`'s bits, rounded up to whole bytes (int4: two numbers a byte)."""
    return -(-numbers * DTYPE_BITS[dtype] // 8)


def parameters(shape: Shape) -> dict[str, int]:
    """One layer's attention parameters, by part (the weight matrices by their role, then
    the biases, the norms' weights and the sinks)."""
    d, h, g, d_k, d_v = shape.d_model, shape.heads, shape.kv_heads, shape.d_k, shape.d_v
    parts: dict[str, int] = {}
    latent = shape.latent
    if latent is None:
        parts = {"w_q": d * h * d_k, "w_k": d * g * d_k, "w_v": d * g * d_v, "w_o": h * d_v * d}
        sizes = {"q": h * d_k, "k": g * d_k, "v": g * d_v, "o": d}
        norms = {"head": 2 * d_k, "projection": (h + g) * d_k}.get(shape.qk_norm or "", 0)
    else:
        nope = d_k - latent.rope
        if latent.q_rank is None:
            parts["w_q"] = d * h * d_k
        else:  # W^DQ, then W^UQ
            parts["w_dq"] = d * latent.q_rank
            parts["w_uq"] = latent.q_rank * h * d_k
        parts["w_dkv"] = d * (latent.rank + latent.rope)  # c_KV and the rotary key k^R
        parts["w_ukv"] = latent.rank * h * (nope + d_v)  # W^UK and W^UV
        parts["w_o"] = h * d_v * d
        sizes = {"q": latent.q_rank or 0, "k": latent.rank + latent.rope, "v": 0, "o": d}
        norms = latent.rank + (latent.q_rank or 0)  # the latents' RMSNorms
    parts["biases"] = sum(sizes[name] for name in shape.biases)
    parts["norms"] = norms
    parts["sinks"] = h if shape.sinks else 0
    return parts


def weights_per_token(shape: Shape) -> int:
    """Multiplications to project one token: every weight matrix once (biases, norms and
    sinks are additions or elementwise)."""
    return sum(v for k, v in parameters(shape).items() if k.startswith("w_"))


@dataclass(frozen=True)
class Flops:
    """FLOPs (2 × multiplications) of a piece of work, in its three parts."""

    projections: int  # x W^Q, x W^K, x W^V and the heads' output × W^O (MLA: its own)
    scores: int  # Q Kᵀ
    mix: int  # the weights × V

    @property
    def total(self) -> int:
        return self.projections + self.scores + self.mix


def prefill(shape: Shape, tokens: int, batch: int = 1) -> Flops:
    """A causal prefill of `tokens` tokens for each of `batch` sequences, every layer."""
    # Shape, T, B -> Flops: T tokens at once
    seen_pairs = sum(pairs(w, tokens) for w in shape.windows)
    projections = shape.layers * tokens * weights_per_token(shape)
    scores = shape.heads * shape.d_k * seen_pairs
    mix = shape.heads * shape.d_v * seen_pairs
    return Flops(2 * batch * projections, 2 * batch * scores, 2 * batch * mix)


def decode(shape: Shape, position: int, batch: int = 1) -> Flops:
    """One decode step: the token at `position` (1-based) through every layer, reading the
    cache of the ones before it. MLA's step works on the latent (W^UK absorbed into the
    query, W^UV into the output): its scores read r + d_rope numbers a key."""
    # Shape, t, B -> Flops: one token at position t
    keys = sum(seen(w, position) for w in shape.windows)
    latent = shape.latent
    if latent is None:
        projections = shape.layers * weights_per_token(shape)
        scores = shape.heads * shape.d_k * keys
        mix = shape.heads * shape.d_v * keys
    else:
        own, absorbed = absorbed_weights(shape)
        projections = shape.layers * (own + absorbed)
        scores = shape.heads * (latent.rank + latent.rope) * keys
        mix = shape.heads * latent.rank * keys
    return Flops(2 * batch * projections, 2 * batch * scores, 2 * batch * mix)


def absorbed_weights(shape: Shape) -> tuple[int, int]:
    """MLA's next token, one layer: the multiplications of its own projections (W^Q, or W^DQ
    and W^UQ; W^DKV; W^O) and those W^UK and W^UV add absorbed: each head's q^C × W^UKᵀ
    (d_nope × r) and its mixed latent × W^UV (r × d_v)."""
    assert shape.latent is not None
    parts = parameters(shape)
    own = parts.get("w_q", 0) + parts.get("w_dq", 0) + parts.get("w_uq", 0)
    own += parts["w_dkv"] + parts["w_o"]
    nope = shape.d_k - shape.latent.rope
    return own, shape.heads * shape.latent.rank * (nope + shape.d_v)


def redesigned(
    shape: Shape, design: str, size: int | None = None, rope: int | None = None
) -> Shape:
    """The same model under another attention design: mha (g = h), mqa (g = 1), gqa with
    `size` key/value heads, or mla with a latent of rank `size` and a rotary key of `rope`
    (the model's own if it has one, else MLA_ROPE) taken from each head's d_k. The caller
    has checked that the sizes fit (gqa's divides h; mla's rope is less than d_k)."""
    if design == "mla":
        assert size is not None
        own = shape.latent
        q_rank = own.q_rank if own is not None else None
        if rope is None:
            rope = own.rope if own is not None else MLA_ROPE
        return replace(shape, kv_heads=shape.heads, latent=Latent(size, rope, q_rank),
                       qk_norm=None)  # fmt: skip
    kv_heads = {"mha": shape.heads, "mqa": 1}.get(design, size)
    assert kv_heads is not None
    return replace(shape, kv_heads=kv_heads, latent=None)
