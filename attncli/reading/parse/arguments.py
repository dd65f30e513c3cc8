"""Numbers typed on the command line: option text ('1,0', '2,1;0,2' or JSON) and
arguments (attn softmax 2 0 1) to the JSON values a document would hold."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from attncli.errors import LARGEST_WHOLE, AttnError, InputError, OptionError, ShapeError, shown
from attncli.messages import Message, Setting, _, component_mark, decimal_mark, row_mark
from attncli.reading.parse.json_text import _integer, parse_json
from attncli.reading.parse.values import WRONG, _where


def parse_inline(text: str, field: str, lang: str = "en") -> Any:
    """An option's text to a JSON value: JSON ('[[2,1],[0,2]]'), or numbers as the language
    writes them: in English '1,0' and rows as '2,1;0,2'; where the comma is the decimal mark
    (Spanish) '0,5; 1' and rows as '2; 0,5 | 0; 2' (messages.component_mark, row_mark)."""
    stripped = text.strip()
    option = Setting(field).option  # --grad-output
    if stripped.startswith(("[", "{")):
        if decimal_mark(lang) == ",":
            _refuse_mixed_commas(stripped, field)
        return parse_json(stripped, option)
    between, rows_between = component_mark(lang), row_mark(lang)
    if between != ",":
        _refuse_two_readings(stripped, option, between, rows_between)
    rows = stripped.split(rows_between)
    parsed = [
        [_inline_number(item, option, lang, (row if len(rows) > 1 else None, position))
         for position, item in enumerate(text.split(between), 1)]
        for row, text in enumerate(rows, 1)
    ]  # fmt: skip
    return parsed[0] if len(parsed) == 1 else parsed


# A row of a JSON list: the text between a '[' and its ']' with no bracket inside.
_INNERMOST = re.compile(r"\[([^\[\]]*)\]")
_UNSPACED_COMMA = re.compile(r"\d,\d")


def _refuse_mixed_commas(text: str, field: str) -> None:
    """Where the comma is the decimal mark, a JSON row with commas both spaced and not,
    '[0,5, 1]', may be (0.5, 1) typed with a decimal comma or JSON's three numbers 0, 5, 1:
    refused, naming both readings. A row written one way throughout ('[0, 1]', as the
    course writes a vector, or '[2,1]') is JSON."""
    for row in _INNERMOST.findall(text):
        if _UNSPACED_COMMA.search(row) and re.search(r",\s", row):
            numbers = [piece.strip() for piece in row.split(",")]
            decimals = [piece.strip() for piece in re.split(r",\s", row)]
            meant = _UNSPACED_COMMA.sub(lambda match: match.group().replace(",", "."), row)
            raise InputError(
                _(
                    "{option} [{row}] reads two ways: JSON's numbers {json}, or {meant} with "
                    "decimal commas; in JSON a decimal takes a point, [{dotted}]"
                ),
                option=Setting(field).option,
                row=shown(row),
                json=shown(f"({', '.join(numbers)})"),
                meant=shown(f"({'; '.join(decimals)})"),
                dotted=shown(meant),
                about=(field,),
            )


def _refuse_two_readings(text: str, option: str, between: str, rows_between: str) -> None:
    """Where the comma is the decimal mark, '1,0;0,1' is two numbers (1,0 and 0,1), but typed
    as an English line it would be a matrix's two rows: text that reads both ways is refused,
    naming both, rather than read as one of them. The numbers as a Spanish screen prints
    them, a space after each ';' ('1,50; 1,50'), read one way only."""
    pieces = text.split(between)
    spaced = any(piece[:1].isspace() for piece in pieces[1:])
    if rows_between in text or len(pieces) < 2 or spaced:
        return
    if not all(comma_decimal(piece) for piece in pieces):
        return
    numbers = [piece.strip() for piece in pieces]
    rows = [piece.replace(",", ", ") for piece in numbers]
    raise InputError(
        _(
            "{option} {text!r} reads two ways: the numbers {numbers}, or the rows {rows} "
            "written the English way; write the rows with '{rows_mark}' between them, or "
            "give JSON"
        ),
        option=option,
        text=shown(text),
        numbers=f"({(between + ' ').join(numbers)})",
        rows=" | ".join(f"({row})" for row in rows),
        rows_mark=rows_between,
    )


def as_typed(text: str, where: Message | str, lang: str) -> str:
    """A number typed in `lang` as Python reads it: stripped, a decimal comma made a point
    where the comma is the decimal mark; '1.000', which reads two ways there, refused."""
    text = text.strip()
    refuse_thousands_point(text, where, lang)
    return text.replace(",", ".") if decimal_mark(lang) == "," and comma_decimal(text) else text


def typed_number(
    text: str,
    where: Any,
    lang: str,
    expected: Message,
    comma: Message | None = None,
    finite: bool = False,
) -> float:
    """The one reader of a number typed on the command line (an option of one number, an
    argument, a cell of option text): `text` as `lang` writes it (as_typed), else refused in
    the WRONG template with what `where` takes, `expected` (`comma`: what it takes where the
    text holds a comma, a decimal comma typed in a language that reads none). `finite`:
    NaN and +inf refused too (-inf marks a masked score); elsewhere they are the caller's."""
    stripped = as_typed(text, where, lang)
    try:
        number = float(stripped)
        if not (finite and (math.isnan(number) or number == math.inf)):
            return number
    except ValueError:
        expected = comma if comma is not None and "," in stripped else expected
    raise InputError(WRONG, where=where, kind=shown(repr(stripped)), expected=expected)


