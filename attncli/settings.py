"""Settings declared once, as a dataclass's fields: each field's default, what it means (an
English msgid), the option that gives it on the command line and the flags that set it, and
its range; the values held to that declaration; an unknown keyword refused.

The self-attention layer's settings (layer.SelfAttnSettings) and attn cost's inputs
(api/cost.CostInputs) are declared with `setting`; their __post_init__ calls
`check_declared`, and the Python API's keywords that make them go through `refuse_unknown`.
The command line's options are made from the same fields (cli/commands/layer_options.py,
cli/commands/cost.py). A whole number's range is a `Whole`, held by `check_range` alike
for a declared field, a public function's keyword (api/keywords.py) and a document's field
(reading/check/calculator.py); a real number's a `Real` (`check_real`); a field may declare
its `choices`, and what it `Needs` beside it once given (`check_needs`: --rope-base needs
--positions rope). A rule the declaration cannot say stays with its dataclass, by name
(a softcap not with ALiBi, the designs).
"""

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from attncli.errors import LARGEST_WHOLE, OptionError, OptionTypeError, check_whole
from attncli.messages import Message, Setting, _


@dataclass(frozen=True)
class Whole:
    """A whole number from `least` to `most` (a count, an index, a seed): the command line's
    option takes them as its min and max, and check_range holds the Python keyword, a
    document's field and a declared setting to them."""

    least: int | None = None
    most: int = LARGEST_WHOLE


LARGEST_FLOAT = 1.7976931348623157e308  # float64's largest, which numpy computes in


@dataclass(frozen=True)
class Real:
    """A real number above `above` (a length, a cap, a divisor, a base) and, where it has
    one, at most `most` (top-p's share of the probability, at most 1); +∞ only where it
    means something (`infinite`: a softcap of +∞ caps nothing). NaN is never one."""

    above: float = 0.0
    infinite: bool = False
    most: float | None = None


@dataclass(frozen=True)
class Needs:
    """What a setting is (a msgid: "the base of rotary positions' angles"), the settings it
    needs once it is given, each a field and the value it must have (None: any, so long as
    it is given), and those it does not go with yet, each a field and the value it cannot
    have beside it (None: any given)."""

    what: str
    settings: tuple[tuple[str, Any], ...] = ()
    excludes: tuple[tuple[str, Any], ...] = ()


def setting(
    default: Any,
    help: str | None = None,  # noqa: A002 (the word the command line says)
    *,
    option: str | None = None,
    flags: tuple[tuple[str, Any, str], ...] = (),
    knob: Any = None,
    real: Real | None = None,
    choices: tuple[Any, ...] | None = None,
    needs: Needs | None = None,
    **limits: Any,
) -> Any:
    """A declared field: its default; its help; the option that gives its value on the
    command line (`--d-model`, with typer.Option's `limits`: metavar, min, max, which
    check_declared holds a whole number to as well); the flags that set it to one value,
    as (flag, value, help): ("--no-scale", None, …); the knob a face turns it with
    (layer.Knob, the explorer's), if it has one; for a real number, the Real it must be;
    the `choices` it is one of (None among them where it may be left out); and what it
    needs beside it once it is given."""
    declared = {"help": help, "option": option, "flags": flags, "limits": limits, "knob": knob,
                "real": real, "choices": choices, "needs": needs}  # fmt: skip
    return field(default=default, metadata=declared)


def check_real(named: Setting, real: Real) -> None:
    """`named`'s value is a number (a bool or a text is none) above `real.above`, at most
    `real.most` if it has one, finite unless `real.infinite`, else one line naming it as
    it was given (`--norm -1.0`, `norm=-1.0`) and the bounds it passes."""
    import math

    value = named.value
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    past_float = number and isinstance(value, int) and abs(value) > LARGEST_FLOAT  # 10**400
    if (number and not past_float and value > real.above
            and (math.isfinite(value) or real.infinite)
            and (real.most is None or value <= real.most)):  # fmt: skip
        return
    bounds = {"above": f"{real.above:g}"}
    text = _("{setting}: it must be a number above {above}")
    if past_float:
        text, bounds = _("{setting}: it must be a number a float holds, at most about 1.8e308"), {}
    elif real.most is not None:
        text = _("{setting}: it must be a number above {above} and at most {most}")
        bounds["most"] = f"{real.most:g}"
    raise OptionError(text, setting=named, **bounds)


