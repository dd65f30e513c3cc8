"""The commands of `attn`: a module each, holding the command's function and the options
only it takes, each declared with its English and Spanish help (attncli.cli.declare).

A command's module is imported only when that command runs (or when the whole app is
built, for --help and completion): HOMES says where each one lives.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from attncli.cli.declare import Command, Declared, declared
from attncli.cli.options import OUTPUT_OPTIONS, output_names

if TYPE_CHECKING:
    from attncli.present.output import Output

# A command taking a parameter of this name takes the layer's settings (attncli.layer).
LAYER_SETTINGS = "layer_settings"

# command name -> its module in attncli.cli.commands, in the order --help lists them
HOMES = {
    "score": "calculator",
    "softmax": "calculator",
    "mix": "calculator",
    "grad": "calculator",
    "selfattn": "selfattn",
    "heads": "heads",
    "rollout": "rollout",
    "predict": "predict",
    "train": "train",
    "scaling": "scaling",
    "cost": "cost",
    "compare-scores": "compare",
    "exercise": "exercise",
    "check": "check",
    "samples": "samples",
    "explore": "explore",
}

COMMANDS: dict[str, Command] = {}  # filled as each command's module is imported


def command(
    name: str | None = None,
    *,
    outputs: tuple[str, ...] = (),
    numbers: bool = False,
    shared: bool = True,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a function as the command `name` (default: the function's name), its help
    the docstring (the msgid its translations are found by), taking the output options of
    `outputs` (see options.output_names) as `output`; without `shared`, those alone and
    not the ones every command writing a result has (--format, --json, --fields, --export)."""

    def register(function: Callable[..., None]) -> Callable[..., None]:
        chosen = name or function.__name__
        taken = output_names(*outputs) if shared else outputs
        COMMANDS[chosen] = Command(chosen, function, taken, numbers)
        return function

    return register


def find(name: str) -> Command | None:
    """The command `name`, importing only its module; None when there is no such command."""
    if name not in HOMES:
        return None
    import_module(f"attncli.cli.commands.{HOMES[name]}")
    return COMMANDS[name]


def every_command() -> dict[str, Command]:
    """Every command, in the order --help lists them."""
    return {name: command for name in HOMES if (command := find(name)) is not None}


@cache
def _signature(function: Callable[..., Any]) -> inspect.Signature:
    """A command function's signature, read once: a line reads it to check its files,
    and again to call the command."""
    return inspect.signature(function)


def parameters(command: Command) -> list[Declared]:
    """Every parameter of a command as its command line gives it: the function's own, in
    order, the layer's settings in the place of a `layer_settings` parameter (from their
    declaration, attncli.layer), then its output options."""
    own: list[Declared] = []
    for parameter in _signature(command.function).parameters.values():
        if parameter.name == LAYER_SETTINGS:
            from attncli.cli.commands.layer_options import LAYER_OPTIONS

            own += [
                declared(option.annotation, name, option.default)
                for name, option in LAYER_OPTIONS.items()
            ]
        elif parameter.name != "output":
            own.append(declared(parameter.annotation, parameter.name, parameter.default))
    outputs = [
        declared(OUTPUT_OPTIONS[name][0], name, OUTPUT_OPTIONS[name][1]) for name in command.outputs
    ]
    return own + outputs


def call(command: Command, output: Output, values: dict[str, Any]) -> None:
    """Run `command` on the values its command line gave (by Python name), its output
    options gathered as `output` and, if it takes them, the layer's settings as one
    SelfAttnSettings."""
    _check_files_apart(command, output, values)
    if LAYER_SETTINGS in _signature(command.function).parameters:
        from attncli.cli.commands.layer_options import LAYER_OPTIONS, layer_settings_from

        given = {name: values.pop(name) for name in LAYER_OPTIONS if name in values}
        values[LAYER_SETTINGS] = layer_settings_from(given)
    command.function(output=output, **values)


def _check_files_apart(command: Command, output: Output, values: dict[str, Any]) -> None:
    """Refuse a command line whose output would land on a file it reads, or on another of
    its outputs (--save corpus.txt beside --corpus corpus.txt, --plot g.svg --save g.svg),
    before anything is read or computed."""
    from attncli.errors import OptionError
    from attncli.messages import _

    given = {**values, "export": output.export}
    files: list[tuple[str, str, bool]] = []  # (option, path, written)
    for parameter in parameters(command):
        declaration, path = parameter.declaration, given.get(parameter.name)
        if (
            not isinstance(path, str)
            or path == "-"
            or not (declaration.reads or declaration.writes)
        ):
            continue
        if declaration.writes:
            from attncli.present.written import check_writable

            check_writable(path, declaration.names[0])
        files.append((declaration.names[0], path, declaration.writes))
    from attncli.present.written import same_file

    for index, (option, path, written) in enumerate(files):
        if not written:
            continue
        for other, other_path, _other_written in files[:index] + files[index + 1 :]:
            if same_file(path, other_path):
                raise OptionError(
                    _(
                        "{option} {path} is also {other}: attn would write over it; name "
                        "another file"
                    ),
                    option=option,
                    path=path,
                    other=other,
                )
