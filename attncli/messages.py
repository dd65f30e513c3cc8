"""Every sentence attn shows, in the language asked for, through gettext's catalogs.

English is the source: a sentence is written in English where it is said, marked with
`_("…")` so that the catalog tool finds it, and its {fields} are filled when it is shown.
Every other language is one file, `locale/<lang>/LC_MESSAGES/attncli.po`, compiled into the
`attncli.mo` beside it that the standard library's gettext reads (`python tools/catalog.py
compile`; tests/docs/test_catalog.py fails when the two differ). A new language is that one
`.po` file: `languages()` finds it, `--lang` offers it.

A field is filled by the language's own rules: a Message inside a Message is said in the
same language, a float (`{value}`, `{value:.3f}`) takes the language's decimal mark
(the catalog's translation of `.` in the context "decimal mark"), and a Setting is written
as the surface that shows it names it (`--heads` on the command line, `heads=` in Python;
an OnSurface, where one Setting cannot say both, gives each surface its own words).

    >>> say("en", "{count} of {total} rows", count=2, total=3)
    '2 of 3 rows'
    >>> str(Message("a weight of {weight:.3f}", weight=0.5))
    'a weight of 0.500'
    >>> say("es", "a weight of {weight:.3f}", weight=0.5).endswith("0,500")
    True
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gettext
    import string
    from collections.abc import Callable, Sequence

# Neither pathlib nor string at import: they would cost every run of attn about 5 ms.

# ATTN_LOCALE_DIR: a folder of catalogs to read instead of the installed ones, for a
# translator trying a new language before it is installed.
LOCALE_DIR = os.environ.get("ATTN_LOCALE_DIR") or os.path.join(os.path.dirname(__file__), "locale")
DOMAIN = "attncli"
SOURCE_LANGUAGE = "en"


def _(msgid: str) -> str:
    """Marks `msgid` for the catalog; it is translated where it is shown, in the language
    asked for there (a message is made before anyone knows who will read it)."""
    return msgid


def _n(singular: str, plural: str) -> tuple[str, str]:
    """Marks a sentence whose words follow a number ('{count} row', '{count} rows') for the
    catalog, as gettext's ngettext pairs them (see Message.counted)."""
    return singular, plural


def languages() -> tuple[str, ...]:
    """English, then every language with a compiled catalog, in the order of their codes."""
    try:
        codes = os.listdir(LOCALE_DIR)
    except OSError:
        codes = []
    found = sorted(
        code
        for code in codes
        if os.path.isfile(os.path.join(LOCALE_DIR, code, "LC_MESSAGES", f"{DOMAIN}.mo"))
    )
    return (SOURCE_LANGUAGE, *found)


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of `lang` (English and a language without one: the msgids)."""
    import gettext

    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, [lang], fallback=True)


def translate(msgid: str, lang: str) -> str:
    """`msgid` in `lang`; the msgid itself where the catalog has no translation."""
    if lang == SOURCE_LANGUAGE or not msgid:
        return msgid
    return catalog(lang).gettext(msgid)


def decimal_mark(lang: str) -> str:
    """The language's decimal mark: `.` translated in the context "decimal mark"."""
    if lang == SOURCE_LANGUAGE:
        return "."
    return catalog(lang).pgettext("decimal mark", ".")


def component_mark(lang: str) -> str:
    """What separates a vector's numbers, on screen and in an option: `,` translated in the
    context "component separator" (`;` where the comma is the decimal mark: 0,26; 0,61)."""
    if lang == SOURCE_LANGUAGE:
        return ","
    return catalog(lang).pgettext("component separator", ",")


def row_mark(lang: str) -> str:
    """What separates a matrix's rows in an option: `;` translated in the context "row
    separator" (`|` where `;` separates the numbers: '2; 1 | 0; 2')."""
    if lang == SOURCE_LANGUAGE:
        return ";"
    return catalog(lang).pgettext("row separator", ";")


def in_decimals(text: str, lang: str) -> str:
    """A number written with a point (`0.665`) written with the language's decimal mark."""
    mark = decimal_mark(lang)
    return text if mark == "." else text.replace(".", mark)


def either(choices: Sequence[str | Message]) -> str | Message:
    """Choices as a sentence offers them: '--tx, --ty or --d-a' ('… o --d-a')."""
    return _listed(choices, _("{choices} or {last}"))


def all_of(items: Sequence[Any]) -> Any:
    """Items as a sentence names them all: '--method general and --dim 4' ('… y …')."""
    return _listed(items, _("{choices} and {last}"))


def _listed(items: Sequence[Any], last_joined: str) -> Any:
    """Items joined by commas, the last by `last_joined` (a msgid of {choices} and {last});
    one item alone as it is."""
    if len(items) == 1:
        return items[0]
    listed = items[0]
    for item in items[1:-1]:
        listed = Message(_("{first}, {second}"), first=listed, second=item)
    return Message(last_joined, choices=listed, last=items[-1])


def thousands_mark(lang: str) -> str:
    """The mark between thousands: `,` translated in the context "thousands mark"."""
    if lang == SOURCE_LANGUAGE:
        return ","
    return catalog(lang).pgettext("thousands mark", ",")


