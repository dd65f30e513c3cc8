"""The options of attn selfattn that say what the layer is given: its input file, its sizes
and the projections a file leaves out."""

from typing import Annotated

from attncli.cli.declare import Option

SelfAttnInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar="FILE",
        help="Instead of a sentence: JSON, .npy (read as x) or .npz with x, or x_q and x_kv, "
        "or x_q, x_k, x_v (each may be a batch B × T × d), and w_q, w_k, w_v, w_o, b_q, b_k, "
        "b_v, b_o, bias_k, bias_v, mask, torch's attn_mask, key_padding_mask, tokens, "
        "query_tokens, grad_output or target; or with queries, keys, values; or a layer by "
        "a state dict's own names (in_proj_weight, out_proj.weight, …; BERT's and GPT-2's "
        "under --prefix); any other field is refused. W is d_in × d_out, applied as x @ W "
        "(from torch's nn.Linear, pass weight.T).",
        es=(
            "En lugar de una frase: JSON, .npy (leído como x) o .npz con x, o x_q y x_kv, o "
            "x_q, x_k, x_v (cada uno puede ser un lote B × T × d), y w_q, w_k, w_v, w_o, b_q, "
            "b_k, b_v, b_o, bias_k, bias_v, mask, el attn_mask de torch, key_padding_mask, "
            "tokens, query_tokens, grad_output o target; o con queries, keys, values; o una "
            "capa con los nombres de su state dict (in_proj_weight, out_proj.weight, …; los "
            "de BERT y GPT-2 bajo --prefix); cualquier otro campo se rechaza. W es d_in × "
            "d_out y se aplica como x @ W (de un nn.Linear de torch, pasa weight.T)."
        ),
    ),
]

DModelOption = Annotated[
    int | None,
    Option(
        "--d-model",
        help="Numbers per token embedding. [default: 8]",
        es="Números por embedding de token. [por defecto: 8]",
    ),
]

DKOption = Annotated[
    int | None,
    Option(
        "--d-k",
        help="Columns of W^Q and W^K (per head). [default: d_model / h]",
        es="Columnas de W^Q y W^K (por cabeza). [por defecto: d_model / h]",
    ),
]

DVOption = Annotated[
    int | None,
    Option(
        "--d-v",
        help="Columns of W^V (per head). [default: d_model / h]",
        es="Columnas de W^V (por cabeza). [por defecto: d_model / h]",
    ),
]

NormOption = Annotated[
    float | None,
    Option(
        "--norm",
        help="Length of every token embedding. [default: √d_model, so each number is about ±1]",
        es="Longitud de cada embedding. [por defecto: √d_model, así cada número ronda ±1]",
    ),
]

DrawMissingOption = Annotated[
    bool,
    Option(
        "--draw-missing",
        help="With -i FILE giving some of w_q, w_k, w_v, w_o: draw the others from --seed "
        "(without it, a missing one is an error).",
        es=(
            "Con -i FICHERO que da algunas de w_q, w_k, w_v, w_o: saca las demás de --seed "
            "(sin ella, que falte una es un error)."
        ),
    ),
]
WeightsOption = Annotated[
    str | None,
    Option(
        "--weights",
        metavar="FILE",
        help="The layer's weights as torch or transformers save them: a .safetensors, .npz or "
        "JSON state dict (nn.MultiheadAttention's in_proj_weight, out_proj.weight, …; one "
        "layer of a BERT or GPT-2 checkpoint with --prefix); needs --heads unless config.json "
        "is beside it. A .pt/.bin file is refused: save it with safetensors.",
        es=(
            "Los pesos de la capa como los guardan torch o transformers: un state dict "
            ".safetensors, .npz o JSON (in_proj_weight, out_proj.weight, … de "
            "nn.MultiheadAttention; una capa de un checkpoint de BERT o GPT-2 con --prefix); "
            "necesita --heads salvo que config.json esté al lado. Un .pt/.bin se rechaza: "
            "guárdalo con safetensors."
        ),
    ),
]
NoCausalOption = Annotated[
    bool,
    Option(
        "--no-causal",
        help="A GPT-2 layer without its causal mask: every token sees every other (GPT-2's "
        "attention is causal by itself).",
        es=(
            "Una capa de GPT-2 sin su máscara causal: cada token ve a todos los demás (la "
            "atención de GPT-2 es causal por sí misma)."
        ),
    ),
]
PrefixOption = Annotated[
    str | None,
    Option(
        "--prefix",
        metavar="P",
        help="The attention layer of a checkpoint given with --weights or in -i FILE, by its "
        "names' prefix (encoder.layer.0.attention for BERT, h.0.attn for GPT-2); not needed "
        "when the input holds one layer.",
        es=(
            "La capa de atención de un checkpoint dado con --weights o en -i FICHERO, por el "
            "prefijo de sus nombres (encoder.layer.0.attention en BERT, h.0.attn en GPT-2); "
            "no hace falta si la entrada tiene una sola capa."
        ),
    ),
]
AddZeroAttnOption = Annotated[
    bool,
    Option(
        "--add-zero-attn",
        help="As torch's add_zero_attn: a zero key and value row per head, after the tokens' "
        "(a state dict does not record it).",
        es=(
            "Como el add_zero_attn de torch: una fila de clave y valor cero por cabeza, tras "
            "las de los tokens (un state dict no lo guarda)."
        ),
    ),
]
DtypeOption = Annotated[
    str,
    Option(
        "--dtype",
        metavar="float32|float64",
        help="The type the layer is computed in, from the inputs on (projections, scores, "
        "softmax, mix, gradients); float32 agrees with torch's float32 to about 1e-6, not "
        "bit for bit.",
        es=(
            "El tipo en que se calcula la capa, desde las entradas (proyecciones, "
            "puntuaciones, softmax, mezcla, gradientes); float32 coincide con el float32 de "
            "torch en torno a 1e-6, no bit a bit."
        ),
    ),
]
