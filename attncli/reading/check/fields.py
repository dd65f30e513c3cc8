"""The fields attn selfattn reads: every field of its input is used, passes through by
design, or is refused in one line naming it (and the nearest name it does read), since a
weight dropped silently would give a different number than the model's."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attncli.errors import AttnError, InputError, OptionError
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.check.masks import OTHER_MASKS
from attncli.reading.check.positions import ROPE
from attncli.reading.check.scoring import without_backward
from attncli.reading.parse.layer_inputs import DIRECT, INPUTS, X_FIELDS, is_output

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

# Settings a result writes down, which a hand-written document might mean as settings:
# each as the setting that asks for it (--heads h, heads=h).
OPTIONS = {
    "heads": Setting("heads", metavar="h"),
    "d_model": Setting("d_model"),
    "d_k": Setting("d_k"),
    "d_v": Setting("d_v"),
    "scale": Setting("scale", False, "--no-scale"),
    "divisor": Setting("scale_by", metavar="S", option="--scale"),
    "causal": Setting("causal", True),
    "norm": Setting("norm"),
    "seed": Setting("seed"),
    "projections": Setting("projections", False, "--no-proj"),
}
# Names of a state dict that, without the rest of its layer (in_proj_weight or
# q_proj_weight, read by reading/models/state_dicts.py), attn selfattn does not read: each with
# how to give it instead.
STATE_DICT = {
    "in_proj_bias": Message(
        _("give torch's in_proj_bias as b_q, b_k and b_v, its three thirds in that order")
    ),
    "k_proj_weight": Message(_("give it transposed as {field}"), field="w_k"),
    "v_proj_weight": Message(_("give it transposed as {field}"), field="w_v"),
    "out_proj.weight": Message(_("give it transposed as {field}"), field="w_o"),
    "out_proj.bias": Message(_("give it as {field}"), field="b_o"),
}


def check_fields(inputs: LayerInputs) -> None:
    """Refuse the first name of the input attn selfattn would not use (a checkpoint's have
    been taken by then), in one line naming it and the nearest field it reads."""
    for name in inputs.others:
        raise unknown_field(name)


def unknown_field(name: str) -> InputError:
    """The one line for a field attn selfattn does not read."""
    shown = name if len(name) <= 40 else f"{name[:37]}..."
    if name in OTHER_MASKS:  # a mask of another sense than its name would suggest
        return InputError(_("{field}: {reason}"), field=shown, reason=OTHER_MASKS[name])
    if name in STATE_DICT:
        return InputError(
            _("{field}: not a field attn selfattn reads; {hint}"),
            field=shown,
            hint=STATE_DICT[name],
        )
    if name in OPTIONS:
        option = OPTIONS[name]
        return InputError(
            _(
                "{field}: not a field attn selfattn reads; it is an option here, give "
                "{option} (a whole result, with its output, passes it through)"
            ),
            field=shown,
            option=option,
        )
    from attncli.reading.models.checkpoint import nearest_name

    near = nearest_name(name, INPUTS)  # attn's own names, torch's, BERT's and GPT-2's
    if near:
        hint = Message(_("did you mean {near}?"), near=near)
    elif is_output(name):
        hint = Message(_("it is an output of the layer; remove it (or pass the whole result)"))
    else:
        hint = Message(
            _("it reads x (or x_q, x_kv, or queries, keys, values), w_q, w_k, w_v, w_o, …")
        )
    return InputError(_("{field}: not a field attn selfattn reads; {hint}"), field=shown, hint=hint)


@dataclass(frozen=True)
class Unused:
    """Fields (or settings, as Settings) that the layer does not use `when` the rest of
    what is given says so, each refused in one line saying why (`msgid`, with the settings
    it names, `said`): a field dropped silently would give other numbers than the ones
    meant. A Setting counts as given when its value is not None or False."""

    names: tuple[str | Setting, ...]
    when: Callable[[LayerInputs, SelfAttnSettings, bool], bool]  # (inputs, settings, direct)
    msgid: str
    said: Callable[[LayerInputs, SelfAttnSettings], dict[str, Any]] = lambda inputs, settings: {}
    subject: str | None = "name"  # the field of `msgid` that names what is given, if any
    kind: type[AttnError] = InputError  # OptionError where an option is what to change


# The flags messages name, as the command line (--no-proj) or Python (projections=False) says.
NO_PROJ = Setting("projections", False, "--no-proj")
NO_OUT_PROJ = Setting("out_proj", False, "--no-out-proj")
_KV = ("b_k", "b_v", "bias_k", "bias_v")  # what projects and extends the keys and values


def _with_output(settings: SelfAttnSettings) -> bool:
    """The heads are joined through W^O: --heads, without --no-out-proj."""
    return settings.heads is not None and settings.out_proj


# Which fields each way of giving the layer uses, as what it leaves unused: in the order
# they are checked, the first field given that its rule leaves unused refused.
UNUSED = (
    # queries, keys and values given directly: no X to project (a result read back
    # carries them; they pass)
    Unused((*X_FIELDS, "w_q", "w_k", "w_v", "w_o", "bias_k", "bias_v"),
           lambda inputs, settings, direct: direct and not inputs.read_back,
           _("{name}: queries, keys and values are given directly, so attn selfattn would "
             "not use {name}; remove it, or give x and the W's instead of "
             "queries/keys/values")),
    # grouped heads group W^K and W^V: none with --no-proj or queries, keys and values given
    Unused((Setting("kv_heads"),),
           lambda inputs, settings, direct: not settings.projections
           or (inputs.queries is not None and not inputs.from_x),
           _("{kv_heads} groups the heads of W^K and W^V; with no projections (or queries, "
             "keys and values given) there are none to group"),
           lambda inputs, settings: {"kv_heads": Setting("kv_heads", settings.kv_heads)}, None),
    # --no-proj (Q = K = V = X): the heads (split and joined by W^Q, …, W^O), a bias
    # (added after its W) and torch's zero key and value (added after W^K and W^V, as in
    # nn.MultiheadAttention); the W's themselves are left aside (a layer's file compared
    # with and without them)
    Unused((Setting("heads"), "b_q", "b_k", "b_v", "b_o", "bias_k", "bias_v",
            Setting("add_zero_attn", True)),
           lambda inputs, settings, direct: not direct and not settings.projections,
           _("{setting} goes with the projections; drop {no_proj} or {setting}"),
           lambda inputs, settings: {"no_proj": NO_PROJ}, "setting"),
    # the sizes of the projections, which --no-proj leaves out (and a result read back
    # from X computes again)
    Unused((Setting("d_k"), Setting("d_v")),
           lambda inputs, settings, direct: not settings.projections
           and (not direct or inputs.from_x),
           _("{setting} goes with the projections; drop {no_proj} or {setting}"),
           lambda inputs, settings: {"no_proj": NO_PROJ}, "setting"),
    # --norm sizes the seeded embeddings, which a given X replaces
    Unused((Setting("norm"),),
           lambda inputs, settings, direct: inputs.from_x,
           _("{norm} sets the length of the seeded embeddings, and the input gives X "
             "itself; drop {norm}"), subject="norm"),
    # the positions a trained layer's X carries, with no X (reading/check/positions.py's
    # learned_positions reads them)
    Unused(("positions",),
           lambda inputs, settings, direct: direct and not inputs.from_x,
           _("positions says the layer's X carries {kind} positions, and there is no X: "
             "queries, keys and values are given directly; remove positions"),
           lambda inputs, settings: {"kind": inputs.positions}, None),
    # --positions sinusoidal adds its encoding to X, which queries, keys and values replace
    Unused((Setting("positions"),),
           lambda inputs, settings, direct: direct and not inputs.from_x
           and settings.positions not in (None, "rope"),
           _("{option} adds the encoding to X; with queries, keys and values given there is "
             "no X to add it to"),
           lambda inputs, settings: {"option": Setting("positions", settings.positions)}, None,
           OptionError),
    # torch's add_bias_kv and add_zero_attn add keys of no position, which rotary
    # positions would have to turn
    Unused(("bias_k", Setting("add_zero_attn", True)),
           lambda inputs, settings, direct: settings.positions == "rope",
           _("{rope} with add_bias_kv's or {zero}'s extra keys: those keys have no position to "
             "be turned by; leave them out"),
           lambda inputs, settings: {"rope": ROPE, "zero": Setting("add_zero_attn")}, None,
           OptionError),
    # W^O and its bias join the heads
    Unused(("w_o",),
           lambda inputs, settings, direct: not direct and settings.projections
           and not _with_output(settings),
           _("w_o joins the heads of {heads} through W^O; give {option} (without "
             "{no_out_proj}), or leave w_o out"),
           lambda inputs, settings: {"heads": Setting("heads", metavar="h"),
                             "option": Setting("heads"), "no_out_proj": NO_OUT_PROJ}, None),
    Unused(("b_o",),
           lambda inputs, settings, direct: not direct and settings.projections
           and not _with_output(settings),
           _("b_o is added after W^O, which only {heads} (without {no_out}) has; leave b_o "
             "out"),
           lambda inputs, settings: {"heads": Setting("heads"), "no_out": NO_OUT_PROJ}, None),
    # a latent layer reads its keys and values from c_KV = RMSNorm(x W^DKV), through W^DKV,
    # W^UK and W^UV drawn from the seed
    Unused(DIRECT,
           lambda inputs, settings, direct: settings.latent_rank is not None
           and not inputs.from_x,
           _("{latent} reads the keys and values from X through the latent c_KV; give X "
             "(or a sentence) instead of queries, keys and values, or leave out {latent}"),
           lambda inputs, settings: {"latent": Setting("latent_rank", settings.latent_rank)},
           None),
    Unused(("w_k", "w_v", *_KV),
           lambda inputs, settings, direct: settings.latent_rank is not None,
           _("{name} is given, but with {latent} the keys and values are read from the "
             "latent c_KV (W^DKV, W^UK, W^UV drawn from the seed); remove {name} or "
             "{latent}"),
           lambda inputs, settings: {"latent": Setting("latent_rank", settings.latent_rank)}),
    # grouped heads: the key and value biases are of H heads' width in torch's layer
    Unused(_KV,
           lambda inputs, settings, direct: settings.kv_heads is not None,
           _("{name} with {kv_heads}: a grouped layer's key and value biases are not read "
             "yet"),
           lambda inputs, settings: {"kv_heads": Setting("kv_heads", settings.kv_heads)}),
    # the gradient at the output, through what has no backward pass in attn yet
    Unused(("grad_output", "target"),
           lambda inputs, settings, direct: bool(without_backward(settings)),
           _("{option} has no backward pass in attn yet; leave out the gradient ({upstream}, "
             "{target}) or {option}"),
           lambda inputs, settings: {"option": without_backward(settings)[0],
                                     "upstream": Setting("grad_output"),
                                     "target": Setting("target")}, None, OptionError),
    # with x, tokens names the rows, queries and keys alike
    Unused(("query_tokens",),
           lambda inputs, settings, direct: inputs.x is not None,
           _("query_tokens names the queries of cross-attention (x_q beside x_kv); with x, "
             "tokens names the rows, queries and keys alike: give tokens, or x_q and x_kv"),
           subject=None),
)  # fmt: skip


def check_used(inputs: LayerInputs, settings: SelfAttnSettings, direct: bool) -> None:
    """Every field given is one the layer uses, as UNUSED declares it: the first that its
    rule leaves unused refused, saying why. `direct`: queries, keys and values are given in
    place of X."""
    for rule in UNUSED:
        if not rule.when(inputs, settings, direct):
            continue
        for named in rule.names:
            if isinstance(named, Setting):
                value = getattr(settings, named.name)
            else:
                value = inputs.value(named)
            if value is not None and value is not False:
                said = rule.said(inputs, settings)
                if rule.subject is not None:
                    said[rule.subject] = named
                raise rule.kind(rule.msgid, **said)


def check_read_back(inputs: LayerInputs, settings: SelfAttnSettings) -> None:
    """A result read back is computed again from its inputs, so the settings it was
    computed with (which it writes down) must be the ones asked for now, or its numbers
    would silently change: refuse the first that differs, saying how to ask for it."""
    if not inputs.read_back:
        return
    result = inputs.written
    import math

    _check_written_sizes(inputs)
    scale_by = None  # the divisor of a result computed with --scale S
    d_k: Any = result.get("d_k")
    if result.get("scale") and result.get("divisor") and _number(d_k) and d_k > 0:
        divisor = float(result["divisor"])
        if not math.isclose(divisor, math.sqrt(d_k + _rope_dim(result)), rel_tol=1e-12):
            scale_by = divisor
    # field: (what the result was computed with, what is asked now)
    compared = {
        "causal": (result.get("causal"), settings.causal),
        "scale": (result.get("scale"), settings.scale is not None),
        "projections": (result.get("projections"), settings.projections),
        "heads": (result.get("heads"), settings.heads),
        "divisor": (scale_by, settings.scale_by),
        "dtype": (result.get("dtype"), settings.dtype),
        "rope_base": (result.get("rope_base"),
                      settings.rope_base if settings.positions == "rope" else None),
        "window": (result.get("window"), settings.window),
        "alibi": (result.get("alibi"), settings.alibi or None),
        "kv_heads": (result.get("kv_heads"), settings.kv_heads),
        "qk_norm": (result.get("qk_norm"), settings.qk_norm or None),
        "rope_scaling": (result.get("rope_scaling"),
                         settings.rope_scaling if settings.positions == "rope" else None),
        "softcap": (result.get("softcap"), settings.softcap),
        "sinks": (result.get("sinks"), None if settings.sinks is None else list(settings.sinks)),
        "latent_rank": (result.get("latent_rank"), settings.latent_rank),
        "rope_dim": (result.get("rope_dim"), _rope_dim_asked(settings, d_k)),
    }  # fmt: skip
    _check_zero_key(result.get("extra_keys", []), settings.add_zero_attn)
    if settings.positions not in (None, "rope") and result.get("positions") is None:
        raise InputError(
            _(
                "{option}: the input is a result computed without positions, and its x "
                "would get them now and change its numbers; read it back without {option}, "
                "or give only its inputs (tokens, x, w_q, …) to add positions to them"
            ),
            option=Setting("positions", settings.positions),
        )
    # queries, keys and values given directly are never projected: --no-proj changes nothing
    direct = not inputs.from_x
    if not direct and result.get("projections") is False and "d_model" not in result:
        # a result writes d_model only when it had an X (results/selfattn.sizes)
        raise InputError(
            _(
                "{field}: the input is a result computed from queries, keys and values given "
                "directly (it writes no d_model), to which {field} was added; remove {field} to "
                "read the result back, or give only inputs ({field}, w_q, …) to compute from "
                "{field}"
            ),
            field=next(name for name in X_FIELDS if inputs.value(name) is not None),
        )
    for field, (written, asked) in compared.items():
        if field in WRITTEN_WHEN_USED and written != asked:
            pass  # written down only with rotary positions: its absence says none
        elif field not in result or written == asked or (field == "projections" and direct):
            continue
        if field in ("causal", "scale", "projections") and not isinstance(written, bool):
            continue  # not written by attn: the field check has said what it may be
        raise InputError(
            _(
                "{field}: the input is a result computed with {field} {value}, and computing "
                "it again otherwise would change its numbers; read it back {fix}"
            ),
            field=field,
            value=json.dumps(written),
            fix=_asked_again(field, written),
        )


# The settings a result writes down only when they were used: its absence says none.
WRITTEN_WHEN_USED = ("rope_base", "kv_heads", "window", "alibi", "qk_norm", "rope_scaling",
                     "softcap", "sinks", "latent_rank", "rope_dim")  # fmt: skip


def _rope_dim_asked(settings: SelfAttnSettings, d_k: Any) -> int | None:
    """The width of the decoupled rotary key a latent layer with these settings would have,
    for heads of a result's d_k (None: no such key)."""
    from attncli.reading.check.scoring import latent_rotary_key

    if settings.latent_rank is None or settings.heads is None or not isinstance(d_k, int):
        return settings.rope_dim
    rotary_key = latent_rotary_key(settings, d_k * settings.heads)
    return None if rotary_key is None else rotary_key[1]


