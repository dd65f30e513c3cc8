"""What the layer's positions and distances ask of its inputs, checked with the arrays
(reading/check/selfattn.checked_arrays) before anything is drawn or computed: rotary
positions (--positions rope) turn the queries and keys of one sequence pair by pair;
--window and --alibi count how far a key stands from a query of the same sequence."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from attncli.errors import OptionError
from attncli.messages import Setting, _

if TYPE_CHECKING:
    from attncli.core.rotary import Scaling
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

ROPE = Setting("positions", "rope")  # --positions rope, positions='rope'


def check_positions(
    inputs: LayerInputs,
    settings: SelfAttnSettings,
    crossed: bool,
    head_width: int,
) -> None:
    """Rotary positions, a window and ALiBi against the layer: refused where a position
    would be ambiguous or a number wrong. `crossed`: the queries and the keys come from two
    sequences (cross-attention, or queries and keys of other lengths); `head_width`: the
    columns of one head's queries and keys (d_k), which rotary positions turn in pairs."""
    # what counts positions, each of one sequence: turned by them, or by their distance
    counted = ((settings.positions == "rope", ROPE), (settings.window is not None,
               Setting("window")), (settings.alibi, Setting("alibi", True)))  # fmt: skip
    for asked, option in counted:
        if asked and crossed:
            raise OptionError(
                _("{option} counts the positions of one sequence, its queries' and keys' "
                  "alike; with cross-attention the two sequences have no common positions"),
                option=option,
            )  # fmt: skip
    if settings.positions == "rope":
        _check_rotary(settings, head_width)


def _check_rotary(settings: SelfAttnSettings, width: int) -> None:
    """An even d_k (one sequence: check_positions; no key without a position, as torch's
    add_bias_kv and add_zero_attn add: fields.UNUSED; the base of the angles is a number
    above 1 by its declaration, layer.SelfAttnSettings; the backward pass is refused with
    the others', scoring.without_backward)."""
    turned_in_pairs("d_k", width, Setting("d_k"))
    if settings.rope_scaling is not None:
        rotary_scaling(settings.rope_scaling, width)


def turned_in_pairs(width: str, size: int, option: Setting) -> None:
    """A width rotary positions turn (a head's d_k, a latent layer's rotary key's d_rope) is
    even: they turn pairs of numbers; else one line naming the `option` that sets it."""
    if size % 2:
        raise OptionError(
            _("{width} is {size}, an odd number; rotary positions turn pairs of numbers, so "
              "give an even {option}"),
            width=width,
            size=size,
            option=option,
        )  # fmt: skip


# The kinds --rope-scaling takes: a config's rope_types, but the unscaled one and
# llama.cpp's factors from a GGUF file
SCALED_KINDS = ("linear", "dynamic", "yarn", "llama3", "longrope")
TRAINED_LENGTH = 8192  # L when --rope-scaling leaves it out: Llama 3.1's original length


