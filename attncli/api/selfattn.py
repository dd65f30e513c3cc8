"""The self-attention layer as an operation: array-likes or a document → checked inputs →
core → a SelfAttnResult, with its backward pass when asked for. No I/O."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.calculator import ArrayLike, check_finite, plain
from attncli.api.selfattn_backward import selfattn_backward
from attncli.errors import OptionError
from attncli.messages import _
from attncli.reading.parse.layer_inputs import LayerInputs
from attncli.results.selfattn import SelfAttnResult

if TYPE_CHECKING:
    from attncli.core.selfattn import Attention
    from attncli.layer import SelfAttnSettings
    from attncli.reading.check.selfattn import SelfAttnInput
    from attncli.reading.models.state_dicts import LayerFields


def selfattn(
    sentence: str | None = None,
    *,
    x: ArrayLike | None = None,
    queries: ArrayLike | None = None,
    keys: ArrayLike | None = None,
    values: ArrayLike | None = None,
    tokens: Sequence[str] | None = None,
    w_q: ArrayLike | None = None,
    w_k: ArrayLike | None = None,
    w_v: ArrayLike | None = None,
    w_o: ArrayLike | None = None,
    x_q: ArrayLike | None = None,
    x_kv: ArrayLike | None = None,
    x_k: ArrayLike | None = None,
    x_v: ArrayLike | None = None,
    b_q: ArrayLike | None = None,
    b_k: ArrayLike | None = None,
    b_v: ArrayLike | None = None,
    b_o: ArrayLike | None = None,
    bias_k: ArrayLike | None = None,
    bias_v: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    attn_mask: ArrayLike | None = None,
    key_padding_mask: ArrayLike | None = None,
    grad_output: ArrayLike | None = None,
    target: ArrayLike | None = None,
    model: str | None = None,
    layer: int | None = None,
    head: int | None = None,
    words: bool = False,
    weights: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    prefix: str = "",
    **layer_settings: Any,
) -> SelfAttnResult:
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
    `heads` must then be given
    unless config.json sits beside the file. Biases b_q, b_k, b_v, b_o are optional (zero when left
    out); `bias_k`, `bias_v` are torch's add_bias_kv rows (one more key and value, of
    h·d_k and h·d_v numbers), `add_zero_attn` torch's zero key and value per head. Given
    some of w_q, w_k, w_v, w_o, the others must be given too, or drawn from
    `seed` with `draw_missing`. With `heads`, d_k and d_v are the sizes per head
    (d_model / h by default), and the heads are joined through W^O unless `out_proj` is
    false. `mask` is 1 (or True) where query i may look at key j (torch's boolean
    attn_mask is the opposite); `attn_mask` is torch's, in torch's sense: boolean True where
    a query may NOT look, or floats added to the scores (-inf where it may not); both of
    any shape torch broadcasts to the scores B × h × T_q × T_k (T_q × T_k, B × 1 × 1 × T_k,
    h × T_q × T_k, …) or B·h × T_q × T_k (nn.MultiheadAttention's);
    `key_padding_mask` is torch's: true for a padding key (or floats added to its column),
    per key or per sequence of a batch;
    `valid_len` masks the keys from that count on (padding); `scale_by` divides the
    scores by a number of your choosing instead of √d_k. Cross-attention: the queries
    from `sentence` (or `x_q`), the keys and values from `context` (or `x_kv`), or the
    keys from `x_k` and the values from `x_v`, each of its own width (torch's kdim, vdim).
    With `grad_output` (∂ℓ/∂output) or a `target` (for ℓ = ½‖output − target‖²) the
    result also holds the backward pass: `grads` has grad_x and grad_w_q, grad_w_k,
    grad_w_v (grad_w_o with W^O, grad_b_… for each bias given), or grad_queries,
    grad_keys, grad_values when Q, K, V were given. `weights` may be a pathlib.Path;
    `dtype` "float32" or "float64", or numpy's (np.float32, np.dtype("float32")).
    The result's `weights_mean` is the weights averaged over the heads (torch's default);
    a batch's `result.item(n)` is sequence n (1-based) as a result of its own, whose
    `steps()` explain one row.

    >>> a = selfattn("en las llaves del coche", seed=0)
    >>> a.weights.shape, a.params
    ((5, 5), 192)
    >>> bool(abs(a.weights.sum(axis=1) - 1).max() < 1e-12)
    True
    """
    from attncli.layer import settings_from_keywords

    options = settings_from_keywords(selfattn, **layer_settings)
    # each array-like as the checks read it: a tuple as a list, a tensor as an array
    inputs = LayerInputs(
        x=plain(x), queries=plain(queries), keys=plain(keys), values=plain(values),
        tokens=plain(tokens),
        w_q=plain(w_q), w_k=plain(w_k), w_v=plain(w_v), w_o=plain(w_o),
        x_q=plain(x_q), x_kv=plain(x_kv), x_k=plain(x_k), x_v=plain(x_v),
        b_q=plain(b_q), b_k=plain(b_k), b_v=plain(b_v), b_o=plain(b_o),
        bias_k=plain(bias_k), bias_v=plain(bias_v),
        mask=plain(mask), attn_mask=plain(attn_mask), key_padding_mask=plain(key_padding_mask),
        grad_output=plain(grad_output), target=plain(target),
    )  # fmt: skip
    if model is not None:
        given = [*inputs.given(), *options.changed()]
        given += [name for name, value in (("weights", weights), ("prefix", prefix)) if value]
        if given:
            from attncli.layer import not_with_model

            raise not_with_model(given[0])
        from attncli.api.model import model_selfattn

        return model_selfattn(sentence, model, layer=layer, head=head, words=words)
    if layer is not None or head is not None or words:
        raise OptionError(_("layer=, head= and words= pick from a pretrained model; add model="))
    from attncli.reading.models.state_dicts import layer_of

    return selfattn_inputs(inputs, sentence, options, layer_of(weights, prefix))


