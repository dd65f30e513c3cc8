"""A plain command line, read and run without Typer: most calls are tiny, and importing
Typer would be a fifth of their time.

A command line is plain when it names a command and gives only what that command
declares (attncli.cli.declare): `--name value`, `--name=value`, `-n value`, flags, and its
arguments, each value of the declared type and within its limits. Anything else (help,
completion, --version, an option before the command, an unknown option, a bad value,
`--`) is left to Typer, which reads it as it always has and tells what is wrong in one
line. So a plain command line gives the command exactly the values Typer would have given
it (tests/cli/test_fastpath.py holds the two readers to that).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from attncli.cli.declare import Argument, Declared, is_enum, positional_if_number

if TYPE_CHECKING:
    from attncli.cli.declare import Command

# Click asks for completions through this variable: Typer answers.
COMPLETION_VARIABLE = "_ATTN_COMPLETE"


class _NotPlain(Exception):
    """The command line needs Typer."""


def run_plain(arguments: list[str]) -> int | None:
    """Run `attn ARGUMENTS` when they are a plain command line and return the exit status;
    None, having done nothing, when Typer must read them."""
    if not arguments or COMPLETION_VARIABLE in os.environ:
        return None
    from attncli.cli.commands import call, find

    command = find(arguments[0])
    if command is None:
        return None
    values = read_plain(command, arguments[1:])
    if values is None:
        return None
    from attncli.cli.options import output_from
    from attncli.cli.reporting import outcome

    meta: dict[str, Any] = {}

    def run() -> None:
        chosen = {name: values.pop(name) for name in command.outputs}
        call(command, output_from(**chosen, meta=meta), values)

    return outcome(run, lambda: error_language(meta, arguments))


def read_plain(command: Command, arguments: list[str]) -> dict[str, Any] | None:
    """The value of every parameter of `command` (by its Python name) that `arguments`
    give, the others at their defaults; None when the command line is not plain."""
    from attncli.cli.commands import parameters

    declared = parameters(command)
    options = {
        name: parameter
        for parameter in declared
        if not isinstance(parameter.declaration, Argument)
        for name in parameter.declaration.names
    }
    positional = next((p for p in declared if isinstance(p.declaration, Argument)), None)
    if command.numbers:  # as group.NumbersCommand does before Click reads them
        arguments = [positional_if_number(argument) for argument in arguments]
    values = {parameter.name: parameter.default for parameter in declared}
    texts: dict[str, tuple[Declared, str]] = {}  # as Click, the last value given counts
    repeated: dict[str, list[str]] = {}  # a list option (--want a --want b) keeps them all
    given: list[str] = []
    rest = iter(arguments)
    for argument in rest:
        if argument[:1] != "-" or argument == "-":
            given.append(argument)
            continue
        name, equals, attached = argument.partition("=")
        if not argument.startswith("--"):
            name, equals = argument, ""
        parameter = options.get(name)
        if parameter is None:
            return None
        if not parameter.takes_value:
            if equals:
                return None
            values[parameter.name] = True
            continue
        text = attached if equals else next(rest, None)
        if text is None:
            return None
        if parameter.kind == list[str]:
            repeated.setdefault(parameter.name, []).append(text)
            continue
        texts[parameter.name] = (parameter, text)
    try:
        values.update({name: _converted(*given_text) for name, given_text in texts.items()})
    except _NotPlain:
        return None
    values.update(repeated)
    if positional is None:
        return None if given else values
    if positional.kind == list[str]:
        values[positional.name] = given or positional.default
    elif len(given) > 1:
        return None
    elif given:
        values[positional.name] = given[0]
    return values


def _converted(parameter: Declared, text: str) -> Any:
    """`text` as a value of the parameter's type, as Click converts it (int(), float(), an
    Enum's value exactly), within the declared min and max."""
    kind, limits = parameter.kind, parameter.limits
    try:
        if kind is int:
            value: Any = int(text)
        elif kind is float:  # 0,5 (Spanish) is read by Typer's path, in the command's language
            if "." in text and len(text.rsplit(".", 1)[1]) == 3:
                raise _NotPlain  # 1.000: a thousand in Spanish, read there too (read_decimal)
            value = float(text)
        elif kind is str:
            value = text
        elif is_enum(kind):
            value = kind(text)
        else:
            raise _NotPlain
    except ValueError:
        raise _NotPlain from None
    low, high = limits.get("min"), limits.get("max")
    if (low is not None and value < low) or (high is not None and value > high):
        raise _NotPlain
    return value


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


def error_language(meta: dict[str, Any], arguments: list[str]) -> str:
    """The language to tell an error in: the command's own once its options were read
    (options.settings_from writes it to `meta`); before that, the command line's."""
    if "attn.lang" in meta:
        return str(meta["attn.lang"])
    return language_of(arguments)


def language_of(arguments: list[str]) -> str:
    """The language a command line asks for before it is read (for a usage error, or for
    --help): its last --lang, else ATTN_LANG or the locale."""
    from attncli.errors import AttnError
    from attncli.present.language import LANGUAGES, resolve

    option, _ = split_lang(arguments)
    try:
        return resolve(option if option in LANGUAGES else None, os.environ)
    except AttnError:
        return "en"
