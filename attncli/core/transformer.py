"""The forward pass of a pretrained transformer, in numpy: BERT-style encoders and GPT-2.

BERT (Devlin et al., 2019, "BERT: Pre-training of Deep Bidirectional Transformers for
Language Understanding"), as transformers' BertModel computes it: X = LayerNorm(word +
position + token-type embeddings); then per layer a = LayerNorm(x + MHA(x) W^O), x' =
LayerNorm(a + act(a W_1 + b_1) W_2 + b_2) (post-LN). RoBERTa is the same network with its
positions counted from padding_idx + 1.

GPT-2 (Radford et al., 2019, "Language Models are Unsupervised Multitask Learners"), as
transformers' GPT2Model computes it: X = word + position embeddings; then per layer (pre-LN)
x' = x + MHA(LayerNorm_1(x)) with a causal mask, x'' = x' + FFN(LayerNorm_2(x')); a final
LayerNorm at the end.

Llama (Touvron et al., 2023, "LLaMA: Open and Efficient Foundation Language Models"), and
Mistral and Qwen2 after it, as transformers' LlamaModel, MistralModel and Qwen2Model compute
it: X = word embeddings alone (no position table); per layer (pre-norm, causal) x' = x +
MHA(RMSNorm_1(x)) with rotary positions turning q and k (core/rotary.py, the model's
rope_theta and scaling) and grouped-query heads (num_key_value_heads), x'' = x' +
SwiGLU(RMSNorm_2(x')) = x' + (silu(h W_gate) ⊙ h W_up) W_down (Shazeer, 2020); a final
RMSNorm at the end. Mistral's layers see a sliding window of keys, and Qwen2's those its
config asks for; Qwen2's q, k and v have biases. Gemma (Gemma Team, 2024) is the same
network with its embeddings multiplied by √d_model, its RMSNorms' weights taken as 1 + w,
and GELU (tanh form) in the gate.

This year's families add to it, each as transformers computes it: Qwen3's QK-norm (each
head's q and k RMSNormed before the turn) and OLMo 2's (the whole projections, before the
split; its norms after each sublayer instead of before); Gemma 2's and 3's norms before and
after each sublayer, scores ÷ √query_pre_attn_scalar, Gemma 2's softcapped scores and
logits (cap · tanh(x ÷ cap)), sliding and full layers, Gemma 3's QK-norm and rotary base
per layer type; gpt-oss' learned sinks and mixture of experts (core/experts.py);
DeepSeek-V3's multi-head latent attention (core/latent.py) and grouped experts. Every
rotary scaling of core/rotary.py's ROPE_TYPES, with its attention factor.

The attention itself is core.selfattn.attention_layer, the same code as attn selfattn's
seeded path: every weight is stored as d_in × d_out and applied as x @ W. The weights come
in the attn names (w_q, w_k, w_v, w_o, b_q, …); reading/models/checkpoint.py maps a checkpoint's
names to them. Everything is computed in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attncli.core.attention import capped, causal_mask, softmax_with_sink
from attncli.core.attention import softmax as plain_softmax
from attncli.core.experts import Experts, GroupedExperts, Routing
from attncli.core.latent import LatentRun, LatentShape
from attncli.core.norms import layer_norm, rms_norm
from attncli.core.rotary import Scaling
from attncli.core.selfattn import Attention, attention_layer

# RMSNorm, a gated MLP, RoPE, grouped-query heads
LLAMA_FAMILIES = (
    "llama",
    "mistral",
    "qwen2",
    "gemma",
    "qwen3",
    "olmo2",
    "gemma2",
    "gemma3_text",
    "gpt_oss",
    "deepseek_v3",
)
FAMILIES = ("bert", "roberta", "gpt2", *LLAMA_FAMILIES)


@dataclass(frozen=True)
class Architecture:
    """The sizes and choices a forward pass needs, read from a checkpoint's config.json."""

    family: str  # one of FAMILIES
    layers: int
    heads: int
    d_model: int
    max_positions: int  # how many positions the position table holds (usable ones: positions)
    activation: str  # one of ACTIVATIONS
    eps: float  # LayerNorm's (or RMSNorm's) epsilon
    position_offset: int = 0  # RoBERTa: padding_idx + 1
    # the Llama family's
    kv_heads: int | None = None  # num_key_value_heads (None: as many as heads)
    head_dim: int | None = None  # None: d_model / heads
    rope_base: float | None = None  # rope_theta
    rope_scaling: Scaling | None = None
    windows: tuple[int | None, ...] = ()  # per layer: the sliding window, or None (all keys)
    tied: bool = True  # the language-model head is the word embeddings (tie_word_embeddings)
    biases: tuple[str, ...] = ()  # which of q, k, v, o have biases (Qwen2: q, k, v)
    embed_scale: float | None = None  # Gemma: the embeddings multiplied by √d_model
    norm_offset: float = 0.0  # Gemma: RMSNorm's weight is 1 + w
    # QK-norm: "head" RMSNorms each head's q and k before the turn (Qwen3); "projection"
    # the whole q and k projections, every head at once, before the split (OLMo 2)
    qk_norm: str | None = None
    # Gemma 2 and 3: the scores ÷ √query_pre_attn_scalar (None: ÷ √head_dim); the scores
    # and the final logits softcapped, cap · tanh(x ÷ cap) (None: not)
    query_scalar: float | None = None
    attn_softcap: float | None = None
    final_softcap: float | None = None
    # Gemma 3: the sliding layers' own rotary base and scaling (rope_local_base_freq)
    local_rope: tuple[float, Scaling | None] | None = None
    # DeepSeek-V3: multi-head latent attention (core/latent.py); head_dim is then the
    # rotary part's size, qk_rope_head_dim
    latent: LatentShape | None = None
    # DeepSeek-V3: its first layers' MLP is dense, the others a routed mixture of experts
    dense_layers: int | None = None
    routing: Routing | None = None
    # gpt-oss: learned sinks (a logit per head, an extra softmax column dropped after); its
    # mixture of experts: the experts a token takes, and the gate's α and limit
    sinks: bool = False
    experts_per_token: int | None = None
    swiglu_alpha: float = 1.702
    swiglu_limit: float = 7.0

    def rope(self, layer: int = 0) -> tuple[float, Scaling | None]:
        """The rotary base and scaling of layer `layer` (0-based): Gemma 3's sliding layers
        have their own."""
        from attncli.core.rotary import BASE

        if self.local_rope is not None and self.window(layer) is not None:
            return self.local_rope
        return (BASE if self.rope_base is None else self.rope_base), self.rope_scaling

    def layer_kind(self, layer: int) -> str:
        """sliding_attention or full_attention, as a config's layer_types says it."""
        return "full_attention" if self.window(layer) is None else "sliding_attention"

    @property
    def divisor(self) -> float:
        """What the scores are divided by: √query_pre_attn_scalar, else √head_dim."""
        return math.sqrt(self.size_per_head if self.query_scalar is None else self.query_scalar)

    def rope_attention_factor(self, layer: int = 0) -> float:
        """What the layer's rotary scaling multiplies q and k by after their turn (YaRN's,
        LongRoPE's attention factor; 1 for the others)."""
        from attncli.core.rotary import attention_factor

        return attention_factor(self.rope(layer)[1])

    @property
    def positions(self) -> int:
        """The longest input the model takes, in tokens."""
        return self.max_positions - self.position_offset

    @property
    def causal(self) -> bool:
        return self.family == "gpt2" or self.rms

    @property
    def pre_norm(self) -> bool:
        return self.family == "gpt2" or self.rms

    @property
    def rms(self) -> bool:
        """The Llama family's RMSNorm, SwiGLU and rotary positions."""
        return self.family in LLAMA_FAMILIES

    @property
    def size_per_head(self) -> int:
        return self.head_dim or self.d_model // self.heads

    def rope_frequencies(self, tokens: int | None = None, layer: int = 0) -> np.ndarray | None:
        """The rotary frequencies of each head's pairs in layer `layer` for a sequence of
        `tokens` (None: no rotary positions)."""
        # -> [head_dim / 2]
        if not self.rms:
            return None
        from attncli.core.rotary import model_frequencies

        return model_frequencies(self.size_per_head, *self.rope(layer), tokens)

    def window(self, layer: int) -> int | None:
        """Layer `layer`'s (0-based) sliding window, or None."""
        return self.windows[layer] if layer < len(self.windows) else None

    def allowed(self, layer: int, count: int) -> np.ndarray | None:
        """Where a query may look in layer `layer` (0-based) of `count` tokens: causal,
        within the layer's window; None where every key is seen."""
        # -> [T, T] of bool, or None
        if not self.causal:
            return None
        window = self.window(layer)
        if window is None or window >= count:
            return causal_mask(count, count)
        from attncli.core.distance import window_mask

        return window_mask(count, count, window, causal=True)


