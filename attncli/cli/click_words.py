"""Click's and Typer's own words ("Usage:", "Show this message and exit.", "No such option")
said from attn's catalogs: the one seam where attn reaches into how its framework speaks.

Typer writes some of its words through gettext's global domain (`from gettext import
gettext as _`: "Options", "Arguments", "Commands"), in the language gettext reads from the
LANGUAGE environment variable, as every gettext program does: `speak` binds that domain to
attn's catalogs and names attn's language there, for this process and what it starts. The
copy of Click that Typer 0.28 carries (typer/_click) writes the rest in plain English; those
are said here, through the same catalog: the help screen's through the context's
HelpFormatter (Click's public `formatter_class` hook), a parameter's placeholder (<int>,
sentence) as its metavar, from what Click makes of it, a usage error from what it holds
(cli/usage.py) in present/language.usage_error. Nothing of Click or Typer is patched.
"""

from __future__ import annotations

import gettext
import os
from typing import Any

from attncli.cli.group import AttnCommand, AttnGroup, NumbersCommand
from attncli.messages import DOMAIN, LOCALE_DIR, _, translate

# Typer's completion options, whose help Typer writes without gettext.
COMPLETION_HELP = {
    "install_completion": _("Install completion for the current shell."),
    "show_completion": _(
        "Show completion for the current shell, to copy it or customize the installation."
    ),
}
OPTIONS_METAVAR = _("[OPTIONS]")
SUBCOMMAND_METAVAR = _("COMMAND [ARGS]...")
# Click's words on a help screen, as its copy in Typer writes them.
USAGE = _("Usage: ")
HELP_PHRASES = (_("Show this message and exit."), _("[required]"), _("[default: "))
# The placeholders Click writes for a value's type, and the sentence argument's name.
TERMS = (_("<str>"), _("<int>"), _("<int range>"), _("<float>"), _("sentence"))


def speak(lang: str) -> None:
    """Click and Typer say their words in `lang`, from attn's catalogs."""
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = lang


def _formatter_class(lang: str) -> type:
    import typer

    formatter: Any = typer.Context.formatter_class  # Click's HelpFormatter

    class Formatter(formatter):  # type: ignore[misc,valid-type]
        """Click's help formatter, writing Click's own words in `lang`."""

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            usage = translate(USAGE, lang) if prefix is None else prefix
            super().write_usage(prog, args, usage)

        def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
            said = [(term, _in(lang, text)) for term, text in rows]
            super().write_dl(said, col_max, col_spacing)

    return Formatter


def _placeholders_said(params: list[Any], ctx: Any, lang: str) -> list[Any]:
    """Each parameter's placeholder in `lang`, made its metavar: the one Click makes of an
    option's type (<int>, <float>, <str>…) and an argument's name (sentence), when it is
    one of TERMS; a metavar declared is the command's own, said already."""
    for param in params:
        if param.metavar is not None:
            continue
        if param.param_type_name == "argument":
            word, more = param.name or "", "..." if param.nargs != 1 else ""
        else:
            made = param.make_metavar(ctx)
            word, more = (made[:-3], "...") if made.endswith("...") else (made, "")
        if word in TERMS:
            param.metavar = translate(word, lang) + more
    return params


def _in(lang: str, text: str) -> str:
    for phrase in HELP_PHRASES:
        text = text.replace(phrase, translate(phrase, lang))
    return text


def _said(params: list[Any], lang: str) -> list[Any]:
    for param in params:
        if param.name in COMPLETION_HELP:
            param.help = translate(COMPLETION_HELP[param.name], lang)
    return params


def command_classes(lang: str) -> tuple[type, type, type]:
    """The Click classes of the group, of a command and of a numbers command, whose usage
    line and completion options are said in `lang`."""
    if lang == "en":
        return AttnGroup, AttnCommand, NumbersCommand
    import typer

    options_metavar = translate(OPTIONS_METAVAR, lang)

    class Context(typer.Context):
        formatter_class = _formatter_class(lang)

    class Group(AttnGroup):
        context_class = Context

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["options_metavar"] = options_metavar
            kwargs["subcommand_metavar"] = translate(SUBCOMMAND_METAVAR, lang)
            super().__init__(*args, **kwargs)

        def get_params(self, ctx: Any) -> list[Any]:
            return _placeholders_said(_said(super().get_params(ctx), lang), ctx, lang)

    def said(base: type) -> type:
        settings = {"options_metavar_said": options_metavar, "context_class": Context,
                    "lang_said": lang}  # fmt: skip
        return type(base.__name__, (_SaidMetavar, base), settings)

    return Group, said(AttnCommand), said(NumbersCommand)


class _SaidMetavar:
    """A command whose usage line says [OPTIONS], and its parameters their placeholders, in
    the language of its help."""

    options_metavar_said = ""
    lang_said = "en"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["options_metavar"] = self.options_metavar_said
        super().__init__(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        return _placeholders_said(params, ctx, self.lang_said)
