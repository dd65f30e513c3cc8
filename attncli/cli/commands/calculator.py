"""score, softmax, mix and grad: the calculator's commands and the options only they take."""

from typing import TYPE_CHECKING, Annotated, Any

from attncli.cli.commands import command
from attncli.cli.declare import Argument, Option
from attncli.cli.options import (
    STEPS,
    AdditiveSizeOption,
    GradOutputOption,
    InputOption,
    KeysOption,
    QueriesOption,
    QueryOption,
    ScoreMethod,
    ScoreSeedOption,
    ScoresOption,
    TargetOption,
    TokensOption,
    ValuesOption,
    WeightsOption,
    methods_help,
)
from attncli.messages import _
from attncli.present.output import Output

if TYPE_CHECKING:
    from attncli.results.base import Result

# attn score, softmax, grad
MethodOption = Annotated[
    ScoreMethod | None,
    Option(
        "--method",
        "-m",
        help=methods_help(_("[default: the input's, else dot]")),
    ),
]
ScoreArguments = Annotated[
    list[str] | None,
    Argument(
        metavar=_("[SCORE]..."),
        help=_("Scores, e.g. 2 0 1 (-inf marks a masked cell)."),
        show_default=False,
    ),
]
TemperatureOption = Annotated[
    float | None,
    Option(
        "--temperature",
        "-t",
        help=_(
            "Divide scores by T first: T > 1 spreads, T < 1 sharpens. [default: the input's "
            "temperature, else 1]"
        ),
        show_default=False,
    ),
]
OnlineOption = Annotated[
    bool,
    Option(
        "--online",
        help=_(
            "Read the scores a block at a time, as FlashAttention does: a running max m and "
            "a running sum ℓ, rescaled by e^(m_old − m_new) whenever m rises."
        ),
    ),
]
BlockOption = Annotated[
    int | None,
    Option(
        "--block",
        metavar="B",
        help=_("With --online: how many scores each block holds. [default: 2]"),
        show_default=False,
    ),
]
ChainMethodOption = Annotated[
    ScoreMethod | None,
    Option(
        "--method",
        "-m",
        help=methods_help(_("[default: the input's, else dot]")),
    ),
]
ChainTemperatureOption = Annotated[
    float | None,
    Option(
        "--temperature",
        "-t",
        help=_("Softmax temperature [default: the input's, else 1]."),
    ),
]
CheckOption = Annotated[
    bool,
    Option(
        "--check",
        help=_("Compare every gradient with finite differences."),
    ),
]


def _emit_with_steps(
    result: "Result", output: Output, checks: dict[str, float] | None = None
) -> None:
    """Emit a calculator result, with the row --steps asked for explained."""
    from attncli.cli.options import refuse_unexplained_row
    from attncli.present.output import emit

    refuse_unexplained_row(output)
    explanation = result.steps(output.row, output.token) if output.steps else []
    emit(result, output, explanation, checks=checks)


@command(
    outputs=STEPS,
)
def score(
    input_path: InputOption = None,
    query: QueryOption = None,
    queries: QueriesOption = None,
    keys: KeysOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    method: MethodOption = None,
    seed: ScoreSeedOption = None,
    d_a: AdditiveSizeOption = None,
    *,
    output: Output,
) -> None:
    """Score each key against the query: how well they match.

    One query gives a row of scores; several (queries) give a grid, row = query,
    column = key. Reads a JSON document with query or queries, keys and optionally
    tokens and values (which pass through for attn mix).

    Example: attn score --query 1,0 --keys '[[2,1],[0,2],[1,1]]' --tokens tren,va,lleno --steps
    """
    from attncli.api.calculator import score_document
    from attncli.reading.parse.arguments import decimal_commas_told
    from attncli.reading.parse.sources import document_from

    inline = {"query": query, "queries": queries, "keys": keys, "values": values, "tokens": tokens}
    chosen = None if method is None else method.value
    with decimal_commas_told(inline, output.lang):
        document = document_from(input_path, None, inline, ("keys",), output.lang)
        result = score_document(document, chosen, *_drawn_with(document, seed, d_a))
    _emit_with_steps(result, output)