@dataclass
class Block:
    """One transformer layer's weights, in attn's names, x @ W."""

    attention: dict[str, np.ndarray]  # w_q [d, h·d_h], w_k, w_v [d, g·d_h], w_o [h·d_h, d],
    #                                   b_q … b_o (BERT, GPT-2; Qwen2's b_q, b_k, b_v)
    norm_1: tuple[np.ndarray, np.ndarray | None] | None  # (γ, β) [d]: BERT after attention,
    #                          GPT-2 and Llama before (RMSNorm: β None); OLMo 2: none
    w_in: np.ndarray | None  # [d, d_ff] (Llama: up_proj; gpt-oss: none, its experts)
    b_in: np.ndarray | None  # [d_ff] (Llama: none)
    w_out: np.ndarray | None  # [d_ff, d] (Llama: down_proj)
    b_out: np.ndarray | None  # [d]
    norm_2: tuple[np.ndarray, np.ndarray | None] | None  # (γ, β) [d]: BERT after the FFN,
    #                                                 GPT-2 and Llama before; OLMo 2: none
    w_gate: np.ndarray | None = None  # [d, d_ff]: SwiGLU's gate (Llama's gate_proj)
    q_norm: np.ndarray | None = None  # QK-norm's γ: [d_h] per head, or [h·d_h] (OLMo 2)
    k_norm: np.ndarray | None = None  # [d_h], or [g·d_h] (OLMo 2)
    post_attention_norm: np.ndarray | None = None  # RMSNorm of the attention's output
    #                                                (OLMo 2's post_attention_layernorm)
    post_feedforward_norm: np.ndarray | None = None  # of the MLP's output
    sinks: np.ndarray | None = None  # [h]: gpt-oss' learned sink logit of each head
    experts: Experts | GroupedExperts | None = None  # gpt-oss' or DeepSeek's mixture of
    #                                                  experts instead of one MLP


