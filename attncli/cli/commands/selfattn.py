"""attn selfattn: the self-attention layer's command and its options."""

from typing import TYPE_CHECKING, Annotated

from attncli.api.refusals import refuse_beside
from attncli.cli.commands import command
from attncli.cli.commands.compared import CompareOption
from attncli.cli.commands.layer_options import (
    PrefixOption,
    SelfAttnInputOption,
    WeightsOption,
    options_given,
)
from attncli.cli.commands.model_runs import LayerOption, ModelOption, WordsOption
from attncli.cli.declare import Argument, Option
from attncli.cli.options import STEPS, refuse_unexplained_row
from attncli.layer import SelfAttnSettings
from attncli.messages import _
from attncli.present.output import Output

if TYPE_CHECKING:
    from attncli.reading.models.state_dicts import LayerFields
    from attncli.results.selfattn import SelfAttnResult

DEFAULT_LAYER = SelfAttnSettings()
# attn selfattn
SentenceArgument = Annotated[
    str | None,
    Argument(
        help=_(
            "The sentence. Split on whitespace; punctuation at the start or end of a word is "
            "a token of its own (¿ dónde ?), inside a word it stays (l'eau)."
        ),
        show_default=False,
    ),
]
HeadOption = Annotated[
    int | None,
    Option(
        "--head",
        help=_(
            "With --steps and --heads: the head to explain; with --model: the head to show "
            "alone. [default: 1]"
        ),
        show_default=False,
    ),
]
ItemOption = Annotated[
    int | None,
    Option(
        "--item",
        metavar="N",
        min=1,
        help=_(
            "With a batch (x of B × T × d): the sequence the screen, --steps and --plot show "
            "(1 = first); the JSON keeps the whole batch."
        ),
    ),
]
SelfAttnGradOutputOption = Annotated[
    str | None,
    Option(
        "--grad-output",
        help=_("∂ℓ/∂output, rows as '1,0;0,1': adds the backward pass (grad_x, grad_w_q, …)."),
    ),
]
SelfAttnTargetOption = Annotated[
    str | None,
    Option(
        "--target",
        help=_("A target output for ℓ = ½‖output − target‖²: the same."),
    ),
]
ShowOption = Annotated[
    str | None,
    Option(
        "--show",
        metavar=_("PARTS"),
        help=_("Also show the matrices: x, w, q, k, v, shapes (comma-separated) or all."),
    ),
]
KvCacheOption = Annotated[
    bool,
    Option(
        "--kv-cache",
        help=_(
            "With --causal: replay the sentence token by token as generation does, each "
            "token's q, k, v, the cached keys and values, one new row of scores, weights and "
            "output; the multiplications the cache saves and its size; --token T adds the "
            "whole cache T's step reads. E.g. attn selfattn 'las llaves del coche están ahí' "
            "--causal --kv-cache --token están"
        ),
    ),
]
TilesOption = Annotated[
    str | None,
    Option(
        "--tiles",
        metavar="BQ,BK",
        help=_(
            "FlashAttention's tiles: one query row (--token) through the keys BK at a time, "
            "its running max, sum and output rescaled at each block; the numbers held "
            "against the T × T grid. E.g. --causal --tiles 2,2 --token están"
        ),
    ),
]
HeadsSumOption = Annotated[
    bool,
    Option(
        "--heads-sum",
        help=_(
            "With --heads N: each head's Q_h K_hᵀ, their sum held against the one-head grid "
            "Q Kᵀ of the same W (equal but for float64's last digit), and one row's weights "
            "both ways (--token T): the scores add up, the softmax does not. E.g. attn "
            "selfattn 'el tren va lleno' --heads 2 --heads-sum"
        ),
    ),
]
PlotOption = Annotated[
    str | None,
    Option(
        "--plot",
        metavar=_("FILE"),
        writes=True,
        help=_("Also draw the weight grid to FILE (.png, .svg or .pdf); needs attncli[plot]."),
    ),
]


