"""The `attn` command: reads options, calls parse → compute → explain → render, prints.

Heavy modules (numpy, rich) are imported inside the commands, so that `--help`
and a JSON answer start as fast as they can. Our errors become one line on
stderr and a non-zero exit here, in AttnGroup, and nowhere else.
"""

import os
import sys
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from attncli.errors import AttnError

if TYPE_CHECKING:
    from attncli.explain import Step
    from attncli.present.output import Settings
    from attncli.present.render import Format

INTERNAL_ERROR_EXIT = 70  # EX_SOFTWARE: a bug in attn, not in the input


class AttnGroup(TyperGroup):
    """Runs a subcommand and turns any error into one line on stderr and an exit code."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # Kept so that an error can be told in the language the command line asked for.
        ctx.meta["attn.arguments"] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except AttnError as error:
            _report(error.message(_language(ctx)))
            ctx.exit(error.exit_code)
        except BrokenPipeError:
            # The reader (head, less) went away; nothing left to say to it.
            sys.stderr.close()
            ctx.exit(1)
        except typer.TyperException as error:
            # Click's usage errors (a bad option value, an unknown command): one line too.
            from attncli.present.language import usage_error

            failed = getattr(error, "ctx", None) or ctx
            message = error.format_message()  # type: ignore[attr-defined]
            _report(usage_error(_language(ctx), message, failed.command_path))
            ctx.exit(getattr(error, "exit_code", 2))
        except (typer.Exit, typer.Abort):
            raise
        except Exception as error:
            if _debugging():
                raise
            _report(
                f"internal error: {type(error).__name__}: {error} "
                "(this is a bug in attn; rerun with ATTN_DEBUG=1 for the traceback)"
            )
            ctx.exit(INTERNAL_ERROR_EXIT)


def _language(ctx: Any) -> str:
    """The language of the command line: its --lang, else the environment's."""
    from attncli.present.language import LANGUAGES, resolve

    arguments = ctx.meta.get("attn.arguments", [])
    option = None
    for index, argument in enumerate(arguments):
        if argument == "--lang" and index + 1 < len(arguments):
            option = arguments[index + 1]
        elif argument.startswith("--lang="):
            option = argument.split("=", 1)[1]
    try:
        return resolve(option if option in LANGUAGES else None, os.environ)
    except AttnError:
        return "en"


