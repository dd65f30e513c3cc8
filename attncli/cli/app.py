"""The `attn` command as a Typer app, built from the commands of attncli.cli.commands. Typer
adds --help (in English or Spanish), completion and --version, and reads every command
line that attncli.cli.fastpath leaves to it. Nothing here computes a number.

Errors become one line on stderr in attncli.cli.group, through attncli.cli.reporting.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from attncli.cli.click_words import speak
from attncli.cli.commands import call, every_command, parameters
from attncli.cli.declare import Argument, Command, Declared, declared
from attncli.cli.fastpath import language_of, split_lang
from attncli.cli.group import app_for
from attncli.cli.options import LangOption, VersionOption, output_from
from attncli.cli.reporting import outcome
from attncli.messages import _, in_decimals, translate
from attncli.reading.parse.arguments import read_decimal


def typer_callback(command: Command, lang: str = "en") -> Callable[..., None]:
    """The function Typer builds `command` from: the command's own parameters and its
    output options, declared for Typer; it calls the command with the output options
    gathered as one Settings."""

    @functools.wraps(command.function)
    def callback(attn_context: typer.Context, **arguments: Any) -> None:
        chosen = {name: arguments.pop(name) for name in command.outputs}
        output = output_from(**chosen, meta=attn_context.meta)
        for parameter in numbers:  # 0.5, or 0,5 in Spanish, read as the fast path reads it
            if isinstance(arguments.get(parameter.name), str):
                option = parameter.declaration.names[0]
                default = parameter.default
                # as typed, with no thousands mark: --rope-base 10000, --temperature 1
                example = f"{default:g}" if isinstance(default, float) and default > 0 else "0.5"
                arguments[parameter.name] = read_decimal(
                    arguments[parameter.name],
                    option,
                    output.lang,
                    in_decimals(example, output.lang),
                )
        call(command, output, arguments)

    numbers = [parameter for parameter in parameters(command) if _one_number(parameter)]

    # Typer passes the Click context to a parameter annotated typer.Context.
    return _read_by_typer(callback, "attn_context", parameters(command), lang)


def _one_number(parameter: Declared) -> bool:
    """An option of one number: Typer hands it over as text, read in the command's language
    (reading.parse.arguments.read_decimal: 0,5 in Spanish)."""
    return parameter.kind is float and not isinstance(parameter.declaration, Argument)


def _typer_annotation(parameter: Declared, lang: str) -> Any:
    if not _one_number(parameter):
        extra = {"click_type": _whole_number(parameter)} if parameter.kind is int else {}
        return Annotated[parameter.written, parameter.declaration.to_typer(lang, **extra)]
    metavar = parameter.declaration.settings.get("metavar", _("FLOAT"))
    extra = {} if "metavar" in parameter.declaration.settings else {"metavar": metavar}
    return Annotated[str | None, parameter.declaration.to_typer(lang, **extra)]


def _whole_number(parameter: Declared) -> Any:
    """A whole number within the parameter's limits (declare.Declared.limits), as Click
    reads one; the largest that numpy holds, when it is not a declared max, left out of
    --help's [x>=1] but told in a refusal, as a declared range is."""
    from typer._click import types

    limits = parameter.limits
    implicit = "max" not in parameter.declaration.settings

    class WholeNumber(types.IntRange):
        name = "int" if implicit and limits.get("min") is None else "int range"

        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            number = types.INT.convert(value, param, ctx)
            if (self.min is not None and number < self.min) or number > self.max:
                full = types.IntRange(self.min, self.max)._describe_range()
                # Click's own words, which attn says in the command's language
                self.fail(f"{number} is not in the range {full}.", param, ctx)
            return number

        def _describe_range(self) -> str:
            if implicit:
                return types.IntRange(self.min)._describe_range() if self.min is not None else ""
            return str(super()._describe_range())

    return WholeNumber(limits.get("min"), limits["max"])


def _typer_default(parameter: Declared, lang: str) -> Any:
    """A number's default as the help writes it: 1.0, or 1,0 in Spanish."""
    if _one_number(parameter) and isinstance(parameter.default, float):
        return in_decimals(repr(parameter.default), lang)
    return parameter.default


def _read_by_typer(
    function: Callable[..., None], context: str, declared: list[Declared], lang: str
) -> Callable[..., None]:
    """`function`, showing Typer a signature of the Click context (named `context`) and
    the `declared` parameters, with Typer's declarations (their help in `lang`) in place of
    attncli.cli.declare's."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    signature = [inspect.Parameter(context, keyword, annotation=typer.Context)]
    signature += [
        inspect.Parameter(
            parameter.name,
            keyword,
            default=_typer_default(parameter, lang),
            annotation=_typer_annotation(parameter, lang),
        )
        for parameter in declared
    ]
    function.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    function.__annotations__ = {parameter.name: parameter.annotation for parameter in signature}
    return function


APP_HELP = _(
    "A calculator for attention, the step at the heart of a transformer: "
    "scores, softmax, the weighted mix and self-attention, with every step shown.\n\n"
    "Example: attn score -i samples/tren.json | attn softmax | attn mix"
)


def _group(ctx: typer.Context, version: bool = False, lang: Any = None) -> None:
    """A calculator for attention (see attn --help)."""
    if lang is not None:  # before the command's name: the command speaks it too
        ctx.meta["attn.group_lang"] = lang.value


def build_app(lang: str = "en") -> typer.Typer:
    """The Typer app of every command, its help in `lang` (Click's own words too, through
    attncli.cli.click_words)."""
    from attncli.cli.click_words import command_classes

    group_class, command_class, numbers_class = command_classes(lang)
    app = typer.Typer(
        cls=group_class,
        help=translate(APP_HELP, lang),
        context_settings={"help_option_names": ["-h", "--help"]},
        pretty_exceptions_enable=False,
        no_args_is_help=True,
        add_completion=True,
        rich_markup_mode=None,
    )
    for command in every_command().values():
        app.command(
            command.name,
            help=command.help_in(lang),
            cls=numbers_class if command.numbers else command_class,
            context_settings={"ignore_unknown_options": True} if command.numbers else None,
        )(typer_callback(command, lang))
    group_options = [declared(VersionOption, "version", False), declared(LangOption, "lang", None)]
    app.callback()(_read_by_typer(_group, "ctx", group_options, lang))
    return app


app = build_app()


def run(arguments: list[str]) -> None:
    """Run `attn` with `arguments`, building only the command they name; alone, the help.
    In Spanish (--lang es, ATTN_LANG=es or an es_* locale) the help is Spanish too."""
    if not split_lang(arguments)[1]:  # attn, or attn --lang es: the help
        arguments = [*arguments, "--help"]
    asks_help = bool({"-h", "--help"} & set(arguments))
    lang = language_of(arguments)
    speak(lang)  # Click's own words (usage errors too) in the language asked for
    chosen = build_app(lang) if asks_help and lang != "en" else app
    # Click's own writes (--help, --version) told as a command's are: a full disk is one
    # line, a closed pipe is silent.
    status = outcome(lambda: app_for(chosen, arguments)(args=arguments, prog_name="attn"),
                     lambda: lang)  # fmt: skip
    raise SystemExit(status)
