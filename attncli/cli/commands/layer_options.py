"""The options of attn selfattn that say what the layer is given: its input file, its sizes
and the projections a file leaves out."""

from typing import Annotated

from attncli.cli.declare import Option
from attncli.messages import _

SelfAttnInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar=_("FILE"),
        help=_(
            "Instead of a sentence: JSON, .npy (read as x) or .npz with x, or x_q and x_kv, "
            "or x_q, x_k, x_v (each may be a batch B × T × d), and w_q, w_k, w_v, w_o, b_q, "
            "b_k, b_v, b_o, bias_k, bias_v, mask, torch's attn_mask, key_padding_mask, "
            "tokens, query_tokens, grad_output or target; or with queries, keys, values; or "
            "a layer by a state dict's own names (in_proj_weight, out_proj.weight, …; BERT's "
            "and GPT-2's under --prefix); any other field is refused. W is d_in × d_out, "
            "applied as x @ W (from torch's nn.Linear, pass weight.T)."
        ),
    ),
]

DModelOption = Annotated[
    int | None,
    Option(
        "--d-model",
        help=_("Numbers per token embedding. [default: 8]"),
    ),
]

DKOption = Annotated[
    int | None,
    Option(
        "--d-k",
        help=_("Columns of W^Q and W^K (per head). [default: d_model / h]"),
    ),
]

DVOption = Annotated[
    int | None,
    Option(
        "--d-v",
        help=_("Columns of W^V (per head). [default: d_model / h]"),
    ),
]

NormOption = Annotated[
    float | None,
    Option(
        "--norm",
        help=_("Length of every token embedding. [default: √d_model, so each number is about ±1]"),
    ),
]

DrawMissingOption = Annotated[
    bool,
    Option(
        "--draw-missing",
        help=_(
            "With -i FILE giving some of w_q, w_k, w_v, w_o: draw the others from --seed "
            "(without it, a missing one is an error)."
        ),
    ),
]
WeightsOption = Annotated[
    str | None,
    Option(
        "--weights",
        metavar=_("FILE"),
        help=_(
            "The layer's weights as torch or transformers save them: a .safetensors, .npz or "
            "JSON state dict (nn.MultiheadAttention's in_proj_weight, out_proj.weight, …; "
            "one layer of a BERT or GPT-2 checkpoint with --prefix); needs --heads unless "
            "config.json is beside it. A .pt/.bin file is refused: save it with safetensors."
        ),
    ),
]
NoCausalOption = Annotated[
    bool,
    Option(
        "--no-causal",
        help=_(
            "A GPT-2 layer without its causal mask: every token sees every other (GPT-2's "
            "attention is causal by itself)."
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
AddZeroAttnOption = Annotated[
    bool,
    Option(
        "--add-zero-attn",
        help=_(
            "As torch's add_zero_attn: a zero key and value row per head, after the tokens' "
            "(a state dict does not record it)."
        ),
    ),
]
DtypeOption = Annotated[
    str,
    Option(
        "--dtype",
        metavar="float32|float64",
        help=_(
            "The type the layer is computed in, from the inputs on (projections, scores, "
            "softmax, mix, gradients); float32 agrees with torch's float32 to about 1e-6, "
            "not bit for bit."
        ),
    ),
]