def _inline_number(item: str, option: str, lang: str, at: tuple[int | None, int]) -> Any:
    """A cell of option text: an integer kept as JSON reads it, else a number."""
    typed = as_typed(item, option, lang)
    if re.fullmatch(r"[-+]?[0-9]+", typed):
        return _integer(typed)
    expected = Message(_("a number (numbers separated by commas, rows by ';', decimals with a "
                         "point, e.g. {option} '2,0.5;0,2', or JSON)"), option=option)  # fmt: skip
    return typed_number(typed, _where(option, *at), lang, expected)


# A number a Spanish reader writes with a point between thousands (1.000, 12.500.000) and an
# English one with a decimal point (1.000 = 1): where the comma is the decimal mark, it
# reads two ways.
THOUSANDS_POINT = re.compile(r"[-+]?[1-9]\d{0,2}(\.\d{3})+")


def refuse_thousands_point(text: str, where: Message | str, lang: str) -> None:
    """Under a language whose decimal mark is the comma, '1.000' (one thousand, or one)
    is refused, naming both readings, rather than read as one of them."""
    if decimal_mark(lang) != "," or THOUSANDS_POINT.fullmatch(text.strip()) is None:
        return
    stripped = text.strip()
    raise InputError(
        _(
            "{where} {text!r} reads two ways: {thousands} with '.' between thousands, or "
            "{decimal} with a decimal point; write {plain} for the first, {comma} for the second"
        ),
        where=where,
        text=shown(stripped),
        thousands=stripped.replace(".", ""),
        decimal=float(stripped),
        plain=stripped.replace(".", ""),
        comma=stripped.replace(".", ","),
    )


# A number written with a decimal comma, as attn prints numbers in Spanish: 0,5 or -1,25.
COMMA_DECIMAL = re.compile(r"[-+]?\d*,\d+")


def comma_decimal(text: str) -> bool:
    return COMMA_DECIMAL.fullmatch(text.strip()) is not None


# Inside an option a comma separates numbers ('1,0'), so '0,5;1' typed for (0.5, 1) is read
# as rows of other lengths, and the error that follows is about shapes. Text that may have
# been typed so: every piece between ';' (or spaces) one number, some with a decimal comma.
def _typed_with_decimal_commas(text: str) -> bool:
    pieces = [piece for piece in re.split(r"[;\s]+", text.strip()) if piece]
    whole = re.compile(r"[-+]?\d+")
    return any(map(comma_decimal, pieces)) and all(
        comma_decimal(piece) or whole.fullmatch(piece) for piece in pieces
    )


# The same field under either of its names: a query's size error is about --queries too.
_SAME_FIELD = {"queries": "query", "query": "queries"}


def _about(error: AttnError, name: str) -> bool:
    """Whether `error` is about the input field `name`, as its raise site declared it."""
    return name in error.about or _SAME_FIELD.get(name, "") in error.about


@contextmanager
def decimal_commas_told(inline: dict[str, Any], lang: str = "en") -> Iterator[None]:
    """An error about numbers given in options whose commas may not mean what the language
    reads them as also says how to type them. In English, where a comma separates numbers,
    '0,5;1' or '0,665;0,090' may have been typed with decimal commas: write them with a
    point, or JSON. Where the comma is the decimal mark (Spanish), '0,1' is one number: a
    shape error about its option says so, and how a vector is written there ('0; 1', or
    JSON [0, 1]), rather than how to score vectors of other sizes."""
    spanish = component_mark(lang) != ","
    typed = [
        (name, text)
        for name, text in inline.items()
        if name != "tokens"
        and isinstance(text, str)
        and (_one_decimal_comma(text) if spanish else _typed_with_decimal_commas(text))
    ]
    try:
        yield
    except (InputError, ShapeError) as error:
        told = _told_how_to_type(error, typed, lang)
        if told is None:
            raise
        raise told from None


