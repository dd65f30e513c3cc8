"""What attention costs in any model (attn cost): the KV cache, the parameters and the FLOPs
of a prefill and of one decode step, from a model's config.json, a GGUF file's metadata, a
well-known model's published config, or sizes given as options; and the same model under
other designs (--as mha,gqa:4,mla:512).

The inputs are declared once, in CostInputs: each field's meaning (an English msgid) and
its option. `attn cost`'s options (cli/commands/cost.py) and this module's keywords
(`attncli.cost(model, tokens="1k,128k", cache_dtype="fp8")`) are both made from it.

>>> import attncli as attn
>>> r = attn.cost("llama-3.1-8b", tokens="128k", cache_dtype="bf16")
>>> r.designs[0].lengths[0].cache_bytes
17179869184
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from attncli.api.keywords import MODEL, keywords
from attncli.api.refusals import refuse_beside, refuse_without
from attncli.core import attention_cost as arithmetic
from attncli.core.attention_cost import Latent, Shape
from attncli.errors import LARGEST_WHOLE, InputError, OptionError, check_whole
from attncli.messages import Setting, _
from attncli.settings import check_declared, refuse_unknown, setting

if TYPE_CHECKING:
    from attncli.results.cost import CostResult, DesignCost

DEFAULT_TOKENS = "1k,8k,32k,128k"
SIZES = ("layers", "d_model", "heads", "kv_heads", "head_dim", "d_v", "kv_rank", "rope_dim",
         "q_rank")  # fmt: skip
# the options that change the layers' windows
WINDOWS = ("window", "global_every")
OPTIONS = {"designs": "--as"}  # a field whose option is not --its-name


@dataclass(frozen=True, kw_only=True)
class CostInputs:
    """What attn cost is asked: the lengths, the batch and the cache's dtype; other designs
    to cost beside the model's own; and the model's sizes, given or changed one by one."""

    tokens: str | Sequence[int] = setting(
        DEFAULT_TOKENS,
        _("The lengths T to cost, e.g. 1k,8k,128k (k = 1,024, m = 1,048,576)."),
        option="--tokens",
        metavar="T,T,…",
    )
    batch: int = setting(1, _("Sequences held at once (B)."), option="--batch", metavar="B", min=1)
    cache_dtype: str = setting(
        "bfloat16",
        _("The type the cache keeps its numbers in: float32, bf16, fp16, fp8, int8 or int4 "
          "(int4's scales not counted)."),
        option="--cache-dtype",
        metavar="DTYPE",
    )  # fmt: skip
    designs: str | Sequence[str] | None = setting(
        None,
        _("Also cost the model under other designs: mha (a key/value head per query head), "
          "mqa (one), gqa:G (G), mla:R (a latent of R numbers, DeepSeek's rotary key of 64; "
          "mla:R+D for D)."),
        option="--as",
        metavar="mha,gqa:G,mla:R",
    )  # fmt: skip
    layers: int | None = setting(None, _("Layers (L)."), option="--layers", metavar="L", min=1)
    d_model: int | None = setting(
        None, _("The model's width (d)."), option="--d-model", metavar="D", min=1
    )
    heads: int | None = setting(None, _("Query heads (h)."), option="--heads", metavar="H", min=1)
    kv_heads: int | None = setting(
        None,
        _("Key/value heads (g): as many as --heads for multi-head, 1 for multi-query."),
        option="--kv-heads",
        metavar="G",
        min=1,
    )
    head_dim: int | None = setting(
        None, _("A query's and key's numbers per head (d_k). [default: d / h]"),
        option="--head-dim", metavar="D_K", min=1,
    )  # fmt: skip
    d_v: int | None = setting(
        None, _("A value's numbers per head. [default: d_k]"), option="--d-v", metavar="D_V", min=1
    )
    window: int | None = setting(
        None,
        _("A sliding window of W keys (itself and the W − 1 before) in every layer, or with "
          "--global-every in all but those."),
        option="--window",
        metavar="W",
        min=1,
    )  # fmt: skip
    global_every: int | None = setting(
        None,
        _("With --window: every N-th layer sees every key (Gemma 2 and gpt-oss: 2; Gemma 3: "
          "6)."),
        option="--global-every",
        metavar="N",
        min=1,
    )  # fmt: skip
    kv_rank: int | None = setting(
        None,
        _("Latent attention (MLA): the cache keeps a latent of R numbers a token and layer "
          "(DeepSeek-V3: 512)."),
        option="--kv-rank",
        metavar="R",
        min=1,
    )  # fmt: skip
    rope_dim: int | None = setting(
        None, _("With --kv-rank: the rotary key's numbers, shared by the heads. [default: 64]"),
        option="--rope-dim", metavar="D", min=1,
    )  # fmt: skip
    q_rank: int | None = setting(
        None, _("With --kv-rank: the queries' own low rank (DeepSeek-V3: 1,536)."),
        option="--q-rank", metavar="R_Q", min=1,
    )  # fmt: skip
    sinks: bool | None = setting(
        None,
        flags=(("--sinks", True, _("Learned sinks: a logit per head in each softmax "
                                    "(gpt-oss).")),),
    )  # fmt: skip

    def __post_init__(self) -> None:
        """Each field as its declaration says (settings.check_declared): whole numbers
        where one is declared, within their declared min and max; a flag True, False or
        None."""
        check_declared(self)


def said(name: str, value: Any = None) -> Setting:
    """A field as a message names it: --as on the command line, designs= in Python."""
    return Setting(name, value, OPTIONS.get(name))


def cost(model: str | os.PathLike[str] | None = None, **given: Any) -> CostResult:
    """What `model`'s attention costs: a config.json, a model folder, a .gguf file, a model
    found by name on this machine, or a well-known model (llama-3.1-8b, llama-3.1-70b,
    llama-3.1-405b, mistral-7b-v0.1, gemma-2-9b, gemma-2-27b, gemma-3-27b, qwen2.5-7b,
    deepseek-v3, gpt-oss-120b); or None with its sizes as keywords (layers, d_model, heads,
    …). The keywords are CostInputs' fields."""
    refuse_unknown(cost, given, [f.name for f in fields(CostInputs)])
    return cost_of(None if model is None else os.fspath(model), CostInputs(**given))


