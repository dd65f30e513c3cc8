"""attn explore: the self-attention grid as a full-screen app, and its options."""

from typing import Annotated

from attncli.cli.commands import command
from attncli.cli.commands.layer_options import (
    CausalOption,
    DKOption,
    DModelOption,
    EmbeddingSeedOption,
    NoProjOption,
    NormOption,
    NoScaleOption,
)
from attncli.cli.commands.model_runs import LayerOption, ModelOption, WordsOption
from attncli.cli.commands.selfattn import SentenceArgument
from attncli.cli.declare import Option
from attncli.errors import InputError
from attncli.messages import _
from attncli.present.output import Output

ExploreInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "Instead of a sentence: a document as attn selfattn -i reads it (x and w_q, w_k, "
            "w_v, or queries, keys, values), or one with a query, keys and values "
            "(samples/tren.json), shown as the worked chain score → softmax → mix with the "
            "query and the keys editable."
        ),
    ),
]

ExploreHeadsOption = Annotated[
    int | None,
    Option(
        "--heads",
        help=_(
            "Start with h heads (d_model / h columns each, unless --d-k), joined, then W^O; "
            "the keys h and H change it."
        ),
    ),
]

MISSING = _(
    "attn explore needs Textual, which the plain install leaves out: "
    "pip install 'attncli[explore]' (from a clone: pip install '.[explore]')"
)


@command(
    outputs=("lang", "digits"),
    shared=False,
)
def explore(
    sentence: SentenceArgument = None,
    input_path: ExploreInputOption = None,
    d_model: DModelOption = None,
    d_k: DKOption = None,
    norm: NormOption = None,
    seed: EmbeddingSeedOption = 0,
    no_proj: NoProjOption = False,
    no_scale: NoScaleOption = False,
    causal: CausalOption = False,
    heads: ExploreHeadsOption = None,
    model: ModelOption = None,
    layer: LayerOption = None,
    words: WordsOption = False,
    *,
    output: Output,
) -> None:
    """Explore the self-attention grid, full screen and live.

    The sentence at the top (/ or Tab to edit it, Enter computes), attn selfattn's header
    and the weight grid with each row's largest marked. Keys: p projections, s ÷√d_k,
    c causal, h/H heads, { } the head shown, n/N length, r seed, d/D d_k, v weights or
    scores, l language;
    the arrows (or the mouse) move the cursor and the side panel shows that cell's
    arithmetic; Enter, the row's three steps; e exports; j saves the state for
    attn selfattn -i; ? every key; q or Esc quits. With --model, a real model's layer:
    [ ] layer, w word pieces or words. Needs attncli[explore].

    Example: attn explore "las llaves del coche están ahí" --lang es
    """
    import sys
    from importlib.util import find_spec

    from attncli.explore.launch import check_options

    sizes = dict(d_model=d_model, d_k=d_k, norm=norm, seed=seed, heads=heads, model=model,
                 layer=layer, words=words)  # fmt: skip
    switches = dict(projections=not no_proj, scale=not no_scale, causal=causal)
    check_options(sentence, input_path, sizes, switches)
    if find_spec("textual") is None:
        raise InputError(MISSING)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError(
            _(
                "attn explore is a full-screen app and needs a terminal; to compute or pipe, "
                "use attn selfattn with the same options"
            )
        )
    from attncli.explore.launch import launch

    launch(sentence, input_path, sizes, switches, output.lang, output.digits)
