"""Click's usage errors read from what they hold, never from their English text.

The copy of Click that Typer 0.28 carries (typer/_click) writes its usage errors in plain
English. attn says them in the command line's language from the error's own parts: its
class, its parameter and that parameter's type, the option it names, and the value it could
not read, which each parameter's type keeps on the error it raises (`keeping_values`).
`pieces` gives an error as (msgid, fields) pairs for present/language.usage_error to say;
an error of a shape not known here is said as Click wrote it.
"""

from __future__ import annotations

from typing import Any

from typer._click import exceptions, types
from typer._types import TyperChoice

from attncli.errors import LARGEST_WHOLE
from attncli.messages import _

INVALID_VALUE = _("Invalid value for {param}: ")
NOT_A_CHOICE = _("'{value}' is not one of {choices}.")
NOT_A_NUMBER = {
    types.IntRange: _("'{value}' is not a valid int range."),
    types.FloatRange: _("'{value}' is not a valid float range."),
    types.IntParamType: _("'{value}' is not a valid int."),
    types.FloatParamType: _("'{value}' is not a valid float."),
}
NOT_A_BOOLEAN = _("'{value}' is not a valid boolean; write true or false.")
OUT_OF_RANGE = _("{value} is not in the range {range}.")
NO_SUCH_OPTION = _("No such option: {option}")
POSSIBLE_OPTIONS = _("(Possible options: {options})")
NEEDS_A_VALUE = _("Option '{option}' requires an argument.")
TAKES_NO_VALUE = _("Option '{option}' does not take a value.")
MISSING_ARGUMENT = _("Missing argument '{name}'.")
MISSING_OPTION = _("Missing option '{name}'.")
NO_SUCH_COMMAND = _("No such command '{name}'.")
DID_YOU_MEAN = _("Did you mean {option}?")
MISSING_COMMAND = _("Missing command.")
EXTRA_ARGUMENTS = _("Got unexpected extra argument(s) ({arguments})")

# The fields that echo the command line, cut as attn's own errors cut them (errors.shown).
ECHOED = frozenset({"value", "name", "option", "arguments"})

Pieces = list[tuple[str, dict[str, str]]]


class SaidUsageError(exceptions.UsageError):
    """A usage error attn raises itself (an unknown command, extra arguments, a missing
    command), holding what it says as (msgid, fields) pairs."""

    def __init__(self, said: Pieces, ctx: Any = None) -> None:
        super().__init__(" ".join(msgid.format(**fields) for msgid, fields in said), ctx)
        self.said = said


def unknown_command(name: str, commands: list[str], ctx: Any) -> SaidUsageError:
    """`attn scroe`: the command not known, and the close ones if any."""
    from difflib import get_close_matches

    said: Pieces = [(NO_SUCH_COMMAND, {"name": name})]
    close = get_close_matches(name, commands)
    if close:
        said.append((DID_YOU_MEAN, {"option": ", ".join(repr(command) for command in close)}))
    return SaidUsageError(said, ctx)


def extra_arguments(arguments: list[str], ctx: Any) -> SaidUsageError:
    return SaidUsageError([(EXTRA_ARGUMENTS, {"arguments": " ".join(arguments)})], ctx)


def missing_command(ctx: Any) -> SaidUsageError:
    return SaidUsageError([(MISSING_COMMAND, {})], ctx)


def keeping_values(params: list[Any]) -> None:
    """Each parameter's type keeps the text it could not read on the BadParameter it
    raises (`error.attn_value`), so that the error can be said without reading its English.
    The type is a subclass of its own, copied: Click's shared types are left as they are."""
    import copy

    for param in params:
        kind = type(param.type)
        if not getattr(kind, "keeps_value", False):
            param.type = copy.copy(param.type)
            param.type.__class__ = _keeping(kind)


# A type's class -> its subclass that keeps the value (made once per class).
_KEEPING: dict[type, type] = {}


def _keeping(kind: type) -> type:
    if kind not in _KEEPING:

        class Keeping(kind):  # type: ignore[valid-type,misc]
            keeps_value = True

            def convert(self, value: Any, param: Any, ctx: Any) -> Any:
                try:
                    return super().convert(value, param, ctx)
                except exceptions.BadParameter as error:
                    error.attn_value = value  # type: ignore[attr-defined]
                    raise

        Keeping.__name__ = Keeping.__qualname__ = kind.__name__
        _KEEPING[kind] = Keeping
    return _KEEPING[kind]


