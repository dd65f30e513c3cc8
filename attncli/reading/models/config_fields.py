"""A config.json's fields read one at a time: each a value of the kind transformers' typed
configs hold, or a refusal of one line naming the file and the field."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from attncli.core.transformer import ACTIVATIONS
from attncli.errors import InputError, shown
from attncli.messages import Message, _, either
from attncli.reading.parse.json_text import as_json_text
from attncli.reading.parse.values import WRONG, json_object

MISSING = _("{path}: the field {name} is missing, and attn needs it to read the model")


def config_json(path: str, absent: InputError | None) -> dict[str, Any]:
    """The object of a model folder's JSON file at `path` (config.json, an index,
    tokenizer_config.json); `absent` is raised when no file is there (None: a file that is
    not there gives no fields)."""
    from attncli.reading.parse.sources import json_file

    try:
        config = json_file(path)
    except FileNotFoundError:
        if absent is None:
            return {}
        raise absent from None
    return json_object(config, path, Message(_("a JSON object of named fields")))


def model_type_of(config: dict[str, Any], path: str, known: Sequence[str], reader: str) -> str:
    """config.json's model_type, one of the `known` ones that `reader` (attn, attn cost)
    reads."""
    reads = Message(_("one {reader} reads: {known}"), reader=reader, known=", ".join(known))
    return str(held(config.get("model_type"), path, "model_type", one_of(known, reads)))


def field(
    config: Mapping[str, Any], names: str | tuple[str, ...], path: str, default: Any = None
) -> Any:
    """The first of `names` the config gives (GPT-2 spells n_layer what the others spell
    num_hidden_layers), else `default`; with neither, a refusal naming the first name."""
    names = (names,) if isinstance(names, str) else names
    for name in names:
        value = config.get(name)
        if value is not None:  # null is transformers' "not given" too (head_dim: null)
            return value
    if default is None:
        raise InputError(MISSING, path=path, name=names[0])
    return default


# what a whole number below its least is refused with: 1, a size or a count of heads or
# layers; 0, max_window_layers or first_k_dense_replace (0: from the first layer)
BELOW = {1: _("a positive whole number"), 0: _("a whole number ≥ 0")}
# a field of a file, where a refusal of its value points (values.WRONG's {where}); a
# tensor of a file (a GGUF file's), where a refusal of its shape or type points
IN_FILE = _("{path}: {field}")
IN_TENSOR = _("{path}: tensor {name}")


class Rule(NamedTuple):
    """What a field of a file takes: `accepts` its value, and `expected` says what in the
    refusal of any other (values.WRONG: `config.json: n_head is 0; expected a positive
    whole number`)."""

    accepts: Callable[[Any], bool]
    expected: Any


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(least: int) -> Rule:
    """A whole number (not a bool) of `least` or more."""
    return Rule(lambda v: _is_number(v) and isinstance(v, int) and v >= least,
                Message(BELOW[least]))  # fmt: skip


WHOLE = {least: _whole(least) for least in BELOW}
FLAG = Rule(lambda v: isinstance(v, bool), either(["true", "false"]))


def positive(expected: Message | None = None) -> Rule:
    """A positive finite number (`expected`: what the refusal says it is for)."""
    return Rule(lambda v: _is_number(v) and math.isfinite(v) and v > 0,
                expected or Message(_("a positive number")))  # fmt: skip


def one_of(choices: Sequence[Any], expected: Any = None) -> Rule:
    """One of `choices` (said as `expected`, else as the choices)."""
    return Rule(lambda v: v in choices, expected or either(list(choices)))


def wrong_value(path: str, name: str | Message, value: Any, expected: Any) -> InputError:
    """The refusal of a field (of a config, a tokenizer_config.json, a GGUF file's metadata)
    that holds what attn does not read: its value as JSON writes it, and what it takes."""
    return InputError(WRONG, where=Message(IN_FILE, path=path, field=name),
                      kind=shown(as_json_text(value), 60), expected=expected)  # fmt: skip


def held(value: Any, path: str, name: str | Message, rule: Rule) -> Any:
    """`value`, the field `name` of the file at `path`, when `rule` accepts it; else the
    one refusal of a field's value (wrong_value)."""
    if not rule.accepts(value):
        raise wrong_value(path, name, value, rule.expected)
    return value


def whole(
    config: Mapping[str, Any],
    names: str | tuple[str, ...],
    path: str,
    default: int | None = None,
    least: Literal[0, 1] = 1,
) -> int:
    """A whole number of `least` or more, read as `field` reads it (the name refused is the
    one the config gave); true, 2.0 or "2" are refused, as transformers' typed configs do."""
    value = field(config, names, path, default)
    given = (names,) if isinstance(names, str) else names
    name = next((n for n in given if config.get(n) is not None), given[0])
    return whole_number(value, path, name, least)


def whole_number(value: Any, path: str, name: str, least: Literal[0, 1] = 1) -> int:
    """`value`, the field `name` of the file at `path`: a whole number of `least` or more
    (a config's field, a GGUF file's metadata key)."""
    return int(held(value, path, name, WHOLE[least]))


def flag(config: Mapping[str, Any], name: str, path: str, default: bool) -> bool:
    """A config's true or false: 1, "yes" or "true" are refused, as transformers' typed
    configs refuse them (never read as false, which would leave a bias or a window out)."""
    value = config.get(name)
    return default if value is None else bool(held(value, path, name, FLAG))


def epsilon(config: Mapping[str, Any], name: str, path: str, default: float) -> float:
    """A layer norm's ε: a small positive number."""
    small = Message(_("a small positive number such as 1e-12"))
    return number(config, name, path, default, small)


def activation(config: Mapping[str, Any], name: str, path: str, default: str) -> str:
    """A non-linearity attn computes (core/transformer.ACTIVATIONS)."""
    return str(held(field(config, name, path, default), path, name, one_of(ACTIVATIONS)))


def key_value_heads(config: dict[str, Any], path: str, heads: int) -> int:
    """num_key_value_heads (default: one for every query head), each serving the same number
    of the `heads` query heads."""
    kv_heads = whole(config, "num_key_value_heads", path, heads)
    divides(heads, kv_heads, path, ("num_attention_heads", "num_key_value_heads"))
    return kv_heads


def head_size(config: dict[str, Any], path: str, width: int, heads: int) -> int:
    """head_dim, or where the config leaves it out hidden_size ÷ the heads, which must
    divide it."""
    if config.get("head_dim") is None:
        divides(width, heads, path, ("hidden_size", "num_attention_heads"))
    return whole(config, "head_dim", path, width // heads)


def divides(width: int, heads: int, path: str, names: tuple[str, str]) -> None:
    """`width` (hidden_size, or the query heads) split evenly among `heads`, the fields
    `names` of the config."""
    divisor = Message(_("a number that divides {name} {width}"), name=names[0], width=width)
    held(heads, path, names[1], Rule(lambda h: width % h == 0, divisor))


def number(
    config: Mapping[str, Any],
    name: str,
    path: str,
    default: Any = None,
    expected: Message | None = None,
) -> float:
    """The config's `name`: a positive number (or `expected`, said in the refusal)."""
    return float(held(field(config, name, path, default), path, name, positive(expected)))


def typed_windows(kinds: Any, size: int, path: str, layers: int) -> tuple[int | None, ...]:
    """Each layer's window by its layer_types entry: full_attention none, sliding_attention
    the sliding window."""
    expected = _("one of full_attention and sliding_attention per layer ({layers})")
    kinds = held(kinds, path, "layer_types", Rule(
        lambda v: isinstance(v, list) and len(v) == layers
        and all(kind in ("sliding_attention", "full_attention") for kind in v),
        Message(expected, layers=layers)))  # fmt: skip
    return tuple(size if kind == "sliding_attention" else None for kind in kinds)


class LatentSizes(NamedTuple):
    """Multi-head latent attention's sizes, as DeepSeek-V2's and V3's config.json name them."""

    rank: int  # kv_lora_rank: the latent c_KV
    q_rank: int | None  # q_lora_rank: the queries' own latent (None: W^Q whole)
    nope: int  # qk_nope_head_dim: the part of a head's q and k without positions
    rope: int  # qk_rope_head_dim: the turned part, one key shared by the heads
    v: int  # v_head_dim


def latent_sizes(config: dict[str, Any], path: str) -> LatentSizes:
    """A latent attention's sizes, each a positive whole number (q_lora_rank null or left
    out: the queries are projected whole)."""
    q_rank = None if config.get("q_lora_rank") is None else whole(config, "q_lora_rank", path)
    names = ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
    rank, nope, rope, v = (whole(config, name, path) for name in names)
    return LatentSizes(rank, q_rank, nope, rope, v)
