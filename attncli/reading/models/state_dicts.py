"""A layer's weights as torch and transformers save them, in attn's fields: a state dict
(nn.MultiheadAttention's `state_dict()`, a dict of tensors or arrays), a weight file
(.safetensors, .npz, .npy, JSON; a pickle file is refused with its safe conversion), or one
attention layer of a checkpoint picked by its prefix. The names are read by the one name
table, reading/models/checkpoint.py; the number of heads, which a state dict does not hold, comes
from config.json beside the file, else from --heads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attncli.errors import InputError
from attncli.messages import Message, OnSurface, Setting, _

if TYPE_CHECKING:
    import numpy as np

    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

# The layer's fields in attn's names, which a state dict's names are turned into.
LAYER_FIELDS = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o", "bias_k", "bias_v")
KIND_NAMES = {"mha": "nn.MultiheadAttention", "bert": "BERT", "gpt2": "GPT-2"}
# the weights' setting, as each surface writes it
WEIGHTS = OnSurface(Message(_("--weights FILE")), Setting("weights", metavar="FILE"))


@dataclass(frozen=True)
class LayerFields:
    """One attention layer's weights read from a state dict, in attn's names."""

    fields: dict[str, np.ndarray]  # w_q, w_k, w_v [d_in, h·d], w_o, biases: x @ W
    kind: str  # "mha", "bert" or "gpt2" (reading/models/checkpoint.py)
    source: str  # where they were read: a file's path, or "weights"
    names: tuple[str, ...]  # the state dict's names that were read
    heads: int | None = None  # from config.json beside the file
    causal: bool = False  # GPT-2's attention looks only at earlier tokens


def state_dict_fields(
    state: Mapping[str, Any], prefix: str = "", source: str = "weights"
) -> LayerFields:
    """The attention layer under `prefix` of a state dict, in attn's names; a name under the
    prefix that is no attention weight, or a weight attn does not apply, is refused."""
    from attncli.reading.models.checkpoint import attention_weights, nearest_name

    layer = attention_weights(state, prefix)
    for name in layer.unread:
        near = nearest_name(name)
        fix = (
            Message(_("did you mean {near}?"), near=near)
            if near
            else Message(_("remove it, or pick the layer with {prefix}"), prefix=Setting("prefix"))
        )
        raise InputError(
            _("{source}: {name} is not a weight of the attention layer attn reads there; {fix}"),
            source=source,
            name=name,
            fix=fix,
        )
    fields = {name: layer.params[name] for name in LAYER_FIELDS if name in layer.params}
    names = tuple(dict.fromkeys(layer.sources.values()))
    return LayerFields(fields, layer.kind, source, names, causal=layer.kind == "gpt2")


def weights_file(path: str, prefix: str = "") -> LayerFields:
    """The attention layer of a weight file (a checkpoint's, with its prefix); the heads
    from config.json when it sits beside the file."""
    from dataclasses import replace

    from attncli.limits import check_free_memory
    from attncli.reading.parse.samples import located
    from attncli.reading.parse.tensor_files import open_tensors

    found = located(path)  # --weights mha: the installed sample, where no such file exists
    tensors = open_tensors(found)
    # before any array is read: what the file's header says, in the float64 attn computes in
    check_free_memory(tensors.computed_bytes, Message(_("the weights in {path}"), path=path))
    layer = state_dict_fields(tensors, prefix, path)
    folder = os.path.dirname(os.path.abspath(found))
    if os.path.isfile(os.path.join(folder, "config.json")):
        from attncli.reading.models.model import read_config

        _config, architecture = read_config(folder)
        layer = replace(layer, heads=architecture.heads)
    return layer


def layer_of(
    weights: Mapping[str, Any] | str | os.PathLike[str] | None, prefix: str
) -> LayerFields | None:
    """The layer of the Python API's weights=: a state dict, or the path of a file (a str
    or a pathlib.Path)."""
    if weights is None:
        if prefix:
            from attncli.errors import OptionError

            raise OptionError(_("prefix= picks a layer of weights=; give weights= too"))
        return None
    if isinstance(weights, (str, os.PathLike)):
        return weights_file(os.fspath(weights), prefix)
    return state_dict_fields(tensors_of(weights), prefix, "the given state dict")


def tensors_of(state: Any) -> dict[str, Any]:
    """A state dict given in Python (torch tensors, numpy arrays, lists) as numpy arrays."""
    if not isinstance(state, Mapping):
        raise InputError(
            _(
                "weights is {kind}; give a state dict (module.state_dict(), a mapping of names "
                "to tensors or arrays) or the path of a weight file (a str or a pathlib.Path)"
            ),
            kind=type(state).__name__,
        )
    from attncli.reading.parse.values import as_array, to_tensor

    return {str(name): to_tensor(as_array(value), str(name)) for name, value in state.items()}


def in_document(inputs: LayerInputs, prefix: str = "") -> tuple[LayerInputs, LayerFields | None]:
    """One attention layer under its checkpoint's own names among the names a document
    (JSON, .npz) gave beside attn's fields, LayerInputs.others (np.savez("layer.npz", x=x,
    **state_dict); BERT's encoder.layer.0.attention.self.query.weight, GPT-2's
    h.0.attn.c_attn.weight): the layer under `prefix`, or the only one it holds, read by
    the table, its weights set as the inputs' fields; the other names left as they are.
    Several layers and no prefix: refused, listing the prefixes to choose from."""
    from attncli.reading.models.checkpoint import attention_prefixes, joined, near_marker
    from attncli.reading.parse.values import to_tensor

    # bias_k and bias_v are attn's names and nn.MultiheadAttention's too
    document = {**{n: inputs.value(n) for n in ("bias_k", "bias_v") if inputs.value(n) is not None},
                **inputs.others}  # fmt: skip
    names = list(document)
    found = attention_prefixes(names)
    prefix = prefix.rstrip(".")
    if not prefix and not found:
        for name in names:
            near = near_marker(name)
            if near is not None:
                raise InputError(
                    _("the input: {name} is no name attn reads: did you mean {near}?"),
                    name=name,
                    near=near,
                )
        return inputs, None
    if not prefix and len(found) > 1:
        listed = ", ".join(found[:6]) + (" …" if len(found) > 6 else "")
        raise InputError(
            _(
                "the input holds {count} attention layers ({listed}); pick one with {pick}, "
                "e.g. {example}"
            ),
            count=len(found),
            listed=listed,
            pick=Setting("prefix"),
            example=Setting("prefix", found[0]),
        )
    chosen = prefix or found[0]
    if prefix and not any(name.startswith(joined(prefix, "")) for name in names):
        listed = ", ".join(found[:6])
        hint = (
            Message(_("it holds layers under {listed}"), listed=listed)
            if found
            else Message(
                _("give the checkpoint's weights with {weights}, or its names in {document}"),
                weights=WEIGHTS,
                document=OnSurface(Message(_("-i FILE")), Message(_("the document"))),
            )
        )
        raise InputError(
            _("{given}: the input holds no names under {prefix}; {hint}"),
            given=Setting("prefix", prefix),
            prefix=prefix,
            hint=hint,
        )
    state = {name: to_tensor(document[name], name) for name in names if _under(name, chosen)}
    layer = state_dict_fields(state, chosen, "the input")
    # the other attention layers of the checkpoint, not picked by --prefix, are left aside
    # (as the rest of a file given to --weights)
    others = [found_prefix for found_prefix in found if found_prefix != chosen]
    left = inputs.but(
        others={name: value for name, value in inputs.others.items()
                if name not in state and not any(_under(name, other) for other in others if other)},
        **{name: None for name in ("bias_k", "bias_v") if name in state},
    )  # fmt: skip
    return with_layer(left, layer), layer


def _under(name: str, prefix: str) -> bool:
    """A checkpoint's name that belongs to the attention layer under `prefix` ("" for a
    layer at the top level: the table's names)."""
    from attncli.reading.models.checkpoint import (
        BERT_NAMES,
        BERT_OUTSIDE,
        GPT2_NAMES,
        MHA_NAMES,
        nearest_name,
    )

    if prefix:
        return name.startswith(prefix + ".")
    table = (*MHA_NAMES, *BERT_NAMES, *BERT_OUTSIDE, *GPT2_NAMES)
    # a misspelt weight (out_proj.Weight) belongs to the layer too, to be named as such
    return name in table or nearest_name(name) in table


