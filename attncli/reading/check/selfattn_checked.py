"""attn selfattn's inputs read and checked in one pass, into one immutable CheckedSelfAttn
that the computation (api/selfattn) takes as it is.

The pass goes parse → check → draw → place, in that order and once: a checkpoint's names
become the layer's fields; what is given is held against the settings by name, then its
arrays against each other (reading/check/selfattn.py); every refusal, the seed's `drawn`
list and --positions' included, comes before anything is drawn from the seed; then the
sentence's embeddings and the projections left out are drawn, the positions added, the
masks and biases made (causal, --window, --alibi, the extra keys), and every array put in
the run's dtype. Nothing is changed afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from attncli.reading.parse.layer_inputs import LATENT_PROJECTIONS

if TYPE_CHECKING:
    import numpy as np

    from attncli.layer import SelfAttnSettings
    from attncli.reading.check.selfattn import SelfAttnInput
    from attncli.reading.models.state_dicts import LayerFields
    from attncli.reading.parse.layer_inputs import LayerInputs

# The layer's projections, in the order a result lists them (then the biases).
PROJECTIONS = ("w_q", "w_k", "w_v", *LATENT_PROJECTIONS, "w_o")


@dataclass(frozen=True)
class CheckedSelfAttn:
    """Everything attn selfattn computes on, checked: X (or Q, K, V), the projections, the
    masks and the settings the run uses."""

    inputs: LayerInputs  # the fields as read (the backward pass's ∂ℓ/∂output or target)
    settings: SelfAttnSettings  # as the run uses them (grids kept for a backward pass)
    state_dict_layer: LayerFields | None  # the state dict the weights came from, if any
    written: dict[str, Any]  # a result's outputs read back, held against the run
    query_labels: tuple[str, ...]
    key_labels: tuple[str, ...]
    x: np.ndarray | None  # [T_q, d_model] (or [B, T_q, d_model]), positions added
    x_kv: np.ndarray | None  # [T_k, d_model]: cross-attention's other sequence
    x_v: np.ndarray | None  # [T_k, vdim]: the values' own sequence
    weights: dict[str, np.ndarray]  # w_q, w_k, w_v, w_o (given or drawn), then biases
    direct: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # Q, K, V given instead of X
    drawn: tuple[str, ...]  # the projections drawn from `seed` (a result's included)
    seed: int
    norm: float | None  # the embeddings' length, when attn made them
    # [T_q, T_k + extra] (or batched): True where a query may look, after causal, --window
    # and the extra keys; None where every key may be seen
    allowed: np.ndarray | None
    bias: np.ndarray | None  # added to the scores: a float mask's and --alibi's
    given_mask: np.ndarray | None  # the mask as given, written down for a read-back
    given_bias: np.ndarray | None
    extra_keys: tuple[str, ...]  # torch's add_bias_kv ("bias_k") and add_zero_attn ("zero")
    rope_base: float | None  # --positions rope: Q and K turned before the score
    positions: object  # the additive encoding X holds (added now, or already by a result)
    positions_learned: bool  # not asked for: the input says its X carries them


def checked_selfattn(
    inputs: LayerInputs,
    sentence: str | None,
    settings: SelfAttnSettings,
    state_dict_layer: LayerFields | None = None,
    prefix: str = "",
) -> CheckedSelfAttn:
    """selfattn's inputs (a document's LayerInputs, or a sentence), with the weights of
    `state_dict_layer` (a state dict's) or of the checkpoint the input holds under `prefix`,
    read and checked once."""
    from attncli.reading.check.fields import drawn_of
    from attncli.reading.check.grouped import check_grouping
    from attncli.reading.check.positions import learned_positions
    from attncli.reading.check.read_back import read_back_inputs
    from attncli.reading.check.reader import read_layer
    from attncli.reading.check.scoring import (
        check_capped_bias,
        check_latent,
    )
    from attncli.reading.check.selfattn import check_given, checked_arrays
    from attncli.reading.models.state_dicts import take_state_dict_layer
    from attncli.settings import check_needs

    # parse: a checkpoint's names become the layer's fields (and its heads, its causality)
    inputs, settings, state_dict_layer = take_state_dict_layer(
        inputs, sentence, settings, state_dict_layer, prefix
    )
    asked = settings.positions
    settings = learned_positions(inputs, sentence, settings)  # a trained layer's own positions
    # check by name: the settings against each other, every name read, and what is given
    # against the settings, before any array is read
    check_needs(settings)  # each setting given with what it needs beside it
    check_grouping(settings)
    check_latent(settings)
    check_given(inputs, sentence, settings)
    # parse the arrays: a result's outputs set apart to be held against the run, then the rest
    inputs, written = read_back_inputs(inputs, settings.heads)
    inputs = read_layer(inputs, projections=settings.projections)
    if inputs.backward and not settings.grids:  # the backward pass goes through the weights
        settings = replace(settings, grids=True)
    # check the arrays against each other, and what will be drawn and placed
    arrays = checked_arrays(inputs, sentence, settings)
    check_capped_bias(settings, arrays.bias is not None)
    drawn, seed = drawn_of(inputs, filled_names(arrays), arrays.drawn, settings.seed)
    rope_base = settings.rope_base if settings.positions == "rope" else None
    # the encoding an x given already holds: a result's, or a document's that says so
    positions = inputs.written.get("positions") or (inputs.positions if inputs.from_x else None)
    adds_positions = settings.positions is not None and rope_base is None
    if adds_positions:
        from attncli.core.positions import check_placeable

        check_placeable(positions)
        positions = settings.positions
    # draw: every check has passed
    arrays = fill_from_seed(arrays, replace(settings, seed=seed))  # a result's own seed
    x, x_kv = arrays.x, arrays.x_kv
    if adds_positions:
        from attncli.core.positions import placed

        x, x_kv = placed(x, x_kv, str(settings.positions))
    allowed, bias = _masks(arrays, settings)
    x, x_kv, x_v, bias, weights, direct = _in_dtype(
        (x, x_kv, arrays.x_v, bias), arrays.weights, arrays.direct, settings.dtype
    )
    # torch's add_bias_kv and add_zero_attn: keys every query may look at, no bias there
    extra_keys = (("bias_k",) if "bias_k" in weights else ()) + (
        ("zero",) if settings.add_zero_attn else ()
    )
    if extra_keys:
        from attncli.core.selfattn import with_extra_keys

        allowed, bias = with_extra_keys(allowed, bias, len(extra_keys))
    return CheckedSelfAttn(
        inputs=inputs,
        settings=settings,
        state_dict_layer=state_dict_layer,
        written=written,
        query_labels=tuple(arrays.query_labels),
        key_labels=tuple(arrays.key_labels),
        x=x,
        x_kv=x_kv,
        x_v=x_v,
        weights=weights,
        direct=direct,
        drawn=drawn,
        seed=seed,
        norm=arrays.norm,
        allowed=allowed,
        bias=bias,
        given_mask=arrays.allowed,
        given_bias=arrays.bias,
        extra_keys=extra_keys,
        rope_base=rope_base,
        positions=positions,
        positions_learned=positions is not None and positions != asked,
    )


def filled_names(arrays: SelfAttnInput) -> dict[str, None]:
    """The names of the weights the fill step will hold, in its order (the projections,
    given or to be drawn, then the rest): what a result's `drawn` list is held to."""
    names = set(arrays.weights) | set(arrays.drawn)
    ordered = [name for name in PROJECTIONS if name in names]
    return dict.fromkeys([*ordered, *(name for name in arrays.weights if name not in ordered)])


def fill_from_seed(arrays: SelfAttnInput, settings: SelfAttnSettings) -> SelfAttnInput:
    """The checked arrays with what was left to the seed drawn (a copy): a sentence's
    embeddings (the context's too, the same token getting the same row) and the projections
    the input leaves out, in the layer's order (w_q, w_k, w_v, w_o, then the biases)."""
    from attncli.core.selfattn import embed, projections

    x, x_kv, weights = arrays.x, arrays.x_kv, arrays.weights
    if x is None and arrays.direct is None:  # a sentence
        assert arrays.d_model is not None and arrays.norm is not None
        width, norm = arrays.d_model, arrays.norm
        x = embed(arrays.query_labels, width, norm, settings.seed)
        if arrays.context_tokens is not None:
            x_kv = embed(arrays.context_tokens, width, norm, settings.seed)
    if arrays.sizes is not None:
        sizes = arrays.sizes
        drawn = projections(
            settings.seed, sizes.d_model, sizes.d_k, sizes.d_v, sizes.with_output,
            sizes.key_widths, names=tuple(arrays.drawn), latent_rank=sizes.latent_rank,
            rotary_key=sizes.rotary_key,
        )  # fmt: skip
        if settings.kv_heads is not None and settings.heads is not None:
            drawn = _grouped_draws(drawn, settings)
        layer = {name: weights.get(name, drawn.get(name)) for name in PROJECTIONS}
        others = {name: w for name, w in weights.items() if name not in PROJECTIONS}
        weights = {**{name: w for name, w in layer.items() if w is not None}, **others}
    return replace(arrays, x=x, x_kv=x_kv, weights=weights)


def _grouped_draws(
    drawn: dict[str, np.ndarray], settings: SelfAttnSettings
) -> dict[str, np.ndarray]:
    """W^K and W^V drawn with G heads' columns of H's (--kv-heads G), as the seed draws any
    projection: uniform with variance 1/fan_in."""
    from attncli.core.seeding import uniform_parameter

    assert settings.heads is not None and settings.kv_heads is not None
    grouped = dict(drawn)
    for name in ("w_k", "w_v"):
        if name in drawn:
            rows, columns = drawn[name].shape
            shape = (rows, columns // settings.heads * settings.kv_heads)
            grouped[name] = uniform_parameter(settings.seed, name, shape, fan_in=rows)
    return grouped


def _masks(
    arrays: SelfAttnInput, settings: SelfAttnSettings
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Where each query may look and what is added to its scores: the mask given, causal,
    --window and --alibi (core/distance.py, by how far key j stands from query i of the one
    sequence; reading/check/positions.py has refused them for two)."""
    allowed, bias = arrays.allowed, arrays.bias  # True where a query may look
    t_q, t_k = len(arrays.query_labels), len(arrays.key_labels)
    if settings.causal:
        from attncli.core.attention import causal_mask

        earlier = causal_mask(t_q, t_k)
        allowed = earlier if allowed is None else allowed & earlier
    if settings.window is not None or settings.alibi:
        from attncli.core import distance

        if settings.window is not None:
            near = distance.window_mask(t_q, t_k, settings.window, bool(settings.causal))
            allowed = near if allowed is None else allowed & near
        if settings.alibi:
            alibi = distance.alibi_bias(settings.heads or 1, t_q, t_k)
            alibi = alibi[0] if settings.heads is None else alibi
            bias = alibi if bias is None else bias + alibi
    return allowed, bias


def _in_dtype(
    sequences: tuple[np.ndarray | None, ...],
    weights: dict[str, np.ndarray],
    direct: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    dtype: str,
) -> tuple[Any, ...]:
    """--dtype float32: the layer's arrays in float32 from the inputs on, so that the
    projections, scores, softmax, mix and gradients are computed in it. Returns the
    sequences (x, x_kv, x_v, bias), then the weights and Q, K, V given."""
    if dtype == "float64":
        return (*sequences, weights, direct)
    import numpy as np

    kind = np.float32
    cast = tuple(None if array is None else array.astype(kind) for array in sequences)
    weights = {name: array.astype(kind) for name, array in weights.items()}
    if direct is not None:
        queries, keys, values = (array.astype(kind) for array in direct)
        direct = (queries, keys, values)
    return (*cast, weights, direct)
