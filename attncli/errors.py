"""The exceptions attncli raises; only the CLI turns them into a message and an exit code."""

from enum import IntEnum
from typing import Any

from attncli.messages import Message, Setting, _, _n


class ExitStatus(IntEnum):
    """What `attn` exits with."""

    SUCCESS = 0
    OUTPUT_ERROR = 1  # stdout could not be written (a full disk, a closed pipe)
    INPUT_ERROR = 2  # bad input or options: the message says how to fix it
    INTERNAL_ERROR = 70  # EX_SOFTWARE: a bug in attn, not in the input
    INTERRUPTED = 130  # Ctrl-C
    BROKEN_PIPE = 141  # the reader went away (128 + SIGPIPE)


def _field_name(named: Any) -> Any:
    """An input field's name, whether a message names it bare (keys), by the option that
    typed it (a Setting: --keys) or in the place it points at (a Message: keys: row 2)."""
    if isinstance(named, Message):
        named = named.fields.get("field")
    return named.name if isinstance(named, Setting) else named


class AttnError(Exception):
    """Something the user can fix; the message says what, where and how. Its text is the
    English msgid, its fields are data (numbers, names, a Setting), so that it is said in
    the language and on the surface that shows it:

        raise ShapeError(_("w_o has {rows} rows; expected {d}"), rows=4, d=8)
    """

    exit_code = ExitStatus.INPUT_ERROR

    def __init__(self, text: str, /, **fields: Any) -> None:
        # `about=(…)`: the input fields the error is about, beyond the one it names as data
        # (`field`, `name`): a query whose size is not the keys' is about both. Not a field
        # of the message.
        self._about: tuple[str, ...] = tuple(_field_name(name) for name in fields.pop("about", ()))
        self.said = Message(text, **fields)
        super().__init__(self.said.said())

    @property
    def about(self) -> frozenset[str]:
        """The input fields (query, keys, target…) this error is about: those its raise site
        declares and the one its message names as data, its `field`, `name` or `where` (a
        field named bare, by its option or in a place: `keys is empty`, `keys: row 2`)."""
        named = {_field_name(self.fields.get(key)) for key in ("field", "name", "where")}
        return frozenset(self._about) | {name for name in named if isinstance(name, str)}

    @property
    def msgid(self) -> str:
        """The message's msgid: what a test matches, whatever the wording."""
        return self.said.msgid

    @property
    def fields(self) -> dict[str, Any]:
        return self.said.fields

    def message(self, lang: str, surface: str = "cli") -> str:
        """The message in `lang`, as `surface` (the command line, Python) names settings."""
        return self.said.said(lang, surface)


# Each kind is also the exception Python raises for its fault, so that a caller who catches
# ValueError or TypeError around a call keeps working.


class InputError(AttnError, ValueError):
    """The input could not be read or parsed: a path, JSON text, a number or a field."""


class ShapeError(AttnError, ValueError):
    """Arrays that were read fine but do not fit together (lengths, rows, columns)."""


class OptionError(AttnError, ValueError):
    """An option value outside what the command accepts."""


class OptionTypeError(OptionError, TypeError):
    """An option or keyword given a value of another type (grid='no', layer='2')."""


class Interrupted(AttnError):
    """Ctrl-C stopped a long run (attn train); the message says what was kept."""

    exit_code = ExitStatus.INTERRUPTED


# The words of messages: how a message quotes what the user gave and counts things.


PATH_SHOWN = 200  # a file's path given on the command line is echoed up to this length


def shown(text: str, limit: int = 40) -> str:
    """User text cut for an error message: a 4,000-digit number is not echoed whole."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def first_line(error: BaseException, limit: int | None = None) -> str:
    """What a library's exception says, for the reason in attn's own line: its first line
    (cut to `limit` when given), or the exception's name when it says nothing."""
    text = str(error).strip().splitlines()
    if not text:
        return type(error).__name__
    return text[0] if limit is None else shown(text[0], limit)


_NOUNS = {
    "number": _n("{count} number", "{count} numbers"),
    "row": _n("{count} row", "{count} rows"),
    "column": _n("{count} column", "{count} columns"),
    "name": _n("{count} name", "{count} names"),
    "core": _n("{count} core", "{count} cores"),
    "head": _n("{count} head", "{count} heads"),
}


LARGEST_WHOLE = 2**63 - 1  # a count, a size or an index: numpy's int64 holds it
LARGEST_SEED = 2**64 - 1  # a seed: numpy's SeedSequence takes 64 bits, as --seed does


def check_whole(name: str | Setting, value: object) -> None:
    """A count given from Python (top_k=2.5, block=2.5) is a whole number, refused in one
    line before numpy would fail on it with its own words (`name`: the keyword, or the
    Setting that names it with its value)."""
    if isinstance(value, bool) or not isinstance(value, int):
        named = name if isinstance(name, Setting) else Setting(name, value)
        raise OptionTypeError(_("{setting}: give a whole number"), setting=named)


def count(amount: int, noun: str) -> Message:
    """'1 row', '3 rows' ('1 fila', '3 filas'): counts as a person would write them, in the
    language the message is said in."""
    singular, plural = _NOUNS[noun]
    return Message.counted(singular, plural, amount)


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as messages write it: 3 × 2."""
    return " × ".join(map(str, shape))


def install_command(package: str, prefix: str | None = None, python: str | None = None) -> str:
    """The command that installs `package` beside attn, however attn was installed: into
    pipx's or uv's own environment for attn, else with the pip of the Python attn runs on
    (a clone installed with pip install -e . included, where the extra's name means nothing
    to pip)."""
    import shlex
    import sys
    from pathlib import PurePath

    parts = PurePath(prefix or sys.prefix).parts
    if "pipx" in parts:
        return f"pipx inject attncli {package}"
    if "uv" in parts and "tools" in parts:
        return f"uv tool install attncli --with {package}"
    return f"{shlex.quote(python or sys.executable or 'python3')} -m pip install {package}"


def imported(module: str, what: Message) -> Any:
    """The module `module`, imported when `what` (a GGUF file, a model's tokenizer) needs
    it; a package that is not installed is refused with the command that installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.partition(".")[0]
        raise InputError(
            _("{what} needs the {package} package: {command}"),
            what=what,
            package=package,
            command=install_command(package),
        ) from None
