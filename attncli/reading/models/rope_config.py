"""A Llama-family config's rotary positions: rope_theta and the scaling
(rope_parameters, or the older rope_theta beside rope_scaling), as transformers'
modeling_rope_utils reads them, each rope_type's fields held to what it needs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attncli.core.rotary import SCALINGS, Scaling
from attncli.errors import shown
from attncli.messages import Message, _
from attncli.reading.models.config_fields import Rule, flag, held, number, one_of, positive, whole
from attncli.reading.parse.json_text import as_json_text

# what a model's rotary positions must be for attn to compute them, the rest refused as a
# field's value (config_fields.held), for a config.json and a GGUF file alike
NOT_COMPUTED = _(
    "one attn computes ({known}); another's rotary angles would differ, so this model is "
    "not supported"
)
PARTIAL = _("{whole}: attn turns every coordinate of a head only, so this model is not supported")


def rope_settings(
    config: dict[str, Any], path: str, positions: int, head_dim: int
) -> tuple[float, Scaling | None]:
    """rope_theta and the scaling: transformers 5 writes rope_parameters {rope_type,
    rope_theta, factor, …}; older configs rope_theta beside rope_scaling {type or
    rope_type, factor, …} (or null). A rope_type attn does not compute is refused: its
    angles, and so every score, would be another model's."""
    given = config.get("rope_parameters")
    given_in = "rope_parameters"
    if given is None:
        given, given_in = config.get("rope_scaling") or {}, "rope_scaling"
    one = _("one set of rotary settings, an object such as {example}")
    example = '{"rope_type": "default", "rope_theta": 10000.0}'
    held(given, path, given_in, Rule(
        lambda g: isinstance(g, dict) and not any(isinstance(v, dict) for v in g.values()),
        Message(one, example=example)))  # fmt: skip
    if given_in == "rope_parameters":
        _agree(config, given, path)
    merged = {"rope_theta": config.get("rope_theta", 10000.0), **given}
    base = number(merged, "rope_theta", path)
    partial = merged.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
    held(partial, path, "partial_rotary_factor", one_of((1.0,), Message(PARTIAL, whole="1")))
    named = "type" if "rope_type" not in merged and "type" in merged else "rope_type"
    kind = merged.get(named, "default")
    computed = Message(NOT_COMPUTED, known=", ".join(SCALINGS))
    held(kind, path, f"{given_in}.{named}", one_of(SCALINGS, computed))
    if kind == "default":
        return base, None
    scaling = KIND_READERS[kind](config, merged, path, positions, head_dim)
    return base, scaling


def _linear(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
            head_dim: int) -> Scaling:  # fmt: skip
    return Scaling("linear", number(merged, "factor", path))


def _dynamic(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
             head_dim: int) -> Scaling:  # fmt: skip
    # base · (…)^(d / (d − 2)): transformers divides by zero at d = 2
    power = _("more than 2: rope_type dynamic grows the base by a power of d ÷ (d − 2)")
    held(head_dim, path, "head_dim", Rule(lambda d: d != 2, Message(power)))
    # the base grows past the length the model was trained on, max_position_embeddings
    return Scaling("dynamic", number(merged, "factor", path), original_positions=positions)


def _llama3(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
            head_dim: int) -> Scaling:  # fmt: skip
    factor = number(merged, "factor", path)
    low = number(merged, "low_freq_factor", path)
    high = number(merged, "high_freq_factor", path)
    above = _("a number above low_freq_factor {low}: llama3 scaling blends the frequencies "
              "between the two")  # fmt: skip
    held(high, path, "high_freq_factor", Rule(lambda h: h > low, Message(above, low=low)))
    return Scaling("llama3", factor, low, high, _original(config, merged, path, positions))


def _yarn(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
          head_dim: int) -> Scaling:  # fmt: skip
    original = _original(config, merged, path, positions)
    return Scaling(
        "yarn",
        _factor(merged, path, positions, original),
        original_positions=original,
        beta_fast=_optional(merged, "beta_fast", path) or 32.0,
        beta_slow=_optional(merged, "beta_slow", path) or 1.0,
        truncate=flag(merged, "truncate", path, True),
        attention_factor=_optional(merged, "attention_factor", path),
        mscale=_optional(merged, "mscale", path),
        mscale_all_dim=_optional(merged, "mscale_all_dim", path),
    )


