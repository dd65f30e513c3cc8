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
        help="Instead of a sentence: JSON, .npy (read as x) or .npz with x (and w_q, w_k, "
        "w_v, w_o, b_q, b_k, b_v, b_o, mask, torch's attn_mask, key_padding_mask, tokens; "
        "x may be a batch B × T × d) or with queries, keys, values; any other field is "
        "refused. W is d_in × d_out, applied as x @ W (from torch's nn.Linear, pass weight.T).",
        es=(
            "En lugar de una frase: JSON, .npy (leído como x) o .npz con x (y w_q, w_k, "
            "w_v, w_o, b_q, b_k, b_v, b_o, mask, el attn_mask de torch, key_padding_mask, "
            "tokens; x puede ser un lote B × T × d) o con queries, keys, values; cualquier "
            "otro campo se rechaza. W es d_in × d_out y se aplica como x @ W (de un "
            "nn.Linear de torch, pasa weight.T)."
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
