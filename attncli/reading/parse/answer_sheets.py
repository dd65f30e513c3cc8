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
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attncli.core.exercise import ANSWER_COLUMNS as COLUMNS
from attncli.core.exercise import ANSWER_SHEET_KEY as FORMAT_KEY
from attncli.core.exercise import SHEET_KINDS
from attncli.errors import LARGEST_SEED, LARGEST_WHOLE, PATH_SHOWN, InputError, first_line, shown
from attncli.messages import Message, _
from attncli.reading.parse.values import WRONG, kind_of, whole_number

# Each field that says which sheet a file answers, how its text is read (None: it is not
# one of its values) and what it takes, for the refusal of one that is not.
WHOLE = Message(_("a whole number"))
SHEET_FIELDS: dict[str, tuple[Callable[[str], Any], Message | None]] = {
    "seed": (lambda text: whole_number(text, 0, LARGEST_SEED), WHOLE),
    "sheet": (lambda text: text if text in SHEET_KINDS else None,
              Message(_("one of {kinds}"), kinds=", ".join(SHEET_KINDS))),
    "size": (lambda text: whole_number(text, 0, LARGEST_WHOLE), WHOLE),
    "dim": (lambda text: whole_number(text, 0, LARGEST_WHOLE), WHOLE),
    "lang": (lambda text: text, None),  # which languages attn speaks: api/checking says
}  # fmt: skip


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
    if not Path(path).exists():  # said here: the file reader's hint speaks of -i
        raise InputError(
            _("cannot read '{path}': no such file (name the answer files the students filled)"),
            path=path,
        )
    import stat

    if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO no one writes would wait forever
        raise InputError(
            _("{path}: not a file (a pipe or a device); name the answer files the students filled"),
            path=shown(path, PATH_SHOWN),
        )
    if suffix == ".json":
        text, _source = read_text(path, None, None)
        return _from_json(path, text)
    return _from_csv(path, _csv_text(path))


def _csv_text(path: str) -> str:
    """The CSV's text: UTF-8 (its byte-order mark dropped), else Windows-1252, the code page
    a Spanish or English Excel saves 'CSV (comma delimited)' in, or UTF-16 where it starts
    with that byte-order mark; bytes none reads are refused by the UTF-8 reader's own
    line."""
    from attncli.reading.parse.sources import decoded, read_raw

    data, source = read_raw(path, None, None)
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
    answers = document.get("answers")
    if not isinstance(answers, list) or not all(isinstance(item, dict) for item in answers):
        raise InputError(
            _("{path}: answers is to be a list of blanks, each {{step, token, answer}}"),
            path=path,
        )
    rows = []
    for number, item in enumerate(answers, 1):
        line = f"{path}: answers[{number}]"
        answer = item.get("answer")
        rows.append(_row({**item, "answer": _as_text(answer, line)}, line))
    sheet = {name: str(document[name]) for name in SHEET_FIELDS if document.get(name) is not None}
    student = document.get("student") or ""
    if not isinstance(student, str):
        raise InputError(WRONG, where=f"{path}: student", kind=kind_of(student),
                         expected=Message(_("a name, in quotes")))  # fmt: skip
    return _answer_file(path, student.strip(), sheet, rows, path)


def _as_text(answer: Any, line: str) -> str:
    """A JSON answer as the student would have typed it: a number, a list of numbers."""
    if answer is None:
        return ""
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        return repr(float(answer)) if isinstance(answer, float) else str(answer)
    if isinstance(answer, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in answer
    ):
        import json

        return json.dumps(answer)
    if isinstance(answer, str):
        return answer
    expected = Message(_("an answer: a number, a list of numbers or text"))
    raise InputError(WRONG, where=line, kind=kind_of(answer), expected=expected)


def _row(record: dict[str, Any], line: str) -> AnswerRow:
    step = record.get("step")
    if not isinstance(step, str) or not step.strip():
        raise InputError(_("{line}: no step; each row names its blank's step"), line=line)
    token = record.get("token") or ""
    if not isinstance(token, str):
        raise InputError(WRONG, where=f"{line}: token", kind=kind_of(token),
                         expected=Message(_("a word, in quotes")))  # fmt: skip
    return AnswerRow(step.strip(), token.strip(), str(record.get("answer") or "").strip(), line)


def _answer_file(
    path: str, student: str, sheet: dict[str, str], rows: list[AnswerRow], where: str
) -> AnswerFile:
    read: dict[str, Any] = {}
    for name, (reader, takes) in SHEET_FIELDS.items():
        if name not in sheet:
            raise InputError(
                _("{where}: {field} is not given; the answer sheet attn exercise wrote has it"),
                where=where,
                field=name,
            )
        read[name] = reader(sheet[name])
        if read[name] is None:
            raise InputError(WRONG, where=f"{where}: {name}", kind=shown(sheet[name]),
                             expected=takes)  # fmt: skip
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
