"""The Python API's promise about its keywords: a value of the wrong type or out of range is
an AttnError that names the keyword, shows what was given and says what it takes, before
anything is read or computed (`grid='no'` is never read as true, `seed=-1` never draws).

Each public function is wrapped by `keywords`, which reads what each keyword takes from the
function's own annotations (`int`, `bool`, `str | None`, `Sequence[str]`, …), so that the
signature a reader sees is the rule that is held; a keyword whose annotation says more
than a type can check (an array-like, a Mapping) is left to the function's own readers. A
few keywords say more than their type: a seed is a whole number from 0 to 2^64 − 1, a
model is a name or a folder (a pathlib.Path too), a language one attn has a catalog for, a
score method one of the registry's names (OneOf: the command line's choices).
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from attncli.errors import OptionError, OptionTypeError, shown
from attncli.messages import Message, OnSurface, Setting, _, either, languages, typed
from attncli.reading.inputs import SEED_RANGE
from attncli.settings import Real, Whole, check_range, check_real, not_one_of

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Kind:
    """What a keyword takes: a test of the value and how a message says it."""

    accepts: Callable[[Any], bool]
    said: str | Message
    read: Callable[[Any], Any] | None = None  # what the function is given in its place


def _whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not _boolean(value)


def _boolean(value: Any) -> bool:
    import numpy as np

    return isinstance(value, (bool, np.bool_))


def _number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not _boolean(value)


def listed(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A list of items (a tuple, a range, an array too), never a text taken for letters."""

    def accepts(value: Any) -> bool:
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            return False
        if isinstance(value, Sequence) or hasattr(value, "__array__"):
            return all(item(part) for part in value)
        return True  # an iterator is not walked twice: its items are read where they are used

    return accepts


# What each part of an annotation takes; a part not here (ArrayLike, Any, Mapping[…]) leaves
# the whole keyword to the function's own readers.
PARTS: dict[str, Kind] = {
    "None": Kind(lambda value: value is None, "None"),
    "int": Kind(_whole, _("a whole number")),
    "float": Kind(_number, _("a number")),
    "bool": Kind(_boolean, _("True or False")),
    "str": Kind(lambda value: isinstance(value, str), _("a text")),
    "Sequence[str]": Kind(listed(lambda item: isinstance(item, str)), _("a list of texts")),
    "Iterable[str]": Kind(listed(lambda item: isinstance(item, str)), _("a list of texts")),
    "Sequence[int]": Kind(listed(_whole), _("a list of whole numbers")),
    "Sequence[Sentence]": Kind(
        listed(lambda item: any(kind.__name__ == "Sentence" for kind in type(item).__mro__)),
        _("a list of sentences, as attncli.reading.parse.wants.parse_corpus reads them"),
    ),
    "SelfAttnResult": Kind(
        lambda value: any(kind.__name__ == "SelfAttnResult" for kind in type(value).__mro__),
        _("a result of attncli.selfattn()"),
    ),
}

MODEL = Kind(
    lambda value: isinstance(value, (str, os.PathLike)),
    _("a model's name or folder"),
    os.fspath,  # a pathlib.Path read as its text
)
FILES = Kind(
    listed(lambda item: isinstance(item, (str, os.PathLike))),
    _("a list of file names"),
    lambda paths: [os.fspath(path) for path in paths],
)
SEED = SEED_RANGE  # as the command line's --seed
SHOWN = Whole(1)  # how many heads a ranking shows (None: all of them)
# A keyword read by a reader of its own that says more than its type: a sentence
# (reading/parse/sentence.py: 'the sentence is int; give a text, e.g. …').
OWN_READER = Kind(lambda value: True, "")


def _language(value: Any) -> bool:
    return isinstance(value, str) and value in languages()


LANGUAGE = Kind(
    _language,
    Message(_("a language attn speaks: {languages}"), languages=", ".join(languages())),
)


def _kind(annotation: str) -> Kind | None:
    """What an annotation such as 'int | None' takes, or None when a part is not checked
    here."""
    kinds = [_part(part.strip()) for part in _top_level(annotation)]
    if any(kind is None for kind in kinds):
        return None
    known = [kind for kind in kinds if kind is not None]
    return Kind(
        lambda value: any(kind.accepts(value) for kind in known),
        either([_message(kind.said) for kind in known]),
    )


def _or_none(kind: Kind) -> Kind:
    """`kind`, or None."""
    read = kind.read
    return Kind(
        lambda value: value is None or kind.accepts(value),
        either([_message(kind.said), "None"]),
        None if read is None else (lambda value: value if value is None else read(value)),
    )


def _part(part: str) -> Kind | None:
    if part.startswith("Callable"):
        return Kind(callable, _("a function"))
    return PARTS.get(part)


