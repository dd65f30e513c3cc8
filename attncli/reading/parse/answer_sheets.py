"""A student's filled answer file (CSV or JSON, as attn exercise --answer-sheet writes it
empty) read into what it says: whose it is, which sheet, and each blank's answer as typed.

The CSV has a header row and one row per blank:

    student,seed,sheet,size,dim,lang,step,token,question,answer

(or ';' between the cells, as a spreadsheet that writes decimal commas saves it).

`seed`, `sheet` (a score method's name, or selfattn), `size` and `dim` say which
sheet attn exercise made; `lang` how its numbers are written (0,665 in Spanish); `step` and
`token` name the blank (`question` says it in words, for the student); `answer` is what the
student wrote, left empty for a blank not done. `student` is the student's name, on any
row (the file's name when none is given). The JSON holds the same: the sheet's fields at
the top, `answers` a list of {step, token, question, answer}, an answer a number, a list of
numbers, text as the student writes it, or null.

Nothing here knows the blanks of a sheet: api/checking holds the rows against them.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attncli.core.exercise import ANSWER_COLUMNS as COLUMNS
from attncli.core.exercise import ANSWER_SHEET_KEY as FORMAT_KEY
from attncli.core.exercise import SHEET_KINDS
from attncli.errors import LARGEST_SEED, LARGEST_WHOLE, InputError, first_line, shown
from attncli.messages import Message, _, languages
from attncli.reading.parse.values import WRONG, kind_of, whole_number


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _whole(most: int) -> Callable[[Any], int | None]:
    return lambda text: whole_number(text, 0, most)


def _as_text(answer: Any) -> str | None:
    """A JSON answer as the student would have typed it: a number, a list of numbers, text."""
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        return repr(float(answer)) if isinstance(answer, float) else str(answer)
    if isinstance(answer, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in answer
    ):
        import json

        return json.dumps(answer)
    return _text(answer)


# Each field of an answer file, as one table its reader (_field) holds every value to: how
# its value is read (None: it is not one of its values), what it takes, for the refusal of
# one that is not, and whether the file must give it. The sheet's fields say which sheet
# the file answers (a JSON file's numbers read as their text); a row's, which blank and what
# the student wrote.
WHOLE = Message(_("a whole number"))
FIELDS: dict[str, tuple[Callable[[Any], Any], Message, bool]] = {
    "student": (_text, Message(_("a name, in quotes")), False),
    "seed": (_whole(LARGEST_SEED), WHOLE, True),
    "sheet": (lambda text: text if text in SHEET_KINDS else None,
              Message(_("one of {kinds}"), kinds=", ".join(SHEET_KINDS)), True),
    "size": (_whole(LARGEST_WHOLE), WHOLE, True),
    "dim": (_whole(LARGEST_WHOLE), WHOLE, True),
    "lang": (lambda text: text if text in languages() else None,
             Message(_("one of {languages}"), languages=", ".join(languages())), True),
    "step": (_text, Message(_("a step's name, in quotes")), True),
    "token": (_text, Message(_("a word, in quotes")), False),  # '' for the total, the output
    "answer": (_as_text, Message(_("an answer: a number, a list of numbers or text")), False),
    "answers": (lambda items: items if isinstance(items, list)
                and all(isinstance(item, dict) for item in items) else None,
                Message(_("a list of blanks, each with its step, token and answer")), True),
}  # fmt: skip
SHEET_FIELDS = ("seed", "sheet", "size", "dim", "lang")
# What to give in place of an answer file that is not there.
ANSWER_FILES = _("name the answer files the students filled")


def _field(record: dict[str, Any], name: str, where: str) -> Any:
    """The field `name` of `record` read by FIELDS ('' for one left out that may be); one
    the file must give and does not, or a value it does not take, refused naming where."""
    reader, takes, needed = FIELDS[name]
    value = record.get(name)
    value = value.strip() if isinstance(value, str) else value
    if value is None or value == "":
        if needed:
            raise InputError(
                _("{where}: {field} is not given; the answer sheet attn exercise wrote has it"),
                where=where,
                field=name,
            )
        return ""
    read = reader(value)
    if read is None:
        kind = shown(value) if isinstance(value, str) else kind_of(value)
        raise InputError(WRONG, where=f"{where}: {name}", kind=kind, expected=takes)
    return read


@dataclass(frozen=True)
class AnswerRow:
    """One blank of the file: its step, its token ('' for the total and the output) and
    the answer as written ('' when left blank); `line` says where, for messages."""

    step: str
    token: str
    answer: str
    line: str


@dataclass(frozen=True)
class AnswerFile:
    """A filled answer file: the student, the sheet it answers and its rows in order."""

    path: str
    student: str
    seed: int
    sheet: str
    size: int
    dim: int
    lang: str
    rows: tuple[AnswerRow, ...]


def read_answer_file(path: str) -> AnswerFile:
    """The answer file at `path`, .csv or .json, checked field by field."""
    from attncli.reading.parse.opening import check_regular
    from attncli.reading.parse.sources import read_text

    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json"):
        raise InputError(
            _(
                "{path}: an answer file is a .csv or .json, as attn exercise --answer-sheet "
                "writes it"
            ),
            path=path,
        )
    check_regular(path, Message(ANSWER_FILES))  # a FIFO no one writes would wait forever
    if suffix == ".json":
        text, _source = read_text(path, None, None, Message(ANSWER_FILES))
        return _from_json(path, text)
    return _from_csv(path, _csv_text(path))


def _csv_text(path: str) -> str:
    """The CSV's text: UTF-8 (its byte-order mark dropped), else Windows-1252, the code page
    a Spanish or English Excel saves 'CSV (comma delimited)' in, or UTF-16 where it starts
    with that byte-order mark; bytes none reads are refused by the UTF-8 reader's own
    line."""
    from attncli.reading.parse.opening import decoded
    from attncli.reading.parse.sources import read_raw

    data, source = read_raw(path, None, None, Message(ANSWER_FILES))
    if isinstance(data, bytes) and data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:  # Excel's 'Unicode text': UTF-16 with its byte-order mark
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    if isinstance(data, bytes):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                return data.decode("cp1252")
            except UnicodeDecodeError:
                pass
    return decoded(data, source)


def _delimiter(text: str) -> str:
    """What separates the cells: ',' as attn writes the file, ';' as an Excel whose decimal
    mark is the comma (Spanish, French, German…) saves it, or a tab (its 'Unicode text').
    Told by the header line, whose column names hold none of them."""
    header = text[: min((i for i in (text.find("\n"), text.find("\r")) if i >= 0),
                        default=len(text))]  # fmt: skip
    return max((",", ";", "\t"), key=header.count)  # the first, ',', when none is there


def _from_csv(path: str, text: str) -> AnswerFile:
    delimiter = _delimiter(text)
    # newline="": a row may end in \r\n, \n or \r alone (an older Mac's Excel)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        return _read_csv(path, reader, delimiter)
    except csv.Error as error:  # a cell past the csv module's limit of 131,072 characters
        raise InputError(
            _(
                "{line}: not a row of an answer sheet ({reason}); an answer is a number or a "
                "few, as attn exercise --answer-sheet writes the file"
            ),
            line=f"{path}:{reader.reader.line_num}",  # DictReader counts whole rows only
            reason=first_line(error, 60),
        ) from None


def _read_csv(path: str, reader: csv.DictReader[str], delimiter: str) -> AnswerFile:
    header = tuple(reader.fieldnames or ())
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise InputError(
            _("{path}: the header lacks the column {column}; expected {columns}"),
            path=path,
            column=missing[0],
            columns=",".join(COLUMNS),
        )
    records = list(reader)
    if not records:
        raise InputError(_("{path}: no rows under the header; one row per blank"), path=path)
    sheet: dict[str, str] = {}
    rows = []
    for number, record in enumerate(records, 2):  # line 1 is the header
        line = f"{path}:{number}"
        if None in record:  # more cells than columns
            raise InputError(
                _(
                    "{line}: more cells than the header's {count} columns; an answer with a "
                    "'{mark}' in it goes between quotes, as {example}"
                ),
                line=line,
                count=len(header),
                mark=delimiter,
                example='"2,5"' if delimiter == "," else '"2,5; 1"',
            )
        for name in ("student", *SHEET_FIELDS):  # on any row, and the same on every row
            value = (record.get(name) or "").strip()
            if name not in sheet and value:
                sheet[name] = value
            elif value and value != sheet[name]:
                raise InputError(
                    _(
                        "{line}: {field} is {value}, the rows above say {first}; a file holds "
                        "one student's answers to one sheet"
                    ),
                    line=line,
                    field=name,
                    value=value,
                    first=sheet[name],
                )
        rows.append(_row(record, line))
    return _answer_file(path, sheet.pop("student", ""), sheet, rows, f"{path}:2")


def _from_json(path: str, text: str) -> AnswerFile:
    from attncli.reading.parse.json_text import parse_json

    document = parse_json(text, path, Message(_("expected an answer sheet")))
    if not isinstance(document, dict) or FORMAT_KEY not in document:
        raise InputError(
            _("{path}: not an answer sheet (no {key}); make one with attn exercise --answer-sheet"),
            path=path,
            key=FORMAT_KEY,
        )
    answers = _field(document, "answers", path)
    rows = [_row(item, f"{path}: answers[{number}]") for number, item in enumerate(answers, 1)]
    sheet = {name: str(document[name]) for name in SHEET_FIELDS if document.get(name) is not None}
    return _answer_file(path, _field(document, "student", path), sheet, rows, path)


def _row(record: dict[str, Any], line: str) -> AnswerRow:
    step, token, answer = (_field(record, name, line) for name in ("step", "token", "answer"))
    return AnswerRow(step, token, answer, line)


def _answer_file(
    path: str, student: str, sheet: dict[str, str], rows: list[AnswerRow], where: str
) -> AnswerFile:
    read = {name: _field(sheet, name, where) for name in SHEET_FIELDS}
    return AnswerFile(
        path=path,
        student=student or Path(path).stem,
        seed=read["seed"],
        sheet=read["sheet"],
        size=read["size"],
        dim=read["dim"],
        lang=read["lang"],
        rows=tuple(rows),
    )
