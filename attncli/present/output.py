"""Where results go: the JSON document when piped, a rich console on a terminal."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from attncli.errors import OptionError, shown
from attncli.messages import _

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from attncli.explain.steps import Step
    from attncli.present.format import Format
    from attncli.results.base import Result


@dataclass(frozen=True)
class Output:
    """The output options every command shares."""

    format_name: str | None = None  # "table", "json", or None to choose by where stdout goes
    digits: int | None = None
    lang: str = "en"
    steps: bool = False
    blank: bool = False
    answers: bool = False
    export: str | None = None
    theme: str | None = None  # --theme of an .svg/.html export: light (default) or dark
    tex_fragment: bool = False  # a .tex export as a fragment, not a whole document
    row: int | None = None  # the row --steps explains (1-based), else --token's, else the last
    token: str | None = None
    show: frozenset[str] = frozenset()  # parts of the view shown only when asked (--show)
    fields: tuple[str, ...] | None = None  # --fields: the JSON document's fields to write
    # --blank or --answers as asked of attn exercise (whose screen is always a worksheet): a
    # spreadsheet export then leaves the student's cells empty, its key apart
    sheet_blank: bool = False

    def format(self) -> Format:
        from attncli.present.format import Format

        return Format.chosen(self.digits, self.lang, self.blank, self.answers)


# The parts --show adds to the default view (header, scores, weights, output).
SHOWABLE = ("x", "w", "q", "k", "v", "shapes")


def parse_show(text: str | None) -> frozenset[str]:
    """--show 'x,w' or 'all' to the set of parts to add; an unknown part is refused."""
    if text is None:
        return frozenset()
    asked = {part.strip().lower() for part in text.split(",") if part.strip()}
    if "all" in asked:
        return frozenset(SHOWABLE)
    check_names("--show", text, sorted(asked), SHOWABLE + ("all",))
    return frozenset(asked)


def parse_fields(text: str | None) -> tuple[str, ...] | None:
    """--fields 'weights,output' to ('weights', 'output'); None when not given."""
    if text is None:
        return None
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not names:
        raise OptionError(
            _("--fields is empty; name fields of the JSON document, e.g. --fields weights,output")
        )
    return names


def selected(document: dict[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
    """The document's `fields`, in that order; a name it lacks is an error listing them."""
    if fields is None:
        return document
    check_names("--fields", ",".join(fields), fields, tuple(document))
    return {name: document[name] for name in fields}


def check_names(option: str, text: str, asked: Sequence[str], known: tuple[str, ...]) -> None:
    """The names a list option was given (`text`, read as `asked`: --show's parts, --fields'
    fields), each one of `known`; none at all, or any other, refused in one line naming
    them and the names there are."""
    unknown = [name for name in asked if name not in known]
    if unknown or not asked:
        said = _("{option} {text}: name at least one of {known}")
        if unknown:
            said = _(
                "{option} {text}: {unknown} is not one of {known}; name them separated by commas"
            )
        raise OptionError(
            said,
            option=option,
            text=shown(repr(text)),
            unknown=shown(", ".join(unknown)),
            known=", ".join(known),
        )


def emit(
    result: Result,
    output: Output,
    explanation: list[Step] | None = None,
    document: dict[str, Any] | None = None,
    intro: list[RenderableType] | None = None,
    checks: dict[str, float] | None = None,
) -> None:
    """Print the result's JSON document, its explanation (--steps) or its tables.

    --steps prints the explanation wherever stdout goes (plain text off a terminal);
    with an explicit --json the steps travel inside the document instead. --export
    writes the terminal's view to a file first, so a failure leaves stdout empty.
    """
    import sys

    explanation = explanation or []
    document = result.to_document() if document is None else document
    if checks is not None:
        document = {**document, "check": checks}
    explicit_json = output.format_name == "json"
    if output.steps and explicit_json:
        from attncli.explain.steps import steps_as_data

        document = {**document, "steps": steps_as_data(explanation)}
    steps_shown = output.steps and not explicit_json
    as_json = explicit_json or (not steps_shown and wants_json(output.format_name, sys.stdout))
    if output.fields is not None:  # --fields asks for JSON, wherever it goes
        document, as_json = selected(document, output.fields), True
    view: list[RenderableType] = []
    spreadsheet = output.export is not None and output.export.lower().endswith(".xlsx")
    if spreadsheet:
        from attncli.present.export_xlsx import check_xlsx

        check_xlsx(result, output.export)  # type: ignore[arg-type]
    if (output.export and not spreadsheet) or not as_json:
        from attncli.present.views import result_steps_view, view_of

        fmt = output.format()
        if explanation:
            view = result_steps_view(result, explanation, fmt, intro)
        else:
            view = view_of(result, fmt, output.show)
        if checks is not None:
            from attncli.present.views import check_lines

            view.append(check_lines(checks, fmt))
    if output.export:
        exported(result, output, view)
    if as_json:
        write_json(sys.stdout, document)
    else:
        print_renderables(sys.stdout, view)


def exported(result: Result, output: Output, view: list[RenderableType] | None = None) -> None:
    """Write --export's file: the spreadsheet of `result`, or `view` (the terminal's, by
    default the result's own) as the file's kind draws it."""
    if output.export is None:
        return
    if output.export.lower().endswith(".xlsx"):
        from attncli.present.export_xlsx import workbook_bytes
        from attncli.present.written import write_file

        # what a spreadsheet holds was checked before any work (emit, attn check's start)
        workbook = workbook_bytes(result, output.format(), output.sheet_blank)
        write_file(output.export, workbook, "--export")
        return
    from attncli.present.export import export

    if view is None:
        from attncli.present.views import view_of

        view = view_of(result, output.format(), output.show)
    export(view, output.export, output.theme, output.tex_fragment)


