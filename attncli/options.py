"""The options `attn` commands share, and `output_options`, which gives a command the
output options as one Settings value instead of ten parameters."""

import functools
import inspect
import os
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any

import typer

from attncli.errors import OptionError
from attncli.present.output import Settings


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


ScoreSeedOption = Annotated[
    int,
    typer.Option(
        "--seed",
        min=0,
        max=2**64 - 1,
        help="Seed for W_a, W_1, W_2, v_a when the input has none.",
    ),
]
AdditiveSizeOption = Annotated[
    int | None,
    typer.Option("--d-a", min=1, help="Hidden size of the additive score (default: d_k)."),
]
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

# The output options, in the order --help lists them, as (annotation, default).
FieldsOption = Annotated[
    str | None,
    typer.Option(
        "--fields",
        metavar="NAMES",
        help="Write only these fields of the JSON document, e.g. weights,output.",
    ),
]
_OUTPUT_OPTIONS: dict[str, tuple[Any, Any]] = {
    "steps": (StepsOption, False),
    "row": (RowOption, None),
    "token": (TokenOption, None),
    "blank": (BlankOption, False),
    "answers": (AnswersOption, False),
    "digits": (DigitsOption, None),
    "lang": (LangOption, None),
    "format_name": (FormatOption, None),
    "json_flag": (JsonOption, False),
    "export": (ExportOption, None),
    "fields": (FieldsOption, None),
}
STEPS = ("steps", "row", "token", "blank", "answers", "digits")
ALWAYS = ("lang", "format_name", "json_flag", "fields", "export")


def output_options(*groups: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the output options to a command, and pass it `settings: Settings` instead.

    The options named in `groups` (from STEPS, plus `digits` or `answers` alone) come
    before the ones every command has (ALWAYS). The export path is checked and the
    language resolved before the command does any work.
    """
    names = [name for name in _OUTPUT_OPTIONS if name in groups or name in ALWAYS]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.name != "settings"]
        # Typer passes the Click context to a parameter annotated typer.Context.
        added = [
            inspect.Parameter(
                "attn_context", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context
            )
        ]
        added += [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=_OUTPUT_OPTIONS[name][1],
                annotation=_OUTPUT_OPTIONS[name][0],
            )
            for name in names
        ]

        @functools.wraps(command)
        def wrapper(**arguments: Any) -> Any:
            chosen = {name: arguments.pop(name) for name in names}
            context = arguments.pop("attn_context")
            return command(settings=settings_from(**chosen, context=context), **arguments)

        wrapper.__signature__ = signature.replace(parameters=own + added)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            **{k: v for k, v in command.__annotations__.items() if k != "settings"},
            "attn_context": typer.Context,
            **{name: _OUTPUT_OPTIONS[name][0] for name in names},
        }
        return wrapper

    return decorate


def settings_from(
    format_name: "OutputFormat | None" = None,
    json_flag: bool = False,
    digits: int | None = None,
    lang: "Language | None" = None,
    steps: bool = False,
    row: int | None = None,
    token: str | None = None,
    blank: bool = False,
    answers: bool = False,
    export: str | None = None,
    fields: str | None = None,
    context: typer.Context | None = None,
) -> Settings:
    """The output options as one Settings, checked before any work is done."""
    from attncli.present.language import resolve
    from attncli.present.output import parse_fields

    if fields is not None and (steps or blank or answers):
        raise OptionError(
            "--fields picks fields of the JSON document, --steps lays out tables; give one",
            "--fields elige campos del documento JSON, --steps muestra tablas; da uno",
        )
    if fields is not None and format_name is not None and format_name.value == "table":
        raise OptionError(
            "--fields picks fields of the JSON document; drop --format table",
            "--fields elige campos del documento JSON; quita --format table",
        )
    if export is not None:
        from attncli.present.export import check_export_path

        check_export_path(export)
    chosen = None if lang is None else lang.value
    if chosen is None and context is not None:  # attn --lang es softmax …
        chosen = context.meta.get("attn.group_lang")
    language = resolve(chosen, os.environ)
    if context is not None:
        context.meta["attn.lang"] = language  # so that an error is told in it too
    return Settings(
        format_name="json" if json_flag else (None if format_name is None else format_name.value),
        digits=digits,
        lang=language,
        # A worksheet is a --steps layout, and its answers come after the worksheet.
        steps=steps or blank or answers,
        blank=blank or answers,
        answers=answers,
        export=export,
        row=row,
        token=token,
        fields=parse_fields(fields),
    )


def _show_version(value: bool) -> None:
    if value:
        from attncli import __version__

        typer.echo(f"attn {__version__}")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    typer.Option(
        "--version", "-V", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
]