@command(
    outputs=STEPS,
    numbers=True,
)
def softmax(
    numbers: ScoreArguments = None,
    input_path: InputOption = None,
    scores: ScoresOption = None,
    tokens: TokensOption = None,
    temperature: TemperatureOption = None,
    online: OnlineOption = False,
    block: BlockOption = None,
    *,
    output: Output,
) -> None:
    """Turn scores into weights that are positive and sum to 1, row by row.

    weight_j = e^(s_j / T) / Σ_i e^(s_i / T). Computed stably: the row's largest
    score is subtracted first, so 1000 0 -1000 gives 1 0 0, never NaN. A score of
    -inf (null in JSON) is masked: its weight is exactly 0. A row whose every
    score is masked has nothing to attend to: all its weights are 0 (and its mix
    is the zero vector).

    --online reads them B at a time with a running max and sum, and ends at the same
    weights: attn softmax 2 0 1 --online --block 2 --steps

    Example: attn softmax 2 0 1 --tokens tren,va,lleno --steps
    """
    from attncli.api.calculator import input_temperature, softmax_document
    from attncli.reading.parse.arguments import decimal_commas_told, scores_from_arguments
    from attncli.reading.parse.sources import document_from

    scores = scores_from_arguments(numbers or [], scores, output.lang)
    inline = {"scores": scores, "tokens": tokens}
    with decimal_commas_told(inline, output.lang):
        document = document_from(input_path, "scores", inline, ("scores",), output.lang)
        temperature = input_temperature(document, temperature)  # -t, else the input's own
        if online or block is not None:
            _emit_online(document, online, block, temperature, output)
            return
        result = softmax_document(document, temperature)
    _emit_with_steps(result, output)


def _drawn_with(document: dict[str, object], seed: int | None, d_a: int | None) -> tuple[Any, Any]:
    """--seed and --d-a, else the input's own seed and d_a (a document written by hand, or
    an exercise's), else 0 and d_k; score_input refuses any that is not a whole number."""
    return (
        document.get("seed", 0) if seed is None else seed,
        document.get("d_a") if d_a is None else d_a,
    )


def _emit_online(
    document: dict[str, object],
    online: bool,
    block: int | None,
    temperature: float,
    output: Output,
) -> None:
    """attn softmax --online: the blocks are the steps (shown with --steps)."""
    from dataclasses import replace

    from attncli.api.inference import online_softmax_document
    from attncli.api.refusals import refuse_without
    from attncli.present.output import emit

    refuse_without({"--block": True}, "--online", online, _("is the size of --online's blocks"))
    if block is None:  # a sheet of attn exercise --online says its own
        given = document.get("block")
        block = given if isinstance(given, int) and not isinstance(given, bool) else 2
    result = online_softmax_document(document, block, temperature)
    if output.row is not None or output.token is not None:  # that row's blocks alone
        from attncli.results.rows import pick_row

        picked = pick_row(result.row_labels, output.row, output.token)
        result = replace(result, shown_row=picked)
    shown = frozenset({"steps"}) if output.steps else frozenset()
    emit(result, replace(output, show=shown))


@command(
    outputs=STEPS,
)
def mix(
    input_path: InputOption = None,
    weights: WeightsOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    *,
    output: Output,
) -> None:
    """Mix the value vectors with the weights: output = Σ_j weight_j × value_j.

    One row of weights gives one output vector; a grid gives an output per row.

    Example: attn mix --weights 0.665,0.090,0.245 --values '[[10,0],[0,10],[5,5]]' --steps
    """
    from attncli.api.calculator import mix_document
    from attncli.reading.parse.arguments import decimal_commas_told
    from attncli.reading.parse.sources import document_from

    inline = {"weights": weights, "values": values, "tokens": tokens}
    with decimal_commas_told(inline, output.lang):
        document = document_from(input_path, None, inline, ("weights", "values"), output.lang)
        result = mix_document(document)
    _emit_with_steps(result, output)


@command(
    outputs=STEPS,
)
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
    seed: ScoreSeedOption = None,
    d_a: AdditiveSizeOption = None,
    temperature: ChainTemperatureOption = None,
    check: CheckOption = False,
    *,
    output: Output,
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
    from attncli.messages import Setting
    from attncli.reading.check.grad import one_upstream
    from attncli.reading.parse.arguments import decimal_commas_told
    from attncli.reading.parse.sources import document_from

    # either option replaces the input's other field; both at once are refused
    one_upstream(grad_output, target, (Setting("grad_output"), Setting("target")))
    inline = {"query": query, "queries": queries, "keys": keys, "values": values, "tokens": tokens,
              "grad_output": grad_output, "target": target}  # fmt: skip
    with decimal_commas_told(inline, output.lang):
        document = document_from(input_path, None, inline, ("keys", "values"), output.lang)
        if grad_output is not None or target is not None:
            document.pop("target" if grad_output is not None else "grad_output", None)
        result = grad_document(
            document, method and method.value, *_drawn_with(document, seed, d_a), temperature
        )
    _emit_with_steps(result, output, checks=result.check() if check else None)