# The keywords a reader sees (help(attncli.cost)) and that are held to their annotations
# (api/keywords.py): CostInputs' fields, after the model.
cost.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            "model", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
            annotation="str | os.PathLike[str] | None",
        ),
        *(
            inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default,
                              annotation=str(f.type))
            for f in fields(CostInputs)
        ),
    ],
    return_annotation="CostResult",
)  # fmt: skip
cost = keywords(model=MODEL)(cost)


def cost_of(model: str | None, inputs: CostInputs) -> CostResult:
    """The cost of `model` (None: the sizes alone) as `inputs` ask."""
    from attncli.results.cost import CostResult

    dtype = cache_dtype(inputs.cache_dtype)
    lengths = parse_tokens(inputs.tokens)
    if model is None:
        shape, source = _from_options(inputs), "options"
    else:
        from attncli.reading.models.attention_config import read_shape

        shape, source, _config = read_shape(model)
        shape = _changed(shape, inputs)
    designs = [_priced(shape.design, True, shape, lengths, inputs.batch, dtype)]
    for label, other in _designs(shape, inputs.designs):
        designs.append(_priced(label, False, other, lengths, inputs.batch, dtype))
    return CostResult(
        model=model or "options", source=source, batch=inputs.batch, dtype=dtype,
        designs=tuple(designs),
    )  # fmt: skip


def cache_dtype(text: str) -> str:
    """A cache dtype by any of its names (bf16, bfloat16, torch.bfloat16), or refused."""
    name = str(text).strip().lower().removeprefix("torch.")
    name = arithmetic.DTYPE_NAMES.get(name, name)
    if name not in arithmetic.DTYPE_BITS:
        raise OptionError(
            _("{setting}: not a cache dtype attn knows; one of {known}"),
            setting=said("cache_dtype", text),
            known="float32, bf16, fp16, fp8, int8, int4",
        )
    return name


LENGTH = re.compile(r"(\d+)([km]?)")
UNITS = {"": 1, "k": 1024, "m": 1024**2}