def with_layer(inputs: LayerInputs, layer: LayerFields) -> LayerInputs:
    """The inputs with the layer's weights added; a weight given both ways is refused."""
    for name in layer.fields:
        if inputs.value(name) is not None:
            raise InputError(
                _("{name} is given twice: in the input and in {source} ({kind}'s names); keep one"),
                name=name,
                source=layer.source,
                kind=KIND_NAMES[layer.kind],
            )
    return inputs.but(**layer.fields)


def _one_layer(inputs: LayerInputs, layer: LayerFields) -> None:
    """A document that holds a layer under its checkpoint's names, beside a layer given as
    weights: two layers, of which one would be left aside (said as such, not as a name
    attn does not read)."""
    from attncli.reading.models.checkpoint import attention_prefixes

    held = next((name for name in inputs.others if attention_prefixes([name])), None)
    if held is not None:
        raise InputError(
            _(
                "the input holds an attention layer of its own ({name}) and {source} gives "
                "one too; keep one: leave out {weights} or the layer's names in the input"
            ),
            name=held,
            source=layer.source,
            weights=WEIGHTS,
        )


def heads_of(layer: LayerFields, heads: int | None) -> int:
    """The heads of a layer read from a state dict: --heads, else config.json's; a state
    dict alone does not hold them."""
    if heads is not None:
        if layer.heads is not None and heads != layer.heads:
            raise InputError(
                _("{heads} but config.json beside {source} says {config}; drop {option}"),
                heads=Setting("heads", heads),
                option=Setting("heads"),
                source=layer.source,
                config=layer.heads,
            )
        return heads
    if layer.heads is not None:
        return layer.heads
    raise InputError(
        _(
            "{source}: a state dict does not hold the number of heads; give {heads} "
            "(nn.MultiheadAttention's num_heads, a config's num_attention_heads or n_head)"
        ),
        source=layer.source,
        heads=Setting("heads", metavar="h"),
    )