@dataclass
class Network:
    """A whole model's weights: the embeddings, the layers, and the LayerNorm of one end."""

    architecture: Architecture
    word: Any  # [V, d]: an array, or anything that gives the rows of an id array (word[ids])
    position: Any  # [max_positions, d], likewise
    blocks: Sequence[Block]  # may hold fewer than architecture.layers: only those needed;
    #                          a reader may build each block when it is asked for
    token_type: np.ndarray | None = None  # [types, d] (BERT); row 0 for a single sentence
    embedding_norm: tuple[np.ndarray, np.ndarray] | None = None  # BERT: after the embeddings
    final_norm: tuple[np.ndarray, np.ndarray | None] | None = None  # GPT-2: ln_f; Llama:
    #                                                                    norm (RMSNorm)
    head: Any = None  # [V, d]: an untied language-model head (Llama's lm_head), rows as word


@dataclass
class LayerRun:
    """What one layer computed: its input, its attention (per head) and its output."""

    input: np.ndarray  # [T, d]: the hidden state entering the layer
    attended: np.ndarray  # [T, d]: what the attention read (GPT-2: LayerNorm_1(input))
    attention: Attention  # queries/keys/values [h, T, d_h], scores/weights [h, T, T],
    #                       concat [T, h·d_h], output [T, d] (after W^O)
    output: np.ndarray  # [T, d]: the hidden state leaving the layer