def parse_tokens(tokens: str | Sequence[int]) -> list[int]:
    """--tokens '1k,8k,128k' (k = 1,024) or a list of whole numbers, each 1 or more."""
    example = said("tokens", "1k,8k,128k")
    if isinstance(tokens, str):
        parts = [part.strip().lower() for part in tokens.split(",")]
        lengths = []
        for part in parts:
            matched = LENGTH.fullmatch(part.replace("_", ""))
            if matched is None:
                raise OptionError(
                    _("{setting}: {part} is not a length; give whole numbers of tokens, e.g. "
                      "{example}"),
                    setting=said("tokens", tokens), part=repr(part), example=example,
                )  # fmt: skip
            lengths.append(int(matched[1]) * UNITS[matched[2]])
    else:
        lengths = list(tokens)
        for length in lengths:
            check_whole("tokens", length)
    if not lengths or min(lengths) < 1:
        raise OptionError(
            _("{setting}: every length must be 1 token or more, e.g. {example}"),
            setting=said("tokens", tokens),
            example=example,
        )
    return lengths


def _from_options(inputs: CostInputs) -> Shape:
    """The shape given by options alone: --layers, --d-model and --heads at least."""
    for name in ("layers", "d_model", "heads"):
        if getattr(inputs, name) is None:
            raise OptionError(
                _("{setting} is needed without a model: give a model (a name, a folder, a "
                  "config.json) or {layers}, {d_model} and {heads}"),
                setting=said(name), layers=said("layers"), d_model=said("d_model"),
                heads=said("heads"),
            )  # fmt: skip
    assert inputs.layers and inputs.d_model and inputs.heads
    if inputs.head_dim is None and inputs.d_model % inputs.heads:
        raise OptionError(
            _("{d_model} is no multiple of {heads}: give each head's size with {head_dim}"),
            d_model=said("d_model", inputs.d_model), heads=said("heads", inputs.heads),
            head_dim=said("head_dim"),
        )  # fmt: skip
    head = inputs.head_dim or inputs.d_model // inputs.heads
    plain = Shape(inputs.layers, inputs.d_model, inputs.heads, inputs.heads, head, head,
                  (None,) * inputs.layers)  # fmt: skip
    return _changed(plain, replace(inputs, layers=None, d_model=None, heads=None,
                                   head_dim=None))  # fmt: skip


def _changed(shape: Shape, inputs: CostInputs) -> Shape:
    """The model's shape with each size an option gives in its place."""
    layers = inputs.layers or shape.layers
    windows = shape.windows
    if layers != shape.layers:  # the layers' windows keep their pattern, repeated
        windows = tuple(shape.windows[i % shape.layers] for i in range(layers))
    changed = replace(
        shape,
        layers=layers,
        d_model=inputs.d_model or shape.d_model,
        heads=inputs.heads or shape.heads,
        kv_heads=inputs.kv_heads
        or (inputs.heads if inputs.heads and shape.kv_heads == shape.heads else shape.kv_heads),
        d_k=inputs.head_dim or shape.d_k,
        d_v=inputs.d_v or inputs.head_dim or shape.d_v,
        windows=_windows(windows, inputs),
        sinks=shape.sinks if inputs.sinks is None else inputs.sinks,
    )
    own = changed.latent
    if inputs.kv_rank is not None:
        refuse_beside(_given(inputs, "kv_heads"), said("kv_rank", inputs.kv_rank),
                      _("they ask for two designs; give one (or the other with {as_})"),
                      as_=said("designs", "mla:R"))  # fmt: skip
    refuse_without(_given(inputs, "rope_dim", "q_rank"), said("kv_rank", "R"),
                   inputs.kv_rank is not None or own is not None,
                   _("shapes latent attention"))  # fmt: skip
    if inputs.kv_rank is not None or (own and (inputs.rope_dim or inputs.q_rank)):
        rank = inputs.kv_rank or (own.rank if own else 0)
        rope = inputs.rope_dim or (own.rope if own else arithmetic.MLA_ROPE)
        q_rank = inputs.q_rank or (own.q_rank if own else None)
        changed = replace(changed, kv_heads=changed.heads, latent=Latent(rank, rope, q_rank))
    _check_sizes(changed)
    return changed


def _given(inputs: CostInputs, *names: str) -> dict[Setting, Any]:
    """The fields `names` as messages name them, each with its value (None: not given): what
    refuse_beside and refuse_without read."""
    return {said(name, getattr(inputs, name)): getattr(inputs, name) for name in names}


