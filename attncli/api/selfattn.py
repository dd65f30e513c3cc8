"""The self-attention layer as an operation: array-likes or a document → checked inputs →
core → a SelfAttnResult, with its backward pass when asked for. No I/O."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.calculator import ArrayLike, check_finite, plain
from attncli.api.keywords import MODEL, OWN_READER, keywords
from attncli.api.selfattn_backward import selfattn_backward
from attncli.layer import settings_from_keywords
from attncli.reading.parse.layer_inputs import LayerInputs
from attncli.results.selfattn import SelfAttnResult

if TYPE_CHECKING:
    from attncli.core.rotary import Scaling
    from attncli.core.selfattn import Attention, Scoring
    from attncli.layer import SelfAttnSettings
    from attncli.reading.check.selfattn_checked import CheckedSelfAttn
    from attncli.reading.models.state_dicts import LayerFields


@keywords(sentence=OWN_READER, model=MODEL)
def selfattn(
    sentence: str | None = None,
    *,
    # the sequences, or the queries, keys and values themselves
    x: ArrayLike | None = None, queries: ArrayLike | None = None,
    keys: ArrayLike | None = None, values: ArrayLike | None = None,
    tokens: Sequence[str] | None = None,
    # the projections, cross-attention's sequences and the biases
    w_q: ArrayLike | None = None, w_k: ArrayLike | None = None,
    w_v: ArrayLike | None = None, w_o: ArrayLike | None = None,
    x_q: ArrayLike | None = None, x_kv: ArrayLike | None = None,
    x_k: ArrayLike | None = None, x_v: ArrayLike | None = None,
    b_q: ArrayLike | None = None, b_k: ArrayLike | None = None,
    b_v: ArrayLike | None = None, b_o: ArrayLike | None = None,
    bias_k: ArrayLike | None = None, bias_v: ArrayLike | None = None,
    # which query may look at which key; the backward pass's ∂ℓ/∂output, or its target
    mask: ArrayLike | None = None, attn_mask: ArrayLike | None = None,
    key_padding_mask: ArrayLike | None = None,
    grad_output: ArrayLike | None = None, target: ArrayLike | None = None,
    # a pretrained model's layer (words= merges its pieces), or a checkpoint's
    model: str | None = None, layer: int | None = None, head: int | None = None,
    weights: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    prefix: str = "", words: bool = False, **layer_settings: Any,
) -> SelfAttnResult:  # fmt: skip
    """Self-attention over a sentence (seeded embeddings) or a given X; or attention over
    given queries, keys and values; or, with `model` (a folder or a name on this machine),
    a pretrained model's own attention in `layer` (1-based, default the last), every head
    or `head` alone, through its own tokenizer (see attncli.api.model.model_selfattn).
    The layer's settings are keywords, the fields of attncli.SelfAttnSettings (d_model,
    d_k, d_v, norm, seed, heads, scale, causal, valid_len, context, positions, …):
    `scale` is True (√d_k), False (no division) or a number; `causal` True, False or
    None (the layer's own: a GPT-2 checkpoint's is causal); `scale_by=S` and
    `no_causal=True` say scale=S and causal=False.
    W as d_in × d_out, applied as x @ W (from torch's nn.Linear, pass weight.T), or
    `weights` a state dict (`mha.state_dict()`, torch's names) or the path of a weight
    file (.safetensors, .npz, JSON), with `prefix` for one layer of a checkpoint
    (BERT's encoder.layer.0.attention, GPT-2's h.0.attn: causal unless `no_causal`);
    `heads` must then be given unless config.json sits beside the file. Biases b_q, b_k,
    b_v, b_o are optional (zero when left out); `bias_k`, `bias_v` are torch's add_bias_kv
    rows (one more key and value, of h·d_k and h·d_v numbers), `add_zero_attn` torch's zero
    key and value per head. Given some of w_q, w_k, w_v, w_o, the others must be given too,
    or drawn from `seed` with `draw_missing`. With `heads`, d_k and d_v are the sizes per head
    (d_model / h by default), and the heads are joined through W^O unless `out_proj` is
    false. `mask` is 1 (or True) where query i may look at key j (torch's boolean
    attn_mask is the opposite); `attn_mask` is torch's, in torch's sense: boolean True where
    a query may NOT look, or floats added to the scores (-inf where it may not); both of
    any shape torch broadcasts to the scores B × h × T_q × T_k (T_q × T_k, B × 1 × 1 × T_k,
    h × T_q × T_k, …) or B·h × T_q × T_k (nn.MultiheadAttention's);
    `key_padding_mask` is torch's: true for a padding key (or floats added to its column),
    per key or per sequence of a batch; `valid_len` masks the keys from that count on
    (padding). Cross-attention: the queries
    from `sentence` (or `x_q`), the keys and values from `context` (or `x_kv`), or the
    keys from `x_k` and the values from `x_v`, each of its own width (torch's kdim, vdim).
    With `grad_output` (∂ℓ/∂output) or a `target` (for ℓ = ½‖output − target‖²) the
    result also holds the backward pass: `grads` has grad_x and grad_w_q, grad_w_k,
    grad_w_v (grad_w_o with W^O, grad_b_… for each bias given), or grad_queries,
    grad_keys, grad_values when Q, K, V were given.
    `dtype` "float32" or "float64", or numpy's (np.float32, np.dtype("float32")).
    The result's `weights_mean` is the weights averaged over the heads (torch's default);
    a batch's `result.item(n)` is sequence n (1-based) as a result of its own, whose
    `steps()` explain one row.

    >>> a = selfattn("las llaves del coche están ahí", seed=0)
    >>> a.weights.shape, a.params
    ((6, 6), 192)
    >>> bool(abs(a.weights.sum(axis=1) - 1).max() < 1e-12)
    True
    """
    settings = settings_from_keywords(selfattn, **layer_settings)
    inputs = _layer_inputs(
        x=x, queries=queries, keys=keys, values=values, tokens=tokens, w_q=w_q, w_k=w_k, w_v=w_v,
        w_o=w_o, x_q=x_q, x_kv=x_kv, x_k=x_k, x_v=x_v, b_q=b_q, b_k=b_k, b_v=b_v, b_o=b_o,
        bias_k=bias_k, bias_v=bias_v, mask=mask, attn_mask=attn_mask,
        key_padding_mask=key_padding_mask, grad_output=grad_output, target=target,
    )  # fmt: skip
    if model is not None or layer is not None or head is not None or words:
        return _model_layer(inputs, settings, sentence, model, layer, head, words, weights, prefix)
    from attncli.reading.models.state_dicts import layer_of

    return selfattn_inputs(inputs, sentence, settings, layer_of(weights, prefix))


def _layer_inputs(**arrays: Any) -> LayerInputs:
    """The layer's inputs, each array-like as the checks read it: a tuple as a list, a
    tensor as an array."""
    return LayerInputs(**{name: plain(value) for name, value in arrays.items()})


def _model_layer(
    inputs: LayerInputs,
    settings: SelfAttnSettings,
    sentence: str | None,
    model: str | None,
    layer: int | None,
    head: int | None,
    words: bool,
    weights: Mapping[str, Any] | str | os.PathLike[str] | None,
    prefix: str,
) -> SelfAttnResult:
    """selfattn(model=…): a pretrained model's layer, which takes none of the seeded layer's
    inputs, settings or weights; layer=, head= and words= are refused without a model."""
    from attncli.api.model import model_selfattn, refuse_model_mismatch

    given = [*inputs.given(), *settings.changed()]
    given += [name for name, value in (("weights", weights), ("prefix", prefix)) if value]
    refuse_model_mismatch(model, {"layer": layer, "head": head, "words": words}, given)
    assert model is not None  # a pick without one is refused

    return model_selfattn(sentence, model, layer=layer, head=head, words=words)


def selfattn_inputs(
    inputs: LayerInputs,
    sentence: str | None,
    settings: SelfAttnSettings,
    state_dict_layer: LayerFields | None = None,
    progress: Callable[[int, int], None] | None = None,
    prefix: str = "",
) -> SelfAttnResult:
    """selfattn() on its inputs (x and projections, or queries, keys and values; parsed
    from a document by LayerInputs.from_document), with the weights of `layer` (read from a
    state dict) when given, else those the input holds under a checkpoint's names (the
    layer under `prefix`, or its only one); `progress` hears (queries done, queries in all)
    as a long input or a big batch goes.

    The scores are divided by √d_k (per head), by `settings.scale` when a number, or not
    at all when it is None.
    """
    from attncli.reading.check.selfattn_checked import checked_selfattn

    # parse → check → compute → result, once each
    checked = checked_selfattn(inputs, sentence, settings, state_dict_layer, prefix)
    run = _computed(checked, progress)
    with np.errstate(all="ignore"):
        loss, grads = selfattn_backward(checked.inputs, checked, run, run.divisor)
    for name, gradient in grads.items():
        check_finite(gradient, name)
    if loss is not None:  # ½‖output − target‖² past float64: a target too large
        check_finite(np.array([loss]), "loss")
    return _result(checked, run, loss, grads)


def _computed(checked: CheckedSelfAttn, progress: Callable[[int, int], None] | None) -> Attention:
    """The layer run on the checked inputs, its numbers held finite, and a result read back
    held to what it wrote down."""
    from attncli.reading.check.read_back import check_outputs
    from attncli.reading.parse.layer_inputs import LATENT_PROJECTIONS

    settings, allowed = checked.settings, checked.allowed
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        run = _run_selfattn(
            checked, settings.heads, _divisor(settings.scale), allowed, settings.grids,
            settings.add_zero_attn, progress, checked.rope_base, settings.kv_heads,
        )  # fmt: skip
    if settings.grids:
        from attncli.core.attention import aligned

        cells = None if allowed is None else aligned(allowed, run.scores.shape)
        check_finite(run.scores, "scores", cells)
    check_finite(run.output, "output")
    if checked.written:
        outputs = {"queries": run.queries, "keys": run.keys, "values": run.values,
                   "weights": run.weights, "concat": run.concat, "output": run.output,
                   "latent": run.latent}  # fmt: skip
        # a latent layer's W^DKV, W^UK, W^UV (W^QR, W^KR), drawn from the seed again
        outputs.update({name: w for name, w in checked.weights.items()
                        if name in LATENT_PROJECTIONS})  # fmt: skip
        if "w_kr" in checked.weights:  # k^R, the rotary key the cache keeps beside c_KV
            outputs["rotary_key"] = run.keys[0, :, -checked.weights["w_kr"].shape[1] :]
        if settings.grids:  # the scores as the result writes them: Q Kᵀ, then ÷ and masked
            outputs.update(raw_scores=run.queries @ np.swapaxes(run.keys, -1, -2),
                           scores=run.scores)  # fmt: skip
        check_outputs(checked.written, outputs, settings.dtype)
    return run


def _result(
    checked: CheckedSelfAttn,
    run: Attention,
    loss: float | None,
    grads: dict[str, np.ndarray],
) -> SelfAttnResult:
    from attncli.reading.models.state_dicts import KIND_NAMES

    settings, state_dict_layer = checked.settings, checked.state_dict_layer
    return SelfAttnResult(
        loss=loss,
        grads=grads,
        query_labels=checked.query_labels,
        tokens=checked.key_labels,
        extra_keys=checked.extra_keys,
        x=checked.x,
        x_kv=checked.x_kv,
        x_v=checked.x_v,
        projections=checked.weights,
        drawn=checked.drawn,
        attention=run,
        heads=settings.heads,
        scale=settings.scale is not None,
        divisor=run.divisor,
        causal=bool(settings.causal),
        allowed=checked.allowed,
        bias=checked.bias,
        mask=checked.given_mask,
        mask_bias=checked.given_bias,
        grids=settings.grids,
        norm=checked.norm,
        seed=checked.seed,
        dtype=settings.dtype,
        weights_from=None
        if state_dict_layer is None
        else (state_dict_layer.source, KIND_NAMES[state_dict_layer.kind]),
        heads_unchecked=state_dict_layer is not None
        and state_dict_layer.heads is None,  # no config.json to say
        trained_by=checked.inputs.trained_by,
        causal_from=(
            KIND_NAMES[state_dict_layer.kind]
            if state_dict_layer and state_dict_layer.causal and settings.causal
            else None
        ),
        rope_base=checked.rope_base,
        positions=checked.positions if isinstance(checked.positions, str) else None,
        positions_learned=checked.positions_learned,
        kv_heads=settings.kv_heads,
        window=settings.window,
        alibi=settings.alibi,
        qk_norm=settings.qk_norm,
        rope_scaling=settings.rope_scaling if checked.rope_base is not None else None,
        scaling=_scaling(settings, checked),
        softcap=settings.softcap,
        sinks=settings.sinks,
        latent_rank=settings.latent_rank,
    )


def _scaling(settings: SelfAttnSettings, checked: CheckedSelfAttn) -> Scaling | None:
    """The rotary scaling --rope-scaling asked for, for the pairs the layer turns."""
    if settings.rope_scaling is None or settings.positions != "rope":
        return None
    from attncli.reading.check.positions import rotary_scaling

    return rotary_scaling(settings.rope_scaling, turned_width(checked))


def turned_width(checked: CheckedSelfAttn) -> int:
    """The numbers of each head's query and key that rotary positions turn: a head's d_k,
    or a latent layer's decoupled rotary key's d_rope."""
    weights, heads = checked.weights, checked.settings.heads
    if "w_kr" in weights:
        return int(weights["w_kr"].shape[1])
    if "w_q" in weights:
        return int(weights["w_q"].shape[1]) // (heads or 1)
    given = checked.x if checked.direct is None else checked.direct[0]
    assert given is not None
    return int(given.shape[-1]) // (heads or 1)


def _divisor(scale: float | str | None) -> float | None:
    """What the scores are divided by: None for √d_k (the core's default), 1, or --scale S."""
    from attncli.layer import SQRT

    if scale == SQRT:
        return None
    if scale is None:
        return 1.0
    return float(scale)  # a positive number (SelfAttnSettings has checked it)


def _run_selfattn(
    checked: CheckedSelfAttn,
    heads: int | None,
    divisor: float | None,
    allowed: np.ndarray | None,
    grids: bool = True,
    zero_attn: bool = False,
    progress: Callable[[int, int], None] | None = None,
    rope_base: float | None = None,
    kv_heads: int | None = None,
) -> Attention:
    """Attention on the given Q, K, V; on X itself (no projections); or the attention layer
    on X, in one head or several. Without grids, only the output, in row blocks. With
    `rope_base`, the queries and keys turned by their positions before the score."""
    from attncli.core import selfattn as core

    settings = checked.settings
    scoring = scoring_of(settings)
    bias = checked.bias  # a float attn_mask's finite part, added to the scores

    def attended(
        queries: np.ndarray, keys: np.ndarray, values: np.ndarray, batched: bool
    ) -> Attention:
        # QK-norm, the rotary turn (scaled as --rope-scaling says), then the attention
        theta, factor = rotary_frequencies(settings, queries.shape[-1], keys.shape[-2])
        q, k, unrotated, unnormed = core.normed_and_turned(
            queries, keys, settings.qk_norm, rope_base, theta, factor
        )
        block = core.attend_batch if batched else core.attend_or_block
        result = block(q, k, values, divisor, allowed, grids, bias, progress, scoring)
        result.unrotated, result.unnormed = unrotated, unnormed
        return result

    if checked.direct is not None:
        queries, keys, values = checked.direct
        if heads is None:
            return attended(queries, keys, values, queries.ndim == 3)
        split_q, split_k, split_v = (core.split_heads(a, heads) for a in (queries, keys, values))
        result = attended(split_q, split_k, split_v, queries.ndim == 3)
        result.concat = core.join_heads(result.output)
        result.output = result.concat  # no W^O: the heads joined side by side
        return result
    x_q = checked.x
    assert x_q is not None  # without Q, K, V given, there is an X
    x_kv = x_q if checked.x_kv is None else checked.x_kv
    x_v = x_kv if checked.x_v is None else checked.x_v  # keys and values of their own
    if not checked.weights:
        return attended(x_q, x_kv, x_v, x_q.ndim == 3)
    theta, factor = rotary_frequencies(settings, turned_width(checked), x_kv.shape[-2])
    return core.attention_layer(
        x_q, x_kv, checked.weights, heads, divisor, allowed, grids, bias, zero_attn, x_v, progress,
        rope_base, kv_heads, theta, factor, settings.qk_norm, scoring,
    )  # fmt: skip


def scoring_of(settings: SelfAttnSettings) -> Scoring | None:
    """The settings' softcap and sinks as the core takes them: the sinks against a column
    of the scores, a head's each ([h, 1, 1]) or the one head's ([1, 1])."""
    from attncli.core.selfattn import Scoring

    if settings.softcap is None and settings.sinks is None:
        return None
    sinks = None
    if settings.sinks is not None:
        given = np.asarray(settings.sinks, dtype=settings.dtype)
        heads = settings.heads or 1
        sinks = np.broadcast_to(given, (heads,)).reshape(-1, 1, 1) if settings.heads else (
            given.reshape(1, 1))  # fmt: skip
    return Scoring(settings.softcap, sinks)


def rotary_frequencies(
    settings: SelfAttnSettings, d_k: int, tokens: int
) -> tuple[np.ndarray | None, float]:
    """The frequencies --rope-scaling turns each pair by, for a sequence of `tokens`, and
    its attention factor; (None, 1) without a scaling (the base's own θ_i)."""
    if settings.rope_scaling is None or settings.positions != "rope":
        return None, 1.0
    from attncli.core.rotary import attention_factor, model_frequencies
    from attncli.reading.check.positions import rotary_scaling

    scaling = rotary_scaling(settings.rope_scaling, d_k)
    theta = model_frequencies(d_k, settings.rope_base, scaling, tokens)
    return theta, attention_factor(scaling)
