"""The Click side of `attn`: one place where errors become a line on stderr and an exit
status, numbers that look like options, and building only the command asked for."""

import os
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from attncli.errors import AttnError, ExitStatus


class AttnGroup(TyperGroup):
    """Runs a subcommand and turns any error into one line on stderr and an exit code."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # Kept so that an error can be told in the language the command line asked for.
        ctx.meta["attn.arguments"] = list(args)
        return super().parse_args(ctx, args)

    def make_context(
        self, info_name: Any, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        # A usage error before any command runs (attn --nope): one line too.
        try:
            return super().make_context(info_name, args, parent, **extra)
        except typer.TyperException as error:
            ctx = typer.Context(self, info_name=info_name)
            ctx.meta["attn.arguments"] = list(args)
            sys.exit(_report_usage(ctx, error, info_name or "attn"))

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except AttnError as error:
            _report(error.message(_language(ctx)))
            ctx.exit(int(error.exit_code))
        except BrokenPipeError:
            # The reader (head, less) went away: nothing left to say to it, but the output
            # was cut, so not a success (128 + SIGPIPE, as a shell reports it).
            _silence_stdout()
            ctx.exit(int(ExitStatus.BROKEN_PIPE))
        except OSError as error:
            if getattr(error, "filename", None) is not None:
                raise  # a file we were reading; our own readers already say what went wrong
            _silence_stdout()
            reason = (error.strerror or str(error)).lower()
            _report(f"cannot write output: {reason}")
            ctx.exit(int(ExitStatus.OUTPUT_ERROR))
        except typer.TyperException as error:
            # Click's usage errors (a bad option value, an unknown command): one line too.
            failed = getattr(error, "ctx", None) or ctx
            ctx.exit(_report_usage(ctx, error, failed.command_path))
        except (typer.Exit, typer.Abort):
            raise
        except Exception as error:
            if _debugging():
                raise
            _report(
                f"internal error: {type(error).__name__}: {error} "
                "(this is a bug in attn; rerun with ATTN_DEBUG=1 for the traceback)"
            )
            ctx.exit(int(ExitStatus.INTERNAL_ERROR))


def _language(ctx: Any) -> str:
    """The language of the command line: the command's own choice once its options were
    read; before that (a usage error) its --lang, else the environment's."""
    if "attn.lang" in ctx.meta:  # ctx.meta is shared with the subcommand's context
        return str(ctx.meta["attn.lang"])
    return language_of(ctx.meta.get("attn.arguments", []))


def split_lang(arguments: list[str]) -> tuple[str | None, list[str]]:
    """A command line's last --lang value (--lang es or --lang=es), and the other arguments."""
    option, rest, index = None, [], 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--lang" and index + 1 < len(arguments):
            option, index = arguments[index + 1], index + 2
            continue
        if argument.startswith("--lang="):
            option = argument.split("=", 1)[1]
        else:
            rest.append(argument)
        index += 1
    return option, rest


def language_of(arguments: list[str]) -> str:
    """The language a command line asks for before Typer has read it (for a usage error,
    or for --help): its last --lang, else ATTN_LANG or the locale."""
    from attncli.present.language import LANGUAGES, resolve

    option, _ = split_lang(arguments)
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


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _report(message: str) -> None:
    """The one line on stderr, written as is: no terminal width (COLUMNS=0) can lose it."""
    from attncli.present.language import printable

    sys.stderr.write(f"attn: error: {printable(message)}\n")
    sys.stderr.flush()


def _report_usage(ctx: Any, error: Exception, command_path: str) -> int:
    """One of Click's usage errors as our one line, in the command line's language;
    returns the exit status to end with."""
    from attncli.present.language import usage_error

    message = error.format_message()  # type: ignore[attr-defined]
    _report(usage_error(_language(ctx), message, command_path))
    return int(getattr(error, "exit_code", 2))


def _command_name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def app_for(app: typer.Typer, arguments: list[str]) -> typer.Typer:
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
    group_callback = app.registered_callback.callback if app.registered_callback else None
    assert group_callback is not None
    single.callback(help=app.info.help)(group_callback)
    single.registered_commands = [names[arguments[0]]]
    return single