def _told_how_to_type(
    error: InputError | ShapeError, typed: list[tuple[str, str]], lang: str
) -> AttnError | None:
    """`error` saying how to type the numbers of the option it is about, among those whose
    commas may not mean what the language reads them as (`typed`); None when it is about
    none of them, or (where the comma is the decimal mark) about no shape."""
    # Told only of an option the error is about: a result read back that was edited, or
    # another option's size, says nothing of how --target 8,2 was typed.
    about = [(name, text) for name, text in typed if _about(error, name)]
    if not about:
        return None
    name, text = about[0]
    option = Setting(name).option
    if component_mark(lang) != ",":
        return _one_number(name, text, lang) if isinstance(error, ShapeError) else None
    meant = shown(repr(text.replace(",", ".").replace(";", ",")))  # what it may have meant
    return type(error)(
        _(
            "{error} (if {option} {given} holds decimal commas: inside an option a comma "
            "separates numbers and ';' rows, so write decimals with a point, {option} "
            "{meant}, or give JSON)"
        ),
        error=error.said,
        option=option,
        given=shown(repr(text)),
        meant=meant,
    )


def _one_decimal_comma(text: str) -> bool:
    """Option text that a language with the decimal comma reads as one number, where it
    may have been meant for a vector: '0,1', '2,5,1' is no number at all."""
    return comma_decimal(text) and not text.strip().startswith(("[", "{"))


def _one_number(field: str, text: str, lang: str) -> ShapeError:
    """'--query 0,1' under a decimal comma: one number, where a vector was wanted."""
    option = Setting(field).option
    pieces = [piece.strip() for piece in text.split(",")]
    between = component_mark(lang) + " "
    return ShapeError(
        _(
            "{option} {given} is one number, {number}, where a vector is wanted (the comma is "
            "the decimal mark here); write a vector's numbers with '{mark}' between them, "
            "{option} {vector}, or as JSON, {option} {json}"
        ),
        option=option,
        given=shown(repr(text.strip())),
        number=text.strip(),
        mark=component_mark(lang),
        vector=shown(repr(between.join(pieces))),
        json=shown(repr(f"[{', '.join(pieces)}]")),
        about=(field,),
    )


# What an option of one number takes where a decimal comma was typed in English.
POINT = _(
    "a number with a decimal point, {option} {dotted} (a decimal comma is read with --lang es)"
)


def read_decimal(text: str, option: str, lang: str, example: str = "0.5") -> float:
    """The one number an option takes: 0.5, or in Spanish also 0,5 (the decimal comma attn
    prints). In English a decimal comma is refused with the two ways to type it; text that
    is no number, with `example` (the option's default, a value it takes)."""
    dotted = text.strip().replace(",", ".")
    comma = Message(POINT, option=option, dotted=dotted) if comma_decimal(text) else None
    expected = Message(_("a number, e.g. {option} {example}"), option=option, example=example)
    return typed_number(text, option, lang, expected, comma)


def scores_from_arguments(arguments: list[str], option: str | None, lang: str = "en") -> Any:
    """Scores typed as arguments (attn softmax 2 0 1) or the --scores text; not both."""
    if arguments and option is not None:
        raise InputError(
            _("scores given twice: as arguments and with --scores; keep one"),
        )
    return parse_number_args(arguments, lang=lang) if arguments else option


def parse_number_args(arguments: list[str], field: str = "scores", lang: str = "en") -> list[float]:
    """Numbers typed as arguments ('2 0 1', '-inf' for masked) to floats, as a JSON list
    would; in Spanish a decimal comma too ('2,5 0 1': spaces separate the numbers)."""
    numbers: list[float] = []
    for position, text in enumerate(arguments, 1):
        if text.startswith("--"):
            raise InputError(
                _("no such option: {text} (see --help)"),
                text=text,
            )
        where = Message(_("{field}: argument {position}"), field=field, position=position)
        comma = Message(_("numbers separated by spaces, decimals with a point (2.5 0 1), or "
                          "with a comma under --lang es (2,5 0 1)"))  # fmt: skip
        finite = Message(_("a finite number (or -inf for masked)"))
        number = typed_number(text, where, lang, finite, comma, finite=True)
        numbers.append(number)
    return numbers


def parse_dks(text: str) -> list[int]:
    """'8,64,512' to [8, 64, 512], each a whole number of 1 or more (the one reader of whole
    numbers in text, values.whole_number)."""
    from attncli.reading.parse.values import whole_number

    values = []
    for item, part in enumerate(text.split(","), 1):
        value = whole_number(part, 1)
        if value is None:
            raise OptionError(
                _(
                    "--d-k {text!r}: item {item} is {part!r}; give whole numbers from 1 to "
                    "{most} separated by commas, e.g. 8,64,512"
                ),
                text=shown(text),
                item=item,
                part=shown(part.strip()),
                most=LARGEST_WHOLE,
            )
        values.append(value)
    return values