@command(
    outputs=STEPS,
)
def selfattn(
    sentence: SentenceArgument = None,
    input_path: SelfAttnInputOption = None,
    weights: WeightsOption = None,
    prefix: PrefixOption = None,
    layer_settings: SelfAttnSettings = DEFAULT_LAYER,  # its options: attncli.layer
    head: HeadOption = None,
    model: ModelOption = None,
    layer: LayerOption = None,
    words: WordsOption = False,
    item: ItemOption = None,
    grad_output: SelfAttnGradOutputOption = None,
    target: SelfAttnTargetOption = None,
    show: ShowOption = None,
    plot: PlotOption = None,
    kv_cache: KvCacheOption = False,
    tiles: TilesOption = None,
    compare: CompareOption = None,
    heads_sum: HeadsSumOption = False,
    *,
    output: Output,
) -> None:
    """Self-attention over a sentence: who looks at whom.

    Each token gets a seeded embedding (a row of X, the same on every machine); three
    projections give Q = X W^Q, K = X W^K, V = X W^V; the T × T weight grid is
    softmax(Q K^T / √d_k) row by row (row = who asks, column = who answers); the
    outputs are the weight grid times V. The parameter count does not depend on T.

    Example: attn selfattn "las llaves del coche están ahí" --steps --token están

    Rotary positions, as Llama's: attn selfattn "las llaves del coche están ahí"
    --positions rope --steps --token están

    Grouped-query heads (2 key/value heads read by 4 query heads):
    attn selfattn "las llaves del coche están ahí" --heads 4 --kv-heads 2

    A layer saved from torch: attn selfattn -i samples/mha_x.npy --weights
    samples/mha.safetensors --heads 2

    A real model (English: no Spanish model is to be had offline):
    attn selfattn "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2
    --layer 4 --head 2

    Two sentences, the same layer: attn selfattn "la llave del coche está ahí" --compare
    "las llaves del coche están ahí"
    """
    from dataclasses import replace

    from attncli.api.refusals import given_names
    from attncli.cli.commands.model_runs import refuse_model_picks
    from attncli.present.output import parse_show

    output = replace(output, show=parse_show(show))
    # the seeded layer's own inputs: none goes with a model's layer, nor with two sentences
    own = {"--input": input_path, "--weights": weights, "--prefix": prefix,
           "--grad-output": grad_output, "--target": target, "--item": item}  # fmt: skip
    seeded = options_given(layer_settings)
    if compare is not None:
        from attncli.cli.commands.compared import compare_selfattn

        one_run = {**own, "--plot": plot, "--kv-cache": kv_cache, "--tiles": tiles,
                   "--heads-sum": heads_sum}  # fmt: skip
        compare_selfattn(sentence, compare, layer_settings, model, layer, head, words, one_run,
                         seeded, output)  # fmt: skip
        return
    if model is not None:
        own_given = given_names({**own, "--heads-sum": heads_sum})
        _model_layer(sentence, model, layer, head, words, own_given, seeded, kv_cache, tiles,
                     plot, output)  # fmt: skip
        return
    refuse_model_picks(layer, words)
    _refuse_replays(layer_settings, kv_cache, tiles, heads_sum)
    every_grid = heads_sum or kv_cache or tiles is not None  # the replays and sums read them
    result = _seeded_layer(sentence, input_path, weights, prefix, grad_output, target,
                           layer_settings, every_grid, plot, output)  # fmt: skip
    _emit_layer(result, item, 1 if head is None else head, kv_cache, tiles, heads_sum, plot,
                output)  # fmt: skip


def _refuse_replays(
    settings: SelfAttnSettings, kv_cache: bool, tiles: str | None, heads_sum: bool
) -> None:
    """--kv-cache, --tiles and --heads-sum replay the plain layer: refused, before anything
    is computed, with QK-norm, a rotary scaling, a softcap or sinks."""
    from attncli.reading.check.scoring import refuse_replay

    replays = {"--kv-cache": kv_cache, "--tiles": tiles is not None, "--heads-sum": heads_sum}
    for option, given in replays.items():
        if given:
            refuse_replay(settings, option)


def _model_layer(
    sentence: str | None,
    model: str,
    layer: int | None,
    head: int | None,
    words: bool,
    own: list[str],
    seeded: list[str],
    kv_cache: bool,
    tiles: str | None,
    plot: str | None,
    output: Output,
) -> None:
    """--model M: a pretrained model's layer, or with --kv-cache or --tiles that layer
    replayed as inference computes it; the seeded layer's own inputs and settings refused."""
    from attncli.cli.commands.model_runs import (
        refuse_merged_words,
        refuse_seeded,
        run_model_selfattn,
        sentence_given,
    )

    if not kv_cache and tiles is None:
        run_model_selfattn(sentence, model, layer, head, words, own + seeded, plot, output)
        return
    from attncli.api.model import model_selfattn

    refuse_seeded(seeded + own)
    refuse_merged_words(words, "--kv-cache" if kv_cache else "--tiles")
    result = model_selfattn(sentence_given(sentence), model, layer=layer)
    _at_inference(result, kv_cache, tiles, 1 if head is None else head, plot, output)