def rotary_scaling(text: str, head_dim: int) -> Scaling:
    """--rope-scaling TYPE:FACTOR[:L] (longrope:FACTOR:L:S1,…:L1,…, each pair's short
    and long factors) as the rope_parameters of a config trained on L tokens would give
    it, read by the models' own reader (reading/models/rope_config.py), so that each
    type's numbers are held as a config's are: llama3 with low_freq_factor 1 and
    high_freq_factor 4 (Llama 3.1's), yarn with beta_fast 32 and beta_slow 1."""
    from typing import cast

    from attncli.reading.models.rope_config import rope_settings

    parts = [part.strip() for part in str(text).split(":")]
    kind = parts[0]
    most = 5 if kind == "longrope" else 3
    try:
        factor = float(parts[1]) if len(parts) > 1 else math.nan
        length = int(parts[2]) if len(parts) > 2 else TRAINED_LENGTH
        pairs = [[float(v) for v in part.split(",")] for part in parts[3:]]
    except ValueError:
        factor = math.nan
    if (
        kind not in SCALED_KINDS
        or not (2 + 2 * (kind == "longrope") <= len(parts) <= most)
        or math.isnan(factor)
    ):
        raise OptionError(
            _("{option}: {value} is not a rotary scaling; give TYPE:FACTOR[:L], TYPE one of "
              "{kinds} (longrope:FACTOR:L:S1,S2,…:L1,L2,…), e.g. yarn:4"),
            option=Setting("rope_scaling"),
            value=str(text)[:40],
            kinds=", ".join(SCALED_KINDS),
        )  # fmt: skip
    if kind == "dynamic" and head_dim == 2:  # base · (…)^(d / (d − 2)): no such power
        raise OptionError(
            _("{option}: dynamic scaling raises the base to the power d ÷ (d − 2), and the "
              "pairs turned here are d = 2 numbers; turn 4 or more ({d_k}, or {rope_dim} with "
              "a latent rank)"),
            option=Setting("rope_scaling", text),
            d_k=Setting("d_k", metavar="D"),
            rope_dim=Setting("rope_dim", metavar="D"),
        )  # fmt: skip
    if kind == "longrope" and any(len(factors) != head_dim // 2 for factors in pairs):
        raise OptionError(
            _("{option}: longrope takes a short and a long factor for each pair turned here, "
              "{count} of each ({width} numbers turned, in pairs)"),
            option=Setting("rope_scaling", text),
            count=head_dim // 2,
            width=head_dim,
        )  # fmt: skip
    parameters: dict[str, Any] = {"rope_type": kind, "factor": factor}
    parameters["original_max_position_embeddings"] = length
    if kind == "llama3":
        parameters.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if kind == "longrope":
        parameters.update(short_factor=pairs[0], long_factor=pairs[1])
    config = {"rope_parameters": parameters, "max_position_embeddings": length}
    # the reader's refusals name where the setting came from: --rope-scaling, rope_scaling=
    where = cast(str, Setting("rope_scaling", text))
    return cast("Scaling", rope_settings(config, where, length, head_dim)[1])


def learned_positions(
    inputs: LayerInputs, sentence: str | None, settings: SelfAttnSettings
) -> SelfAttnSettings:
    """The settings with the positions a layer's document says its X carries: a layer
    trained with positions (attn train --positions sinusoidal) read back onto a sentence
    gets them added, as when it learned; other positions asked for are refused, since its
    W would read an X they were not learned on. A document that says nothing, but whose
    trained_by line was run with --positions, is refused rather than read without them."""
    from dataclasses import replace

    from attncli.core.positions import KINDS
    from attncli.errors import InputError

    kind = inputs.positions
    if kind is None:
        trained = _trained_with(inputs.trained_by)
        if trained is None or inputs.from_x or inputs.read_back or settings.positions == trained:
            return settings
        raise InputError(
            _(
                "the W were learned with {option} (trained_by says so), and the document does "
                'not say which positions its X carries; add "positions": "{kind}" to it, or '
                "give {option}"
            ),
            option=Setting("positions", trained),
            kind=trained,
        )
    if kind not in KINDS:
        raise InputError(
            _("positions is {value}; it names the encoding the layer's X carries: {kinds}"),
            value=json_text(kind),
            kinds=", ".join(KINDS),
        )
    if inputs.from_x or sentence is None:  # an x given holds them already (attn train
        return settings  # writes it so); without X, fields.UNUSED refuses them
    if settings.positions not in (None, kind):
        raise OptionError(
            _(
                "{option}: the W were learned on X with {kind} positions (the document says "
                "so), and would read other positions now; drop {option}"
            ),
            option=Setting("positions", settings.positions),
            kind=kind,
        )
    return replace(settings, positions=kind)


def _trained_with(trained_by: object) -> str | None:
    """The --positions of an attn train line (a text), or None."""
    import shlex

    if not isinstance(trained_by, str):
        return None
    try:
        words = shlex.split(trained_by)
    except ValueError:
        return None
    for number, word in enumerate(words):
        if word == "--positions" and number + 1 < len(words):
            return words[number + 1]
        if word.startswith("--positions="):
            return word.partition("=")[2]
    return None


def json_text(value: object) -> str:
    """A value as JSON writes it ("rope", 3, null), for a message."""
    import json

    return json.dumps(value, ensure_ascii=False)
