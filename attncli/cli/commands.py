"""What each `attn` command does: read its input, call one operation of attncli.api.calculator,
emit the result. Nothing here computes a number, and nothing imports Typer or rich:
cli.py builds the Typer app from these functions, fastpath.py runs them directly.

Each function's parameters are declared as the command line gives them (attncli.cli.declare);
`settings` holds the output options. Heavy modules (numpy, rich) are imported inside the
functions, so that a JSON answer starts as fast as it can.
"""

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from attncli.cli.command_options import (
    CausalOption,
    ChainMethodOption,
    ChainTemperatureOption,
    CheckOption,
    ContextOption,
    DaOption,
    DhOption,
    DimOption,
    DKOption,
    DModelOption,
    DVOption,
    EmbeddingSeedOption,
    GradOutputOption,
    HeadOption,
    HeadsOption,
    MethodOption,
    NoOutProjOption,
    NoProjOption,
    NormOption,
    NoScaleOption,
    OldSweepOption,
    PlotOption,
    ProblemSeedOption,
    RepeatOption,
    ScaleByOption,
    ScoreArguments,
    SelfAttnGradOutputOption,
    SelfAttnInputOption,
    SelfAttnTargetOption,
    SentenceArgument,
    ShowOption,
    SizeOption,
    StatesSeedOption,
    SweepOption,
    TargetOption,
    TemperatureOption,
    ThreadsOption,
    TxOption,
    TyOption,
    ValidLenOption,
)
from attncli.cli.declare import Command, Declared, declared
from attncli.cli.options import (
    OUTPUT_OPTIONS,
    STEPS,
    AdditiveSizeOption,
    InputOption,
    KeysOption,
    QueriesOption,
    QueryOption,
    ScoreMethod,
    ScoreSeedOption,
    ScoresOption,
    TokensOption,
    ValuesOption,
    WeightsOption,
    output_names,
)
from attncli.present.output import Settings

if TYPE_CHECKING:
    from attncli.results.base import Result

COMMANDS: dict[str, Command] = {}