def take_state_dict_layer(
    inputs: LayerInputs,
    sentence: str | None,
    settings: SelfAttnSettings,
    state_dict_layer: LayerFields | None = None,
    prefix: str = "",
) -> tuple[LayerInputs, SelfAttnSettings, LayerFields | None]:
    """The inputs and settings of a layer whose weights come from a state dict (given, or
    under its checkpoint's names in the input, the one under `prefix` or the only one): its
    weights among the inputs, its heads (required), GPT-2's causal mask, and for a sentence
    d_model from W^Q's rows."""
    from dataclasses import replace

    if state_dict_layer is not None:
        _one_layer(inputs, state_dict_layer)
        inputs = with_layer(inputs, state_dict_layer)
    else:
        inputs, state_dict_layer = in_document(inputs, prefix)
    if state_dict_layer is None:  # a seeded or given layer: causal only when asked
        return inputs, replace(settings, causal=bool(settings.causal)), None
    changes: dict[str, Any] = {"heads": heads_of(state_dict_layer, settings.heads)}
    if settings.causal is None:  # the layer's own: GPT-2's is causal
        changes["causal"] = state_dict_layer.causal
    if sentence is not None and settings.d_model is None and "w_q" in state_dict_layer.fields:
        changes["d_model"] = int(state_dict_layer.fields["w_q"].shape[0])
    return inputs, replace(settings, **changes), state_dict_layer