def selfattn_inputs(
    inputs: LayerInputs,
    sentence: str | None,
    options: SelfAttnSettings,
    layer: LayerFields | None = None,
    progress: Callable[[int, int], None] | None = None,
    prefix: str = "",
) -> SelfAttnResult:
    """selfattn() on its inputs (x and projections, or queries, keys and values; parsed
    from a document by LayerInputs.from_document), with the weights of `layer` (read from a
    state dict) when given, else those the input holds under a checkpoint's names (the
    layer under `prefix`, or its only one); `progress` hears (queries done, queries in all)
    as a long input or a big batch goes.

    The scores are divided by √d_k (per head), by `options.scale` when a number, or not
    at all when it is None.
    """
    from attncli.reading.check.fields import drawn_of
    from attncli.reading.check.grouped import check_grouping
    from attncli.reading.check.read_back import check_outputs, read_back_inputs
    from attncli.reading.check.selfattn import check_given, selfattn_input
    from attncli.reading.models.state_dicts import KIND_NAMES, layer_settings

    # parse: a checkpoint's names become the layer's fields (and its heads, its causality)
    inputs, options, layer = layer_settings(inputs, sentence, options, layer, prefix)
    # check by name: the settings against each other, every name read, and what is given
    # against the settings, before any array is read
    check_grouping(options, inputs)
    check_given(inputs, sentence, options)
    # parse the arrays: a result's outputs set apart to be held against the run, then the rest
    inputs, written = read_back_inputs(inputs, options.heads)
    inputs = inputs.with_arrays(projections=options.projections)
    if inputs.backward and not options.grids:  # the backward pass goes through the weights
        options = replace(options, grids=True)
    # check the arrays against each other, then fill in what the seed draws
    checked = selfattn_input(inputs, sentence, options)
    checked = fill_from_seed(checked, options)
    given_mask, given_bias = checked.allowed, checked.bias  # written down for a read-back
    drawn, seed = drawn_of(inputs, checked.weights, checked.drawn, options.seed)
    rope_base = options.rope_base if options.positions == "rope" else None
    held = inputs.written.get("positions")  # the encoding a result's x already holds
    if options.positions is not None and rope_base is None:
        from attncli.core.positions import placed

        held = options.positions
        checked.x, checked.x_kv = placed(
            checked.x, checked.x_kv, options.positions, inputs.written.get("positions")
        )
    allowed = checked.allowed  # True where a query may look, as everywhere in attn
    if options.causal:
        from attncli.core.attention import causal_mask

        earlier = causal_mask(len(checked.query_labels), len(checked.key_labels))
        allowed = earlier if allowed is None else allowed & earlier
    allowed, checked.bias = _by_distance(checked, options, allowed)
    _in_dtype(checked, options.dtype)
    extra_keys = (("bias_k",) if "bias_k" in checked.weights else ()) + (
        ("zero",) if options.add_zero_attn else ()
    )  # torch's add_bias_kv and add_zero_attn: keys every query may look at
    if extra_keys:
        from attncli.core.selfattn import with_extra_keys

        allowed, checked.bias = with_extra_keys(allowed, checked.bias, len(extra_keys))
    divisor = _divisor(options.scale)
    with np.errstate(all="ignore"):  # overflow is checked after, with a clear message
        run = _run_selfattn(
            checked, options.heads, divisor, allowed, options.grids, options.add_zero_attn,
            progress, rope_base, options.kv_heads,
        )  # fmt: skip
    if options.grids:
        from attncli.core.attention import aligned

        cells = None if allowed is None else aligned(allowed, run.scores.shape)
        check_finite(run.scores, "scores", cells)
    check_finite(run.output, "output")
    if written:
        outputs = {"queries": run.queries, "keys": run.keys, "values": run.values,
                   "weights": run.weights, "concat": run.concat, "output": run.output}  # fmt: skip
        if options.grids:  # the scores as the result writes them: Q Kᵀ, then ÷ and masked
            outputs.update(raw_scores=run.queries @ np.swapaxes(run.keys, -1, -2),
                           scores=run.scores)  # fmt: skip
        check_outputs(written, outputs, options.dtype)
    with np.errstate(all="ignore"):
        loss, grads = selfattn_backward(inputs, checked, run, run.divisor)
    for name, gradient in grads.items():
        check_finite(gradient, name)
    if loss is not None:  # ½‖output − target‖² past float64: a target too large
        check_finite(np.array([loss]), "loss")
    return SelfAttnResult(
        loss=loss,
        grads=grads,
        query_labels=tuple(checked.query_labels),
        tokens=tuple(checked.key_labels),
        extra_keys=extra_keys,
        x=checked.x,
        x_kv=checked.x_kv,
        x_v=checked.x_v,
        projections=checked.weights,
        drawn=drawn,
        attention=run,
        heads=options.heads,
        scale=options.scale is not None,
        divisor=run.divisor,
        causal=bool(options.causal),
        allowed=allowed,
        bias=checked.bias,
        mask=given_mask,
        mask_bias=given_bias,
        grids=options.grids,
        norm=checked.norm,
        seed=seed,
        dtype=options.dtype,
        weights_from=None if layer is None else (layer.source, KIND_NAMES[layer.kind]),
        heads_unchecked=layer is not None and layer.heads is None,  # no config.json to say
        trained_by=inputs.trained_by,
        causal_from=KIND_NAMES[layer.kind] if layer and layer.causal and options.causal else None,
        rope_base=rope_base,
        positions=held if isinstance(held, str) else None,
        kv_heads=options.kv_heads,
        window=options.window,
        alibi=options.alibi,
    )


