"""The results of a pretrained model's attention: one layer (every head, or one), and the
heads of every layer ranked by a weight."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from attncli.messages import Message, OnSurface, _
from attncli.results.base import Result
from attncli.results.selfattn import SelfAttnResult

if TYPE_CHECKING:
    from attncli.core.latent import LatentShape
    from attncli.core.rotary import Scaling
    from attncli.core.transformer import Architecture, Block
    from attncli.explain.steps import Step


@dataclass(frozen=True)
class ModelSource:
    """Which model, which layer and which head a result comes from."""

    name: str  # as the user gave it
    folder: str
    model_type: str  # bert, roberta, gpt2, llama, mistral, qwen2
    layer: int  # 1-based
    layers: int
    heads: int  # heads per layer in the model
    head: int | None  # 1-based; None: every head
    ids: tuple[int, ...]  # the token ids
    rope: tuple[float, Scaling | None] | None = None  # the Llama family's rope_theta and
    #                                                  its scaling (None: none)
    theta: tuple[float, ...] | None = None  # the rotary frequencies q and k are turned by
    kv_heads: int | None = None  # the model's key/value heads per layer (None: one a head)
    head_dim: int | None = None  # each head's size, whose pairs the rotary positions turn
    attention_factor: float = 1.0  # what the rotary scaling multiplies q and k by (YaRN's)
    qk_norm: str | None = None  # "head": each head's q and k RMSNormed (Qwen3); "projection":
    #                             the whole projections, before the split (OLMo 2)
    attn_softcap: float | None = None  # Gemma 2: the scores capped, cap · tanh(s ÷ cap)
    latent: LatentShape | None = None  # DeepSeek: its latent attention's sizes
    absorbed_gap: float | None = None  # the largest difference between its scores and the
    #                                    same scores with W^UK absorbed into the query
    sinks: tuple[float, ...] | None = None  # gpt-oss: each head's learned sink logit (of
    #                                         the heads shown)
    query_scalar: float | None = None  # Gemma 2, 3: the scores ÷ √query_pre_attn_scalar
    other_rope: tuple[float, Scaling | None] | None = None  # Gemma 3: the rotary settings
    #                   of the other kind of layer (the full ones' for a sliding layer)
    layer_types: tuple[str, ...] = ()  # each layer's sliding_attention or full_attention,
    #                                    for a model whose layers differ
    # a Llama-family layer's architecture and weights, which the KV cache's replay makes
    # its q, k, v with (None for BERT, RoBERTa and GPT-2)
    architecture: Architecture | None = field(default=None, repr=False, compare=False)
    block: Block | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ModelAttnResult(SelfAttnResult):
    """A pretrained model's self-attention in one layer, as SelfAttnResult holds the seeded
    layer's: X is what the layer's attention reads (GPT-2: after its first LayerNorm), the
    projections are the layer's own (of head H alone with `head`), the tokens the model's
    own. With `head`, output is that head's mix A V [T, d_v]; without, the layer's attention
    output after W^O [T, d_model].

    With words, `word_weights` [h, W, W] or [W, W] merges the word pieces: a word's row is
    the mean of its pieces' rows (so it still sums to 1), its column the sum of its pieces'
    columns."""

    source: ModelSource
    SINK_LABEL = "sinks"  # the checkpoint's own name (self_attn.sinks)
    # the sentence's words the model's vocabulary lacks, split into pieces, and its words
    split_words: tuple[str, ...] = ()
    word_count: int = 0
    words: tuple[str, ...] | None = None
    word_groups: tuple[tuple[int, ...], ...] | None = None  # each word's token positions
    word_weights: np.ndarray | None = None

    def __repr__(self) -> str:
        s = self.source
        head = f", head={s.head}" if s.head is not None else ""
        return (
            f"ModelAttnResult(model={s.name!r}, layer={s.layer}{head}, "
            f"tokens={list(self.tokens)}, weights={self.weights.shape})"
        )

    @property
    def source_name(self) -> str:
        return self.source.name

    def to_document(self) -> dict[str, Any]:
        s = self.source
        document: dict[str, Any] = {
            "model": s.name,
            "model_type": s.model_type,
            "layer": s.layer,
            "layers": s.layers,
            "head": s.head,
            "heads": s.heads,
            "tokens": list(self.tokens),
            "ids": list(s.ids),
        }
        if self.words is not None and self.word_groups is not None:
            document["words"] = list(self.words)
            document["word_pieces"] = [list(g) for g in self.word_groups]
            document["word_weights"] = self.word_weights
        document.update(self.sizes, divisor=self.divisor, causal=self.causal)
        # what else shaped the numbers, in the model's config.json's own names
        if s.kv_heads is not None:  # the model's, with one head shown or all
            document["num_key_value_heads"] = s.kv_heads
        if self.window is not None:
            document["sliding_window"] = self.window
        if s.rope is not None:
            document["rope_parameters"] = rope_parameters(*s.rope)
            if s.theta is not None:  # the frequencies this sentence's q and k were turned by
                document["rope_frequencies"] = list(s.theta)
                document["rope_attention_factor"] = s.attention_factor
        if s.qk_norm is not None:
            document["qk_norm"] = s.qk_norm
        if s.attn_softcap is not None:
            document["attn_logit_softcapping"] = s.attn_softcap
        if s.query_scalar is not None:
            document["query_pre_attn_scalar"] = s.query_scalar
        if s.latent is not None:
            cached, full = s.latent.cache_numbers()
            document.update(kv_lora_rank=s.latent.rank, qk_rope_head_dim=s.latent.rope,
                            cache_numbers_per_token=cached,
                            cache_numbers_multi_head=full,
                            absorbed_difference=s.absorbed_gap)  # fmt: skip
        if s.sinks is not None:  # and what each row gives them: 1 − its weights' sum
            document["sinks"] = list(s.sinks)
            document["sink_weights"] = 1.0 - np.asarray(self.weights).sum(axis=-1)
        if s.layer_types:
            document["layer_types"] = list(s.layer_types)
        document.update(
            queries=self.queries,
            keys=self.keys,
            values=self.values,
            scores=self.scores,
            weights=self.weights,
            output=self.output,
        )
        return document

    def steps(self, row: int | None = None, token: str | None = None, head: int = 1) -> list[Step]:
        """One row of the head shown (the layer's head `head` when every head is held);
        first, when the model's config scales its rotary positions, each pair's θ_i
        before and after the scaling."""
        shown = head if self.source.head is None else 1
        chain = super().steps(row, token, shown)  # its softcap and sinks among them
        s = self.source
        if s.query_scalar is not None:  # Gemma: ÷ √query_pre_attn_scalar, not √d_k
            from attncli.explain.calculator import ScoreSteps

            for step in chain:
                if isinstance(step, ScoreSteps):
                    step.root_of, step.root_name = s.query_scalar, "query_pre_attn_scalar"
        base, scaling = s.rope or (0.0, None)
        if scaling is None or s.head_dim is None:
            return chain
        from attncli.explain.rope_scaling import rope_pairs

        offset, interleave = (0, False) if s.latent is None else (s.latent.nope,
                                                                  s.latent.interleave)  # fmt: skip
        table = rope_pairs(s.head_dim, base, scaling, len(self.tokens), offset, interleave)
        return [table, *chain]


def rope_parameters(theta: float, scaling: Scaling | None) -> dict[str, Any]:
    """A model's rotary settings as its config.json's rope_parameters says them (with the
    factor and original length transformers works out when a config leaves them out)."""
    if scaling is None:
        return {"rope_type": "default", "rope_theta": theta}
    parameters = {"rope_type": scaling.kind, "rope_theta": theta, "factor": scaling.factor}
    if scaling.kind == "llama3":
        parameters.update(low_freq_factor=scaling.low_freq_factor,
                          high_freq_factor=scaling.high_freq_factor)  # fmt: skip
    if scaling.kind in ("llama3", "yarn", "longrope"):
        parameters["original_max_position_embeddings"] = scaling.original_positions
    if scaling.kind == "dynamic":
        parameters["max_position_embeddings"] = scaling.original_positions
    if scaling.kind == "yarn":
        parameters.update(beta_fast=scaling.beta_fast, beta_slow=scaling.beta_slow,
                          truncate=scaling.truncate)  # fmt: skip
        for name in ("mscale", "mscale_all_dim"):
            if getattr(scaling, name) is not None:
                parameters[name] = getattr(scaling, name)
    if scaling.kind == "longrope":
        parameters.update(short_factor=list(scaling.short_factor),
                          long_factor=list(scaling.long_factor))  # fmt: skip
    if scaling.kind == "factors":
        parameters["factors"] = list(scaling.divisors)
    if scaling.attention_factor is not None:
        parameters["attention_factor"] = scaling.attention_factor
    return parameters


@dataclass(frozen=True)
class HeadWeight:
    """One head's weight on what was asked (1-based layer and head)."""

    layer: int
    head: int
    weight: float
    # the controls a careful reader needs, for a --from/--to ranking: the strongest other key
    # in the same row and its weight, the head's mean weight on the target column over
    # every row, and what the head mostly does anyway ("previous", "first", "last")
    rival: int | None = None
    rival_weight: float | None = None
    column_mean: float | None = None
    habit: str | None = None
    # over several sentences: the weight is their mean; the lowest and each one beside it
    lowest: float | None = None
    each: tuple[float, ...] | None = None
    # the head's sink rate: its mean weight on the first token over the rows after the first
    # (core.head_patterns.sink_rates); None for a sentence of one token
    sink_rate: float | None = None


# attn heads ranks heads, one sentence's or their change between two: no row to lay out
HEADS_NO_STEPS = Message(
    _("{heads} ranks heads and has no steps; explain one with {explain}"),
    heads=OnSurface("attn heads", "attncli.heads()"),
    explain=OnSurface(
        "attn selfattn SENTENCE --model M --layer L --head H --steps",
        "attncli.selfattn(sentence, model=M, layer=L, head=H).steps()",
    ),
)


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class HeadsResult(Result):
    """Every (layer, head) of a model ranked by one weight, highest first: the weight from
    one token to another, or a pattern's mean weight (previous, first, self) over rows."""

    no_steps: ClassVar[Message | None] = HEADS_NO_STEPS

    model: str
    model_type: str
    sentence: str
    tokens: tuple[str, ...]
    ranking: tuple[HeadWeight, ...]  # highest first
    source: int | None = None  # the query token's position (0-based), for --from/--to
    target: int | None = None  # the key token's position (0-based)
    # previous, first, self, duplicate, induction, or "given" (a T × T matrix of one's own)
    pattern: str | None = None
    metric: str | None = None  # how a pattern is scored: rows, mul or abs
    exclude: tuple[str, ...] = ()  # "first", "self": left out of a pattern's score
    causal: bool = False  # the model's tokens see only themselves and the ones before
    shown: int | None = 10  # how many a terminal shows; None: all
    split_words: tuple[str, ...] = ()  # as ModelAttnResult's
    word_count: int = 0
    asked_from: str | None = None  # --from and --to as given
    asked_to: str | None = None
    # --sentences: every sentence ranked over, and each one's tokens (the first's are
    # `tokens`, and `source`/`target` its positions); None for one sentence given alone
    sentences: tuple[str, ...] | None = None
    sentence_tokens: tuple[tuple[str, ...], ...] = ()
    # the model view (--grid): every head's weights [L, h, T, T] on the (first) sentence,
    # and what each head mostly does ("previous", "first", "last" or "") [L][h]
    grid: np.ndarray | None = None
    habits: tuple[tuple[str, ...], ...] = ()
    # why no head can look from source to target in any layer ("causal": the target comes
    # after it; "window": a sliding window leaves it out), when none can
    unseen: str | None = None
    # the seeded layer's settings as a command line gives them (--heads 4, --no-scale), for
    # the hint that explains its best head; () for a model's
    seeded_line: tuple[str, ...] = ()
    # the seeded layer's settings that are not the default, (name, value), when its heads
    # were ranked (model "seeded"); None for a model's
    seeded: tuple[tuple[str, Any], ...] | None = None
    # each layer's sliding window (None: a full_attention layer), for a model whose layers
    # differ (Gemma 2's 1:1, Gemma 3's 5:1, gpt-oss); () when they are all alike
    layer_windows: tuple[int | None, ...] = ()
    # every head's sink rate [L, h] (the mean over the sentences of several), None for a
    # sentence of one token; and whether the model's softmax has learned sinks (gpt-oss),
    # whose column is dropped before the rate is taken over the real keys
    sink_rates: np.ndarray | None = None
    learned_sinks: bool = False

    @property
    def sink_heads(self) -> int:
        """How many heads' sink rate passes Gu et al.'s ε (SINK_THRESHOLD)."""
        from attncli.core.head_patterns import SINK_THRESHOLD

        return 0 if self.sink_rates is None else int((self.sink_rates > SINK_THRESHOLD).sum())

    def __repr__(self) -> str:
        if not self.ranking:
            return f"HeadsResult(model={self.model!r}, tokens={list(self.tokens)}, grid)"
        best = self.ranking[0]
        return (
            f"HeadsResult(model={self.model!r}, heads={len(self.ranking)}, best=layer "
            f"{best.layer} head {best.head}: {best.weight:.3f})"
        )

    @property
    def source_name(self) -> str:
        return self.model

    @property
    def asked(self) -> str:
        """What was ranked, as a short phrase: «are → keys» or the pattern's name."""
        if self.pattern is not None:
            return self.pattern
        assert self.source is not None and self.target is not None
        return f"{self.tokens[self.source]} → {self.tokens[self.target]}"

    def to_document(self) -> dict[str, Any]:
        document: dict[str, Any] = {"model": self.model}
        if self.seeded is not None:  # the seeded layer's settings that are not the default
            document["layer"] = dict(self.seeded)
        if self.sentences is not None:
            document["sentences"] = [
                {"sentence": text, "tokens": list(tokens)}
                for text, tokens in zip(self.sentences, self.sentence_tokens, strict=True)
            ]
        else:
            document["tokens"] = list(self.tokens)
        if self.pattern is not None:
            document.update(pattern=self.pattern, metric=self.metric, exclude=list(self.exclude))
        elif self.sentences is not None and self.asked_from is not None:
            document.update({"from": self.asked_from, "to": self.asked_to})
        elif self.source is not None and self.target is not None:
            document.update(
                {
                    "from": self.tokens[self.source],
                    "from_position": self.source + 1,
                    "to": self.tokens[self.target],
                    "to_position": self.target + 1,
                }
            )
        document["heads"] = [_head_document(h, self.tokens) for h in self.ranking]
        if self.grid is not None:
            document["weights"] = self.grid  # [layer][head][row][column], as the screen
        if self.layer_windows:
            document["layer_types"] = [
                "full_attention" if window is None else "sliding_attention"
                for window in self.layer_windows
            ]
            document["sliding_window"] = next(w for w in self.layer_windows if w is not None)
        if self.sink_rates is not None:
            from attncli.core.head_patterns import SINK_THRESHOLD

            # with learned sinks, each rate is over the real keys: the sink column is dropped
            document.update(
                sink_rates=self.sink_rates,
                sink_threshold=SINK_THRESHOLD,
                sink_heads=self.sink_heads,
                learned_sinks=self.learned_sinks,
            )
        return document


def _head_document(head: HeadWeight, tokens: tuple[str, ...]) -> dict[str, Any]:
    """One ranked head as the JSON writes it: its weight, and its controls when it has them."""
    document: dict[str, Any] = {"layer": head.layer, "head": head.head, "weight": head.weight}
    if head.each is not None:
        document.update(lowest=head.lowest, each=list(head.each))
    if head.rival is not None:
        document.update(
            rival=tokens[head.rival],
            rival_position=head.rival + 1,
            rival_weight=head.rival_weight,
            column_mean=head.column_mean,
        )
    elif head.rival_weight is not None:
        document.update(rival_weight=head.rival_weight, column_mean=head.column_mean)
    if head.habit is not None:
        document["habit"] = head.habit
    if head.sink_rate is not None:
        document["sink_rate"] = head.sink_rate
    return document