def _as_list(value: Any) -> Any:
    """What orjson cannot write itself (a non-contiguous array, a numpy scalar) as plain values;
    a NaN or Infinity literal carried from the input as null."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "literal"):
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


CHUNK_NUMBERS = 1 << 20  # a larger array is written a block of rows at a time


def json_pieces(document: dict[str, Any], chunk: int = CHUNK_NUMBERS) -> Iterator[bytes]:
    """The document as UTF-8 JSON, in pieces: floats at full precision (shortest round-trip
    form), -inf (a masked score) as null, which the parser reads back as masked.

    A large array is written a block of rows at a time, so that the text of a T × T grid
    never exists whole (it is two and a half times the grid); the bytes are the same as
    orjson.dumps of the whole document.
    """
    import orjson

    option = orjson.OPT_SERIALIZE_NUMPY
    yield b"{"
    for index, (key, value) in enumerate(document.items()):
        yield (b"," if index else b"") + orjson.dumps(key) + b":"
        if getattr(value, "ndim", 0) >= 2 and value.size > chunk:
            rows = max(1, chunk // max(1, value[0].size))
            yield b"["
            for start in range(0, len(value), rows):
                text = orjson.dumps(value[start : start + rows], default=_as_list, option=option)
                yield (b"," if start else b"") + text[1:-1]
            yield b"]"
        else:
            yield orjson.dumps(value, default=_as_list, option=option)
    yield b"}"


HELD_BYTES = 1 << 24  # a document up to 16 MB is written once whole, never half


def write_json(stream: IO[str], document: dict[str, Any]) -> None:
    """The document and a newline; bytes straight to the stream's buffer when it has one.
    Its first HELD_BYTES are held until made, so that a document that fails to be written
    leaves nothing on stdout; only a larger one (a long input's grid) is streamed."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(b"".join(json_pieces(document)).decode() + "\n")
        return
    stream.flush()
    held: list[bytes] | None = []
    size = 0
    for piece in json_pieces(document):
        if held is None:
            write_all(buffer, piece)
            continue
        held.append(piece)
        size += len(piece)
        if size >= HELD_BYTES:
            write_all(buffer, b"".join(held))
            held = None
    write_all(buffer, b"".join(held or ()) + b"\n")
    buffer.flush()


def write_all(buffer: Any, data: bytes) -> None:
    """Write every byte: a large write to a pipe can return short when the reader goes
    away, and the next write then raises BrokenPipeError instead of cutting the output
    silently."""
    view = memoryview(data)
    while view:
        written = buffer.write(view)
        if not written:
            raise BrokenPipeError("the reader closed the pipe")
        view = view[written:]


def is_terminal(stream: IO[str]) -> bool:
    """True when the stream is an interactive terminal."""
    try:
        return stream.isatty()
    except (ValueError, AttributeError):
        return False


def wants_json(format_name: str | None, stream: IO[str]) -> bool:
    """--format json, else JSON exactly when stdout is not a terminal."""
    if format_name is not None:
        return format_name == "json"
    return not is_terminal(stream)


MIN_WIDTH = 40  # narrower than this, tables are drawn 40 wide and the terminal wraps them
PIPE_WIDTH = 80  # plain text to a file or a pipe when no terminal says its width


def _terminal_width(stream: IO[str]) -> int | None:
    """The columns of the terminal `stream` is, None when it is none."""
    if not is_terminal(stream):
        return None
    try:
        return os.get_terminal_size(stream.fileno()).columns or None
    except (OSError, ValueError):  # a terminal that does not say its size
        return None


def console_width(stream: IO[str], errors: IO[str] | None = None) -> int:
    """The width to draw for: COLUMNS, else the terminal's; piped (`| less`, `| head`,
    `> notes.txt`), the terminal the user is in, which stderr still is (`errors`), else
    PIPE_WIDTH; never below MIN_WIDTH, where a table would have no room left for its
    numbers."""
    import sys

    columns = os.environ.get("COLUMNS", "")
    if columns.strip().isdigit():
        width = int(columns)
    elif is_terminal(stream):
        width = _terminal_width(stream) or 80
    else:
        width = _terminal_width(sys.stderr if errors is None else errors) or PIPE_WIDTH
    return max(width, MIN_WIDTH)


def console(stream: IO[str]) -> Console:
    """A rich console for `stream`: colour on a terminal (unless NO_COLOR), plain text elsewhere."""
    from rich.console import Console

    return Console(
        file=stream, width=console_width(stream), highlight=False, soft_wrap=False, emoji=False
    )


def print_renderables(stream: IO[str], renderables: list[RenderableType]) -> None:
    """Render everything first, then write it at once, so a failure never leaves half a table.
    Off a terminal (a file, a pipe) every line ends at its last character: a table's padding
    is no trailing space in a file."""
    target = console(stream)
    with target.capture() as capture:
        for renderable in renderables:
            target.print(renderable)
    text = capture.get()
    if not is_terminal(stream):
        text = "\n".join(line.rstrip(" ") for line in text.split("\n"))
    stream.write(text)
    stream.flush()


@contextmanager
def progress_on_stderr(lang: str) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress bar on stderr that names each stage of a long run and counts its work,
    when stderr is a terminal (None, and rich.progress never imported, elsewhere).

    The callback hears (stage, done, total), the stage a phrase key with its field:
    "progress_timing:additive".
    """
    import sys

    if not is_terminal(sys.stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from attncli.present.language import say

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("…", total=None)

        def show(stage: str, done: int, total: int) -> None:
            key, method = stage.split(":")
            bar.update(task, description=say(lang, key, method=method), completed=done,
                       total=total)  # fmt: skip

        yield show
