"""The Click side of `attn`: its errors told as one line (through attncli.cli.reporting),
numbers that look like options, and building only the command asked for."""

import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from attncli.cli.declare import positional_if_number
from attncli.cli.fastpath import error_language
from attncli.cli.reporting import outcome, report


class AttnGroup(TyperGroup):
    """Runs a subcommand and turns any error into one line on stderr and an exit code."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from attncli.cli.usage import keeping_values

        # Kept so that an error can be told in the language the command line asked for.
        ctx.meta["attn.arguments"] = list(args)
        keeping_values(self.get_params(ctx))
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from typer._click.exceptions import NoSuchOption, UsageError

        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            if isinstance(error, NoSuchOption) or not args:
                raise
            from attncli.cli.usage import unknown_command

            raise unknown_command(args[0], sorted(self.commands), ctx) from None

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

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands, each with the first sentence of its help whole: wrapped under
        itself on a narrow terminal, never cut short with '...' as Click does."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=WHOLE_SENTENCE)))
        if rows:
            # Typer's own word, through gettext's global domain as Typer says it
            # (attncli/cli/click_words.py binds that domain to attn's catalogs).
            from gettext import gettext as typer_word

            with formatter.section(typer_word("Commands")):
                formatter.write_dl(rows)

    def invoke(self, ctx: Any) -> Any:
        if not getattr(ctx, "_protected_args", None) and not self.invoke_without_command:
            from attncli.cli.usage import missing_command  # attn --lang es: no command

            ctx.exit(_report_usage(ctx, missing_command(ctx), ctx.command_path))
        run = super().invoke
        try:
            status = outcome(
                lambda: run(ctx),
                lambda: _language(ctx),
                passthrough=(typer.TyperException, typer.Exit, typer.Abort),
            )
        except typer.TyperException as error:
            # Click's usage errors (a bad option value, an unknown command): one line too.
            failed = getattr(error, "ctx", None) or ctx
            ctx.exit(_report_usage(ctx, error, failed.command_path))
        if status:
            ctx.exit(status)


WHOLE_SENTENCE = 1000  # characters: more than any command's first sentence


def _language(ctx: Any) -> str:
    # ctx.meta is shared with the subcommand's context, where the command's options are read.
    return error_language(ctx.meta, ctx.meta.get("attn.arguments", []))


class AttnCommand(TyperCommand):
    """A command whose usage errors hold what they are about (attncli.cli.usage): the
    value a type could not read, the arguments left over."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from attncli.cli.usage import extra_arguments, keeping_values

        keeping_values(self.get_params(ctx))
        allowed = ctx.allow_extra_args
        ctx.allow_extra_args = True  # told below, with the arguments as fields
        try:
            rest = super().parse_args(ctx, args)
        finally:
            ctx.allow_extra_args = allowed
        if rest and not allowed and not ctx.resilient_parsing:
            raise extra_arguments(rest, ctx)
        return rest


class NumbersCommand(AttnCommand):
    """A command whose arguments are numbers, some of them negative (see
    declare.positional_if_number)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, [positional_if_number(arg) for arg in args])


def _report_usage(ctx: Any, error: Exception, command_path: str) -> int:
    """One of Click's usage errors as our one line, in the command line's language;
    returns the exit status to end with."""
    from attncli.cli.usage import pieces
    from attncli.present.language import usage_error

    arguments = ctx.meta.get("attn.arguments", [])
    report(usage_error(_language(ctx), pieces(error, arguments), command_path))
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
