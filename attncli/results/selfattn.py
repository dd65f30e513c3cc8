"""The result of the self-attention layer: every intermediate, and the backward pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Result
from attncli.results.rows import pick_row

if TYPE_CHECKING:
    from attncli.core.rotary import Scaling
    from attncli.core.selfattn import Attention
    from attncli.explain.rotary import RelativeCheck
    from attncli.explain.steps import Step


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SelfAttnResult(Result):
    """Self-attention over X (or attention over given Q, K, V): every intermediate.

    With heads, queries, keys, values, scores and weights have a leading head axis.
    """

    query_labels: tuple[str, ...]
    tokens: tuple[str, ...]  # the keys' labels
    # the keys the layer adds after the tokens' (add_bias_kv's "bias_k", add_zero_attn's "zero")
    extra_keys: tuple[str, ...] = ()
    x: np.ndarray | None  # [T_q, d_model]; None when Q, K, V were given
    x_kv: np.ndarray | None = None  # [T_k, d_model] for cross-attention; None: x itself
    x_v: np.ndarray | None = None  # [T_k, vdim]: the values' own sequence (x_kv is then x_k)
    projections: dict[str, np.ndarray]  # w_q, w_k, w_v and, with heads, w_o
    drawn: tuple[str, ...]  # the projections drawn from the seed
    attention: Attention
    heads: int | None
    scale: bool
    divisor: float  # what the scores were divided by: √d_k, 1 unscaled, or --scale S
    causal: bool
    norm: float | None  # the embeddings' length, when attn made them
    seed: int
    allowed: np.ndarray | None = None  # [T_q, T_k], True where a query may look; None: all
    bias: np.ndarray | None = None  # of the scores' shape: a float attn_mask, added to them
    # What masked the inputs, written down so that the result read back is masked the same:
    # the masks given (mask, attn_mask, key_padding_mask, --valid-len) in attn's sense,
    # before --causal (written as causal) and the layer's extra keys; and what they add to
    # the scores (float64, before --dtype)
    mask: np.ndarray | None = None  # [T_q, T_k] or of the scores' shape
    mask_bias: np.ndarray | None = None  # of the scores' shape
    grids: bool = True  # False: only the output was computed (row blocks), no T × T grid
    dtype: str = "float64"  # what the layer was computed in (--dtype)
    # where and in whose names weights read from a state dict were: ("layer.safetensors",
    # "nn.MultiheadAttention")
    weights_from: tuple[str, str] | None = None
    trained_by: str | None = None  # the attn train line that learned the given W
    causal_from: str | None = None  # "GPT-2": the layer is causal because its checkpoint is
    heads_unchecked: bool = False  # --heads for a state dict, which does not hold the heads
    of_batch: tuple[int, int] | None = None  # (N, B): sequence N of a batch of B, by item()
    rope_base: float | None = None  # rotary positions' base (--positions rope), else None
    positions: str | None = None  # "sinusoidal": the encoding x holds (added by --positions)
    positions_learned: bool = False  # not asked for: the input says its X carries them
    kv_heads: int | None = None  # G key/value heads, each read by heads / G query heads
    window: int | None = None  # --window W: each query sees the keys within W positions
    alibi: bool = False  # −m_h·|i − j| added to the scores (in `bias`, beside any attn_mask)
    # This year's layers: each head's q and k RMSNormed (QK-norm); the rotary turn scaled
    # (--rope-scaling as given, and what it asks for); the scores softcapped, cap ·
    # tanh(score ÷ cap); a learned sink logit per head (or one for all), a softmax column
    qk_norm: bool = False
    rope_scaling: str | None = None
    scaling: Scaling | None = None
    softcap: float | None = None
    sinks: tuple[float, ...] | None = None
    # Multi-head latent attention: the rank r of c_KV, each head's keys and values read from it
    latent_rank: int | None = None
    # With a gradient at the output (grad_output, or target for ½‖out − target‖²):
    loss: float | None = None
    grads: dict[str, np.ndarray] = field(default_factory=dict)  # grad_x, grad_w_q, ...

    SINK_LABEL = "sink"  # the softmax's extra column, in --steps

    queries = property(lambda self: self.attention.queries, doc="Q: [T_q, d_k] or [h, T_q, d_k]")
    keys = property(lambda self: self.attention.keys, doc="K: [T_k, d_k] or [h, T_k, d_k]")
    values = property(lambda self: self.attention.values, doc="V: [T_k, d_v] or [h, T_k, d_v]")
    scores = property(lambda self: self.attention.scores, doc="[T_q, T_k]; -inf where masked")
    weights = property(lambda self: self.attention.weights, doc="[T_q, T_k], rows sum to 1")
    output = property(lambda self: self.attention.output, doc="[T_q, d_v], or d_model after W^O")

    @property
    def sizes(self) -> dict[str, int]:
        """d_model (when there is an X), d_k and d_v per head (and a latent layer's
        decoupled rotary key's d_rope after its d_k)."""
        rope = self.rope_dim
        found = {"d_k": int(self.keys.shape[-1]), "d_v": int(self.values.shape[-1])}
        if rope is not None:
            found = {"d_k": found["d_k"] - rope, "d_rope": rope, "d_v": found["d_v"]}
        if self.x is not None:
            found = {"d_model": int(self.x.shape[-1]), **found}
        return found

    @property
    def key_labels(self) -> tuple[str, ...]:
        """A label per column of the score and weight grids: the tokens', then the layer's
        own extra keys."""
        return (*self.tokens, *self.extra_keys)

    @property
    def batch(self) -> int | None:
        """B when X (or Q, K, V) was a batch of sequences (B × T × d), else None."""
        if self.x is not None:
            return int(self.x.shape[0]) if self.x.ndim == 3 else None
        lead = self.attention.queries.ndim - 2 - (self.heads is not None)
        return int(self.attention.queries.shape[0]) if lead else None

    def item(self, number: int) -> SelfAttnResult:
        """Sequence `number` (1-based) of a batch, as a result of its own."""
        from dataclasses import replace

        from attncli.core.selfattn import Attention
        from attncli.errors import InputError
        from attncli.messages import Message, _
        from attncli.results.rows import check_pick

        total = self.batch or 1
        if self.batch is None and number == 1:
            return self
        if self.batch is None:
            raise InputError(
                _(
                    "there is no sequence {number}: the input is one sequence, not a batch "
                    "(x of B × T × d)"
                ),
                number=number,
            )
        check_pick(Message(_("sequence {number}"), number=number), number, total,
                   Message(_("the batch has {total}"), total=total))  # fmt: skip
        run, index = self.attention, number - 1
        parts = {
            name: getattr(run, name)[index] if getattr(run, name).size else getattr(run, name)
            for name in ("queries", "keys", "values", "scores", "weights", "output")
        }
        concat = None if run.concat is None else run.concat[index]
        unrotated, unnormed = (None if pair is None else (pair[0][index], pair[1][index])
                               for pair in (run.unrotated, run.unnormed))  # fmt: skip
        x_kv, x_v = (None if a is None or a.ndim == 2 else a[index] for a in (self.x_kv, self.x_v))
        allowed = self.allowed
        if allowed is not None and allowed.ndim >= 3:  # one grid per sequence
            allowed = allowed[index]
        bias = None if self.bias is None else self.bias[index]
        mask = self.mask if self.mask is None or self.mask.ndim < 3 else self.mask[index]
        mask_bias = None if self.mask_bias is None else self.mask_bias[index]
        # the inputs' gradients are per sequence; the parameters' are the whole batch's
        grads = {
            name: gradient
            if name.startswith(("grad_w_", "grad_b_", "grad_bias_"))
            else gradient[index]
            for name, gradient in self.grads.items()
        }
        return replace(
            self,
            grads=grads,
            x=None if self.x is None else self.x[index],
            x_kv=self.x_kv if x_kv is None else x_kv,
            x_v=self.x_v if x_v is None else x_v,
            attention=Attention(**parts, concat=concat, unrotated=unrotated, unnormed=unnormed),
            allowed=allowed,
            bias=bias,
            mask=mask,
            mask_bias=mask_bias,
            of_batch=(number, total),
        )

    @property
    def weights_mean(self) -> np.ndarray | None:
        """The weights averaged over the heads ([B,] T_q × T_k), as torch returns them by
        default (average_attn_weights=True); None without heads."""
        if self.heads is None or not self.grids:
            return None
        return self.weights.mean(axis=-3)

    @property
    def raw_scores(self) -> np.ndarray:
        """Q Kᵀ before the division and the mask: [T_q, T_k], or [h, T_q, T_k]."""
        return self.queries @ np.swapaxes(self.keys, -1, -2)

    @property
    def params(self) -> int:
        """The layer's learned weights and biases: 0 without projections or when Q, K, V
        were given."""
        return sum(int(matrix.size) for matrix in self.projections.values())

    def __repr__(self) -> str:
        return (
            f"SelfAttnResult(tokens={list(self.tokens)}, weights={self.weights.shape}, "
            f"output={self.output.shape}, params={self.params})"
        )

    def to_document(self) -> dict[str, Any]:
        document: dict[str, Any] = {"tokens": list(self.tokens)}
        if self.query_labels != self.tokens:
            document["query_tokens"] = list(self.query_labels)
        if self.x is not None and self.x_v is not None:
            document.update(x_q=self.x, x_k=self.x_kv, x_v=self.x_v)
        elif self.x is not None and self.x_kv is not None:
            document.update(x_q=self.x, x_kv=self.x_kv)
        elif self.x is not None:
            document["x"] = self.x
        document.update(self.projections)
        if self.trained_by is not None:
            document["trained_by"] = self.trained_by
        if self.extra_keys:
            document["extra_keys"] = list(self.extra_keys)  # the grids' last columns
        sizes = {name: size for name, size in self.sizes.items() if name != "d_rope"}
        document.update(
            sizes,  # a latent layer's d_rope is its rope_dim, with its rotary key
            heads=self.heads,
            scale=self.scale,
            divisor=self.divisor,
            causal=self.causal,
            projections=bool(self.projections),
        )
        if self.window is not None:  # masked by distance, as causal is: read back so
            document["window"] = self.window
        if self.alibi:  # its bias is in the scores, not in attn_mask
            document["alibi"] = True
        if self.kv_heads is not None:  # keys and values repeated over each group of heads
            document["kv_heads"] = self.kv_heads
        if self.rope_base is not None:  # q and k turned by their positions: read back so
            document["rope_base"] = self.rope_base
        document.update(self.scoring_document())
        if self.positions is not None:  # in x already: read back, never added again
            document["positions"] = self.positions
        if self.causal_from is not None:
            document["causal_from"] = self.causal_from  # causal by the checkpoint's layout
        if self.mask is not None:  # True where a query may look, read back as given
            document["mask"] = self.mask
        if self.mask_bias is not None:  # added to the scores, read back as torch's attn_mask
            document["attn_mask"] = self.mask_bias
        document["drawn"] = list(self.drawn)  # the projections drawn from `seed`
        if self.norm is not None:
            document.update(norm=self.norm, seed=self.seed)
        elif self.drawn:
            document["seed"] = self.seed
        document.update(queries=self.queries, keys=self.keys, values=self.values)
        if self.grids:
            document.update(raw_scores=self.raw_scores, scores=self.scores, weights=self.weights)
        if self.grids and self.heads is not None:
            # the average over heads, as torch returns by default (average_attn_weights)
            document["weights_mean"] = self.weights.mean(axis=-3)
        if self.attention.concat is not None:
            document["concat"] = self.attention.concat
        document.update(output=self.output, params=self.params, dtype=self.dtype)
        if self.loss is not None:
            document["loss"] = self.loss
        document.update(self.grads)
        return document

    def scoring_document(self) -> dict[str, Any]:
        """What this year's layers did, as a result writes it down to be read back so: QK-norm,
        the rotary scaling (and the frequencies and factor it gave), the softcap, the sinks
        and the weight they took from each row, 1 − the row's sum over its keys."""
        document: dict[str, Any] = {}
        if self.qk_norm:
            document["qk_norm"] = True
        if self.rope_scaling is not None and self.rope_theta is not None:
            document.update(rope_scaling=self.rope_scaling,
                            rope_frequencies=self.rope_theta.tolist(),
                            rope_attention_factor=self.rope_factor)  # fmt: skip
        if self.softcap is not None:
            document["softcap"] = self.softcap
        if self.sinks is not None:
            document["sinks"] = list(self.sinks)
            if self.grids:
                document["sink_weights"] = 1.0 - np.asarray(self.weights).sum(axis=-1)
        if self.latent_rank is not None and self.attention.latent is not None:
            document.update(latent_rank=self.latent_rank, latent=self.attention.latent)
            if self.rope_dim is not None:  # k^R, kept by the cache beside c_KV
                document.update(rope_dim=self.rope_dim,
                                rotary_key=self.attention.keys[0, :, -self.rope_dim :])  # fmt: skip
        return document

    @property
    def absorbed_scores(self) -> np.ndarray | None:
        """A latent layer's scores with W^UK absorbed into each head's query, (q_h
        W^UK_hᵀ) · c_KV ÷ the divisor, -inf where the scores are masked: equal to Q Kᵀ ÷
        the divisor but computed from the latent (None without --latent-rank)."""
        latent = self.attention.latent
        if latent is None or not self.grids:
            return None
        from attncli.core.latent import seeded_absorbed

        absorbed = seeded_absorbed(self.queries, self.keys, latent, self.projections,
                                   self.divisor)  # fmt: skip
        return np.where(np.isneginf(self.scores), -np.inf, absorbed)

    @property
    def rope_theta(self) -> np.ndarray | None:
        """The frequencies a scaled rotary turn turned each pair by (None: the base's own)."""
        if self.scaling is None or self.rope_base is None:
            return None
        from attncli.core.rotary import model_frequencies

        return model_frequencies(self.turned_width, self.rope_base, self.scaling,
                                 len(self.tokens))  # fmt: skip

    @property
    def rope_dim(self) -> int | None:
        """A latent layer's decoupled rotary key's width, d_rope (None: it has none)."""
        w_kr = self.projections.get("w_kr")
        return None if w_kr is None else int(w_kr.shape[1])

    @property
    def turned_names(self) -> tuple[str, str]:
        """What the rotary positions turn: q and k, or a latent layer's rotary parts, q^R and
        k^R, whose product is one part of the score."""
        return ("q", "k") if self.rope_dim is None else ("q^R", "k^R")

    @property
    def turned_width(self) -> int:
        """The numbers of each head's query and key that the rotary positions turn: d_k,
        or a latent layer's d_rope."""
        return self.queries.shape[-1] if self.rope_dim is None else self.rope_dim

    @property
    def rope_factor(self) -> float:
        """What a scaled rotary turn multiplied q and k by after it (YaRN's attention factor)."""
        from attncli.core.rotary import attention_factor

        return attention_factor(self.scaling)

    def head(self, number: int) -> tuple[np.ndarray, ...]:
        """Q, K, V, scores and weights of head `number` (1-based; 1 is the only one without
        heads)."""
        from attncli.messages import Message, Setting, _
        from attncli.results.rows import check_pick

        arrays = (self.queries, self.keys, self.values, self.scores, self.weights)
        if self.heads is None and number == 1:
            return arrays
        total = self.heads or 1
        check_pick(Setting("head", number), number, total,
                   Message(_("there are {total} heads"), total=total))  # fmt: skip
        return tuple(array[number - 1] for array in arrays)

    def relative_check(self, head: int = 1) -> RelativeCheck:
        """With rotary positions: the last query and the key it weighs most, scored at their
        positions and again both moved T on (the same score: only the distance counts)."""
        from attncli.explain.rotary import relative_check

        assert self.rope_base is not None and self.attention.unrotated is not None
        queries, keys = self.attention.unrotated
        weights = self.weights
        if self.heads is not None:
            queries, keys, weights = queries[head - 1], keys[head - 1], weights[head - 1]
        row = queries.shape[-2] - 1
        column = int(np.argmax(weights[row]))
        labels = (self.query_labels[row], self.key_labels[column])
        return relative_check(queries[row], keys[column], (row, column), len(self.tokens),
                              self.rope_base, self.divisor, labels, self.rope_theta,
                              self.rope_factor, self.turned_names)  # fmt: skip

    def steps(self, row: int | None = None, token: str | None = None, head: int = 1) -> list[Step]:
        """Scores, softmax and mix for one row (of one head), as the calculator's steps."""
        from attncli.explain.calculator import explain_chain

        if self.batch is not None:
            from attncli.errors import InputError
            from attncli.messages import _

            raise InputError(
                _(
                    "--steps explains one sequence and x is a batch of {batch}; pick one "
                    "with --item N (1 to {batch}; in Python, result.item(N).steps())"
                ),
                batch=self.batch,
            )
        queries, keys, values, scores, weights = self.head(head)
        index = pick_row(self.query_labels, row, token)
        bias = None  # a float attn_mask's row, its own column of the score step
        if self.bias is not None:
            bias = (self.bias if self.heads is None else self.bias[head - 1])[index]
        method = "scaled" if self.divisor != 1.0 else "dot"
        chain = explain_chain(
            method,
            self.query_labels[index],
            queries[index],
            keys,
            values,
            scores[index],
            weights[index],
            list(self.key_labels),
            self.divisor,
            bias,
        )
        if self.rope_dim is not None and self.scale:  # a latent layer's: √(d_k + d_rope)
            from attncli.explain.calculator import ScoreSteps

            scored = chain[0]
            assert isinstance(scored, ScoreSteps)
            scored.root_name = "d_k + d_rope"
        if self.alibi:
            from attncli.explain.calculator import ScoreSteps

            scored = chain[0]
            assert isinstance(scored, ScoreSteps)
            scored.bias_name = "ALiBi" if self.mask_bias is None else "attn_mask + ALiBi"
        shaped = self.capped_and_sunk(list(chain), index, head)
        return [*self.before_scores(index, head, weights[index]), *shaped]

    def capped_and_sunk(self, chain: list[Step], index: int, head: int) -> list[Step]:
        """The score, softmax and mix of row `index` with what this year's layers add:
        the softcap between the scores and the softmax (the scores before it, ÷ the
        divisor, each capped), and the softmax over the keys and the head's sink."""
        from attncli.explain.calculator import SoftmaxSteps, explain_softmax

        weights = self.weights if self.weights.ndim == 2 else self.weights[head - 1]
        scores = self.scores if self.scores.ndim == 2 else self.scores[head - 1]
        if self.sinks is not None:  # the softmax over the keys and the head's sink column
            sink = self.sinks[0 if len(self.sinks) == 1 else head - 1]
            at = next(i for i, step in enumerate(chain) if isinstance(step, SoftmaxSteps))
            softmax = explain_softmax(
                self.query_labels[index],
                np.append(scores[index], sink),
                np.append(weights[index], 1.0 - weights[index].sum()),
                [*self.key_labels, self.SINK_LABEL],
                1.0,
            )
            softmax.sink = self.SINK_LABEL
            chain[at] = softmax
        if self.softcap is not None and np.isfinite(self.softcap):  # +∞ caps nothing
            from attncli.explain.softcap import explain_softcap

            raw = self.raw_scores if self.raw_scores.ndim == 2 else self.raw_scores[head - 1]
            uncapped = np.where(np.isneginf(scores[index]), -np.inf, raw[index] / self.divisor)
            capped = explain_softcap(self.query_labels[index], uncapped, self.softcap,
                                     list(self.key_labels))  # fmt: skip
            chain.insert(len(chain) - 2, capped)  # between the scores and the softmax
        return chain

    def latent_step(self, index: int, head: int) -> Step:
        """Row `index` of head `head` through the latent: c_KV, the key and value read from
        it, and the row's scores from the keys and in the absorbed form."""
        from attncli.core.latent import seeded_absorbed_queries
        from attncli.explain.latent import explain_latent

        latent, absorbed = self.attention.latent, self.absorbed_scores
        assert latent is not None and absorbed is not None and self.heads is not None
        query = seeded_absorbed_queries(self.queries, self.projections)[head - 1, index]
        plain = self.raw_scores[head - 1, index] / self.divisor
        plain = np.where(np.isneginf(self.scores[head - 1, index]), -np.inf, plain)
        return explain_latent(
            self.query_labels[index], head, index, latent, self.keys[head - 1],
            self.values[head - 1], self.queries[head - 1], query, plain,
            absorbed[head - 1, index], list(self.key_labels), self.heads, self.divisor,
            self.rope_dim or 0,
        )  # fmt: skip

    def before_scores(self, index: int, head: int, weights: np.ndarray) -> list[Step]:
        """What q and k go through before row `index` is scored: QK-norm, then the
        rotary scaling's table of pairs and the turn of the row's query and key."""
        before: list[Step] = []
        pick = (lambda pair: pair) if self.heads is None else (
            lambda pair: (pair[0][head - 1], pair[1][head - 1]))  # fmt: skip
        if self.latent_rank is not None and self.heads is not None:
            before.append(self.latent_step(index, head))
        if self.qk_norm and self.attention.unnormed is not None:
            from attncli.core.norms import QK_NORM_EPS
            from attncli.explain.qk_norm import explain_qk_norm

            query, keys = pick(self.attention.unnormed)
            before.append(explain_qk_norm(self.query_labels[index], query[index], keys,
                                          list(self.key_labels), QK_NORM_EPS))  # fmt: skip
        if self.rope_base is None or self.attention.unrotated is None:
            return before
        if self.scaling is not None:
            from attncli.explain.rope_scaling import rope_pairs

            before.append(rope_pairs(self.turned_width, self.rope_base, self.scaling,
                                     len(self.tokens)))  # fmt: skip
        from attncli.explain.rotary import explain_rotary

        queries, keys = pick(self.attention.unrotated)
        turned = explain_rotary(queries, keys, index, self.rope_base, self.divisor,
                                list(self.query_labels), list(self.key_labels), weights,
                                self.rope_theta, self.rope_factor, self.turned_names)  # fmt: skip
        return [*before, *turned]