def _rope_dim(result: Mapping[str, Any]) -> int:
    """A latent layer's rotary key's width, which each key holds after its d_k (0: none)."""
    rope_dim = result.get("rope_dim")
    return rope_dim if isinstance(rope_dim, int) and not isinstance(rope_dim, bool) else 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _last_size(value: Any) -> int | None:
    """The numbers in each row of an array (nested lists or an array); None when it is no
    array of rows, for the check of its shape to say so."""
    import numpy as np

    try:
        shape = np.shape(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        return None
    return int(shape[-1]) if len(shape) > 1 else None


def _check_written_sizes(inputs: LayerInputs) -> None:
    """A result's d_model, d_k and d_v are the sizes of its x's, keys' and values' rows: one
    changed after attn wrote it is said as such, before the divisor is held against d_k
    (a d_k edited was blamed on the divisor)."""
    result = inputs.written
    for field, array in (("d_model", "x"), ("d_k", "keys"), ("d_v", "values")):
        if field not in result:
            continue
        size = _last_size(inputs.value(array))
        if size is not None and field == "d_k":  # a latent layer's keys end with k^R
            size -= _rope_dim(result)
        written = result[field]
        if size is None or (_number(written) and written == size):
            continue
        raise InputError(
            _(
                "{field}: the input is a result whose {field} is {written}, but each row of its "
                "{array} holds {size} numbers; it was changed after attn wrote it: give it "
                "back {size}, or remove {field}"
            ),
            field=field,
            written=json.dumps(written)[:40],
            array=array,
            size=size,
        )


def _asked_again(field: str, written: Any) -> Message | OnSurface:
    """How a run with what a result wrote in `field` is asked for: 'with --causal',
    'without --heads' ('with causal=True', 'without heads' in Python), …"""
    if field == "causal":
        return (_with(Setting("causal", True)) if written
                else _without(Setting("causal"), Setting("causal", False)))  # fmt: skip
    if field in ("scale", "projections"):
        flag = "--no-scale" if field == "scale" else "--no-proj"
        return (_with(Setting(field, False, flag)) if not written
                else _without(Setting(field, option=flag), Setting(field, True)))  # fmt: skip
    if field == "divisor":
        return (_with(Setting("scale_by", written, "--scale")) if written is not None
                else _without(Setting("scale_by", option="--scale")))  # fmt: skip
    if field == "rope_base":
        return _rope_with(written)
    if field in ("alibi", "qk_norm"):
        return _with(Setting(field, True)) if written else _without(Setting(field))
    if field == "sinks" and isinstance(written, list):
        return _with(Setting("sinks", ",".join(map(str, written))))
    # dtype, heads, window, kv_heads: with the value written, or without the setting
    return _with(Setting(field, written)) if written is not None else _without(Setting(field))


def _rope_with(base: object) -> Message | OnSurface:
    """How a run with (or without) rotary positions is asked for."""
    if base is None:
        return _without(Setting("positions", "rope"))
    both = Message(
        _("{first} and {second}"),
        first=Setting("positions", "rope"),
        second=Setting("rope_base", base),
    )
    return Message(_("with {option}"), option=both)


def _with(setting: Setting) -> Message:
    """How a run is asked for: 'with --causal' on the command line, 'with causal=True' in
    Python."""
    return Message(_("with {option}"), option=setting)


def _without(option: Setting, python: Setting | None = None) -> Message | OnSurface:
    """A run asked for by leaving `option` out: 'without --heads' ('without heads' in
    Python); with `python`, what Python gives instead ('without --causal' on the command
    line, 'with causal=False' in Python)."""
    said = Message(_("without {option}"), option=option)
    return said if python is None else OnSurface(said, _with(python))


def _check_zero_key(extra_keys: object, zero_attn: bool) -> None:
    """A result computed with --add-zero-attn writes down its zero key in extra_keys (after
    any "bias_k"); read back, it must be asked for again, as --causal is."""
    keys = listed(
        "extra_keys", extra_keys, ("bias_k", "zero"), _("the keys added after the tokens'")
    )
    zero = "zero" in keys
    if zero == zero_attn:
        return
    fix = _with(Setting("add_zero_attn", True)) if zero else _without(Setting("add_zero_attn"))
    raise InputError(
        _(
            "extra_keys: the input is a result computed {computed} (its extra_keys is "
            "{extra_keys}), and computing it again otherwise would change its numbers; read "
            "it back {fix}"
        ),
        computed=Message(
            _("with {option}") if zero else _("without {option}"), option="add_zero_attn"
        ),  # fmt: skip
        extra_keys=json.dumps(extra_keys),
        fix=fix,
    )


def listed(
    field: str, value: object, allowed: tuple[str, ...], what: str, shown: list[str] | None = None
) -> list[str]:
    """A result's list of names (the projections it drew, the keys it added) is a list of
    some of `allowed` (`shown`: those a message lists), else one line saying what it
    lists there: a result changed after attn wrote it."""
    if isinstance(value, list) and all(isinstance(name, str) and name in allowed for name in value):
        return value
    given = json.dumps(value)
    raise InputError(
        _("{field} is {value}; a result lists there {what}, a list of some of {names} (or []); "
          "restore it or remove it"),
        field=field,
        value=given if len(given) <= 40 else f"{given[:37]}...",
        what=Message(what),
        names=json.dumps(list(allowed if shown is None else shown)),
    )  # fmt: skip


def drawn_of(
    inputs: LayerInputs, weights: Mapping[str, object], drawn: list[str], seed: int
) -> tuple[tuple[str, ...], int]:
    """The projections drawn from a seed, and that seed: those drawn now (from `seed`); for
    a result read back, also those its `drawn` names, read from it now (the same matrices),
    with the seed it wrote down. A `drawn` that is not such a list is refused."""
    result = inputs.written  # empty unless a result is read back
    written = result.get("drawn")
    if written is None:
        return tuple(drawn), seed
    shown = [name for name in ("w_q", "w_k", "w_v", "w_o") if name in weights]
    listed("drawn", written, tuple(weights), _("the projections drawn from its seed"), shown)
    # nothing drawn now that the result did not draw (a latent layer's W^DKV, W^UK, W^UV are
    # drawn again): from the seed it wrote down, the same matrices
    if written and set(drawn) <= set(written) and isinstance(result.get("seed"), int):
        seed = result["seed"]
    together = set(written) | set(drawn)
    return tuple(name for name in weights if name in together), seed