def _windows(windows: tuple[int | None, ...], inputs: CostInputs) -> tuple[int | None, ...]:
    """--window W in every layer, or with --global-every N in all but every N-th."""
    if inputs.window is None and inputs.global_every is None:
        return windows
    window = inputs.window or max((w for w in windows if w is not None), default=None)
    refuse_without(_given(inputs, "global_every"), said("window", "W"), window is not None,
                   _("says which layers see every key, beside the others' window"))  # fmt: skip
    every = inputs.global_every
    return tuple(None if every and (i + 1) % every == 0 else window for i in range(len(windows)))


def _check_sizes(shape: Shape, design: Setting | None = None) -> None:
    """Sizes that make a model: g divides h; MLA's rotary key is part of d_k. Each refusal
    names what gave the size: its option (--kv-heads 5), or the `design` of --as (gqa:3)."""
    if shape.heads % shape.kv_heads:
        raise OptionError(
            _("{kv_heads} does not divide the {heads} query heads: each key/value head serves "
              "the same number of them"),
            kv_heads=design or said("kv_heads", shape.kv_heads), heads=shape.heads,
        )  # fmt: skip
    if shape.latent is not None and shape.latent.rope >= shape.d_k:
        raise OptionError(
            _("{rope_dim} leaves nothing of a head's {d_k} numbers for the latent's keys; "
              "give less"),
            rope_dim=design or said("rope_dim", shape.latent.rope), d_k=shape.d_k,
        )  # fmt: skip


def _designs(shape: Shape, designs: str | Sequence[str] | None) -> list[tuple[str, Shape]]:
    """--as 'mha,gqa:4,mla:512' as (label, the model's shape under that design)."""
    if designs is None:
        return []
    asked = designs.split(",") if isinstance(designs, str) else list(designs)
    made = []
    for text in asked:
        label = str(text).strip().lower()
        kind, size, rope = _design(label, designs)  # a size of 1 or more where it takes one
        other = arithmetic.redesigned(shape, kind, size, rope)
        _check_sizes(other, said("designs", label))
        made.append((label, other))
    return made


def _design(label: str, designs: Any) -> tuple[str, int | None, int | None]:
    """mha → ("mha", None, None); gqa:4 → ("gqa", 4, None); mla:512+64 → ("mla", 512, 64):
    a known kind, with a size of 1 or more (and a rotary key's) where it takes one."""
    kind, _sep, size_text = label.partition(":")
    sized = re.fullmatch(r"(\d+)(?:\+(\d+))?", size_text)
    size = None if sized is None else int(sized[1])
    rope = None if sized is None or sized[2] is None else int(sized[2])
    takes_size = kind not in ("mha", "mqa")
    if (
        kind not in arithmetic.DESIGNS
        or (size_text != "") != takes_size
        or (takes_size and (size is None or size < 1 or rope == 0))
    ):
        raise OptionError(
            _("{setting}: {design} is not a design attn knows; give mha, mqa, gqa:G or "
              "mla:R (mla:R+D)"),
            setting=said("designs", designs), design=repr(label),
        )  # fmt: skip
    return kind, size, rope


def _priced(
    label: str, own: bool, shape: Shape, lengths: list[int], batch: int, dtype: str
) -> DesignCost:
    """A design's cost at every length; a cache whose bytes pass what 64 bits hold (8 EiB)
    is refused: no machine holds it, and a reader of the JSON may keep 64 bits."""
    from attncli.results.cost import AtLength, DesignCost

    priced = []
    for tokens in lengths:
        numbers = arithmetic.cache_numbers(shape, tokens, batch)
        at = AtLength(
            tokens=tokens,
            cache_numbers=numbers,
            cache_bytes=arithmetic.cache_bytes(numbers, dtype),
            prefill=arithmetic.prefill(shape, tokens, batch),
            decode=arithmetic.decode(shape, tokens + 1, batch),
        )
        largest = max(at.cache_bytes, at.cache_numbers)  # FLOPs may pass it: Python's ints
        if largest > LARGEST_WHOLE:
            raise InputError(
                _("{tokens} tokens × {batch}: {count} is past what a 64-bit count holds "
                  "(2^63 − 1); give a shorter length or a smaller batch"),
                tokens=tokens, batch=said("batch", batch), count=largest,
            )  # fmt: skip
        priced.append(at)
    return DesignCost(label=label, own=own, shape=shape, lengths=tuple(priced))
