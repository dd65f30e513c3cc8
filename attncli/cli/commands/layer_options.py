"""The options of attn selfattn: what the layer is given (its input file, a weight file and
the layer in it), and its settings, made from their one declaration (attncli.layer): an
option per field that takes a value, a flag per value a flag sets."""

from typing import Annotated, Any

from attncli.cli.declare import Option, chosen, declared_options
from attncli.cli.options import PositionsKind
from attncli.layer import OPPOSITE, SelfAttnSettings
from attncli.messages import _

SelfAttnInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "Instead of a sentence: JSON, .npy (read as x) or .npz with x, or x_q and x_kv, "
            "or x_q, x_k, x_v (each may be a batch B × T × d), and w_q, w_k, w_v, w_o, b_q, "
            "b_k, b_v, b_o, bias_k, bias_v, mask, torch's attn_mask, key_padding_mask, "
            "tokens, query_tokens, grad_output or target (and trained_by, the attn train line "
            "that learned the W, and positions, the encoding they learned with); or with "
            "queries, keys, values; or "
            "a layer by a state dict's own names (in_proj_weight, out_proj.weight, …; BERT's "
            "and GPT-2's under --prefix); any other field is refused. W is d_in × d_out, "
            "applied as x @ W (from torch's nn.Linear, pass weight.T)."
        ),
    ),
]


WeightsOption = Annotated[
    str | None,
    Option(
        "--weights",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "The layer's weights as torch or transformers save them: a .safetensors, .npz or "
            "JSON state dict (nn.MultiheadAttention's in_proj_weight, out_proj.weight, …; "
            "one layer of a BERT or GPT-2 checkpoint with --prefix); needs --heads unless "
            "config.json is beside it. A .pt/.bin file is refused: save it with safetensors."
        ),
    ),
]
PrefixOption = Annotated[
    str | None,
    Option(
        "--prefix",
        metavar="P",
        help=_(
            "The attention layer of a checkpoint given with --weights or in -i FILE, by its "
            "names' prefix (encoder.layer.0.attention for BERT, h.0.attn for GPT-2); not "
            "needed when the input holds one layer."
        ),
    ),
]


# A field's type and default on the command line, where they are not the field's own:
# --scale takes a number (√d_k is the default, no division a flag), --positions one of its
# kinds, --sinks its numbers as one text (0.5,-1), which the settings read.
COMMAND_LINE_TYPES: dict[str, tuple[Any, Any]] = {
    "scale": (float | None, None),
    "positions": (PositionsKind | None, None),
    "sinks": (str | None, None),
}

LAYER_OPTIONS = declared_options(SelfAttnSettings, COMMAND_LINE_TYPES)
# The ones attn explore and attn train take too.
DModelOption, DKOption, NormOption, EmbeddingSeedOption = (
    LAYER_OPTIONS[name].annotation for name in ("d_model", "d_k", "norm", "seed")
)
NoProjOption, NoScaleOption, CausalOption, PositionsOption = (
    LAYER_OPTIONS[name].annotation for name in ("no_proj", "no_scale", "causal", "positions")
)


def layer_settings_from(given: dict[str, Any]) -> SelfAttnSettings:
    """The settings a command line asks for, from the values of LAYER_OPTIONS (by name);
    two options setting one field (--scale S and --no-scale, --causal and --no-causal)
    are refused."""
    return SelfAttnSettings(**chosen(LAYER_OPTIONS, given, OPPOSITE))


def options_given(settings: SelfAttnSettings) -> list[str]:
    """The options a command line gives for each setting that is not the default: the
    flag of a flag's value, else the option (--heads 2: --heads; causal False: --no-causal)."""
    return [said.split(" ", 1)[0] for said in settings.command_line()]