def _by_distance(
    checked: SelfAttnInput, options: SelfAttnSettings, allowed: np.ndarray | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The mask with --window's and the scores' bias with --alibi's (core/distance.py), both
    by how far key j stands from query i of the one sequence (reading/check/positions.py
    has refused them for two)."""
    if options.window is None and not options.alibi:
        return allowed, checked.bias
    from attncli.core import distance

    t_q, t_k = len(checked.query_labels), len(checked.key_labels)
    if options.window is not None:
        near = distance.window_mask(t_q, t_k, options.window, bool(options.causal))
        allowed = near if allowed is None else allowed & near
    bias = checked.bias
    if options.alibi:
        alibi = distance.alibi_bias(options.heads or 1, t_q, t_k)
        alibi = alibi[0] if options.heads is None else alibi
        bias = alibi if bias is None else bias + alibi
    return allowed, bias


def fill_from_seed(checked: SelfAttnInput, options: SelfAttnSettings) -> SelfAttnInput:
    """The checked inputs with what was left to the seed drawn: a sentence's embeddings
    (the context's too, the same token getting the same row) and the projections the input
    leaves out, in the layer's order (w_q, w_k, w_v, w_o, then the biases)."""
    from attncli.core.selfattn import embed, projections

    if checked.x is None and checked.direct is None:  # a sentence
        assert checked.d_model is not None and checked.norm is not None
        width, norm = checked.d_model, checked.norm
        checked.x = embed(checked.query_labels, width, norm, options.seed)
        if checked.context_tokens is not None:
            checked.x_kv = embed(checked.context_tokens, width, norm, options.seed)
    if checked.sizes is not None:
        sizes = checked.sizes
        drawn = projections(
            options.seed, sizes.d_model, sizes.d_k, sizes.d_v, sizes.with_output,
            sizes.key_widths, names=tuple(checked.drawn),
        )  # fmt: skip
        if options.kv_heads is not None and options.heads is not None:
            drawn = _grouped_draws(drawn, options)
        order = ("w_q", "w_k", "w_v", "w_o")
        layer = {name: checked.weights.get(name, drawn.get(name)) for name in order}
        others = {name: w for name, w in checked.weights.items() if name not in order}
        checked.weights = {
            **{name: w for name, w in layer.items() if w is not None},
            **others,
        }
    return checked


def _grouped_draws(
    drawn: dict[str, np.ndarray], options: SelfAttnSettings
) -> dict[str, np.ndarray]:
    """W^K and W^V drawn with G heads' columns of H's (--kv-heads G), as the seed draws any
    projection: uniform with variance 1/fan_in."""
    from attncli.core.seeding import uniform_parameter

    assert options.heads is not None and options.kv_heads is not None
    grouped = dict(drawn)
    for name in ("w_k", "w_v"):
        if name in drawn:
            rows, columns = drawn[name].shape
            shape = (rows, columns // options.heads * options.kv_heads)
            grouped[name] = uniform_parameter(options.seed, name, shape, fan_in=rows)
    return grouped


def _in_dtype(checked: SelfAttnInput, dtype: str) -> None:
    """--dtype float32: the layer's arrays in float32 from the inputs on, so that the
    projections, scores, softmax, mix and gradients are computed in it."""
    if dtype == "float64":
        return
    kind = np.float32
    checked.x, checked.x_kv, checked.x_v, checked.bias = (
        None if array is None else array.astype(kind)
        for array in (checked.x, checked.x_kv, checked.x_v, checked.bias)
    )
    checked.weights = {name: array.astype(kind) for name, array in checked.weights.items()}
    if checked.direct is not None:
        queries, keys, values = (array.astype(kind) for array in checked.direct)
        checked.direct = (queries, keys, values)


def _divisor(scale: float | str | None) -> float | None:
    """What the scores are divided by: None for √d_k (the core's default), 1, or --scale S."""
    from attncli.layer import SQRT

    if scale == SQRT:
        return None
    if scale is None:
        return 1.0
    return float(scale)  # a positive number (SelfAttnSettings has checked it)


def _run_selfattn(
    checked: SelfAttnInput,
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
    from attncli.core.rotary import rotate

    def turned(queries: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if rope_base is None:
            return queries, keys
        return rotate(queries, rope_base), rotate(keys, rope_base)

    bias = checked.bias  # a float attn_mask's finite part, added to the scores
    if checked.direct is not None:
        queries, keys, values = checked.direct
        block = core.attend_batch if queries.ndim == 3 else core.attend_or_block
        if heads is None:
            rotated = turned(queries, keys)
            result = block(*rotated, values, divisor, allowed, grids, bias, progress)
            result.unrotated = None if rope_base is None else (queries, keys)
            return result
        split_q, split_k, split_v = (core.split_heads(a, heads) for a in (queries, keys, values))
        rotated = turned(split_q, split_k)
        result = block(*rotated, split_v, divisor, allowed, grids, bias, progress)
        result.unrotated = None if rope_base is None else (split_q, split_k)
        result.concat = core.join_heads(result.output)
        result.output = result.concat  # no W^O: the heads joined side by side
        return result
    x_q = checked.x
    assert x_q is not None  # without Q, K, V given, there is an X
    x_kv = x_q if checked.x_kv is None else checked.x_kv
    x_v = x_kv if checked.x_v is None else checked.x_v  # keys and values of their own
    if not checked.weights:
        block = core.attend_batch if x_q.ndim == 3 else core.attend_or_block
        result = block(*turned(x_q, x_kv), x_v, divisor, allowed, grids, bias, progress)
        result.unrotated = None if rope_base is None else (x_q, x_kv)
        return result
    return core.attention_layer(
        x_q, x_kv, checked.weights, heads, divisor, allowed, grids, bias, zero_attn, x_v, progress,
        rope_base, kv_heads,
    )  # fmt: skip
