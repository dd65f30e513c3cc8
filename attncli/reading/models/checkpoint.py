"""The name table: weights as torch and transformers name them, in attn's names.

attn keeps every projection as d_in × d_out, applied as x @ W. torch's nn.Linear keeps
W^T (d_out × d_in); GPT-2's Conv1D keeps x @ W already. The table:

    attn     nn.MultiheadAttention             BERT {prefix}                  GPT-2 {prefix}
    w_q      in_proj_weight[:E].T              self.query.weight.T            c_attn.weight[:, :E]
             (or q_proj_weight.T)
    w_k      in_proj_weight[E:2E].T            self.key.weight.T              c_attn.weight[:, E:2E]
             (or k_proj_weight.T, kdim × E)
    w_v      in_proj_weight[2E:].T             self.value.weight.T            c_attn.weight[:, 2E:]
             (or v_proj_weight.T, vdim × E)
    b_q/k/v  in_proj_bias in thirds            self.query/key/value.bias      c_attn.bias in thirds
    w_o      out_proj.weight.T                 output.dense.weight.T          c_proj.weight
    b_o      out_proj.bias                     output.dense.bias              c_proj.bias
    bias_k   bias_k [1, 1, E] -> [E]           -                              -
    bias_v   bias_v [1, 1, E] -> [E]           -                              -

The Llama family (Llama, Mistral, Qwen2) keeps nn.Linear's under {prefix} = layers.N.self_attn:
w_q q_proj.weight.T, w_k k_proj.weight.T and w_v v_proj.weight.T (num_key_value_heads ·
head_dim columns), w_o o_proj.weight.T; b_q, b_k, b_v q_proj.bias … (Qwen2, and Llama with
attention_bias), b_o o_proj.bias (Llama with attention_bias): llama_attention.

Two calls for one attention layer (any Mapping of names to arrays: a Tensors from
reading/tensor_files.open_tensors, a dict of numpy arrays):

    tensors = open_tensors("layer.safetensors")
    layer = attention_weights(tensors, prefix="")           # or "encoder.layer.0.attention",
    layer.kind, layer.params["w_q"], layer.sources["w_q"]   # "h.0.attn"; kind found by name
    layer.unread                                            # names under prefix left unread

`attention_prefixes(names)` lists the attention layers a whole checkpoint holds (for a
message that asks for a prefix). `network(tensors, architecture)` reads a whole BERT, RoBERTa
or GPT-2 checkpoint into core.transformer.Network by the same table. The heads are not in a
state dict: the caller gets them from config.json or the user. Arrays stay in the dtype they
were stored in. A missing name or a wrong shape is an InputError or ShapeError of one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attncli.errors import LARGEST_WHOLE, InputError, ShapeError, shape_text, shown
from attncli.messages import Message, Setting, _
from attncli.reading.parse.values import WRONG

MHA_NAMES = (
    "in_proj_weight",
    "in_proj_bias",
    "q_proj_weight",
    "k_proj_weight",
    "v_proj_weight",
    "out_proj.weight",
    "out_proj.bias",
    "bias_k",
    "bias_v",
)
BERT_NAMES = tuple(
    f"{part}.{kind}"
    for part in ("self.query", "self.key", "self.value", "output.dense")
    for kind in ("weight", "bias")
)
BERT_OUTSIDE = (
    "output.LayerNorm.weight",
    "output.LayerNorm.bias",
    "output.LayerNorm.gamma",
    "output.LayerNorm.beta",
)
GPT2_NAMES = ("c_attn.weight", "c_attn.bias", "c_proj.weight", "c_proj.bias")
GPT2_BUFFERS = ("bias", "masked_bias")  # the causal mask kept as a buffer by older versions
_MARKERS = {
    "mha": ("in_proj_weight", "q_proj_weight"),
    "bert": ("self.query.weight",),
    "gpt2": ("c_attn.weight",),
}
MARKERS = tuple(marker for group in _MARKERS.values() for marker in group)


@dataclass
class LayerWeights:
    """One attention layer's weights in attn's names (x @ W)."""

    kind: str  # "mha", "bert" or "gpt2"
    params: dict[str, np.ndarray]  # w_q [d_q, E], w_k [d_k, E], w_v [d_v, E], w_o [E, E'],
    #                                b_q, b_k, b_v [E], b_o [E'], bias_k, bias_v [E]
    sources: dict[str, str] = field(default_factory=dict)  # attn name -> checkpoint name
    unread: tuple[str, ...] = ()  # names under the prefix that are no attention weight


def joined(prefix: str, name: str) -> str:
    """prefix.name, or name alone for an empty prefix."""
    prefix = prefix.rstrip(".")
    return f"{prefix}.{name}" if prefix else name


def detect_kind(names: Mapping[str, Any] | list[str], prefix: str = "") -> str | None:
    """Which layout holds the attention under `prefix`: mha, bert, gpt2, or None."""
    present = set(names)
    for kind, markers in _MARKERS.items():
        if any(joined(prefix, marker) in present for marker in markers):
            return kind
    return None


def attention_prefixes(names: Mapping[str, Any] | list[str]) -> list[str]:
    """Every prefix under which a checkpoint holds an attention layer, in file order."""
    found: list[str] = []
    for name in names:  # "" for a layer at the top level
        for marker in MARKERS:
            if name == marker or name.endswith("." + marker):
                prefix = name[: -len(marker)].rstrip(".")
                if prefix not in found:
                    found.append(prefix)
    return found


def nearest_name(name: str, own: tuple[str, ...] = ()) -> str | None:
    """The name attn reads nearest to a misspelled `name`: among `own` (a command's fields)
    and the table's names of torch, BERT and GPT-2, each also under the prefix `name` has
    (`h.0.attn.c_atn.weight` -> `h.0.attn.c_attn.weight`); None when none is near."""
    import difflib

    table = {n.lower(): n for n in MHA_NAMES + BERT_NAMES + GPT2_NAMES}
    parts = name.split(".")
    best: tuple[float, str] | None = None
    # The table's long names are held to a closer match: `weights` is no v_proj_weight.
    choices = [({n.lower(): n for n in own}, 0.6, 1)] if own else []
    choices += [(table, 0.8, len(parts))]
    for names, cutoff, cuts in choices:
        for cut in range(cuts):
            prefix, rest = ".".join(parts[:cut]), ".".join(parts[cut:]).lower()
            for near in difflib.get_close_matches(rest, list(names), n=1, cutoff=cutoff):
                ratio = difflib.SequenceMatcher(None, rest, near).ratio()
                if best is None or ratio > best[0]:
                    best = (ratio, joined(prefix, names[near]))
    return None if best is None or best[1] == name else best[1]


def near_marker(name: str) -> str | None:
    """The name of a layer's first weight (in_proj_weight, self.query.weight, c_attn.weight)
    that `name` misspells, or None."""
    near = nearest_name(name)
    if near is None or not any(near == m or near.endswith("." + m) for m in MARKERS):
        return None
    return near


def get_named(state: Mapping[str, Any], prefix: str, name: str, kind: str) -> np.ndarray:
    """The layer's weight `name` under `prefix`; one the file lacks is refused (needed),
    saying which layer needs it and the name the file has for it where it misspells it."""
    full = joined(prefix, name)
    needs = None if full in state else _layer_needs(state, full, kind, prefix)
    return np.asarray(needed(state.get(full), full, needs))


def _layer_needs(state: Mapping[str, Any], full: str, kind: str, prefix: str) -> Message:
    """What needs a weight the file lacks: a `kind` layer (under `prefix`), and the name the
    file has for it, where one misspells it."""
    import difflib

    where = Message(_(" under {prefix}"), prefix=prefix) if prefix else ""
    # A misspelling of the name, never another weight the table reads (a layer's own
    # in_proj_weight, the same weight of another layer): those are no typo.
    table = MHA_NAMES + BERT_NAMES + BERT_OUTSIDE + GPT2_NAMES
    candidates = [n for n in state if not any(n == t or n.endswith("." + t) for t in table)
                  and _layerless(n) != _layerless(full)]  # fmt: skip
    near = difflib.get_close_matches(full.lower(), [n.lower() for n in candidates], n=1,
                                     cutoff=0.8)  # fmt: skip
    held = [n for n in candidates if near and n.lower() == near[0]]
    also = (Message(_(" (the file has {held}: rename it {full})"), held=held[0], full=full)
            if held else "")  # fmt: skip
    return Message(LAYER_NEEDS, kind=kind, where=where, also=also)


def _layerless(name: str) -> tuple[str, ...]:
    """A weight's name without its layer numbers: model.layers.1.mlp.up_proj.weight is
    layer 0's up_proj too, by another layer's number."""
    return tuple("#" if part.isdigit() else part for part in name.split("."))


def optional_named(state: Mapping[str, Any], prefix: str, name: str) -> np.ndarray | None:
    full = joined(prefix, name)
    return np.asarray(state[full]) if full in state else None


# why a shape is expected, said after it: the width config.json gives
CONFIG_WIDTH = _("{expected} (the width config.json gives)")
# a part of a model or a layer that its file lacks, and what needs it
MISSING_PART = _("{name} is missing: {needs}")
WHOLE_MODEL = _(
    "the model has it (transformers would fill it with random numbers), so the file is not "
    "this model's whole"
)
LAYER_NEEDS = _("a {kind} layer{where} needs it{also}")


def at_least(least: int) -> range:
    """An axis of `least` or more (expect_shape)."""
    return range(least, LARGEST_WHOLE + 1)


def expect_shape(
    array: Any,
    shape: tuple[int | range | None, ...],
    name: Any,
    said: str | None = None,
    shown: Any = None,
    **more: Any,
) -> Any:
    """`array` (or anything with a shape) of `shape` (None: any size on that axis, a range:
    a size in it, as at_least gives one), else refused in values.WRONG's words naming
    `name`; `said` says why that shape ({expected}: `shown`, else the shape; and the fields
    `more`)."""
    found = tuple(array.shape)
    fits = len(found) == len(shape) and all(
        n is None or (f in n if isinstance(n, range) else f == n)
        for n, f in zip(shape, found, strict=True)
    )
    if not fits:
        expected = shape_text(shape) if shown is None else shown  # type: ignore[arg-type]
        why = Message(said, expected=expected, **more) if said else expected
        raise ShapeError(WRONG, where=name, kind=shape_text(found), expected=why)
    return array


def expect_columns(array: Any, columns: int | None, name: str, said: str | None = None) -> Any:
    """`array` (or anything with a shape) of 2 axes and `columns` columns (None: any),
    else refused naming `name`; `said` says why that many ({expected})."""
    shown = (
        Message(_("2 axes")) if columns is None else Message(_("{width} columns"), width=columns)
    )
    return expect_shape(array, (None, columns), name, said, shown)


def needed(value: Any, name: Any, needs: Message | None = None) -> Any:
    """`value`, a part of a model or a layer read from its file; None (the file lacks it) is
    refused naming it and what `needs` it (else the model, whole), never taken for zeros."""
    if value is None:
        raise InputError(MISSING_PART, name=name, needs=needs or Message(WHOLE_MODEL))
    return value


def _mha(state: Mapping[str, Any], prefix: str) -> LayerWeights:
    params: dict[str, np.ndarray] = {}
    sources: dict[str, str] = {}
    packed = optional_named(state, prefix, "in_proj_weight")
    separate = [
        n for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight") if joined(prefix, n) in state
    ]
    if packed is not None and separate:
        # torch keeps one or the other (in_proj_weight when kdim = vdim = embed_dim): with
        # both, which one the file's module used cannot be known
        raise InputError(
            _(
                "{packed} and {separate} are both given: nn.MultiheadAttention holds either "
                "in_proj_weight or q_proj_weight, k_proj_weight and v_proj_weight, never "
                "both; keep one"
            ),
            packed=joined(prefix, "in_proj_weight"),
            separate=joined(prefix, separate[0]),
        )
    if packed is not None:
        name = joined(prefix, "in_proj_weight")
        width = expect_columns(packed, None, name).shape[1]
        parts = np.split(expect_shape(packed, (3 * width, width), name), 3)
        for short, part in zip("qkv", parts, strict=True):
            params[f"w_{short}"], sources[f"w_{short}"] = part.T, name
    else:
        for short in "qkv":
            name = f"{short}_proj_weight"
            params[f"w_{short}"] = get_named(state, prefix, name, "nn.MultiheadAttention").T
            sources[f"w_{short}"] = joined(prefix, name)
    width = params["w_q"].shape[1]
    same = _("{expected}: the queries', keys' and values' weights project to the same E")
    for short in "kv":
        stored = params[f"w_{short}"].T  # nn.Linear's E × kdim
        expect_shape(stored, (width, stored.shape[1]), sources[f"w_{short}"], same)
    bias = optional_named(state, prefix, "in_proj_bias")
    if bias is not None:
        name = joined(prefix, "in_proj_bias")
        parts = np.split(expect_shape(bias, (3 * width,), name), 3)
        for short, part in zip("qkv", parts, strict=True):
            params[f"b_{short}"], sources[f"b_{short}"] = part, name
    out = get_named(state, prefix, "out_proj.weight", "nn.MultiheadAttention")
    params["w_o"] = expect_shape(out, (out.shape[0], width), joined(prefix, "out_proj.weight")).T
    sources["w_o"] = joined(prefix, "out_proj.weight")
    for attn_name, name in (("b_o", "out_proj.bias"), ("bias_k", "bias_k"), ("bias_v", "bias_v")):
        value = optional_named(state, prefix, name)
        if value is not None:
            expected = params["w_o"].shape[1] if attn_name == "b_o" else width
            # torch keeps bias_k and bias_v as 1 × 1 × E: read as E numbers, no other shape
            row = value.reshape(-1) if set(value.shape[:-1]) <= {1} else value
            params[attn_name] = expect_shape(row, (expected,), joined(prefix, name))
            sources[attn_name] = joined(prefix, name)
    return LayerWeights("mha", params, sources, _unread(state, prefix, MHA_NAMES))


def linear(
    state: Mapping[str, Any],
    prefix: str,
    part: str,
    kind: str,
    width: int | None = None,
    rows: int | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """nn.Linear's weight (d_out × d_in) as attn's d_in × d_out, and its bias; the weight
    held to `width` columns (d_in) where given, and to `rows` × `width` with its rows."""
    weight = get_named(state, prefix, f"{part}.weight", kind)
    name = joined(prefix, f"{part}.weight")
    if rows is None or width is None:
        expect_columns(weight, width, name)
    else:
        expect_shape(weight, (rows, width), name)
    bias = optional_named(state, prefix, f"{part}.bias")
    if bias is not None:
        _bias_fits(bias, weight.shape[0], joined(prefix, part), weight.shape)
    return weight.T, bias


def bert_attention(state: Mapping[str, Any], prefix: str) -> LayerWeights:
    params: dict[str, np.ndarray] = {}
    sources: dict[str, str] = {}
    width = None
    for short, part in (
        ("q", "self.query"),
        ("k", "self.key"),
        ("v", "self.value"),
        ("o", "output.dense"),
    ):
        weight, bias = linear(state, prefix, part, "BERT", width)
        width = weight.shape[1] if short == "q" else width
        params[f"w_{short}"], sources[f"w_{short}"] = weight, joined(prefix, f"{part}.weight")
        if bias is not None:
            params[f"b_{short}"], sources[f"b_{short}"] = bias, joined(prefix, f"{part}.bias")
    known = BERT_NAMES + BERT_OUTSIDE
    return LayerWeights("bert", params, sources, _unread(state, prefix, known))


def conv1d(
    state: Mapping[str, Any], prefix: str, part: str, columns: int | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """GPT-2's Conv1D: the weight is d_in × d_out already."""
    weight = get_named(state, prefix, f"{part}.weight", "GPT-2")
    expect_columns(weight, columns, joined(prefix, f"{part}.weight"))
    bias = optional_named(state, prefix, f"{part}.bias")
    if bias is not None:
        _bias_fits(bias, weight.shape[1], joined(prefix, part), weight.shape)
    return weight, bias


def _bias_fits(bias: np.ndarray, outputs: int, part: str, weight: tuple[int, ...]) -> None:
    """A bias has one number per output of its weight; the weight is named beside it,
    since either may be the wrong one."""
    per_output = _("{expected}, one number per output of {weight_name} ({weight})")
    expect_shape(bias, (outputs,), f"{part}.bias", per_output, weight_name=f"{part}.weight",
                 weight=shape_text(weight))  # fmt: skip


def llama_attention(
    state: Mapping[str, Any],
    prefix: str,
    width: int,
    columns: tuple[int, int],
    biases: tuple[str, ...] = (),
) -> LayerWeights:
    """A Llama-family attention under `prefix` (…self_attn): q_proj, k_proj, v_proj and
    o_proj, each shape held to the config's (d_model `width`; `columns` the queries' heads
    · head_dim and the key/value heads' · head_dim); a bias of `biases` ("q", "k", "v",
    "o") that the config asks for and the file lacks is refused, never taken for zeros."""
    params: dict[str, np.ndarray] = {}
    sources: dict[str, str] = {}
    outputs = {"q": columns[0], "k": columns[1], "v": columns[1], "o": width}
    for short in "qkvo":
        inputs = columns[0] if short == "o" else width
        part = f"{short}_proj"
        weight, bias = linear(state, prefix, part, "Llama-family", inputs, outputs[short])
        params[f"w_{short}"], sources[f"w_{short}"] = weight, joined(prefix, f"{part}.weight")
        if short in biases:
            params[f"b_{short}"] = needed(bias, joined(prefix, f"{short}_proj.bias"))
            sources[f"b_{short}"] = joined(prefix, f"{short}_proj.bias")
    return LayerWeights("llama", params, sources)


def gpt2_attention(state: Mapping[str, Any], prefix: str) -> LayerWeights:
    params: dict[str, np.ndarray] = {}
    sources: dict[str, str] = {}
    weight, bias = conv1d(state, prefix, "c_attn")
    name = joined(prefix, "c_attn.weight")
    expect_shape(weight, (weight.shape[0], 3 * weight.shape[0]), name)
    for short, part in zip("qkv", np.split(weight, 3, axis=1), strict=True):
        params[f"w_{short}"], sources[f"w_{short}"] = part, name
    if bias is not None:
        for short, part in zip("qkv", np.split(bias, 3), strict=True):
            params[f"b_{short}"], sources[f"b_{short}"] = part, joined(prefix, "c_attn.bias")
    out, out_bias = conv1d(state, prefix, "c_proj")
    expect_shape(out, (weight.shape[0], out.shape[1]), joined(prefix, "c_proj.weight"))
    params["w_o"], sources["w_o"] = out, joined(prefix, "c_proj.weight")
    if out_bias is not None:
        params["b_o"], sources["b_o"] = out_bias, joined(prefix, "c_proj.bias")
    return LayerWeights("gpt2", params, sources, _unread(state, prefix, GPT2_NAMES + GPT2_BUFFERS))


def _unread(state: Mapping[str, Any], prefix: str, known: tuple[str, ...]) -> tuple[str, ...]:
    start = joined(prefix, "") if prefix else ""
    return tuple(
        name for name in state if name.startswith(start) and name[len(start) :] not in known
    )


READERS: dict[str, Callable[[Mapping[str, Any], str], LayerWeights]] = {
    "mha": _mha,
    "bert": bert_attention,
    "gpt2": gpt2_attention,
}


def attention_weights(state: Mapping[str, Any], prefix: str = "") -> LayerWeights:
    """One attention layer under `prefix`, in attn's names; the layout (kind) is found by
    its names."""
    prefix = prefix.rstrip(".")
    kind = detect_kind(list(state), prefix)
    if kind is None:
        found = attention_prefixes(list(state))
        if found and found != [""]:
            hint = Message(
                _("the file holds attention layers under {listed}; pick one with its prefix"),
                listed=", ".join(found[:3]) + (" …" if len(found) > 3 else ""),
            )
        elif found:
            hint = Message(
                _("the file's layer is at the top level (no {prefix} needed; drop it)"),
                prefix=Setting("prefix"),
            )
        else:
            typo = next(
                ((name, near) for name in state if (near := near_marker(name)) is not None),
                None,
            )
            hint = (
                Message(
                    _("{name} is no name attn reads: did you mean {near}?"),
                    name=typo[0],
                    near=typo[1],
                )
                if typo
                else Message(
                    _(
                        "expected in_proj_weight (nn.MultiheadAttention), self.query.weight "
                        "(BERT) or c_attn.weight (GPT-2)"
                    )
                )
            )
        where = (
            Message(_("under {prefix}"), prefix=shown(repr(prefix)))
            if prefix
            else Message(_("at the top level"))
        )
        raise InputError(_("no attention layer {where}: {hint}"), where=where, hint=hint)
    return READERS[kind](state, prefix)