def command(
    name: str | None = None, *, outputs: tuple[str, ...] = (), numbers: bool = False
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a function as the command `name` (default: the function's name), taking the
    output options of `outputs` (see options.output_names) as `settings`."""

    def register(function: Callable[..., None]) -> Callable[..., None]:
        chosen = name or function.__name__
        COMMANDS[chosen] = Command(chosen, function, output_names(*outputs), numbers)
        return function

    return register


def parameters(command: Command) -> list[Declared]:
    """Every parameter of a command as its command line gives it: the function's own, in
    order, then its output options."""
    own = [
        declared(parameter.annotation, parameter.name, parameter.default)
        for parameter in inspect.signature(command.function).parameters.values()
        if parameter.name != "settings"
    ]
    outputs = [
        declared(OUTPUT_OPTIONS[name][0], name, OUTPUT_OPTIONS[name][1]) for name in command.outputs
    ]
    return own + outputs


def _emit_with_steps(
    result: "Result", settings: Settings, checks: dict[str, float] | None = None
) -> None:
    """Emit a calculator result, with the row --steps asked for explained."""
    from attncli.present.output import emit

    explanation = result.steps(settings.row, settings.token) if settings.steps else []
    emit(result, settings, explanation, checks=checks)


@command(outputs=STEPS)
def score(
    input_path: InputOption = None,
    query: QueryOption = None,
    queries: QueriesOption = None,
    keys: KeysOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    method: MethodOption = ScoreMethod.dot,
    seed: ScoreSeedOption = 0,
    d_a: AdditiveSizeOption = None,
    *,
    settings: Settings,
) -> None:
    """Score each key against the query: how well they match.

    One query gives a row of scores; several (queries) give a grid, row = query,
    column = key. Reads a JSON document with query or queries, keys and optionally
    tokens and values (which pass through for attn mix).

    Example: attn score --query 1,0 --keys '[[2,1],[0,2],[1,1]]' --tokens tren,va,lleno --steps
    """
    from attncli.api.calculator import score_document
    from attncli.reading.sources import document_from

    inline = {"query": query, "queries": queries, "keys": keys, "values": values, "tokens": tokens}
    document = document_from(input_path, None, inline, ("keys",))
    _emit_with_steps(score_document(document, method.value, seed, d_a), settings)


@command(outputs=STEPS, numbers=True)
def softmax(
    numbers: ScoreArguments = None,
    input_path: InputOption = None,
    scores: ScoresOption = None,
    tokens: TokensOption = None,
    temperature: TemperatureOption = 1.0,
    *,
    settings: Settings,
) -> None:
    """Turn scores into weights that are positive and sum to 1, row by row.

    weight_j = e^(s_j / T) / Σ_i e^(s_i / T). Computed stably: the row's largest
    score is subtracted first, so 1000 0 -1000 gives 1 0 0, never NaN. A score of
    -inf (null in JSON) is masked: its weight is exactly 0. A row whose every
    score is masked has nothing to attend to: all its weights are 0 (and its mix
    is the zero vector).

    Example: attn softmax 2 0 1 --tokens tren,va,lleno --steps
    """
    from attncli.api.calculator import softmax_document
    from attncli.reading.arguments import scores_from_arguments
    from attncli.reading.sources import document_from

    scores = scores_from_arguments(numbers or [], scores)
    document = document_from(
        input_path, "scores", {"scores": scores, "tokens": tokens}, ("scores",)
    )
    _emit_with_steps(softmax_document(document, temperature), settings)


@command(outputs=STEPS)
def mix(
    input_path: InputOption = None,
    weights: WeightsOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    *,
    settings: Settings,
) -> None:
    """Mix the value vectors with the weights: output = Σ_j weight_j × value_j.

    One row of weights gives one output vector; a grid gives an output per row.

    Example: attn mix --weights 0.665,0.090,0.245 --values '[[10,0],[0,10],[5,5]]' --steps
    """
    from attncli.api.calculator import mix_document
    from attncli.reading.sources import document_from

    inline = {"weights": weights, "values": values, "tokens": tokens}
    document = document_from(input_path, None, inline, ("weights", "values"))
    _emit_with_steps(mix_document(document), settings)


@command(outputs=STEPS)
def grad(
    input_path: InputOption = None,
    query: QueryOption = None,
    queries: QueriesOption = None,
    keys: KeysOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    grad_output: GradOutputOption = None,
    target: TargetOption = None,
    method: ChainMethodOption = None,
    seed: ScoreSeedOption = 0,
    d_a: AdditiveSizeOption = None,
    temperature: ChainTemperatureOption = None,
    check: CheckOption = False,
    *,
    settings: Settings,
) -> None:
    """The backward pass: every gradient of score → softmax → mix, step by step.

    Reads what the forward chain reads (query or queries, keys, values, the score's
    parameters; piped from attn mix, its method and temperature too) and the gradient
    arriving at the output: --grad-output, or --target for ℓ = ½‖c − target‖². Writes
    grad_weights, grad_scores, grad_values, grad_query(ies), grad_keys and the score's
    parameter gradients. Null scores in the input stay masked (their gradient is 0).
    Piped: attn score -i samples/tren.json | attn softmax | attn mix | attn grad --target 8,2

    Example: attn grad -i samples/tren.json --target 8,2 --steps
    """
    from attncli.api.grad import grad_document
    from attncli.reading.sources import document_from

    inline = {"query": query, "queries": queries, "keys": keys, "values": values, "tokens": tokens,
              "grad_output": grad_output, "target": target}  # fmt: skip
    document = document_from(input_path, None, inline, ("keys", "values"))
    if grad_output is not None or target is not None:
        document.pop("target" if grad_output is not None else "grad_output", None)
    result = grad_document(document, method and method.value, seed, d_a, temperature)
    _emit_with_steps(result, settings, checks=result.check() if check else None)


@command(outputs=STEPS)
def selfattn(
    sentence: SentenceArgument = None,
    context: ContextOption = None,
    input_path: SelfAttnInputOption = None,
    d_model: DModelOption = None,
    d_k: DKOption = None,
    d_v: DVOption = None,
    norm: NormOption = None,
    seed: EmbeddingSeedOption = 0,
    no_proj: NoProjOption = False,
    no_scale: NoScaleOption = False,
    scale_by: ScaleByOption = None,
    causal: CausalOption = False,
    valid_len: ValidLenOption = None,
    heads: HeadsOption = None,
    no_out_proj: NoOutProjOption = False,
    head: HeadOption = 1,
    grad_output: SelfAttnGradOutputOption = None,
    target: SelfAttnTargetOption = None,
    show: ShowOption = None,
    plot: PlotOption = None,
    *,
    settings: Settings,
) -> None:
    """Self-attention over a sentence: who looks at whom.

    Each token gets a seeded embedding (a row of X, the same on every machine); three
    projections give Q = X W^Q, K = X W^K, V = X W^V; the T × T weight grid is
    softmax(Q K^T / √d_k) row by row (row = who asks, column = who answers); the
    outputs are the weight grid times V. The parameter count does not depend on T.

    Example: attn selfattn "en las llaves del coche están ahí" --steps --token están
    """
    from dataclasses import replace

    from attncli.api.selfattn import selfattn_document
    from attncli.present.output import emit, parse_show
    from attncli.reading.selfattn_inputs import SelfAttnSettings, grids_needed
    from attncli.reading.sources import document_from

    given_sentence = sentence is not None and input_path is None
    upstream = {"grad_output": grad_output, "target": target}
    # Without a sentence, piped stdin is the input, as for the other commands.
    needs = () if given_sentence else ("x",)
    document = document_from(None if given_sentence else input_path, None, upstream, needs)
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    settings = replace(settings, show=parse_show(show))
    grids = grids_needed(settings.fields, plot, grad_output or target)
    options = SelfAttnSettings(d_model, d_k, d_v, norm, seed, heads, not no_proj,
                               not no_out_proj, valid_len, context, grids)  # fmt: skip
    result = selfattn_document(document, sentence, options, not no_scale, causal, scale_by)
    explanation = result.steps(settings.row, settings.token, head) if settings.steps else []
    if plot is not None:
        from attncli.present.plot import plot_result

        plot_result(plot, result, settings.format())
    emit(result, settings, explanation)


@command("compare-scores")
def compare_scores(
    tx: TxOption = 60,
    ty: TyOption = 60,
    d_h: DhOption = 256,
    d_a: DaOption = 256,
    seed: StatesSeedOption = 0,
    repeat: RepeatOption = 9,
    threads: ThreadsOption = 1,
    d_k: SweepOption = "8,64,512",
    dk: OldSweepOption = None,
    *,
    settings: Settings,
) -> None:
    """Additive (Bahdanau) against multiplicative (Luong) scoring: what each costs.

    Scores a T_y × T_x grid of seeded states four ways (additive, general, dot, scaled)
    and shows side by side the parameters, multiply-adds, tanh evaluations, the numbers
    held in the intermediate, and the measured time; checks that scoring pair by pair
    gives the same grid as the matrix form; and sweeps d_k to show why scores are
    divided by √d_k. Counts are exact; times depend on the machine.

    Example: attn compare-scores --d-a 64
    """
    from attncli.api.calculator import compare_scores as compare
    from attncli.present.output import emit, progress_on_stderr
    from attncli.reading.arguments import parse_dks

    d_ks = parse_dks(d_k if dk is None else dk)
    with progress_on_stderr(settings.lang) as progress:
        result = compare(
            tx,
            ty,
            d_h,
            d_a,
            seed=seed,
            repeat=repeat,
            d_ks=d_ks,
            threads=threads,
            progress=progress,
        )
    emit(result, settings)


@command(outputs=("answers", "digits"))
def exercise(
    seed: ProblemSeedOption = 0,
    size: SizeOption = 3,
    dim: DimOption = 2,
    *,
    settings: Settings,
) -> None:
    """A fresh problem to work by hand: score, softmax and mix, with empty cells to fill.

    Small whole numbers, as in the course: a query of 0s and 1s, keys from 0 to 2,
    values in steps of 5. --answers prints the filled key after the worksheet. Piped
    or with --json it writes the problem (and with --answers the results), so a student
    can check the work: attn exercise | attn score | attn softmax | attn mix

    Example: attn exercise --seed 7 --lang es --answers
    """
    from dataclasses import replace

    from attncli.api.calculator import exercise as make
    from attncli.present.output import emit

    result = make(seed, size, dim)
    # The worksheet is what a terminal shows, not steps asked for: piped, the problem as JSON.
    settings = replace(settings, steps=False, blank=True)
    emit(result, settings, document=result.to_document(answers=settings.answers))
