"""The options `attn` commands share, and the output options, which a command is given as
one Output value (output_from) instead of ten parameters."""

import os
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any

from attncli.cli.declare import Option
from attncli.core.methods import METHODS, NAMES
from attncli.messages import _, languages, translate
from attncli.present.output import Output
from attncli.reading.inputs import (
    GRAD_OUTPUT,
    HIDDEN_SIZE,
    KEYS,
    QUERIES,
    QUERY,
    SCORES,
    SEED_RANGE,
    TARGET,
    TOKENS,
    VALUES,
    WEIGHTS,
    Field,
)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


class Theme(str, Enum):
    light = "light"
    dark = "dark"


# --lang's choices: English and every language with a catalog (a new one is one .po file).
Language = Enum("Language", {code: code for code in languages()}, type=str)  # type: ignore[misc]


# --method's choices: every score in the registry (core.methods; a new one is one object).
ScoreMethod = Enum("ScoreMethod", {name: name for name in NAMES}, type=str)  # type: ignore[misc]


def methods_help(default: str) -> Callable[[str], str]:
    """--method's help in a language: each method's name and formula, as the registry says
    them, then `default` (a msgid: which method a command takes unless told)."""

    def said(lang: str) -> str:
        return " ".join([*(translate(m.summary, lang) for m in METHODS.values()),
                         translate(default, lang)])  # fmt: skip

    return said


ScoreSeedOption = Annotated[
    int | None,
    Option(
        "--seed",
        min=SEED_RANGE.least,
        max=SEED_RANGE.most,
        help=_(
            "Seed for W_a, W_1, W_2, v_a when the input has none. [default: the input's "
            "seed, else 0]"
        ),
        show_default=False,
    ),
]
AdditiveSizeOption = Annotated[
    int | None,
    Option(
        "--d-a",
        min=HIDDEN_SIZE.least,
        help=_("Hidden size of the additive score (default: d_k)."),
    ),
]
InputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar=_("FILE"),
        reads=True,
        help=_("JSON document to read ('-' for stdin). Without it, piped stdin is read."),
    ),
]
FormatOption = Annotated[
    OutputFormat | None,
    Option(
        "--format",
        "-f",
        help=_("table or json. Default: table on a terminal, JSON when piped."),
    ),
]
JsonOption = Annotated[bool, Option("--json", help=_("Shorthand for --format json."))]
StepsOption = Annotated[
    bool,
    Option(
        "--steps",
        "-s",
        help=_("Lay out the computation as a hand-worked table."),
    ),
]
DigitsOption = Annotated[
    int | None,
    Option(
        "--digits",
        min=0,
        max=15,
        help=_("Decimals in tables (default: weights 3, other numbers 2)."),
    ),
]
RowOption = Annotated[
    int | None,
    Option(
        "--row",
        help=_("With --steps on a grid: explain row N (1 = first)."),
    ),
]
LangOption = Annotated[
    Language | None,
    Option(
        "--lang",
        help=_(
            "The language, one of those listed (a catalog each). Default: ATTN_LANG, else the "
            "locale's (es_ES.UTF-8: es) when attn speaks it, else en."
        ),
    ),
]
BlankOption = Annotated[
    bool,
    Option(
        "--blank",
        help=_("A worksheet: --steps with the cells a student computes left empty."),
    ),
]
AnswersOption = Annotated[
    bool,
    Option(
        "--answers",
        help=_("A worksheet followed by its filled key, to print apart or check against."),
    ),
]
ExportOption = Annotated[
    str | None,
    Option(
        "--export",
        metavar=_("FILE"),
        writes=True,
        help=_(
            "Also write what the terminal shows to FILE: .svg, .html, .png, .txt, .md or .tex "
            "(an exercise also as .xlsx, its cells computing)."
        ),
    ),
]
ThemeOption = Annotated[
    Theme | None,
    Option(
        "--theme",
        help=_("The page of an .svg or .html export: light to print (default) or dark."),
    ),
]
TexFragmentOption = Annotated[
    bool,
    Option(
        "--tex-fragment",
        help=_("A .tex export as a fragment to paste into one's own document (needs amsmath)."),
    ),
]
TokenOption = Annotated[
    str | None,
    Option(
        "--token",
        help=_("With --steps on a grid: explain the row of this token."),
    ),
]


def field_option(declared: Field) -> Option:
    """A declared input's option (reading/inputs.py): its spelling, its short flag and its
    help, as the declaration gives them; its text read by the command as the field."""
    names = (declared.option, declared.short) if declared.short else (declared.option,)
    return Option(*names, help=declared.help)