@dataclass
class ForwardRun:
    """The embeddings and every layer run, in order; `hidden` as transformers'
    hidden_states (GPT-2's last one after the final LayerNorm)."""

    embeddings: np.ndarray  # [T, d]
    layers: list[LayerRun] = field(default_factory=list)
    last: np.ndarray | None = None  # [T, d]: last_hidden_state, when every layer ran

    @property
    def hidden(self) -> list[np.ndarray]:
        """hidden_states: the embeddings, then each layer's output."""
        states = [self.embeddings] + [layer.output for layer in self.layers]
        if self.last is not None:
            states[-1] = self.last
        return states


def normed(
    arch: Architecture, x: np.ndarray, norm: tuple[np.ndarray, np.ndarray | None]
) -> np.ndarray:
    """The model's own norm: RMSNorm for the Llama family, LayerNorm otherwise."""
    # [T, d] -> [T, d]
    gamma, beta = norm
    if arch.rms or beta is None:
        return rms_norm(x, gamma + arch.norm_offset if arch.norm_offset else gamma, arch.eps)
    return layer_norm(x, gamma, beta, arch.eps)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, element by element, to the last digit (math.erf)."""
    # [...] -> [...]
    flat = x.ravel().tolist()
    return np.fromiter(map(math.erf, flat), dtype=np.float64, count=len(flat)).reshape(x.shape)


def _tanh_gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


# The feed-forward's non-linearities by transformers' name: "gelu" is the exact
# x·Φ(x) = x/2·(1 + erf(x/√2)); "gelu_new" and "gelu_pytorch_tanh" the tanh form
# x/2·(1 + tanh(√(2/π)(x + 0.044715 x³))); "relu" max(x, 0); "silu" x·σ(x), Llama's
# (Elfwing et al., 2018). A model's config names one of them (reading/models/config_fields
# refuses any other).
_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu": lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))),
    "gelu_new": _tanh_gelu,
    "gelu_pytorch_tanh": _tanh_gelu,
    "relu": lambda x: np.maximum(x, 0.0),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
}
ACTIVATIONS = tuple(_ACTIVATIONS)


def activation(name: str, x: np.ndarray) -> np.ndarray:
    """The feed-forward's non-linearity `name` (one of ACTIVATIONS) of x."""
    # [T, d_ff] -> [T, d_ff]
    return _ACTIVATIONS[name](x)


def embed(network: Network, ids: np.ndarray) -> np.ndarray:
    """The input of the first layer: word + position (+ token type 0) embeddings, and for
    BERT the LayerNorm after them; the Llama family's word embeddings alone."""
    # [T] of int -> [T, d]
    arch = network.architecture
    count = len(ids)
    x = np.asarray(network.word[ids], dtype=np.float64)
    if arch.embed_scale is not None:
        x = x * arch.embed_scale
    if network.position is not None:
        positions = np.arange(arch.position_offset, arch.position_offset + count)
        x = x + np.asarray(network.position[positions], dtype=np.float64)
    if network.token_type is not None:
        x = x + np.asarray(network.token_type[0], dtype=np.float64)
    if network.embedding_norm is not None:
        x = layer_norm(x, *network.embedding_norm, arch.eps)
    return x