def pieces(error: Exception, arguments: list[str]) -> Pieces:
    """The usage error as (msgid, fields) pairs, said one after the other; `arguments`:
    the command line it was raised on. What a field echoes of the command line (a value,
    an unknown option) is cut to about 40 characters, as errors.shown cuts it."""
    from attncli.errors import shown

    return [
        (msgid, {name: shown(value) if name in ECHOED else value for name, value in fields.items()})
        for msgid, fields in _pieces(error, arguments)
    ]


def _pieces(error: Exception, arguments: list[str]) -> Pieces:
    if isinstance(error, SaidUsageError):
        return error.said
    if isinstance(error, exceptions.MissingParameter) and error.param is not None:
        name = error.param.human_readable_name
        missing = MISSING_OPTION if error.param.param_type_name == "option" else MISSING_ARGUMENT
        return [(missing, {"name": name})]
    if isinstance(error, exceptions.BadParameter) and hasattr(error, "attn_value"):
        said = _bad_value(error)
        if said is not None:
            return [(INVALID_VALUE, {"param": _hint(error)}), said]
    if isinstance(error, exceptions.NoSuchOption):
        found: Pieces = [(NO_SUCH_OPTION, {"option": error.option_name})]
        if error.possibilities:
            options = ", ".join(sorted(error.possibilities))
            found.append((POSSIBLE_OPTIONS, {"options": options}))
        return found
    if isinstance(error, exceptions.BadOptionUsage):
        return [(_option_usage(error, arguments), {"option": error.option_name})]
    return [("{message}", {"message": error.format_message()})]  # type: ignore[attr-defined]


def _bad_value(error: Any) -> tuple[str, dict[str, str]] | None:
    kind, value = error.param.type, str(error.attn_value)
    if isinstance(kind, TyperChoice):
        choices = ", ".join(repr(str(choice)) for choice in kind.choices)
        return NOT_A_CHOICE, {"value": value, "choices": choices}
    if isinstance(kind, types.BoolParamType):
        return NOT_A_BOOLEAN, {"value": value}
    for number_type, msgid in NOT_A_NUMBER.items():
        if isinstance(kind, number_type):
            number = _number(kind, value)
            if number is None or not isinstance(kind, types.IntRange | types.FloatRange):
                return msgid, {"value": value}
            return OUT_OF_RANGE, {"value": str(number), "range": _range(kind, number)}
    return None


def _number(kind: Any, value: str) -> int | float | None:
    try:
        return int(value) if isinstance(kind, types.IntParamType) else float(value)
    except ValueError:
        return None


def _range(kind: Any, number: float) -> str:
    """A range as Click writes it: 0<=x<=15, x>=1, x<1; a number below a range with no
    declared max (only the most numpy holds, 9223372036854775807) told the bound it
    passes alone, as --help shows it: x>=1."""
    low = "<" if kind.min_open else "<="
    high = "<" if kind.max_open else "<="
    below = kind.min is not None and (number <= kind.min if kind.min_open else number < kind.min)
    if below and kind.max is not None and kind.max >= LARGEST_WHOLE:
        return f"x{'>' if kind.min_open else '>='}{kind.min}"
    if kind.min is None:
        return f"x{high}{kind.max}"
    if kind.max is None:
        return f"x{'>' if kind.min_open else '>='}{kind.min}"
    return f"{kind.min}{low}x{high}{kind.max}"


def _hint(error: Any) -> str:
    if error.param_hint is not None:
        hints = error.param_hint
        return hints if isinstance(hints, str) else " / ".join(repr(hint) for hint in hints)
    return str(error.param.get_error_hint(error.ctx))


def _option_usage(error: Any, arguments: list[str]) -> str:
    """An option given a value it takes none of (--flag=x on the command line), or none
    where it needs one."""
    given = f"{error.option_name}="
    return TAKES_NO_VALUE if any(arg.startswith(given) for arg in arguments) else NEEDS_A_VALUE
