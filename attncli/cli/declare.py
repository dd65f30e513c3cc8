"""How a command declares its options and arguments, without importing Typer.

A command's parameters are `Annotated[type, Option(...)]` as with Typer, but Option and
Argument here only hold what was declared. Two readers share each declaration:
cli/app.py turns it into typer.Option/typer.Argument when Typer builds the command (for
--help in either language, completion and every unusual command line), and fastpath.py reads a plain
command line by it without importing Typer at all, which is a fifth of the start-up.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from enum import Enum
from types import NoneType, UnionType
from typing import Any

from attncli.messages import translate


class Parameter:
    """What a command line gives a parameter: its names, its help (an English msgid, said
    in the language asked for) and its limits, as typer.Option takes them."""

    typer_kind = ""

    def __init__(self, *names: str, **settings: Any) -> None:
        self.names = names
        # an English msgid, or a function of the language for a help made of several (the
        # score methods' own summaries, from their registry)
        self.help: str | Callable[[str], str] | None = settings.pop("help", None)
        # A file the command reads, or one it writes: no output may land on another file of
        # the same command line (cli/commands.call checks, before anything runs).
        self.reads: bool = settings.pop("reads", False)
        self.writes: bool = settings.pop("writes", False)
        self.settings = settings  # metavar, min, max, hidden, …: typer.Option's keywords

    def help_in(self, lang: str) -> str | None:
        """The help text in `lang`."""
        if callable(self.help):
            return self.help(lang)
        return None if self.help is None else translate(self.help, lang)

    def to_typer(self, lang: str = "en", **extra: Any) -> Any:
        """The typer.Option or typer.Argument this declares, its help and its placeholder
        (FILE, FICHERO) in `lang`."""
        import typer

        settings = {**self.settings, **extra}
        if "metavar" in settings:
            settings["metavar"] = translate(settings["metavar"], lang)
        make = getattr(typer, self.typer_kind)
        return make(*self.names, help=self.help_in(lang), **settings)


class Option(Parameter):
    """An option: `--name value`, `-n value` or, for a bool, a flag."""

    typer_kind = "Option"


class Argument(Parameter):
    """A positional argument."""

    typer_kind = "Argument"


class Declared:
    """One parameter of a command as a command line reads it: the Python name it is passed
    as, the declaration, the type as written (int | None), the value's type without
    Optional, and the default.

    A plain class, not a dataclass: building a dataclass costs a run half a millisecond.
    """

    __slots__ = ("name", "declaration", "written", "kind", "default")

    def __init__(
        self, name: str, declaration: Parameter, written: Any, kind: Any, default: Any
    ) -> None:
        self.name = name
        self.declaration = declaration
        self.written = written
        self.kind = kind  # int, float, str, bool, an Enum class or list[str]
        self.default = default

    @property
    def takes_value(self) -> bool:
        return self.kind is not bool

    @property
    def limits(self) -> dict[str, Any]:
        """Its declared min and max; a whole number's max, when none is declared, the most
        numpy's int64 holds (--window 10^20 is refused by the command line's own range, not
        by numpy in the middle of the work)."""
        from attncli.errors import LARGEST_WHOLE

        settings = self.declaration.settings
        limits: dict[str, Any] = {
            name: settings[name] for name in ("min", "max") if name in settings
        }
        if self.kind is int and "max" not in limits:
            limits["max"] = LARGEST_WHOLE
        return limits


def declared(annotation: Any, name: str, default: Any) -> Declared:
    """The Declared parameter of `name: Annotated[type, Option(...)] = default`."""
    written, declaration = typing.get_args(annotation)[:2]
    kind = written
    if isinstance(kind, UnionType):  # int | None: the value's type is int
        kind = next(part for part in typing.get_args(kind) if part is not NoneType)
    return Declared(name, declaration, written, kind, default)


class Command:
    """A command of `attn`: its name, its function (plain parameters and `output`, the output
    options; its docstring is the help, an English msgid), the output options it takes
    (options.output_names) and whether its arguments are numbers that may be negative."""

    __slots__ = ("name", "function", "outputs", "numbers")

    def __init__(
        self,
        name: str,
        function: Callable[..., None],
        outputs: tuple[str, ...],
        numbers: bool = False,
    ) -> None:
        self.name = name
        self.function = function
        self.outputs = outputs
        self.numbers = numbers

    def help_in(self, lang: str) -> str:
        """The command's help in `lang`."""
        import inspect

        return translate(inspect.getdoc(self.function) or "", lang)


_NEGATIVE_COMMA_DECIMAL = re.compile(r"-\d*,\d+")


def positional_if_number(argument: str) -> str:
    """A number argument marked as positional, so that '-inf' is not read as '-i nf' nor
    '-1e3' taken for a short option; the leading space is harmless to float()."""
    if not argument.startswith("-"):
        return argument
    try:
        float(argument)
    except ValueError:
        if not _NEGATIVE_COMMA_DECIMAL.fullmatch(argument):  # -0,5 in Spanish
            return argument
    return " " + argument


def is_enum(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Enum)


class DeclaredOption:
    """One command-line parameter made from a declared setting (settings.setting): its
    annotation and default as a command declares them, the field it sets and, for a flag,
    the value it sets it to."""

    __slots__ = ("annotation", "default", "field", "is_flag", "flag_value")

    def __init__(
        self, annotation: Any, default: Any, field: str, is_flag: bool, flag_value: Any = None
    ) -> None:
        self.annotation, self.default, self.field = annotation, default, field
        self.is_flag, self.flag_value = is_flag, flag_value

    @property
    def spelled(self) -> str:
        return str(self.annotation.__metadata__[0].names[0])  # --heads, --no-scale


def declared_options(
    declared: type, retyped: dict[str, tuple[Any, Any]]
) -> dict[str, DeclaredOption]:
    """Every command-line parameter of a dataclass of declared settings, by the Python name
    it is passed as: an option per field that takes a value (of the field's type and
    default, or of `retyped`'s (type, default) where the command line reads a text or a
    choice the field's value is made from), and a flag per value a flag sets."""
    from dataclasses import fields

    hints = typing.get_type_hints(declared)
    made: dict[str, DeclaredOption] = {}
    for field in fields(declared):
        meta = field.metadata
        if meta.get("option"):
            kind, default = retyped.get(field.name, (hints[field.name], field.default))
            option = Option(meta["option"], help=meta["help"], **meta["limits"])
            made[field.name] = DeclaredOption(
                typing.Annotated[kind, option], default, field.name, is_flag=False
            )
        for flag, value, help_text in meta.get("flags", ()):
            name = flag.removeprefix("--").replace("-", "_")
            annotation = typing.Annotated[bool, Option(flag, help=help_text)]
            made[name] = DeclaredOption(annotation, False, field.name, True, value)
    return made


def chosen(
    options: dict[str, DeclaredOption], given: dict[str, Any], opposite: str
) -> dict[str, Any]:
    """The fields a command line sets, from the values of `options` (by name): a flag its
    value, an option its own (an Enum's choice as its value); two parameters setting one
    field (--scale S and --no-scale) refused with the `opposite` msgid."""
    from attncli.errors import OptionError

    values: dict[str, Any] = {}
    said: dict[str, str] = {}  # field -> the parameter that set it
    for name, option in options.items():
        value = given.get(name, option.default)
        if value is None or value == option.default:
            continue
        if option.is_flag:
            value = option.flag_value
        elif hasattr(value, "value"):  # an Enum's choice
            value = value.value
        if option.field in said:
            raise OptionError(opposite, first=said[option.field], second=option.spelled)
        values[option.field], said[option.field] = value, option.spelled
    return values