def feed_forward(
    block: Block, x: np.ndarray, name: str, arch: Architecture | None = None
) -> np.ndarray:
    """act(x W_1 + b_1) W_2 + b_2; with a gate (SwiGLU), (act(x W_gate) ⊙ x W_1) W_2; with
    experts, gpt-oss' or DeepSeek's mixture (core/experts.py)."""
    # [T, d] -> [T, d]
    if isinstance(block.experts, GroupedExperts):
        from attncli.core.experts import grouped_mixture

        return grouped_mixture(x, block.experts)
    if block.experts is not None:
        from attncli.core.experts import mixture

        assert arch is not None and arch.experts_per_token is not None
        return mixture(x, block.experts, arch.experts_per_token, arch.swiglu_alpha,
                       arch.swiglu_limit)  # fmt: skip
    assert block.w_in is not None and block.w_out is not None
    inner = x @ block.w_in
    if block.b_in is not None:
        inner += block.b_in
    if block.w_gate is not None:
        inner = activation(name, x @ block.w_gate) * inner
    else:
        inner = activation(name, inner)
    out = inner @ block.w_out
    return out if block.b_out is None else out + block.b_out


def run_layer(arch: Architecture, block: Block, x: np.ndarray, number: int = 0) -> LayerRun:
    """Layer `number` (0-based): post-LN (BERT) or pre-norm with a causal mask (GPT-2, and
    the Llama family with its rotary positions, key/value heads, window and the norms its
    config gives: before each sublayer, after it, or both)."""
    # [T, d] -> LayerRun
    count = len(x)
    allowed = arch.allowed(number, count)
    if arch.rms:
        attended = x if block.norm_1 is None else normed(arch, x, block.norm_1)
        attention = decoder_attention(arch, block, attended, number, allowed)
        added = attention.output
        if block.post_attention_norm is not None:
            added = normed(arch, added, (block.post_attention_norm, None))
        middle = x + added
        inner = middle if block.norm_2 is None else normed(arch, middle, block.norm_2)
        fed = feed_forward(block, inner, arch.activation, arch)
        if block.post_feedforward_norm is not None:
            fed = normed(arch, fed, (block.post_feedforward_norm, None))
        return LayerRun(x, attended, attention, middle + fed)
    assert block.norm_1 is not None and block.norm_2 is not None
    if arch.pre_norm:
        attended = normed(arch, x, block.norm_1)
        attention = attention_layer(attended, attended, block.attention, arch.heads, None, allowed)
        middle = x + attention.output
        output = middle + feed_forward(block, normed(arch, middle, block.norm_2), arch.activation)
        return LayerRun(x, attended, attention, output)
    attention = attention_layer(x, x, block.attention, arch.heads, None, allowed)
    middle = normed(arch, x + attention.output, block.norm_1)
    output = normed(arch, middle + feed_forward(block, middle, arch.activation), block.norm_2)
    return LayerRun(x, x, attention, output)


def latent_run(
    arch: Architecture, block: Block, x: np.ndarray, number: int, allowed: np.ndarray | None
) -> LatentRun:
    """Layer `number`'s multi-head latent attention (DeepSeek's, core/latent.py) on what it
    reads, x: its latent, its shared rotary key and its scores, as well as the usual."""
    # [T, d] -> LatentRun
    from attncli.core.latent import latent_attention

    assert arch.latent is not None
    theta = arch.rope_frequencies(len(x), number)
    assert theta is not None
    return latent_attention(
        x, block.attention, arch.latent, theta, arch.rope_attention_factor(number), allowed,
        lambda h, gamma: normed(arch, h, (gamma, None)),
    )  # fmt: skip


def _latent(
    arch: Architecture, block: Block, x: np.ndarray, number: int, allowed: np.ndarray | None
) -> Attention:
    """DeepSeek's multi-head latent attention (core/latent.py) as an Attention."""
    assert arch.latent is not None
    run = latent_run(arch, block, x, number, allowed)
    return Attention(run.queries, run.keys, run.values, run.scores, run.weights, run.output,
                     run.concat, arch.latent.divisor)  # fmt: skip


