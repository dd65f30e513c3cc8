"""Validated inputs for attn selfattn: a sentence made into X, or given matrices.

The self-attention half of the checks (calculator.py holds the calculator's):
check_given() holds what is given against the settings by name, before any array is read
(reader.read_layer); checked_arrays() holds the arrays against each other and the
sizes, and says which projections the fill step draws (selfattn_checked.py runs the pass).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from attncli.errors import InputError, count
from attncli.layer import SelfAttnSettings
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.check.calculator import (
    labels,
    refuse_unused,
    row_labels,
)
from attncli.reading.check.fields import (
    NO_OUT_PROJ,
    check_fields,
    check_read_back,
    check_used,
)
from attncli.reading.check.grad import one_upstream
from attncli.reading.check.masks import layer_masks
from attncli.reading.check.positions import check_positions
from attncli.reading.check.reader import ReadInputs, agree, layer_sequences, layout_of
from attncli.reading.check.sizes import check_memory, projection_sizes, split_evenly
from attncli.reading.inputs import DIRECT_LAYOUT, LAYER, PROJECTED
from attncli.reading.models.state_dicts import LAYER_FIELDS
from attncli.reading.parse.layer_inputs import INPUTS
from attncli.reading.parse.sentence import EXAMPLE

if TYPE_CHECKING:
    import numpy as np

    from attncli.reading.parse.layer_inputs import LayerInputs


@dataclass
class SelfAttnInput:
    """What attn selfattn computes on: X and its projections, or Q, K, V given directly."""

    query_labels: list[str]
    key_labels: list[str]
    x: np.ndarray | None  # [T_q, d_model]
    weights: dict[str, np.ndarray]  # w_q, w_k, w_v, with heads w_o, and any biases
    drawn: list[str]  # which of `weights` came from the seed
    # Q [T_q, d_k], K [T_k, d_k], V [T_k, d_v] when given instead of X
    direct: tuple[np.ndarray, np.ndarray, np.ndarray] | None
    norm: float | None  # the embeddings' length, when attn made them
    # [T_q, T_k] (or [B, T_q, T_k]), True where a query may look (mask, --valid-len)
    allowed: np.ndarray | None = None
    x_kv: np.ndarray | None = None  # [T_k, d_model]: cross-attention's other sequence
    # of the scores' shape: added to the scores before the softmax (a float attn_mask)
    bias: np.ndarray | None = None
    x_v: np.ndarray | None = None  # [T_k, vdim]: the values' own sequence (x_kv is then x_k)
    # what the fill step (selfattn_checked.fill_from_seed) draws from: the sizes of the seeded
    # projections, and for a sentence the embeddings' length and the context's tokens
    sizes: SeededSizes | None = None
    d_model: int | None = None  # a sentence's embeddings' width
    context_tokens: list[str] | None = None


@dataclass(frozen=True)
class SeededSizes:
    """The sizes the projections left out are drawn at: W^Q [d_model, d_k], W^K [kdim,
    d_k], W^V [vdim, d_v], with W^O [d_v, d_model] (d_k, d_v over every head)."""

    d_model: int
    d_k: int
    d_v: int
    with_output: bool
    key_widths: tuple[int, int] | None  # (kdim, vdim) when keys and values have their own
    latent_rank: int | None = None  # W^DKV, W^UK, W^UV instead of W^K and W^V (MLA)
    rotary_key: tuple[int, int] | None = None  # its (h, d_rope): W^QR and W^KR beside them


def check_given(inputs: LayerInputs, sentence: str | None, settings: SelfAttnSettings) -> None:
    """What is given, held against the settings and against itself by name alone, before
    any array is read: the sizes asked for, every name read, a result read back's
    settings, a sentence or arrays, and what the settings would leave unused."""
    if settings.context is not None and sentence is None:
        raise InputError(
            _(
                "{context} gives the keys and values for a sentence's queries; give the "
                "sentence too (or x_q and x_kv{where})"
            ),
            context=Setting("context"),
            where=OnSurface(Message(_(" in -i FILE")), ""),
        )
    check_fields(inputs)  # every name used (a checkpoint's have been taken by now)
    check_read_back(inputs, settings)
    one_upstream(inputs.grad_output, inputs.target)
    # The gradient at the output goes with either kind of input.
    # The weights may go with a sentence too (--weights FILE, or w_q, … in -i FILE).
    data = set(inputs.given()) - {"grad_output", "target", "trained_by", "positions", *LAYER_FIELDS}
    if sentence is not None and data:
        raise InputError(
            _("give a sentence or {arrays}, not both"),
            arrays=OnSurface(Message(_("-i FILE")), Message(_("arrays (x, x_q, queries, …)"))),
        )
    if sentence is None and not data:
        raise InputError(
            _("nothing to attend over: give a sentence ({example}) or {arrays}"),
            example=EXAMPLE,
            arrays=OnSurface(
                Message(_("-i FILE with x, with x_q and x_kv, or with queries, keys and values")),
                Message(_("x=…, x_q=… and x_kv=…, or queries=…, keys=… and values=…")),
            ),
        )
    # torch's add_bias_kv rows come in pairs, wherever the projections take them (a result
    # read back holds its queries beside x: direct only when there is no X or sentence)
    projected = settings.projections and (sentence is not None or inputs.from_x)
    if projected and (inputs.bias_k is None) != (inputs.bias_v is None):
        given, other = ("bias_k", "bias_v") if inputs.bias_v is None else ("bias_v", "bias_k")
        raise InputError(
            _(
                "{given} without {other}: torch's add_bias_kv appends a key row and a value "
                "row; give both"
            ),
            given=given,
            other=other,
        )
    check_used(inputs, settings, is_direct(inputs, sentence))


def is_direct(inputs: LayerInputs, sentence: str | None) -> bool:
    """Queries, keys and values are given in place of X (attention without projections)."""
    return sentence is None and (inputs.queries is not None or inputs.keys is not None)


def checked_arrays(
    inputs: LayerInputs, sentence: str | None, settings: SelfAttnSettings
) -> SelfAttnInput:
    """Validated inputs for attn selfattn, from a sentence or from given matrices: the
    arrays of `inputs` (reader.read_layer, after check_given) held against each
    other, the settings and the sizes they make."""
    import numpy as np

    from attncli.core.selfattn import projection_shapes
    from attncli.reading.parse.sentence import tokenize

    if is_direct(inputs, sentence):
        return _direct_input(inputs, settings)

    norm: float | None = None
    read = ReadInputs()  # the named dimensions, each bound by what sets it first
    if settings.d_model is not None:  # --d-model: the width x (or x_q) must have
        width = settings.d_model
        read.bind("d_model", width, Setting("d_model", width), count(width, "number"))
    x: np.ndarray | None = None
    x_kv: np.ndarray | None = None
    x_v: np.ndarray | None = None  # the values' own sequence (x_k is then x_kv)
    if sentence is not None:
        query_tokens = tokenize(sentence)
        context = settings.context
        tokens = tokenize(context, Setting("context")) if context is not None else query_tokens
        # given W^Q with a sentence: its rows are the embeddings' width
        if settings.d_model is None and inputs.w_q is not None:
            rows = int(inputs.w_q.shape[0])
            read.bind("d_model", rows, "w_q", count(rows, "row"))
        d_model = settings.d_model or read.sizes.get("d_model", 8)
        if settings.d_model is None:  # --d-model's default, the seeded embeddings' width
            named = Message(_("{option} by default"), option=Setting("d_model", d_model))
            read.bind("d_model", d_model, named, count(d_model, "number"))
    else:  # X given: a batch (B × T × d, as torch's batch_first) is computed in one go
        layout = layout_of(inputs)
        x, *others = layer_sequences(inputs, layout, read)
        d_model = x.shape[-1]
        if others:  # cross-attention: the keys' and values' own sequence(s)
            x_kv, x_v = others[0], (others[1] if len(others) > 1 else None)
            query_tokens = _query_labels(inputs, x.shape[-2])
            tokens = labels(inputs.tokens, x_kv.shape[-2], layout.names[1], "k")
        else:
            tokens = labels(inputs.tokens, x.shape[-2], "x", "t")
            query_tokens = tokens
    d_k, d_v = d_model, d_model
    if settings.projections:
        d_k, d_v = projection_sizes(inputs, settings, d_model)
    batch = x.shape[0] if x is not None and x.ndim == 3 else 1
    check_memory(
        len(query_tokens), len(tokens), d_model, d_k, d_v, batch * (settings.heads or 1),
        settings.grids,
    )  # fmt: skip
    if x is None:  # a sentence: its embeddings are drawn in the fill step
        norm = settings.norm if settings.norm is not None else float(np.sqrt(d_model))
    weights: dict[str, np.ndarray] = {}
    drawn: list[str] = []  # to be drawn from the seed in the fill step
    sizes = None
    if settings.projections:
        with_output = settings.heads is not None and settings.out_proj
        widths = (x_kv.shape[-1], x_v.shape[-1]) if x_v is not None and x_kv is not None else None
        rank, rotary_key = settings.latent_rank, None
        if rank is not None:
            from attncli.reading.check.scoring import check_latent_batch, latent_rotary_key

            check_latent_batch(settings, x is not None and x.ndim == 3)
            rotary_key = latent_rotary_key(settings, d_k)
        sizes = SeededSizes(d_model, d_k, d_v, with_output, widths, rank, rotary_key)
        shapes = projection_shapes(d_model, d_k, d_v, with_output, widths, rank, rotary_key)
        if settings.kv_heads is not None and settings.heads is not None:
            from attncli.reading.check.grouped import grouped_shapes

            shapes = grouped_shapes(shapes, settings.heads, settings.kv_heads)
        drawn = [name for name in shapes if name not in INPUTS or inputs.value(name) is None]
        weights = _bound_projections(inputs, settings, read, (d_k, d_v), widths is None)
        _check_all_given(inputs, [name for name in shapes if name in INPUTS], settings)
    batch = x.shape[0] if x is not None and x.ndim == 3 else None  # a sentence is one
    allowed, bias = layer_masks(
        inputs, len(query_tokens), len(tokens), settings.valid_len, batch, settings.heads
    )
    crossed = x_kv is not None or settings.context is not None
    head_width = d_k // (settings.heads or 1) if settings.projections else d_model
    check_positions(inputs, settings, crossed, head_width)
    checked = SelfAttnInput(
        query_tokens, tokens, x, weights, drawn, None, norm, allowed, x_kv, bias, x_v, sizes
    )
    if x is None:
        checked.d_model = d_model
        checked.context_tokens = tokens if settings.context is not None else None
    return checked


def _bound_projections(
    inputs: LayerInputs,
    settings: SelfAttnSettings,
    read: ReadInputs,
    sizes: tuple[int, int],
    single: bool,
) -> dict[str, np.ndarray]:
    """The W's and biases given, held to their named dimensions (inputs.LAYER: w_q d_model
    × d_k, w_k kdim × d_k, w_v vdim × d_v, w_o d_v × d_out, b_o d_out, …) by the one
    reader's binding, after what sets each: the sequences (d_model, and kdim and vdim,
    `single`: x's own), then the total d_k and d_v (`sizes`: --d-k and --d-v for --heads,
    or W^Q and W^V, or d_model's share), --kv-heads' W^K and W^V of G heads, and d_out
    d_model's where W^O is not given. A size that disagrees is one line naming both."""
    heads, kv = settings.heads, settings.kv_heads
    if single:  # the keys and values are made from x (or x_kv) too
        for dimension in ("kdim", "vdim"):
            read.bind(dimension, read.sizes["d_model"], *read.bound_by["d_model"])
    grouped = kv is not None and heads is not None
    for dimension, source, total in (("d_k", "w_q", sizes[0]), ("d_v", "w_v", sizes[1])):
        option = getattr(settings, dimension)
        from_w = option is None and inputs.value(source) is not None
        if not from_w or (grouped and source == "w_v"):  # else the W binds it as it is read
            # the W that gave it, or the option, or the option's default: d_model's share
            named: str | Setting | Message = (
                source if from_w else Setting(dimension, total // (heads or 1))
            )
            if option is None and not from_w:
                named = Message(_("{option} by default"), option=named)
            if heads is not None:
                named = Message(
                    _("{field} for {heads}"), field=named, heads=Setting("heads", heads)
                )
            read.bind(dimension, total, named, count(total, "number"))
        if kv is not None and heads is not None:  # W^K, W^V: G heads' columns of H's
            share = total // heads * kv
            read.bind(f"kv_{dimension}", share, Setting("kv_heads", kv), count(share, "number"))
    if inputs.w_o is None:
        read.bind("d_out", read.sizes["d_model"], *read.bound_by["d_model"])
    given = []
    for declared in LAYER.fields:
        value = inputs.value(declared.name)
        if declared.name in PROJECTED and value is not None:
            if grouped and declared.name in ("w_k", "w_v"):
                declared = replace(declared, dims=(declared.dims[0], f"kv_{declared.dims[1]}"))
            given.append((declared, value))
    agree(*given, into=read)
    return {declared.name: value for declared, value in given}


def _check_all_given(inputs: LayerInputs, names: list[str], settings: SelfAttnSettings) -> None:
    """Some of the layer's projections given and others not: refused, naming the missing
    ones, unless --draw-missing asks for them to be drawn from the seed."""
    given = [name for name in names if inputs.value(name) is not None]
    missing = [name for name in names if inputs.value(name) is None]
    if not given or not missing or settings.draw_missing or inputs.read_back:
        return
    # W^O alone missing: --no-out-proj joins the heads without it, a third way
    text = (_("the input gives {given} but not {missing}; give {missing} too, or "
              "{no_out_proj}, or {draw} to draw {missing} from {seed}") if missing == ["w_o"]
            else _("the input gives {given} but not {missing}; give {missing} too, or {draw} "
                   "to draw {missing} from {seed}"))  # fmt: skip
    raise InputError(text, given=", ".join(given), missing=", ".join(missing),
                     seed=Setting("seed", settings.seed), draw=Setting("draw_missing", True),
                     no_out_proj=NO_OUT_PROJ)  # fmt: skip


def _query_labels(inputs: LayerInputs, rows: int, field: str = "x_q") -> list[str]:
    """The queries' token names: query_tokens (one a row of `field`), else q1, q2, …"""
    return labels(inputs.query_tokens, rows, field, "q", source="query_tokens")


def _direct_input(inputs: LayerInputs, settings: SelfAttnSettings) -> SelfAttnInput:
    """Attention straight from given queries, keys and values (no X, no projections); with
    --heads h their columns are split into h heads. Each may be a batch B × T × d."""
    # each one required, in this order (selfattn has no --keys: the file holds them); a result
    # read back of several heads has them joined again (reading/check/read_back.py)
    queries, keys, values = layer_sequences(inputs, DIRECT_LAYOUT)
    heads = settings.heads or 1
    for name, array in (("queries", queries), ("values", values)):
        split_evenly(name, array.shape[-1], heads)
    batch = queries.shape[0] if queries.ndim == 3 else None
    t_q, t_k = queries.shape[-2], keys.shape[-2]
    check_memory(
        t_q, t_k, 1, keys.shape[-1], values.shape[-1], batch or 1, settings.grids
    )  # fmt: skip
    # no projections here, so nothing a bias could be added to
    refuse_unused(dict.fromkeys(inputs.given(), True), biases=())
    key_labels = labels(inputs.tokens, t_k, "keys", "k")
    query_labels = row_labels(inputs.tokens, t_q, False, "q")
    if inputs.query_tokens is not None:  # a result read back names them apart
        query_labels = _query_labels(inputs, t_q, "queries")
    allowed, bias = layer_masks(inputs, t_q, t_k, settings.valid_len, batch, settings.heads)
    check_positions(inputs, settings, t_q != t_k, keys.shape[-1] // heads)
    direct = (queries, keys, values)
    return SelfAttnInput(query_labels, key_labels, None, {}, [], direct, None, allowed, None, bias)