def check_range(named: Setting, whole: Whole) -> None:
    """`named`'s value is a whole number (a bool or 2.5 is none) from `whole.least` to
    `whole.most`, else one line naming it as it was given (`--seed -1`, `seed=-1`) and the
    bound it passes."""
    value = named.value
    check_whole(named, value)
    below = whole.least is not None and value < whole.least
    if below or value > whole.most:  # window=10**20: numpy holds no such index
        text = (_("{setting}: it must be {least} or more") if below
                else _("{setting}: it must be {most} or less"))  # fmt: skip
        raise OptionError(text, setting=named, least=whole.least, most=whole.most)


def check_declared(declared: Any) -> None:
    """Each field of the dataclass `declared` held to its declaration, so that a Python
    keyword cannot ask for what the command line's types and ranges refuse: a bool field
    True or False (None too where it is typed `bool | None`; alibi='no' is not read as
    true), a whole-number field None (not given) or a whole number in its declared min and
    max, a real-number field None or the Real it declares, a field of declared choices one
    of them. What a field needs beside it is held by check_needs, where the settings
    are used (a seeded layer's: beside a pretrained model they are refused as a whole)."""
    for each in fields(declared):
        value = getattr(declared, each.name)
        kinds = _kinds(each.type)
        named = Setting(each.name, value, each.metadata.get("option"))
        choices = each.metadata.get("choices")
        if choices is not None and value not in choices:
            raise not_one_of(named, choices)
        if "bool" in kinds and kinds <= {"bool", "None"}:
            if not (isinstance(value, bool) or (value is None and "None" in kinds)):
                raise OptionTypeError(_("{setting}: give True or False"), setting=named)
        elif each.metadata.get("real") is not None and value is not None:
            check_real(named, each.metadata["real"])
        elif "int" in kinds and kinds <= {"int", "None"} and value is not None:
            limits = each.metadata.get("limits") or {}
            check_range(named, Whole(limits.get("min"), limits.get("max", LARGEST_WHOLE)))


def not_one_of(named: Any, choices: Iterable[Any]) -> OptionError:
    """The one refusal of a value that is none of `choices` (None among them: left out),
    for a declared setting's and a public function's keyword alike (api/keywords.OneOf):
    `named` as the surface writes it, the choices listed."""
    listed = ", ".join(str(choice) for choice in choices if choice is not None)
    return OptionError(_("{setting}: give one of {choices}"), setting=named, choices=listed)


def check_needs(declared: Any) -> None:
    """Each field given (not its default) whose declaration says what it needs beside it
    has it, and has none of what it does not go with, else one line saying what the field
    is and what to add (`--rope-base 5000.0 is the base of rotary positions' angles; add
    --positions rope`) or that the two do not go together yet."""
    declarations = {each.name: each for each in fields(declared)}
    for each in declarations.values():
        needs, value = each.metadata.get("needs"), getattr(declared, each.name)
        if needs is None or value == each.default:
            continue
        rules = [(name, wanted, True) for name, wanted in needs.settings]
        rules += [(name, unwanted, False) for name, unwanted in needs.excludes]
        for name, wanted, needed in rules:
            other = getattr(declared, name)
            if (other is not None if wanted is None else other == wanted) != needed:
                shown = other if wanted is None and not needed else wanted
                flag = [f for f, set_to, _help in declarations[name].metadata.get("flags", ())
                        if set_to == shown and shown is not None]  # fmt: skip
                text = (_("{setting} is {what}; add {needed}") if needed
                        else _("{setting} is {what}, which the seeded layer does not do with "
                               "{needed} yet; leave out one of them"))  # fmt: skip
                raise OptionError(
                    text,
                    setting=Setting(each.name, value, each.metadata.get("option")),
                    what=Message(needs.what),
                    needed=Setting(name, shown, flag[0] if flag else None),
                )  # fmt: skip


def _kinds(annotation: Any) -> set[str]:
    """A field's type as the names it joins: {"int", "None"} for `int | None`, written or
    (under `from __future__ import annotations`) as text."""
    written = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None)
    return {part.strip() for part in (written or str(annotation)).split("|")}


def refuse_unknown(
    function: Callable[..., Any], given: Iterable[str], known: Collection[str]
) -> None:
    """Each keyword in `given` is one of `known` (the declared fields and their aliases), or
    it is refused, naming the `function` it was given to and the closest of its keywords
    (`known` and the function's own parameters), if one is close."""
    for name in given:
        if name in known:
            continue
        import difflib
        import inspect

        own = [p.name for p in inspect.signature(function).parameters.values()
               if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]  # fmt: skip
        close = difflib.get_close_matches(name, [*known, *own], n=1)
        text, near = _("{function}() got an unexpected keyword {name}="), {}
        if close:
            text = _("{function}() got an unexpected keyword {name}= (did you mean {close}=?)")
            near = {"close": close[0]}
        raise OptionError(text, function=function.__name__, name=name, **near)