def _top_level(annotation: str) -> list[str]:
    """'A[b | c] | None' split at its top-level bars."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(annotation):
        depth += char == "["
        depth -= char == "]"
        if char == "|" and depth == 0:
            parts.append(annotation[start:index])
            start = index + 1
    parts.append(annotation[start:])
    return parts


def _takes_int(annotation: str) -> bool:
    return "int" in (part.strip() for part in _top_level(annotation))


@dataclass(frozen=True)
class OneOf:
    """A text that names one of `names` (a score method, a pattern, an optimizer), or a
    list of such texts where the keyword takes a list (exclude=['first', 'self']): the
    command line's choices, held in Python too; None passes where the annotation allows it
    (not given)."""

    names: tuple[str | None, ...]

    def check(self, name: str, value: Any) -> Any:
        """`value`, given to the keyword `name`, is one of the names (each of its items, a
        list), else one line that quotes the one not known as it was given and lists them;
        the value the function is given (a list's items as a tuple, an iterator read once)."""
        several = value is not None and not isinstance(value, str)
        if several:
            value = tuple(value)
        for item in value if several else [value]:
            if item is None or item in self.names:
                continue
            quoted = shown(repr(item))
            setting = typed(Setting(name), quoted)
            if several:  # --exclude 'last', exclude=['last']
                setting = OnSurface(setting.cli, f"{name}=[{quoted}]")
            raise not_one_of(setting, self.names)
        return value


@dataclass(frozen=True)
class Hinted:
    """A range (a Whole or a Real) whose refusal ends with a value to try, `example`
    (`--block 0: it must be 1 or more (try --block 2)`, `block=0: … (try block=2)`); and the
    option, where the command line spells the keyword another way (--random for count=)."""

    rule: Whole | Real
    example: Any = None
    option: str | None = None


Range = Whole | Real | Hinted

# A softmax's temperature: a positive finite number, 1 to try (the plain softmax)
TEMPERATURE = Hinted(Real(0), 1)
# A class set's sheets (attn exercise --count, exercise_set(count=)): here, where the
# command line's option reads its bounds without importing numpy.
SHEETS = Whole(1, 100)


def hold(named: Setting, declared: Range) -> None:
    """`named`'s value held to its declared range, by settings' one check of a whole
    number (check_range) or of a real one (check_real); a Hinted range's refusal says its
    value to try after the check's own words."""
    rule = declared.rule if isinstance(declared, Hinted) else declared
    try:
        if isinstance(rule, Real):
            check_real(named, rule)
        else:
            check_range(named, rule)
    except OptionError as refusal:
        example = declared.example if isinstance(declared, Hinted) else None
        if example is not None and not isinstance(refusal, OptionTypeError):  # not 2.5
            example = Setting(named.name, example, named.option)
            refusal = OptionError(_("{refusal} (try {example})"), refusal=refusal.said,
                                  example=example)  # fmt: skip
        raise refusal from None


def _hold_keyword(name: str, value: Any, declared: Range) -> None:
    """A keyword's number held to its declared range: a whole one to a Whole, any number to
    a Real (numpy's as Python's); None and other kinds are the annotation's business."""
    real = isinstance(declared.rule if isinstance(declared, Hinted) else declared, Real)
    if not (_number(value) if real else _whole(value)):
        return
    if not isinstance(value, (int, float)):  # numpy's int64, float32
        value = float(value) if real else int(value)
    hold(Setting(name, value, declared.option if isinstance(declared, Hinted) else None), declared)


def refuse_kind(name: str, value: Any, takes: str | Message) -> OptionTypeError:
    """The error for a keyword given a value of another type: the value as the user wrote
    it (`--seed 'a'` on the command line, `seed='a'` in Python), a long one cut short."""
    given = typed(Setting(name), shown(repr(value)))
    return OptionTypeError(
        _("{given}: {name} takes {takes}"), given=given, name=name, takes=_message(takes)
    )


def _message(said: str | Message) -> str | Message:
    """What a keyword takes, said in the message's language: a msgid as a Message (None is
    Python's own word)."""
    return Message(said) if isinstance(said, str) and said != "None" else said


def keywords(**special: Kind | Range | OneOf) -> Callable[[F], F]:
    """Check a public function's keywords by its annotations (and `special`'s: a Kind in
    place of the annotation's, a range for a number (a Whole, a Real, either Hinted), or
    the names a text is one of) before it runs."""

    def wrap(function: F) -> F:
        signature = inspect.signature(function)
        checks: dict[str, tuple[Kind, Range | OneOf | None]] = {}
        for name, parameter in signature.parameters.items():
            annotation = parameter.annotation
            rule = special.get(name)
            if rule is OWN_READER:
                continue
            kind = rule if isinstance(rule, Kind) else None
            if kind is not None and isinstance(annotation, str) and annotation.endswith("None"):
                kind = _or_none(kind)
            if kind is None and isinstance(annotation, str):
                kind = _kind(annotation)
            if kind is None and isinstance(rule, (Whole, Real, Hinted)):
                whole = not isinstance(rule.rule if isinstance(rule, Hinted) else rule, Real)
                kind = PARTS["int" if whole else "float"]
            if kind is not None:
                held = rule if isinstance(rule, (Whole, Real, Hinted, OneOf)) else None
                if held is None and isinstance(annotation, str) and _takes_int(annotation):
                    held = Whole()
                checks[name] = (kind, held)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return function(*args, **kwargs)  # Python's own words for a call it cannot bind
            for name, value in bound.arguments.items():
                if name not in checks:
                    continue
                kind, held = checks[name]
                if not kind.accepts(value):
                    raise refuse_kind(name, value, kind.said)
                if isinstance(held, OneOf):
                    bound.arguments[name] = held.check(name, value)
                elif held is not None:
                    _hold_keyword(name, value, held)
                if kind.read is not None:
                    bound.arguments[name] = kind.read(value)
            return function(*bound.args, **bound.kwargs)

        checked.__signature__ = signature  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return wrap