@dataclass(frozen=True)
class DecoderQKV:
    """A Llama-family layer's q, k, v for some of its rows, as its attention scores them:
    QK-norm done, q and k turned by their positions and multiplied by the rotary scaling's
    attention factor; the key/value heads not yet repeated for their query heads."""

    queries: np.ndarray  # [h, n, d_h]
    keys: np.ndarray  # [g, n, d_h]
    values: np.ndarray  # [g, n, d_v]
    unrotated: tuple[np.ndarray, np.ndarray]  # q [h, n, d_h] and k [g, n, d_h] before the turn


def decoder_qkv(
    arch: Architecture,
    block: Block,
    x: np.ndarray,
    number: int,
    start: int = 0,
    length: int | None = None,
    product: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> DecoderQKV:
    """Layer `number`'s q, k, v of the rows `x` at positions start, start + 1, …: Q = x W^Q
    (+ b), K, V likewise; QK-norm where the config has it (OLMo 2 on the whole projections,
    then the heads split; Qwen3 and Gemma 3 on each head's q and k); q and k turned by the
    rotary frequencies of a sequence of `length` tokens (default: start + the rows) and
    multiplied by the scaling's attention factor (transformers multiplies cos and sin by
    it). `product` computes x W (default x @ W): the KV cache's replay passes one that sums
    in a fixed order, so that a row alone gives the bits it gives among all the rows."""
    # [n, d] -> DecoderQKV
    from attncli.core.rotary import rotate
    from attncli.core.selfattn import project, split_heads

    params = block.attention
    kv_heads = arch.kv_heads or arch.heads

    def projected(name: str) -> np.ndarray:
        if product is None:
            return project(x, params[f"w_{name}"], params.get(f"b_{name}"))
        bias = params.get(f"b_{name}")
        out = product(x, params[f"w_{name}"])
        return out if bias is None else out + bias

    queries, keys, values = projected("q"), projected("k"), projected("v")
    if arch.qk_norm == "projection":
        assert block.q_norm is not None and block.k_norm is not None
        queries = normed(arch, queries, (block.q_norm, None))
        keys = normed(arch, keys, (block.k_norm, None))
    queries, keys = split_heads(queries, arch.heads), split_heads(keys, kv_heads)
    values = split_heads(values, kv_heads)
    if arch.qk_norm == "head":
        assert block.q_norm is not None and block.k_norm is not None
        queries = normed(arch, queries, (block.q_norm, None))
        keys = normed(arch, keys, (block.k_norm, None))
    unrotated = (queries, keys)
    theta = arch.rope_frequencies(start + len(x) if length is None else length, number)
    queries = rotate(queries, start=start, theta=theta)
    keys = rotate(keys, start=start, theta=theta)
    factor = arch.rope_attention_factor(number)
    if factor != 1.0:
        queries, keys = queries * factor, keys * factor
    return DecoderQKV(queries, keys, values, unrotated)


def sink_softmax(
    scores: np.ndarray,
    sinks: np.ndarray | None,
    softmax: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The weights of masked scores: softmax over the keys, or with learned sinks (gpt-oss)
    over the keys and a column of each head's sink logit, the column dropped after it
    (core/attention.softmax_with_sink; each row then sums to less than 1). `softmax`
    defaults to core.attention's."""
    # [h, T_q, T_k], [h] -> [h, T_q, T_k]
    if sinks is None:
        return (softmax or plain_softmax)(scores)
    return softmax_with_sink(scores, sinks[:, None, None], softmax)


def decoder_attention(
    arch: Architecture, block: Block, x: np.ndarray, number: int, allowed: np.ndarray | None
) -> Attention:
    """A Llama-family layer's attention: q, k, v as decoder_qkv makes them; the key/value
    heads repeated for their query heads; softmax(Q Kᵀ ÷ √d_h) V (Gemma's ÷
    √query_pre_attn_scalar, and its scores softcapped before the mask), causal within the
    window, with learned sinks where the layer has them; the heads joined and projected by
    W^O."""
    # [T, d] -> Attention: queries/keys/values [h, T, d_h] (q and k as scored),
    # scores/weights [h, T, T], concat [T, h·d_h], output [T, d]
    from attncli.core.selfattn import join_heads

    params = block.attention
    if arch.latent is not None:
        return _latent(arch, block, x, number, allowed)
    kv_heads = arch.kv_heads or arch.heads
    made = decoder_qkv(arch, block, x, number)
    queries, keys, values = made.queries, made.keys, made.values
    unrotated = made.unrotated
    group = arch.heads // kv_heads
    if group > 1:  # repeat_kv: each key/value head for its group of queries
        keys, values = np.repeat(keys, group, axis=-3), np.repeat(values, group, axis=-3)
        unrotated = (unrotated[0], np.repeat(unrotated[1], group, axis=-3))
    divisor = arch.divisor
    scores = capped(queries @ np.swapaxes(keys, -1, -2) / divisor, arch.attn_softcap)
    if allowed is not None:
        scores[:, ~allowed] = -np.inf
    weights = sink_softmax(scores, block.sinks)
    concat = join_heads(weights @ values)
    output = concat @ params["w_o"]
    if "b_o" in params:
        output = output + params["b_o"]
    return Attention(queries, keys, values, scores, weights, output, concat, divisor, unrotated)


def forward(network: Network, ids: np.ndarray, layers: int | None = None) -> ForwardRun:
    """The first `layers` layers (all that the network holds by default) on one sequence."""
    # [T] of int -> ForwardRun (T ≤ architecture.positions: the caller checks)
    x = embed(network, np.asarray(ids, dtype=np.int64))
    run = ForwardRun(embeddings=x)
    count = len(network.blocks) if layers is None else layers
    for number in range(count):
        layer = run_layer(network.architecture, network.blocks[number], x, number)
        run.layers.append(layer)
        x = layer.output
    if count == network.architecture.layers:
        run.last = x
        if network.final_norm is not None:
            run.last = normed(network.architecture, x, network.final_norm)
    return run


def merge_words(weights: np.ndarray, groups: list[list[int]]) -> np.ndarray:
    """Word pieces merged into words: a word's row is the mean of its pieces' rows (so it
    still sums to 1) and its column the sum of its pieces' columns (all the weight a query
    puts on any piece of the word). `groups` lists each word's token positions, in order."""
    # [..., T, T], W groups -> [..., W, W]
    columns = np.stack([weights[..., group].sum(axis=-1) for group in groups], axis=-1)
    return np.stack([columns[..., group, :].mean(axis=-2) for group in groups], axis=-2)


def _previous(weights: np.ndarray) -> np.ndarray:
    count = weights.shape[-1]
    if count < 2:
        return np.zeros(weights.shape[:2])
    rows = np.arange(1, count)
    return weights[..., rows, rows - 1].mean(axis=-1)


# [L, h, T, T] -> [L, h]: each head's mean weight, over rows, on the token just before (row
# 0 has none and is left out), on token 0, on the diagonal
_HEAD_PATTERNS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "previous": _previous,
    "first": lambda weights: weights[..., :, 0].mean(axis=-1),
    "self": lambda weights: np.diagonal(weights, axis1=-2, axis2=-1).mean(axis=-1),
}


def head_pattern(weights: np.ndarray, pattern: str) -> np.ndarray:
    """Each head's mean weight, over rows, on a pattern: "previous" (the token just before;
    row 0 has none and is left out), "first" (token 0), "self" (the diagonal)."""
    # [L, h, T, T] -> [L, h]
    return _HEAD_PATTERNS[pattern](weights)
