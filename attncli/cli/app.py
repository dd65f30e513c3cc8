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

from attncli.cli.commands import COMMANDS, parameters
from attncli.cli.declare import Command, Declared, declared
from attncli.cli.fastpath import language_of, split_lang
from attncli.cli.group import AttnGroup, NumbersCommand, app_for
from attncli.cli.options import LangOption, VersionOption, settings_from

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
    add_completion=True,
    rich_markup_mode=None,
)


def typer_callback(command: Command) -> Callable[..., None]:
    """The function Typer builds `command` from: the command's own parameters and its
    output options, declared for Typer; it calls the command with the output options
    gathered as one Settings."""

    @functools.wraps(command.function)
    def callback(attn_context: typer.Context, **arguments: Any) -> None:
        chosen = {name: arguments.pop(name) for name in command.outputs}
        settings = settings_from(**chosen, meta=attn_context.meta)
        command.function(settings=settings, **arguments)

    # Typer passes the Click context to a parameter annotated typer.Context.
    return _read_by_typer(callback, "attn_context", parameters(command))


def _read_by_typer(
    function: Callable[..., None], context: str, declared: list[Declared]
) -> Callable[..., None]:
    """`function`, showing Typer a signature of the Click context (named `context`) and
    the `declared` parameters, with Typer's declarations in place of attncli.cli.declare's."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    signature = [inspect.Parameter(context, keyword, annotation=typer.Context)]
    signature += [
        inspect.Parameter(
            parameter.name,
            keyword,
            default=parameter.default,
            annotation=Annotated[parameter.written, parameter.declaration.to_typer()],
        )
        for parameter in declared
    ]
    function.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    function.__annotations__ = {parameter.name: parameter.annotation for parameter in signature}
    return function


for _command in COMMANDS.values():
    app.command(
        _command.name,
        cls=NumbersCommand if _command.numbers else None,
        context_settings={"ignore_unknown_options": True} if _command.numbers else None,
    )(typer_callback(_command))


def _group(ctx: typer.Context, version: bool = False, lang: Any = None) -> None:
    """A calculator for attention (see attn --help)."""
    if lang is not None:  # before the command's name: the command speaks it too
        ctx.meta["attn.group_lang"] = lang.value


app.callback()(
    _read_by_typer(
        _group,
        "ctx",
        [declared(VersionOption, "version", False), declared(LangOption, "lang", None)],
    )
)


def run(arguments: list[str]) -> None:
    """Run `attn` with `arguments`, building only the command they name; alone, the help.
    In Spanish (--lang es, ATTN_LANG=es or an es_* locale) the help is Spanish too."""
    if not split_lang(arguments)[1]:  # attn, or attn --lang es: the help
        arguments = [*arguments, "--help"]
    if {"-h", "--help"} & set(arguments) and language_of(arguments) == "es":
        from attncli.cli.help_es import to_spanish

        to_spanish(app)
    app_for(app, arguments)(args=arguments, prog_name="attn")
