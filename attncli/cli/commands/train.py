"""attn train: gradient descent on the layer's W^Q and W^K, and the options only it takes."""

from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

from attncli.cli.commands import command
from attncli.cli.commands.layer_options import (
    CausalOption,
    DKOption,
    DModelOption,
    EmbeddingSeedOption,
    NoProjOption,
    NoScaleOption,
    PositionsOption,
)
from attncli.cli.commands.selfattn import SentenceArgument
from attncli.cli.declare import Option
from attncli.messages import _
from attncli.present.output import Output
from attncli.present.written import STANDARD_OUTPUT

if TYPE_CHECKING:
    from attncli.reading.parse.wants import Sentence


class OptimizerName(str, Enum):
    sgd = "sgd"
    adam = "adam"


TrainHeadsOption = Annotated[
    int | None,
    Option(
        "--heads",
        help=_(
            "h heads (of d_model / h columns each unless --d-k), joined, then W^O; the loss "
            "is summed over the heads."
        ),
        metavar="H",
        min=1,
    ),
]
WantOption = Annotated[
    list[str] | None,
    Option(
        "--want",
        metavar=_("QUERY=KEY"),
        help=_(
            "A cell to teach: the token that should look, = the token it should find "
            "(repeatable; a position number when a token appears twice)."
        ),
    ),
]
CorpusOption = Annotated[
    str | None,
    Option(
        "--corpus",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "Train one set of W's on every line of FILE ('-' for stdin): a sentence, | and "
            "its wants (los coches de la casa están ahí | están=coches)."
        ),
    ),
]
TestOption = Annotated[
    str | None,
    Option(
        "--test",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "Sentences not trained on, in --corpus's form: is each wanted key the row's "
            "largest weight after training? Reports the accuracy."
        ),
    ),
]
IterationsOption = Annotated[
    int,
    Option(
        "--iterations",
        "-n",
        min=0,
        help=_("Updates of W^Q and W^K."),  # Click adds [default: 300; x>=0]
    ),
]
LrOption = Annotated[
    float,
    Option(
        "--lr",
        help=_("The step of each update: W ← W − lr·∇W."),  # Click adds [default: 0.1]
    ),
]
OptimizerOption = Annotated[
    OptimizerName,
    Option(
        "--optimizer",
        help=_(
            "sgd (the default: the lesson's W − lr·∇W, which --steps works by hand, and a "
            "loss that falls at every step) or adam (every entry moves by about lr, whatever "
            "the gradient's size)."
        ),
    ),
]
AtOption = Annotated[
    int | None,
    Option(
        "--at",
        metavar="K",
        min=1,
        help=_("With --steps: the iteration to work by hand. [default: 1]"),
    ),
]
LossPlotOption = Annotated[
    str | None,
    Option(
        "--plot",
        metavar=_("FILE"),
        writes=True,
        help=_(
            "Also draw the loss and the wanted weights, iteration by iteration, to FILE "
            "(.png, .svg or .pdf); needs attncli[plot]."
        ),
    ),
]
SaveOption = Annotated[
    str | None,
    Option(
        "--save",
        metavar=_("FILE"),
        writes=True,
        help=_(
            "Also write the trained layer's JSON document to FILE (attn selfattn -i FILE "
            "reads it); on Ctrl-C, the state so far."
        ),
    ),
]


@command(
    outputs=("steps", "digits"),  # one iteration, no row to pick, no worksheet,
)
def train(
    sentence: SentenceArgument = None,
    want: WantOption = None,
    corpus: CorpusOption = None,
    test: TestOption = None,
    iterations: IterationsOption = 300,
    lr: LrOption = 0.1,
    optimizer: OptimizerOption = OptimizerName.sgd,
    seed: EmbeddingSeedOption = 0,
    d_model: DModelOption = None,
    d_k: DKOption = None,
    heads: TrainHeadsOption = None,
    causal: CausalOption = False,
    no_scale: NoScaleOption = False,
    no_proj: NoProjOption = False,
    positions: PositionsOption = None,
    at: AtOption = None,
    plot: LossPlotOption = None,
    save: SaveOption = None,
    *,
    output: Output,
) -> None:
    """Train W^Q and W^K so that a query finds its key.

    Starts from the same seeded matrices as attn selfattn and descends the gradient of
    ℓ = −Σ log α(query, key) over the wanted cells, through the layer's own backward
    pass. W^V and W^O get no gradient from a loss on the weights. Shows the wanted
    weights before → after, the loss curve and the grids; piped, a JSON document that
    attn selfattn -i reads. Without projections there is nothing to learn.

    Learning a rule, not a sentence: train on a corpus, test on sentences it has not seen:
    attn train --corpus concordancia-entreno --test concordancia-orden --d-model 32
    --positions sinusoidal

    One sentence, which the layer memorises (its row goes one-hot):
    attn train "las llaves del coche están ahí" --want están=llaves
    """
    _run(
        sentence=sentence,
        want=want or [],
        corpus=corpus,
        test=test,
        iterations=iterations,
        lr=lr,
        optimizer=optimizer.value,
        seed=seed,
        d_model=d_model,
        d_k=d_k,
        heads=heads,
        causal=causal,
        scale=not no_scale,
        projections=not no_proj,
        positions=None if positions is None else positions.value,
        at=at,
        plot=plot,
        save=save,
        output=output,
    )