def _seeded_layer(
    sentence: str | None,
    input_path: str | None,
    weights: str | None,
    prefix: str | None,
    grad_output: str | None,
    target: str | None,
    layer_settings: SelfAttnSettings,
    every_grid: bool,
    plot: str | None,
    output: Output,
) -> "SelfAttnResult":
    """The layer's inputs read (the sentence, or -i FILE or piped stdin; --weights,
    --grad-output, --target) and the layer computed, with its progress on a long input."""
    from dataclasses import replace

    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import grids_needed
    from attncli.present.layer.progress import layer_progress
    from attncli.reading.parse.layer_inputs import LayerInputs
    from attncli.reading.parse.sources import document_from

    given_sentence = sentence is not None and input_path is None
    upstream = {"grad_output": grad_output, "target": target}
    # Without a sentence, piped stdin is the input, as for the other commands.
    needs = () if given_sentence else ("x",)
    document = document_from(
        None if given_sentence else input_path, None, upstream, needs, output.lang
    )
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    options = replace(  # --heads-sum reads every head's grid, whatever --fields keeps
        layer_settings,
        grids=every_grid or grids_needed(output.fields, plot, grad_output or target),
    )
    from_file = _layer(weights, prefix)
    in_input = "" if weights is not None else prefix or ""  # --prefix of the -i document
    with layer_progress(output.lang) as on_rows:
        inputs = LayerInputs.from_document(document)
        return selfattn_inputs(inputs, sentence, options, from_file, on_rows, in_input)


def _emit_layer(
    result: "SelfAttnResult",
    item: int | None,
    head: int,
    kv_cache: bool,
    tiles: str | None,
    heads_sum: bool,
    plot: str | None,
    output: Output,
) -> None:
    """The layer's result (a batch's --item), its --steps and --plot; or the view asked
    instead: --heads-sum, --kv-cache, --tiles."""
    from attncli.present.output import emit

    shown = result if item is None else result.item(item)
    if heads_sum:
        _heads_sum(shown, kv_cache, tiles, plot, output)
        return
    if tiles is None and not kv_cache:  # --tiles and --kv-cache show the row --token names
        refuse_unexplained_row(output)
    if kv_cache or tiles is not None:
        _at_inference(shown, kv_cache, tiles, head, plot, output)
        return
    explanation = shown.steps(output.row, output.token, head) if output.steps else []
    if plot is not None:
        from attncli.present.plot import plot_result

        plot_result(plot, shown, output.format())
    emit(shown, output, explanation, document=result.to_document())


def _layer(weights: str | None, prefix: str | None) -> "LayerFields | None":
    """The layer's weights from --weights FILE (one layer of a checkpoint by --prefix);
    without --weights, --prefix picks the layer of the -i document."""
    if weights is None:
        return None
    from attncli.reading.models.state_dicts import weights_file

    return weights_file(weights, prefix or "")


def _at_inference(
    result: "SelfAttnResult",
    kv_cache: bool,
    tiles: str | None,
    head: int,
    plot: str | None,
    output: Output,
) -> None:
    """--kv-cache and --tiles: the layer just computed, replayed as inference computes it."""
    from attncli.present.output import emit

    refuse_beside({"--tiles": tiles} if kv_cache else {}, "--kv-cache",
                  _("they are two views of the layer; give one"))  # fmt: skip
    refuse_beside({"--plot": plot}, "--kv-cache" if kv_cache else "--tiles",
                  _("{option} draws the weight grid; leave it out"))  # fmt: skip
    if kv_cache:
        from attncli.api.inference import kv_cache as ledger_of

        emit(ledger_of(result, head, output.row, output.token), output)
        return
    from attncli.api.inference import parse_tiles
    from attncli.api.inference import tiles as tiled

    tile_q, tile_k = parse_tiles(tiles or "")
    emit(tiled(result, tile_q, tile_k, output.row, output.token, head), output)


def _heads_sum(
    result: "SelfAttnResult",
    kv_cache: bool,
    tiles: str | None,
    plot: str | None,
    output: Output,
) -> None:
    """--heads-sum: the heads' products added up against one head of the same W."""
    from attncli.api.heads_sum import heads_sum
    from attncli.present.output import emit

    others = {"--kv-cache": kv_cache, "--tiles": tiles is not None, "--plot": plot is not None,
              "--steps": output.steps}  # fmt: skip
    refuse_beside(others, "--heads-sum", _("the sum is a view of its own; leave out {option}"))
    emit(heads_sum(result, output.row, output.token), output)
