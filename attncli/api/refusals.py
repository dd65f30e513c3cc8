"""Settings that cannot go together, or that need another: the two shared refusals, for the
operations (an option or a keyword, as a Setting names it on either surface) and the
command line's cli/commands and cli/options alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def given_names(options: Mapping[Any, object]) -> list[Any]:
    """The names of `options` (its option → the value the command line gave, or whether it
    gave it) that were given: neither None nor a flag left off, in their order."""
    return [name for name, value in options.items() if value is not None and value is not False]


def first_given(options: Mapping[Any, object]) -> Any:
    """The first option of `options` a command line gave, or None (see given_names)."""
    return next(iter(given_names(options)), None)


def refuse_beside(options: Mapping[Any, object], beside: object, why: str, **said: Any) -> None:
    """The `options` the command line gave (see given_names) refused beside `beside`, what
    they cannot go with (--online, -i FILE, answer files), in one line that names them all,
    so that one fix leaves out every one, and says `why` (a msgid, which may name the
    {option}, and the fields `said`)."""
    names = given_names(options)
    if names:
        from attncli.errors import OptionError
        from attncli.messages import Message, _, all_of

        given = all_of(names)
        raise OptionError(
            _("{option} with {beside}: {why}"),
            option=given,
            beside=beside,
            why=Message(why, option=given, **said),
        )


def refuse_without(
    options: Mapping[Any, object], needed: object, present: bool, why: str, **said: Any
) -> None:
    """The first of `options` the command line gave (see given_names) refused without
    `needed` (not `present`), which it goes with, in one line that says what it does, `why`
    (a msgid, which may name the {option}, and the fields `said`), and to add what it
    needs."""
    given = None if present else first_given(options)
    if given is not None:
        from attncli.errors import OptionError
        from attncli.messages import Message, _

        raise OptionError(
            _("{option} {why}; add {needed}"),
            option=given,
            why=Message(why, option=given, **said),
            needed=needed,
        )