TokensOption = Annotated[str | None, field_option(TOKENS)]
QueryOption = Annotated[str | None, field_option(QUERY)]
QueriesOption = Annotated[str | None, field_option(QUERIES)]
KeysOption = Annotated[str | None, field_option(KEYS)]
ValuesOption = Annotated[str | None, field_option(VALUES)]
WeightsOption = Annotated[str | None, field_option(WEIGHTS)]
ScoresOption = Annotated[str | None, field_option(SCORES)]
GradOutputOption = Annotated[str | None, field_option(GRAD_OUTPUT)]
TargetOption = Annotated[str | None, field_option(TARGET)]


# attn selfattn and attn train: the layer's X with the words' order in it (--positions)
class PositionsKind(str, Enum):
    sinusoidal = "sinusoidal"
    rope = "rope"


# The output options, in the order --help lists them, as (annotation, default).
FieldsOption = Annotated[
    str | None,
    Option(
        "--fields",
        metavar=_("NAMES"),
        help=_("Write only these fields of the JSON document, e.g. weights,output."),
    ),
]
OUTPUT_OPTIONS: dict[str, tuple[Any, Any]] = {
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
    "theme": (ThemeOption, None),
    "tex_fragment": (TexFragmentOption, False),
    "fields": (FieldsOption, None),
}
STEPS = ("steps", "row", "token", "blank", "answers", "digits")
ALWAYS = ("lang", "format_name", "json_flag", "fields", "export", "theme", "tex_fragment")


def output_names(*groups: str) -> tuple[str, ...]:
    """The output options of a command taking `groups` (from STEPS, or `digits` or `answers`
    alone), in the order --help lists them: its own before the ones every command has."""
    return tuple(name for name in OUTPUT_OPTIONS if name in groups or name in ALWAYS)


def output_from(
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
    theme: "Theme | None" = None,
    tex_fragment: bool = False,
    fields: str | None = None,
    meta: dict[str, Any] | None = None,
) -> Output:
    """The output options as one Settings, checked before any work is done.

    `meta` is what the command line shares between its parts (Click's ctx.meta): the
    language given before the command's name is read from it, the language chosen is
    written to it, so that an error is told in that language too.
    """
    from attncli.api.refusals import first_given, refuse_beside
    from attncli.present.language import resolve
    from attncli.present.output import parse_fields

    tables = first_given({"--steps": steps, "--blank": blank, "--answers": answers})
    if format_name is not None and format_name.value == "table":
        tables = tables or "--format table"
    refuse_beside({"--fields": fields} if tables else {}, tables,
                  _("{option} picks fields of the JSON document, which a table does not show; "
                    "give one"))  # fmt: skip
    if export is not None:
        from attncli.present.export import check_export_path

        check_export_path(export)
    if theme is not None or tex_fragment:
        _refuse_unexported(export, None if theme is None else theme.value, tex_fragment)
    chosen = None if lang is None else lang.value
    if chosen is None and meta is not None:  # attn --lang es softmax …
        chosen = meta.get("attn.group_lang")
    language = resolve(chosen, os.environ)
    if meta is not None:
        meta["attn.lang"] = language
    return Output(
        format_name="json" if json_flag else (None if format_name is None else format_name.value),
        digits=digits,
        lang=language,
        # A worksheet is a --steps layout, and its answers come after the worksheet.
        steps=steps or blank or answers,
        blank=blank or answers,
        answers=answers,
        export=export,
        theme=None if theme is None else theme.value,
        tex_fragment=tex_fragment,
        row=row,
        token=token,
        fields=parse_fields(fields),
    )


def _refuse_unexported(export: str | None, theme: str | None, fragment: bool) -> None:
    """--theme colours an .svg, .html or .png export, --tex-fragment shapes a .tex one:
    either without such an export would do nothing, so it is refused."""
    from pathlib import Path

    from attncli.api.refusals import refuse_without
    from attncli.messages import Message
    from attncli.present.export import THEMED

    suffix = None if export is None else Path(export).suffix.lower()
    refuse_without({f"--theme {theme}": theme}, Message(_("--export FILE.html")),
                   suffix in THEMED, _("colours an --export to .svg or .html"))  # fmt: skip
    refuse_without({"--tex-fragment": fragment}, Message(_("--export FILE.tex")),
                   suffix == ".tex", _("shapes an --export to .tex"))  # fmt: skip


def refuse_unexplained_row(output: Output) -> None:
    """--row and --token pick the row --steps explains: without --steps they would change
    nothing on the screen, and a user who typed them expects to see that row."""
    from attncli.api.refusals import refuse_without

    refuse_without({"--row": output.row, "--token": output.token}, "--steps", output.steps,
                   _("picks the row that --steps explains"))  # fmt: skip


def _show_version(value: bool) -> None:
    if value:
        import typer

        from attncli import __version__

        typer.echo(f"attn {__version__}")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    Option(
        "--version",
        "-V",
        callback=_show_version,
        is_eager=True,
        help=_("Print the version and exit."),
    ),
]