class NumbersCommand(TyperCommand):
    """A command whose arguments are numbers, some of them negative.

    Click would read '-inf' as '-i nf' and '-1e3' might collide with a short option,
    so an argument that is a number is marked as positional before parsing; the
    leading space is harmless to float().
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, [_positional_if_number(arg) for arg in args])


def _positional_if_number(arg: str) -> str:
    if not arg.startswith("-"):
        return arg
    try:
        float(arg)
    except ValueError:
        return arg
    return " " + arg


def _debugging() -> bool:
    return os.environ.get("ATTN_DEBUG", "") not in ("", "0")


def _report(message: str) -> None:
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, highlight=False, soft_wrap=True).print(Text(f"attn: error: {message}"))


app = typer.Typer(
    cls=AttnGroup,
    help=(
        "A calculator for attention, the step at the heart of a transformer: "
        "scores, softmax, the weighted mix and self-attention, with every step shown.\n\n"
        "Example: attn score -i samples/tren.json | attn softmax | attn mix"
    ),
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


class Language(str, Enum):
    en = "en"
    es = "es"


class ScoreMethod(str, Enum):
    dot = "dot"
    scaled = "scaled"
    general = "general"
    additive = "additive"


InputOption = Annotated[
    str | None,
    typer.Option(
        "--input",
        "-i",
        metavar="FILE",
        help="JSON document to read ('-' for stdin). Without it, piped stdin is read.",
    ),
]
FormatOption = Annotated[
    OutputFormat | None,
    typer.Option(
        "--format", "-f", help="table or json. Default: table on a terminal, JSON when piped."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Shorthand for --format json.")]
StepsOption = Annotated[
    bool, typer.Option("--steps", "-s", help="Lay out the computation as a hand-worked table.")
]
DigitsOption = Annotated[
    int | None,
    typer.Option(
        "--digits",
        min=0,
        max=15,
        help="Decimals in tables (default: weights 3, other numbers 2).",
    ),
]
RowOption = Annotated[
    int | None, typer.Option("--row", help="With --steps on a grid: explain row N (1 = first).")
]
LangOption = Annotated[
    Language | None,
    typer.Option(
        "--lang", help="en or es. Default: ATTN_LANG, else es when the locale is es_*, else en."
    ),
]
BlankOption = Annotated[
    bool,
    typer.Option(
        "--blank", help="A worksheet: --steps with the cells a student computes left empty."
    ),
]
AnswersOption = Annotated[
    bool, typer.Option("--answers", help="With --blank: print the filled key after it.")
]
ExportOption = Annotated[
    str | None,
    typer.Option(
        "--export",
        metavar="FILE",
        help="Also write what the terminal shows to FILE: .svg, .html, .txt, .md or .tex.",
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option("--token", help="With --steps on a grid: explain the row of this token."),
]
TokensOption = Annotated[
    str | None,
    typer.Option("--tokens", help="Token names for the keys, e.g. tren,va,lleno."),
]
QueryOption = Annotated[
    str | None, typer.Option("--query", "-q", help="One query vector, e.g. 1,0.")
]
QueriesOption = Annotated[
    str | None,
    typer.Option("--queries", help="Several queries, a row each: '[[0,1],[1,1]]' or '0,1;1,1'."),
]
KeysOption = Annotated[
    str | None, typer.Option("--keys", "-k", help="Keys, a row per token: '[[2,1],[0,2],[1,1]]'.")
]
ValuesOption = Annotated[
    str | None,
    typer.Option("--values", "-v", help="Values, a row per token: '[[10,0],[0,10],[5,5]]'."),
]
WeightsOption = Annotated[
    str | None,
    typer.Option(
        "--weights", "-w", help="Weights, one per value row (or a grid): 0.665,0.090,0.245."
    ),
]
ScoresOption = Annotated[
    str | None, typer.Option("--scores", help="Scores as one option: '2,0,1' or a grid '2,0;1,1'.")
]


def _document(
    path: str | None,
    bare_field: str | None,
    inline: dict[str, str | None],
    required: tuple[str, ...],
) -> dict[str, Any]:
    """The input document with inline options laid over it.

    Stdin is read only when the options do not already give every required field,
    so `attn softmax 2 0 1` inside a script never swallows the script's input.
    """
    from attncli.reading.sources import load_document
    from attncli.reading.values import parse_inline, parse_tokens

    given = {name for name, text in inline.items() if text is not None}
    document = load_document(path, bare_field, read_stdin=not set(required) <= given)
    for name, text in inline.items():
        if text is None:
            continue
        if name == "tokens":
            document["tokens"] = parse_tokens(text, "--tokens")
            continue
        document[name] = parse_inline(text, name)
        # A query given inline replaces the document's queries, and the other way round.
        if name in ("query", "queries"):
            document.pop("queries" if name == "query" else "query", None)
    return document


def _settings(
    format_name: OutputFormat | None,
    json_flag: bool,
    digits: int | None = None,
    lang: Language | None = None,
    steps: bool = False,
    blank: bool = False,
    answers: bool = False,
    export: str | None = None,
) -> "Settings":
    """The output options every command shares, checked before any work is done."""
    from attncli.present.language import resolve
    from attncli.present.output import Settings

    if export is not None:
        from attncli.present.export import check_export_path

        check_export_path(export)
    chosen = "json" if json_flag else (None if format_name is None else format_name.value)
    return Settings(
        format_name=chosen,
        digits=digits,
        lang=resolve(None if lang is None else lang.value, os.environ),
        # A worksheet is a --steps layout, and its answers come after the worksheet.
        steps=steps or blank or answers,
        blank=blank or answers,
        answers=answers,
        export=export,
    )


def _emit(
    document: dict[str, Any],
    tables: "list[Callable[[Format], Any]]",
    explanation: "list[Step]",
    settings: "Settings",
    intro: "list[Callable[[Format], Any]] | None" = None,
) -> None:
    """Print the JSON document, the explanation (--steps) or the result tables.

    --steps prints the explanation wherever stdout goes (plain text off a terminal);
    with an explicit --json the steps travel inside the document instead. --export
    writes the terminal's view to a file first, so a failure leaves stdout empty.
    """
    from attncli.present.output import print_renderables, wants_json, write_json

    explicit_json = settings.format_name == "json"
    if explanation and explicit_json:
        from attncli.explain import steps_as_data

        document = {**document, "steps": steps_as_data(explanation)}
    as_json = explicit_json or (not explanation and wants_json(settings.format_name, sys.stdout))
    view = (
        _view(tables, explanation, settings, intro or []) if settings.export or not as_json else []
    )
    if settings.export:
        from attncli.present.export import export

        export(view, settings.export)
    if as_json:
        write_json(sys.stdout, document)
    else:
        print_renderables(sys.stdout, view)


def _view(
    tables: "list[Callable[[Format], Any]]",
    explanation: "list[Step]",
    settings: "Settings",
    intro: "list[Callable[[Format], Any]]",
) -> list[Any]:
    """What a terminal shows: the steps (a worksheet, then its key) or the result tables."""
    from attncli.present import render

    # Several steps in a row are a chain: each step's givens are the student's last results.
    chain = len(explanation) > 1
    fmt = render.Format.chosen(settings.digits, settings.lang, settings.blank, chain)
    if not explanation:
        return [table(fmt) for table in tables]
    if not settings.blank:
        return [render.explanation(explanation, fmt)]
    view = [render.heading(fmt.say("worksheet")), *(part(fmt) for part in intro)]
    view.append(render.explanation(explanation, fmt))
    if settings.answers:
        view += [render.heading(fmt.say("answers")), render.explanation(explanation, fmt.filled())]
    return view


@app.command()
def score(
    input_path: InputOption = None,
    query: QueryOption = None,
    queries: QueriesOption = None,
    keys: KeysOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    method: Annotated[
        ScoreMethod,
        typer.Option(
            "--method",
            "-m",
            help="dot: q·k. scaled: q·k ÷ √d_k. general (Luong): q^T W_a k. "
            "additive (Bahdanau): v_a^T tanh(W_1 q + W_2 k).",
        ),
    ] = ScoreMethod.dot,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed for W_a, W_1, W_2, v_a when the input has none.")
    ] = 0,
    d_a: Annotated[
        int | None,
        typer.Option("--d-a", min=1, help="Hidden size of the additive score (default: d_k)."),
    ] = None,
    steps: StepsOption = False,
    row: RowOption = None,
    token: TokenOption = None,
    blank: BlankOption = False,
    answers: AnswersOption = False,
    digits: DigitsOption = None,
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """Score each key against the query: how well they match.

    One query gives a row of scores; several (queries) give a grid, row = query,
    column = key. Reads a JSON document with query or queries, keys and optionally
    tokens and values (which pass through for attn mix).

    Example: attn score --query 1,0 --keys '[[2,1],[0,2],[1,1]]' --tokens tren,va,lleno --steps
    """
    from attncli.core import attention
    from attncli.reading.inputs import pick_row, score_input

    settings = _settings(format_name, json_flag, digits, lang, steps, blank, answers, export)
    document = _document(
        input_path,
        None,
        {"query": query, "queries": queries, "keys": keys, "values": values, "tokens": tokens},
        ("keys",),
    )
    parsed = score_input(document, method.value, seed, d_a)
    q, k, p = parsed.queries.matrix, parsed.keys, parsed.parameters
    grid = {
        "dot": lambda: attention.dot_scores(q, k),
        "scaled": lambda: attention.scaled_dot_scores(q, k),
        "general": lambda: attention.general_scores(q, k, p["w_a"]),
        "additive": lambda: attention.additive_scores(q, k, p["w_1"], p["w_2"], p["v_a"]),
    }[method.value]()
    rows = parsed.queries
    result = {key: value for key, value in document.items() if key not in ("weights", "output")}
    result.update(method=method.value, **p, scores=rows.shaped(grid))
    if parsed.drawn:
        result["seed"] = seed
    explanation: list[Step] = []
    if settings.steps:
        from attncli.explain import explain_scores

        index = pick_row(rows, row, token)
        explanation.append(
            explain_scores(method.value, rows.row_labels[index], q[index], k, rows.column_labels, p)
        )

    def table(fmt: "Format") -> Any:
        from attncli.present import render

        if rows.single:
            labelled = [[value] for value in grid[0]]
            return render.vector_rows(
                fmt.say("scores"), rows.column_labels, labelled, fmt, fmt.say("score")
            )
        return render.number_grid(
            fmt.say("scores_grid"), rows.row_labels, rows.column_labels, grid, fmt
        )

    def parameters(fmt: "Format") -> Any:
        from attncli.present import render

        return render.parameter_block(
            {n: v.tolist() for n, v in p.items()}, parsed.drawn, seed, fmt
        )

    _emit(result, [table, parameters] if p else [table], explanation, settings)


@app.command(cls=NumbersCommand, context_settings={"ignore_unknown_options": True})
def softmax(
    numbers: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[SCORE]...",
            help="Scores, e.g. 2 0 1 (-inf marks a masked cell).",
            show_default=False,
        ),
    ] = None,
    input_path: InputOption = None,
    scores: ScoresOption = None,
    tokens: TokensOption = None,
    temperature: Annotated[
        float,
        typer.Option(
            "--temperature", "-t", help="Divide scores by T first: T > 1 spreads, T < 1 sharpens."
        ),
    ] = 1.0,
    steps: StepsOption = False,
    row: RowOption = None,
    token: TokenOption = None,
    blank: BlankOption = False,
    answers: AnswersOption = False,
    digits: DigitsOption = None,
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """Turn scores into weights that are positive and sum to 1, row by row.

    weight_j = e^(s_j / T) / Σ_i e^(s_i / T). Computed stably: the row's largest
    score is subtracted first, so 1000 0 -1000 gives 1 0 0, never NaN. A score of
    -inf (null in JSON) is masked: its weight is exactly 0. A row whose every
    score is masked has nothing to attend to: all its weights are 0 (and its mix
    is the zero vector).

    Example: attn softmax 2 0 1 --tokens tren,va,lleno --steps
    """
    import numpy as np

    from attncli.core import attention
    from attncli.errors import OptionError
    from attncli.reading.inputs import pick_row, softmax_input
    from attncli.reading.values import parse_number_args

    settings = _settings(format_name, json_flag, digits, lang, steps, blank, answers, export)
    if not temperature > 0 or temperature == float("inf"):
        raise OptionError(
            f"--temperature {temperature} must be a positive number (try 0.5, 1 or 2)",
            f"--temperature {temperature} debe ser un número positivo (prueba 0.5, 1 o 2)",
        )
    if numbers and scores is not None:
        raise OptionError(
            "scores given twice: as arguments and with --scores; keep one",
            "puntuaciones dadas dos veces: como argumentos y con --scores; deja una",
        )
    document = _document(input_path, "scores", {"scores": scores, "tokens": tokens}, ("scores",))
    if numbers:
        document["scores"] = parse_number_args(numbers)
    parsed = softmax_input(document)
    weights = attention.softmax(parsed.matrix, temperature)
    result = {key: value for key, value in document.items() if key != "output"}
    result.update(
        scores=parsed.shaped(parsed.matrix), temperature=temperature, weights=parsed.shaped(weights)
    )
    explanation: list[Step] = []
    if settings.steps:
        from attncli.explain import explain_softmax

        index = pick_row(parsed, row, token)
        explanation.append(
            explain_softmax(
                parsed.row_labels[index],
                parsed.matrix[index],
                weights[index],
                parsed.column_labels,
                temperature,
            )
        )

    def table(fmt: "Format") -> Any:
        from attncli.present import render

        if parsed.single:
            return render.score_weight_rows(
                fmt.say("weights"), parsed.column_labels, parsed.matrix[0], weights[0], fmt
            )
        return render.number_grid(
            fmt.say("weights_grid"),
            parsed.row_labels,
            parsed.column_labels,
            weights,
            fmt,
            heat=True,
            mask=np.isneginf(parsed.matrix),
        )

    _emit(result, [table], explanation, settings)


@app.command()
def mix(
    input_path: InputOption = None,
    weights: WeightsOption = None,
    values: ValuesOption = None,
    tokens: TokensOption = None,
    steps: StepsOption = False,
    row: RowOption = None,
    token: TokenOption = None,
    blank: BlankOption = False,
    answers: AnswersOption = False,
    digits: DigitsOption = None,
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """Mix the value vectors with the weights: output = Σ_j weight_j × value_j.

    One row of weights gives one output vector; a grid gives an output per row.

    Example: attn mix --weights 0.665,0.090,0.245 --values '[[10,0],[0,10],[5,5]]' --steps
    """
    from attncli.core import attention
    from attncli.reading.inputs import mix_input, pick_row

    settings = _settings(format_name, json_flag, digits, lang, steps, blank, answers, export)
    document = _document(
        input_path,
        None,
        {"weights": weights, "values": values, "tokens": tokens},
        ("weights", "values"),
    )
    rows, value_rows = mix_input(document)
    output = attention.mix(rows.matrix, value_rows)
    result = dict(document)
    result.update(weights=rows.shaped(rows.matrix), output=rows.shaped(output))
    explanation: list[Step] = []
    if settings.steps:
        from attncli.explain import explain_mix

        index = pick_row(rows, row, token)
        explanation.append(
            explain_mix(rows.row_labels[index], rows.matrix[index], value_rows, rows.column_labels)
        )

    def table(fmt: "Format") -> Any:
        from attncli.present import render

        return render.vector_rows(
            fmt.say("output") if rows.single else fmt.say("outputs"),
            rows.row_labels if not rows.single else [fmt.say("query")],
            output,
            fmt,
            fmt.say("sum_weight_value"),
        )

    _emit(result, [table], explanation, settings)


@app.command()
def selfattn(
    sentence: Annotated[
        str | None,
        typer.Argument(
            help="The sentence. Split on whitespace; punctuation at the start or end of a "
            "word is a token of its own (¿ dónde ?), inside a word it stays (l'eau).",
            show_default=False,
        ),
    ] = None,
    input_path: Annotated[
        str | None,
        typer.Option(
            "--input",
            "-i",
            metavar="FILE",
            help="Instead of a sentence: JSON, .npy (read as x) or .npz with x (and w_q, w_k, "
            "w_v, w_o, tokens) or with queries, keys, values.",
        ),
    ] = None,
    d_model: Annotated[
        int | None, typer.Option("--d-model", help="Numbers per token embedding. [default: 8]")
    ] = None,
    d_k: Annotated[
        int | None, typer.Option("--d-k", help="Columns of W^Q and W^K. [default: d_model]")
    ] = None,
    d_v: Annotated[
        int | None, typer.Option("--d-v", help="Columns of W^V. [default: d_model]")
    ] = None,
    norm: Annotated[
        float | None,
        typer.Option(
            "--norm",
            help="Length of every token embedding. [default: √d_model, so each number is about ±1]",
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed for the embeddings and projections.")
    ] = 0,
    no_proj: Annotated[
        bool, typer.Option("--no-proj", help="No projections: Q = K = V = X.")
    ] = False,
    no_scale: Annotated[
        bool, typer.Option("--no-scale", help="Do not divide the scores by √d_k.")
    ] = False,
    causal: Annotated[
        bool, typer.Option("--causal", help="Each position sees only itself and earlier ones.")
    ] = False,
    heads: Annotated[
        int | None,
        typer.Option(
            "--heads", help="h heads of d_model / h columns each, concatenated, then W^O."
        ),
    ] = None,
    head: Annotated[
        int, typer.Option("--head", help="With --steps and --heads: the head to explain.")
    ] = 1,
    plot: Annotated[
        str | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Also draw the weight grid to FILE (.png, .svg or .pdf); needs attncli[plot].",
        ),
    ] = None,
    steps: StepsOption = False,
    row: RowOption = None,
    token: TokenOption = None,
    blank: BlankOption = False,
    answers: AnswersOption = False,
    digits: DigitsOption = None,
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """Self-attention over a sentence: who looks at whom.

    Each token gets a seeded embedding (a row of X, the same on every machine); three
    projections give Q = X W^Q, K = X W^K, V = X W^V; the T × T weight grid is
    softmax(Q K^T / √d_k) row by row (row = who asks, column = who answers); the
    outputs are the weight grid times V. The parameter count does not depend on T.

    Example: attn selfattn "en las llaves del coche están ahí" --steps --token están
    """
    from attncli.reading.selfattn_inputs import SelfAttnSettings, selfattn_input

    settings = _settings(format_name, json_flag, digits, lang, steps, blank, answers, export)
    document = (
        {} if sentence is not None and input_path is None else _document(input_path, None, {}, ())
    )
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    options = SelfAttnSettings(d_model, d_k, d_v, norm, seed, heads, not no_proj)
    parsed = selfattn_input(document, sentence, options)
    from attncli.selfattn_command import compute, describe, explain_row, tables

    run = compute(parsed, heads, scale=not no_scale, causal=causal)
    result = describe(parsed, run, options, scale=not no_scale, causal=causal)
    explanation = (
        explain_row(parsed, run, heads, head, row, token, not no_scale) if settings.steps else []
    )
    if plot is not None:
        import numpy as np

        from attncli.present.plot import plot_weights
        from attncli.present.render import Format

        plot_weights(
            plot,
            run.weights,
            np.isneginf(run.scores),
            parsed.query_labels,
            parsed.key_labels,
            Format.chosen(digits, settings.lang),
        )
    _emit(result, tables(parsed, run, result), explanation, settings)


@app.command("compare-scores")
def compare_scores(
    tx: Annotated[int, typer.Option("--tx", help="Encoder positions T_x (the keys).")] = 60,
    ty: Annotated[int, typer.Option("--ty", help="Decoder positions T_y (the queries).")] = 60,
    d_h: Annotated[int, typer.Option("--d-h", help="Size d_h of every state.")] = 256,
    d_a: Annotated[int, typer.Option("--d-a", help="Hidden size d_a of the additive score.")] = 256,
    seed: Annotated[int, typer.Option("--seed", help="Seed for the states and parameters.")] = 0,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Timed runs per method, after a warm-up.")
    ] = 9,
    dk: Annotated[
        str, typer.Option("--dk", help="d_k values for the scaling sweep, e.g. 8,64,512.")
    ] = "8,64,512",
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """Additive (Bahdanau) against multiplicative (Luong) scoring: what each costs.

    Scores a T_y × T_x grid of seeded states four ways (additive, general, dot, scaled)
    and shows side by side the parameters, multiply-adds, tanh evaluations, the numbers
    held in the intermediate, and the measured time; checks that scoring pair by pair
    gives the same grid as the matrix form; and sweeps d_k to show why scores are
    divided by √d_k. Counts are exact; times depend on the machine.

    Example: attn compare-scores --d-a 64
    """
    from attncli.compare_command import Sizes, check_sizes, compare, describe, parse_dks, tables
    from attncli.present.output import is_terminal

    settings = _settings(format_name, json_flag, lang=lang, export=export)
    sizes = Sizes(tx, ty, d_h, d_a, seed, repeat, parse_dks(dk))
    check_sizes(sizes)
    if is_terminal(sys.stderr):
        from rich.console import Console

        from attncli.present.language import say

        def show(stage: str) -> None:
            key, method = stage.split(":")
            status.update(say(settings.lang, key, method=method) + "…")

        with Console(stderr=True).status("…") as status:
            comparison = compare(sizes, show)
    else:
        comparison = compare(sizes)
    document = describe(comparison)
    _emit(document, tables(comparison, document), [], settings)


@app.command()
def exercise(
    seed: Annotated[
        int, typer.Option("--seed", help="Which problem: each seed gives another.")
    ] = 0,
    tokens: Annotated[int, typer.Option("--tokens", help="How many tokens (keys and values).")] = 3,
    dim: Annotated[int, typer.Option("--dim", help="Numbers per vector.")] = 2,
    answers: AnswersOption = False,
    digits: DigitsOption = None,
    lang: LangOption = None,
    format_name: FormatOption = None,
    json_flag: JsonOption = False,
    export: ExportOption = None,
) -> None:
    """A fresh problem to work by hand: score, softmax and mix, with empty cells to fill.

    Small whole numbers, as in the course: a query of 0s and 1s, keys from 0 to 2,
    values in steps of 5. --answers prints the filled key after the worksheet. With
    --json it writes the problem (and with --answers the results), so a student can
    check the work: attn exercise --json | attn score | attn softmax | attn mix

    Example: attn exercise --seed 7 --lang es --answers
    """
    import numpy as np

    from attncli.core import attention
    from attncli.core.exercise import make_exercise
    from attncli.explain import explain_mix, explain_scores, explain_softmax

    settings = _settings(format_name, json_flag, digits, lang, True, True, answers, export)
    document = make_exercise(seed, tokens, dim)
    query = np.array(document["query"], dtype=float)
    keys = np.array(document["keys"], dtype=float)
    values = np.array(document["values"], dtype=float)
    scores = attention.dot_scores(query[None, :], keys)[0]
    weights = attention.softmax(scores)
    output = attention.mix(weights, values)
    labels = document["tokens"]
    explanation: list[Step] = [
        explain_scores("dot", "query", query, keys, labels, {}),
        explain_softmax("query", scores, weights, labels, 1.0),
        explain_mix("query", weights, values, labels),
    ]
    if answers:
        document.update(scores=scores, weights=weights, output=output)
    elif settings.format_name == "json":
        explanation = []  # the steps would give the answers away

    def intro(fmt: "Format") -> Any:
        from attncli.present import render

        return render.lines(
            fmt.say("exercise_intro", query=f"({fmt.vector(query.tolist())})", count=len(labels)),
            "",
        )

    _emit(document, [intro], explanation, settings, intro=[intro])


def _command_name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def app_for(arguments: list[str]) -> typer.Typer:
    """The app to run: when the first argument names a command, an app holding only it.

    Typer builds every command's options before running one; building just the one
    asked for saves a tenth of the start-up. Help, errors and output are the same.
    """
    names = {_command_name(info): info for info in app.registered_commands}
    if not arguments or arguments[0] not in names:
        return app
    single = typer.Typer(
        cls=AttnGroup,
        context_settings=app.info.context_settings,
        pretty_exceptions_enable=False,
        add_completion=False,
        rich_markup_mode=None,
    )
    # With one command and no callback Typer would run the command without its name.
    single.callback(help=app.info.help)(_group)
    single.registered_commands = [names[arguments[0]]]
    return single


def _show_version(value: bool) -> None:
    if value:
        from attncli import __version__

        typer.echo(f"attn {__version__}")
        raise typer.Exit()


def _group(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """A calculator for attention (see attn --help)."""


app.callback()(_group)