def _longrope(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
              head_dim: int) -> Scaling:  # fmt: skip
    original = _original(config, merged, path, positions)
    return Scaling(
        "longrope",
        _factor(merged, path, positions, original),
        original_positions=original,
        attention_factor=_optional(merged, "attention_factor", path),
        short_factor=_pair_factors(merged, "short_factor", path, head_dim),
        long_factor=_pair_factors(merged, "long_factor", path, head_dim),
    )


def _factors(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int,
             head_dim: int) -> Scaling:  # fmt: skip
    # a GGUF file's rope_freqs: a divisor per pair (config.json written by gguf_file)
    return Scaling("factors", divisors=_pair_factors(merged, "factors", path, head_dim))


KIND_READERS: dict[str, Callable[[dict[str, Any], dict[str, Any], str, int, int], Scaling]] = {
    "linear": _linear,
    "dynamic": _dynamic,
    "llama3": _llama3,
    "yarn": _yarn,
    "longrope": _longrope,
    "factors": _factors,
}


def _original(config: dict[str, Any], merged: dict[str, Any], path: str, positions: int) -> int:
    """original_max_position_embeddings: Phi-3 writes it beside rope_parameters, where
    transformers takes it first; inside them, or max_position_embeddings when neither
    does. Given in both places, the two must agree."""
    name = "original_max_position_embeddings"
    top, inner = config.get(name), merged.get(name)
    if top is not None:
        _agreeing(path, name, inner, "config.json", top)
    return whole({name: top if top is not None else inner}, name, path, positions)


def _factor(merged: dict[str, Any], path: str, positions: int, original: int) -> float:
    """yarn's and longrope's factor; left out, max_position_embeddings over the original
    length, as transformers works it out."""
    if merged.get("factor") is None:
        return positions / original
    return number(merged, "factor", path)


def _optional(merged: dict[str, Any], name: str, path: str) -> float | None:
    """A positive number the rope_type may leave out (null or 0: left out, as transformers
    reads beta_fast, mscale and mscale_all_dim)."""
    if merged.get(name) is None or merged.get(name) == 0:
        return None
    return number(merged, name, path)


def _pair_factors(merged: dict[str, Any], name: str, path: str, head_dim: int) -> tuple[float, ...]:
    """longrope's short_factor or long_factor: a positive number per pair of a head."""
    pairs = head_dim // 2
    expected = _("{count} positive numbers, one per pair of a head (head_dim {head_dim} ÷ 2)")
    value = held(merged.get(name), path, name, Rule(
        lambda v: isinstance(v, list) and len(v) == pairs and all(map(positive().accepts, v)),
        Message(expected, count=pairs, head_dim=head_dim)))  # fmt: skip
    return tuple(float(v) for v in value)


def _agree(config: dict[str, Any], parameters: dict[str, Any], path: str) -> None:
    """rope_parameters beside the older rope_theta and rope_scaling: a setting both give
    must be the same, else one model's angles would be taken without a word."""
    older = config.get("rope_scaling")
    given = {**(older if isinstance(older, dict) else {})}
    if "type" in given:
        given.setdefault("rope_type", given.pop("type"))
    if config.get("rope_theta") is not None:
        given["rope_theta"] = config["rope_theta"]
    for name, value in given.items():
        said = parameters.get("type") if name == "rope_type" else None
        older = "rope_theta" if name == "rope_theta" else "rope_scaling"
        _agreeing(path, name, parameters.get(name, said), older, value)


def _agreeing(path: str, name: str, value: Any, older: str, other: Any) -> None:
    """rope_parameters' `value` of `name` and the `other` that `older` gives beside them:
    the same, or refused (one model's angles would be taken without a word)."""
    agree = _("{other}, as {older} gives it: the two disagree, so the rotary angles are not "
              "known; keep one")  # fmt: skip
    same = Message(agree, other=shown(as_json_text(other), 40), older=older)
    held(value, path, f"rope_parameters.{name}", Rule(lambda v: v is None or v == other, same))
