"""Attention at inference, by hand: the online softmax (attn softmax --online), one query
row through key tiles (attn selfattn --tiles) and the KV cache ledger (attn selfattn
--kv-cache), each checked against the plain computation it replaces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import SEED, Hinted, keywords
from attncli.core import inference
from attncli.core.attention import softmax as plain_softmax
from attncli.errors import OptionError
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.check.calculator import carried_values, softmax_input
from attncli.reading.check.scoring import refuse_replay
from attncli.reading.parse.values import Document
from attncli.results.rows import pick_row
from attncli.settings import Whole

if TYPE_CHECKING:
    from attncli.results.inference import CacheLedger, OnlineSoftmaxResult, TiledResult
    from attncli.results.selfattn import SelfAttnResult

ArrayLike = Any


# A block of scores or keys holds one at least, and at most a row attn can hold and JSON
# writes (one longer than the row reads it whole): --block, block=, tile_q=, tile_k=.
BLOCK = Hinted(Whole(1, 2**31 - 1), 2)


@keywords(block=BLOCK)
def online_softmax(
    scores: ArrayLike,
    *,
    block: int = 2,
    tokens: Sequence[str] | None = None,
    temperature: float = 1.0,
) -> OnlineSoftmaxResult:
    """softmax read `block` scores at a time, as FlashAttention does: a running max m and a
    running sum ℓ rescaled by e^(m_old − m_new) when m rises; -inf (or None) masks a cell.

    >>> r = online_softmax([2, 0, 1], block=2)
    >>> [round(b["l"], 3) for b in r.to_document()["blocks"]]
    [1.135, 1.503]
    >>> r.weights.round(3)
    array([0.665, 0.09 , 0.245])
    """
    from attncli.api.calculator import chained_document

    document = chained_document(scores, "scores")
    if tokens is not None:
        document["tokens"] = list(tokens)
    return online_softmax_document(document, block, temperature)


@keywords(block=BLOCK)
def online_softmax_document(
    document: Document, block: int = 2, temperature: float = 1.0
) -> OnlineSoftmaxResult:
    """online_softmax() on a document with scores (a row or a grid)."""
    from attncli.api.calculator import check_temperature
    from attncli.results.inference import OnlineSoftmaxResult

    check_temperature(temperature)
    rows = softmax_input(document)
    blocks = inference.online_softmax(rows.matrix, block, temperature)
    return OnlineSoftmaxResult(
        single=rows.single,
        row_labels=tuple(rows.row_labels),
        column_labels=tuple(rows.column_labels),
        carried=carried_values(document, rows.matrix.shape[1]),
        score_grid=rows.matrix,
        weight_grid=blocks.weights,
        plain_grid=plain_softmax(rows.matrix, temperature),
        blocks=blocks,
        block=block,
        temperature=temperature,
    )


# The settings _plain_layer's refusals name, as the command line and Python write them.
SAID = {
    "x": OnSurface(Message(_("x in -i FILE")), Setting("x", metavar="…")),
    "context": Setting("context"),
    "zero": Setting("add_zero_attn"),
    "causal": Setting("causal", True),
    "rope": Setting("positions", "rope"),
    "alibi": Setting("alibi", True),
    "dtype": Setting("dtype"),
    "grids": Setting("grids", False),
}
KV_CACHE = OnSurface("--kv-cache", "kv_cache()")
TILES = OnSurface("--tiles", "tiles()")


def plain_layer(
    result: SelfAttnResult,
    option: OnSurface,
    own: Sequence[tuple[bool, str]] = (),
    **named: Any,
) -> None:
    """The views below (and --heads-sum) replay one self-attention over its own X; anything
    else is refused, after what a view refuses of its own (`own`: each (refused, msgid),
    the settings it names `named`)."""
    refused = [
        (result.x is None, _("{option} needs the layer's X: a sentence, or {x}")),
        (
            result.x_kv is not None or result.x_v is not None,
            _("{option} replays self-attention; cross-attention ({context}, x_q and x_kv) is not"),
        ),
        (
            result.x is not None and result.x.ndim != 2,
            _("{option} takes one sequence, not a batch"),
        ),
        (
            bool(result.extra_keys),
            _("{option} replays the tokens' own keys; bias_k, bias_v and {zero} add others"),
        ),
        (
            result.alibi,  # its slopes are added to the scores as a bias: said by name
            _("{option} does not replay ALiBi's distances yet; leave out {alibi}"),
        ),
        (
            result.bias is not None or result.mask is not None or result.mask_bias is not None,
            _("{option} takes {causal} as its mask; a given mask or attn_mask is not replayed"),
        ),
        (
            result.rope_base is not None,
            _("{option} does not replay rotary positions yet; leave out {rope}"),
        ),
        (
            result.dtype != "float64",
            _("{option} works in float64; leave out {dtype}"),
        ),
        (
            not result.grids,  # only the output was computed: nothing to hold the replay to
            _("{option} holds its replay against the layer's weights; leave out {grids}"),
        ),
    ]
    for failed, message in [*own, *refused]:
        if failed:
            raise OptionError(message, option=option, **{**SAID, **named})
    if option is not KV_CACHE or getattr(result, "source", None) is None:
        # QK-norm, a scaled turn, a softcap, sinks: only the KV cache of a model's layer
        # replays them (its LayerReplay), with the forward pass's own code
        refuse_replay(result, option)


@keywords()
def kv_cache(
    result: SelfAttnResult,
    head: int = 1,
    row: int | None = None,
    token: str | None = None,
) -> CacheLedger:
    """A causal layer replayed token by token with a KV cache: at step t the new q, k, v, the
    cache with row t appended, one row of scores and weights, one output row; each equal
    to row t of the whole causal grid bit for bit (both summed in one order), and beside it
    the multiplications the cache saves and its size, 2 · layers · kv-heads · d_k · T.
    `row` (1-based) or `token` picks a step whose whole cache, K and V, is shown.

    The kv-heads that keep keys and values are W^K's columns over d_k: as many as the query
    heads, unless groups of them share one (grouped-query attention).

    >>> import attncli as attn
    >>> ledger = kv_cache(attn.selfattn(sentence="el tren va lleno", causal=True))
    >>> ledger.bit_for_bit, ledger.cache_numbers
    (True, 64)
    """
    from attncli.results.inference import CacheLedger

    params, heads = _replayable(result, head)
    source = getattr(result, "source", None)  # a pretrained model's layer (--model)
    assert result.x is not None  # a layer with projections has its X
    _check_ledger_fits(len(result.tokens), heads)
    if getattr(source, "latent", None) is not None:
        fields = _latent_replayed(result, params, heads)
    else:
        fields = _replayed_layer(result, params, heads)
    return CacheLedger(
        tokens=tuple(result.tokens),
        layer_output=result.attention.output,
        head=head - 1,
        heads=heads,
        d_model=result.x.shape[1],
        window=result.window,
        replayed=_replayed(source),
        dtype_bytes=8,
        source=source.name if source is not None else "seeded" if result.drawn else "given",
        divisor=result.divisor,
        shown_step=None
        if row is None and token is None
        else pick_row(result.query_labels, row, token),
        **fields,
    )


def _replayed_layer(
    result: SelfAttnResult, params: dict[str, np.ndarray], heads: int
) -> dict[str, Any]:
    """A layer with keys and values replayed: its ledger, the whole grid beside it, what
    the cache saves and holds (a sliding layer's W − 1 tokens)."""
    assert result.x is not None
    source = getattr(result, "source", None)
    d_k = params["w_q"].shape[1] // heads
    kv = params["w_k"].shape[1] // d_k
    d_v = params["w_v"].shape[1] // kv
    length, d_model = result.x.shape
    # a Llama-family layer: its own q, k, v (QK-norm, rotary positions scaled), softcap,
    # sinks and window, as its forward pass has them; every layer's window for the size
    replay, windows = _model_replay(source, length)
    if not windows and result.window is not None:  # the seeded layer's --window
        windows = (result.window,)
    theta = getattr(source, "theta", None)
    turned = None if theta is None or replay is not None else np.asarray(theta)
    ledger = inference.cache_ledger(result.x, params, heads, result.divisor, turned,
                                    result.window, replay)  # fmt: skip
    full = inference.causal_grid(result.x, params, heads, result.divisor, turned, result.window,
                                 replay)  # fmt: skip
    layers = 1 if source is None else source.layers
    return dict(
        ledger=ledger, full_weights=full.weights, full_output=full.output, kv_heads=kv,
        layers=layers, d_k=d_k, d_v=d_v,
        multiplications=inference.cache_multiplications(
            length, d_model, heads, d_k, d_v, "w_o" in params, kv, layers, windows
        ),
        cache_numbers=inference.cache_numbers(layers, kv, d_k, length, d_v, windows),
        full_numbers=inference.cache_numbers(layers, kv, d_k, length, d_v),
        windows=windows or (None,) * layers,
    )  # fmt: skip


def _latent_replayed(
    result: SelfAttnResult, params: dict[str, np.ndarray], heads: int
) -> dict[str, Any]:
    """A latent attention (MLA) replayed: what each token writes is its c_KV and its rotary
    key k^R, from core.latent's own code (the forward pass's), each head's keys and values
    read back from the cache at every step; the cache's size is layers · (r + d_rope) · T."""
    from attncli.core.latent import latent_keys, latent_parts
    from attncli.core.transformer import normed

    source: Any = getattr(result, "source", None)
    assert result.x is not None and source is not None
    arch, shape = source.architecture, source.latent
    length = len(result.x)
    number = source.layer - 1
    theta = arch.rope_frequencies(length, number)
    factor = arch.rope_attention_factor(number)
    ordered = inference.ordered_product

    def parts(rows: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        made = latent_parts(rows, params, shape, theta, factor,
                            lambda h, gamma: normed(arch, h, (gamma, None)), start,
                            ordered)  # fmt: skip
        return made.queries, made.latent, made.rotary_key

    def expand(latent: np.ndarray, rotary: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return latent_keys(latent, rotary, params, shape, ordered)

    replay = inference.LatentReplay(parts, expand)
    full = inference.latent_grid(result.x, params, result.divisor, replay)
    numbers = source.layers * (shape.rank + shape.rope) * length
    return dict(
        ledger=inference.latent_ledger(result.x, params, result.divisor, replay),
        full_weights=full.weights, full_output=full.output, kv_heads=heads,
        layers=source.layers, d_k=shape.nope + shape.rope, d_v=shape.v, multiplications={},
        cache_numbers=numbers, full_numbers=numbers, windows=(None,) * source.layers,
        latent=(shape.rank, shape.rope),
    )  # fmt: skip


def _model_replay(
    source: Any, length: int
) -> tuple[inference.LayerReplay | None, tuple[int | None, ...]]:
    """A Llama-family layer's replay: its q, k, v from the forward pass's own decoder_qkv
    (QK-norm, its rotary positions for the sentence's length and their attention factor),
    summed in the ledger's fixed order, its softcap and its sinks; and every layer's window
    (None for a full layer), which the cache's size follows. (None, ()) for another layer."""
    arch, block = getattr(source, "architecture", None), getattr(source, "block", None)
    if arch is None or block is None:
        return None, ()
    from attncli.core.transformer import decoder_qkv

    number = source.layer - 1

    def qkv(rows: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        made = decoder_qkv(arch, block, rows, number, start, length, inference.ordered_product)
        return made.queries, made.keys, made.values

    windows = tuple(arch.window(layer) for layer in range(arch.layers))
    return inference.LayerReplay(qkv, arch.attn_softcap, block.sinks), windows


def _replayed(source: Any) -> tuple[str, ...]:
    """What the layer does besides x W that the replay did too, by its config's names."""
    if getattr(source, "architecture", None) is None:
        return ()
    done = {"qk_norm": source.qk_norm is not None,
            "rope_attention_factor": source.attention_factor != 1.0,
            "attn_logit_softcapping": source.attn_softcap is not None,
            "sinks": source.sinks is not None}  # fmt: skip
    return tuple(name for name, did in done.items() if did)


def _replayable(result: SelfAttnResult, head: int) -> tuple[dict[str, np.ndarray], int]:
    """A layer the KV cache can replay: causal, with its projections, and the head asked
    one of its own; its projections and its count of heads."""
    source = getattr(result, "source", None)  # a pretrained model's layer (--model)
    params = dict(result.projections)
    if source is not None and getattr(source, "latent", None) is not None:
        params = dict(source.block.attention)  # its weights make a latent, not k and v
    own = [
        (not result.causal and source is not None,
         _("{option} replays a causal layer; {model} reads in both directions (a GPT-2 model "
           "is causal)")),
        (not result.causal,
         _("{option} replays a causal layer, where each token sees only the ones before it; "
           "add {causal}")),
        ("w_q" not in params and "w_q_a" not in params,
         _("{option} replays the k = x W^K and v = x W^V each new token appends; without the "
           "projections ({no_proj}) the keys and values are X itself; drop {no_proj}")),
    ]  # fmt: skip
    plain_layer(result, KV_CACHE, own, model=getattr(source, "name", None),
                no_proj=Setting("projections", False, "--no-proj"))  # fmt: skip
    return params, _heads_with(result, head)


def _heads_with(result: SelfAttnResult, head: int) -> int:
    """The layer's count of heads (1 without heads), of which `head` is one."""
    from attncli.api.model import check_head

    heads = result.heads or 1
    check_head(head, heads)
    return heads


def _check_ledger_fits(tokens: int, heads: int) -> None:
    """The replay keeps every step's row of scores and weights and the whole causal grid
    beside it, h × T × T numbers several times over, and its document lists them all
    (6,001 tokens of a 4-head layer took 16.6 GB): refused before it starts when that
    would not fit."""
    from attncli.limits import check_fits

    def numbers(sizes: Mapping[str, int]) -> int:
        return 12 * heads * sizes["tokens"] ** 2  # measured: about 10 to 13 h·T²

    check_fits(
        numbers,
        {"tokens": tokens},
        ("tokens",),
        Message(_("{option} on {tokens} tokens"), option=KV_CACHE, tokens=tokens),
        names={"tokens": Message(_("the number of tokens (a shorter sentence)"))},
    )


def parse_tiles(text: str) -> tuple[int, int]:
    """--tiles 'Bq,Bk' to two block sizes."""
    from attncli.errors import shown
    from attncli.reading.parse.values import whole_number

    sizes = [whole_number(part, 1) for part in text.replace(";", ",").split(",")]
    if len(sizes) != 2 or None in sizes:
        raise OptionError(
            _("--tiles {text}: give two whole sizes, queries and keys per tile, e.g. --tiles 2,2"),
            text=shown(repr(text)),
        )
    return sizes[0], sizes[1]  # type: ignore[return-value]


@keywords(tile_q=BLOCK, tile_k=BLOCK)
def tiles(
    result: SelfAttnResult,
    tile_q: int,
    tile_k: int,
    row: int | None = None,
    token: str | None = None,
    head: int = 1,
) -> TiledResult:
    """One query row of the layer through its keys `tile_k` at a time, as FlashAttention
    computes it: m, ℓ and the output accumulator rescaled at each block, ending at the
    layer's own output row; beside it the numbers held, a Bq × Bk tile against T × T.

    >>> import attncli as attn
    >>> t = tiles(attn.selfattn(sentence="el tren va lleno"), 2, 2)
    >>> len(t.tiled.starts), bool(abs(t.tiled.output - t.plain).max() < 1e-12)
    (2, True)
    """
    from attncli.results.inference import TiledResult

    plain_layer(result, TILES)
    attention = result.attention
    heads = result.heads
    _heads_with(result, head)
    index = pick_row(result.query_labels, row, token)
    pick = (lambda a: a[head - 1]) if heads is not None else (lambda a: a)
    queries, keys, values = pick(attention.queries), pick(attention.keys), pick(attention.values)
    weights = pick(attention.weights)
    allowed = None if result.allowed is None else result.allowed[index]
    tiled = inference.tiled_row(queries[index], keys, values, result.divisor, tile_k, allowed)
    length_q, length_k = weights.shape
    return TiledResult(
        tokens=tuple(result.tokens),
        token=index,
        head=None if heads is None else head - 1,
        tile_q=tile_q,
        tile_k=tile_k,
        tiled=tiled,
        plain=np.asarray(weights[index] @ values),
        memory=inference.tiled_memory(length_q, length_k, tile_q, tile_k, values.shape[-1]),
        dtype_bytes=8,
    )


@keywords(seed=SEED, block=BLOCK)
def online_exercise(seed: int = 0, size: int = 3, block: int = 2) -> OnlineSoftmaxResult:
    """The online softmax to work by hand: small whole scores read `block` at a time, the
    largest in a later block, so that the sum so far is rescaled once at least.

    >>> online_exercise(seed=1).score_grid[0].tolist()
    [2.0, 0.0, 3.0]
    """
    from attncli.core.exercise import MAX_TOKENS

    if not block < size <= MAX_TOKENS:
        raise OptionError(
            _(
                "{size} with blocks of {block}: the online sheet needs more scores than "
                "one block holds and at most {most} (try {block_more})"
            ),
            size=Setting("size", size),
            block=block,
            most=MAX_TOKENS,
            block_more=Setting("size", block + 1),
        )
    tokens, scores = inference.online_exercise(seed, size, block)
    return online_softmax(scores, block=block, tokens=tokens)