class Setting:
    """A setting named in a message, as data, with the value given to it where there is
    one: `--heads 3` on the command line, `heads=3` in Python, from the one error."""

    __slots__ = ("name", "option", "value", "metavar")

    def __init__(
        self, name: str, value: Any = None, option: str | None = None, metavar: str | None = None
    ) -> None:
        self.name = name  # the Python keyword: heads
        self.option = option or "--" + name.replace("_", "-")  # the option: --heads
        self.value = value
        self.metavar = metavar  # a value to be chosen: --heads h, heads=h

    def written(self, surface: str) -> str:
        """`--heads 3` or `heads=3`; a flag (a bool value) is its option alone on the command
        line (`--draw-missing`, `--no-proj`) and `draw_missing=True` in Python."""
        if surface == "cli":
            if self.metavar is not None:
                return f"{self.option} {self.metavar}"
            if self.value is None or isinstance(self.value, bool):
                return self.option
            return f"{self.option} {too_long(self.value) or self.value}"
        if self.metavar is not None:
            return f"{self.name}={self.metavar}"
        if self.value is None:
            return self.name
        return f"{self.name}={too_long(self.value) or repr(self.value)}"

    def __repr__(self) -> str:
        return f"Setting({self.name!r}, {self.value!r})"


class OnSurface:
    """What a message says one way on the command line and another in Python, where no
    one Setting says both: `--target 8,2` and `target=[8, 2]`; 'without --no-scale' and
    'with scale=True'. Each side a text, a Setting or a Message."""

    __slots__ = ("cli", "python")

    def __init__(self, cli: Any, python: Any) -> None:
        self.cli = cli
        self.python = python

    def on(self, surface: str) -> Any:
        return self.cli if surface == "cli" else self.python

    def __repr__(self) -> str:
        return f"OnSurface({self.cli!r}, {self.python!r})"


def typed(setting: Setting, text: str) -> OnSurface:
    """`setting` with the text the user gave it, quoted as it was typed: `--from 'kyes'` on
    the command line, `source='kyes'` in Python (`text` is that quoted text, e.g. a repr cut
    short), where a Setting's value is written bare (`--from kyes`)."""
    return OnSurface(f"{setting.option} {text}", f"{setting.name}={text}")


def for_surface(value: Any, surface: str) -> Any:
    """A field as `surface` writes it: a Setting as its option or keyword, an OnSurface as
    its side; anything else as it is."""
    if isinstance(value, OnSurface):
        value = value.on(surface)
    if isinstance(value, Setting):
        return value.written(surface)
    return value


class Message:
    """A sentence not yet said: its msgid (English) and its fields, said in a language when
    shown. Plain slots: a message is made on every error and on most screens."""

    __slots__ = ("msgid", "plural", "fields")

    def __init__(self, msgid: str, /, **fields: Any) -> None:
        self.msgid = msgid
        self.plural: str | None = None  # with it, the field {count} chooses the form
        self.fields = fields

    @classmethod
    def counted(cls, singular: str, plural: str, count: int, /, **fields: Any) -> Message:
        """A sentence whose words follow a number ('1 row', '3 rows'): gettext's ngettext,
        with the number as the field {count}."""
        message = cls(singular, count=count, **fields)
        message.plural = plural
        return message

    def said(self, lang: str = SOURCE_LANGUAGE, surface: str = "python") -> str:
        """The sentence in `lang`, its fields filled by that language's rules."""
        if self.plural is None:
            text = translate(self.msgid, lang)
        elif lang == SOURCE_LANGUAGE:
            text = self.msgid if self.fields["count"] == 1 else self.plural
        else:
            text = catalog(lang).ngettext(self.msgid, self.plural, self.fields["count"])
        if not self.fields and "{{" not in text and "}}" not in text:
            return text  # a brace written twice is one brace, fields or not
        return _filler()(lang, surface).vformat(text, (), self.fields)

    def __str__(self) -> str:
        return self.said()

    def __repr__(self) -> str:
        return f"Message({self.msgid!r}, **{self.fields!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return (self.msgid, self.plural, self.fields) == (other.msgid, other.plural, other.fields)

    def __hash__(self) -> int:
        return hash((self.msgid, self.plural))


def too_long(value: Any) -> str | None:
    """A whole number too long for Python to write (past 4,300 digits, 10**5000 given as a
    window), by its size, ≈1e5000; None for any other value, written as it is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 14_000:
        import math

        return f"≈{'-' if value < 0 else ''}1e{int(math.log10(abs(value)))}"
    return None


def say(lang: str, msgid: str, /, **fields: Any) -> str:
    """`msgid` said in `lang` with its fields filled: say("es", "{count} rows", count=3)."""
    return Message(msgid, **fields).said(lang)


@cache
def _filler() -> Callable[[str, str], string.Formatter]:
    """str.format by a language's rules (the class made once, when a message first has
    fields to fill)."""
    import string

    class Filler(string.Formatter):
        """Nested messages said in the language, floats with its decimal mark."""

        def __init__(self, lang: str, surface: str) -> None:
            self.lang = lang
            self.surface = surface

        def format_field(self, value: Any, format_spec: str) -> str:
            if isinstance(value, OnSurface):
                value = value.on(self.surface)
            if isinstance(value, Message):
                return format(value.said(self.lang, self.surface), format_spec)
            if isinstance(value, Setting):
                written = value.written(self.surface)
                if self.surface == "cli" and isinstance(value.value, float):
                    written = in_decimals(written, self.lang)  # --lr 0,1 as Spanish types it
                return format(written, format_spec)
            text = too_long(value) or format(value, format_spec)
            if "," in format_spec and isinstance(value, int | float):  # {needed:,.0f}
                # the language's thousands mark and decimal mark (195 313 MiB in Spanish)
                marks = {",": thousands_mark(self.lang), ".": decimal_mark(self.lang)}
                return "".join(marks.get(char, char) for char in text)
            return in_decimals(text, self.lang) if isinstance(value, float) else text

    return Filler