def _run(*, corpus: str | None, test: str | None, at: int | None, plot: str | None,
         save: str | None, output: Output, **options: Any) -> None:  # fmt: skip
    """Read the files, train (a progress bar on a terminal's stderr; Ctrl-C stops after
    the last whole update), then write the result, the plot and the saved document."""
    import signal

    from attncli.api.refusals import refuse_beside, refuse_without
    from attncli.api.training import train as train_layer
    from attncli.present.output import emit

    refuse_without({f"--at {at}": at is not None}, "--steps", output.steps,
                   _("picks the iteration --steps works by hand"))  # fmt: skip
    refuse_beside({"--iterations 0": output.steps and options.get("iterations") == 0},
                  "--steps", _("it runs none, and --steps works an iteration by hand; give 1 or "
                               "more"))  # fmt: skip
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    sentences = None if corpus is None else _sentences(corpus, "--corpus")
    tested = None if test is None else _sentences(test, "--test")
    from attncli.present.training.progress import training_progress

    # Ctrl-C during training ends the loop after its last whole update (attn's own
    # handler ends the process at once, which is right everywhere else).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # Ctrl-C before the loop or after it keeps nothing: it ends the run silently with 130,
    # as every command ends (cli/reporting.outcome)
    try:
        with training_progress(output.lang, options["iterations"]) as on_step:
            result = train_layer(corpus=sentences, test=tested, on_step=on_step, **options)
    finally:
        signal.signal(signal.SIGINT, previous)
    if result.stopped == "interrupted":
        _interrupted(result, save, output)
    explanation: list[Any] = result.steps(at) if output.steps else []
    if plot is not None:
        from attncli.present.training.plot import plot_training

        plot_training(plot, result, output.format())
    if save is not None:
        _save(save, result.to_document())
    if save != STANDARD_OUTPUT:  # --save - made the document the command's output
        emit(result, output, explanation)


def _sentences(path: str, option: str) -> "list[Sentence]":
    """The sentences of a corpus file given to `option`; '-' reads them from standard input."""
    import sys

    from attncli.reading.parse.sources import read_text
    from attncli.reading.parse.wants import parse_corpus

    text, source = read_text(path, sys.stdin, option)
    return parse_corpus(text, source)


def _save(path: str, document: dict[str, Any]) -> None:
    import io

    from attncli.present.output import write_json
    from attncli.present.written import write_file

    text = io.StringIO()
    write_json(text, document)
    write_file(path, text.getvalue(), "--save")


def _interrupted(result: Any, save: str | None, output: Output) -> None:
    """Ctrl-C: the state so far to --save and, when the output is JSON, to stdout; then
    one line on stderr saying where the run stopped, and exit 130."""
    import sys

    from attncli.errors import Interrupted
    from attncli.present.language import PHRASES
    from attncli.present.output import selected, wants_json, write_json

    document = result.to_document()
    if save is not None:
        _save(save, document)
    as_json = save != STANDARD_OUTPUT and (
        output.fields is not None or wants_json(output.format_name, sys.stdout)
    )
    if as_json:
        write_json(sys.stdout, selected(document, output.fields))
    kept = save if save is not None else ("stdout" if as_json else None)
    said = PHRASES["train_interrupted_kept" if kept else "train_interrupted"]
    raise Interrupted(said, done=result.done, total=result.iterations, path=kept)
