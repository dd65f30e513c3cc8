"""A class's sheets come back as files: attn exercise --answer-sheet writes each one empty
(one row per blank), the students fill them, and attn check FILES corrects them all in
one table, with the class's most common mistake; --json for a grade book, --export."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from attncli.api.checking import corrector
from attncli.errors import InputError
from tests.meaning import WRONG, told

COLUMNS = ["student", "seed", "sheet", "size", "dim", "lang", "step", "token", "question",
           "answer"]  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def _written(value, digits: int, lang: str) -> str:
    numbers = [f"{v:.{digits}f}" for v in np.atleast_1d(value)]
    if lang == "es":
        return "; ".join(n.replace(".", ",") for n in numbers)
    return ", ".join(numbers)


def _fill(rows, seed, kind, lang, name, wrong=None):
    """Every blank's right answer (the sheet's digits), `wrong` {index: text} in place."""
    selfattn = kind == "selfattn"
    _sheet, marking = corrector(seed, method="dot" if selfattn else kind, selfattn=selfattn)
    filled = []
    for index, (row, blank) in enumerate(zip(rows, marking.blanks, strict=True)):
        answer = _written(marking.exact(blank), blank.digits, lang)
        if wrong and index in wrong:
            answer = wrong[index]
        filled.append({**row, "answer": answer, "student": name if index == 0 else ""})
    return filled


def test_the_answer_sheet_is_one_row_per_blank_in_the_sheets_order(run, tmp_path):
    target = tmp_path / "hoja.csv"
    result = run("exercise", "--seed", "3", "--count", "3", "--method", "scaled",
                 "--answer-sheet", str(target), "--lang", "es", "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hoja-3.csv", "hoja-4.csv", "hoja-5.csv"]
    for seed in (3, 4, 5):
        rows = _rows(tmp_path / f"hoja-{seed}.csv")
        _sheet, marking = corrector(seed, method="scaled")
        assert [(r["step"], r["seed"], r["sheet"], r["lang"]) for r in rows] == [
            (b.step, str(seed), "scaled", "es") for b in marking.blanks
        ]
        assert all(r["answer"] == "" and r["student"] == "" for r in rows)
        assert rows[0]["question"].startswith("q · k de «")  # said in the sheet's language


def test_a_json_answer_sheet_for_self_attention(run, tmp_path):
    target = tmp_path / "s.json"
    result = run("exercise", "--seed", "3", "--selfattn", "--answer-sheet", str(target),
                 "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)  # the problem on stdout, as without --answer-sheet
    document = json.loads(target.read_text(encoding="utf-8"))
    _sheet, marking = corrector(3, selfattn=True)
    assert document["sheet"] == "selfattn" and document["seed"] == 3
    assert [a["step"] for a in document["answers"]] == [b.step for b in marking.blanks]
    assert all(a["answer"] is None for a in document["answers"])


@pytest.mark.parametrize(
    ("args", "msgid_part"),
    [
        (["--answer-sheet", "hoja.txt"], "unknown kind {kind}; name a file ending in {kinds}"),
        (["--answer-sheet", "hoja.csv", "--online"], "{option} with {beside}: {why}"),
    ],
)
def test_an_answer_sheet_it_cannot_correct_is_refused(run, tmp_path, args, msgid_part):
    args = [str(tmp_path / a) if a.startswith("hoja") else a for a in args]
    result = run("exercise", *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert msgid_part in result.error.msgid
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def class_files(run, tmp_path):
    """Three students of a scaled class set: Ana all right, Luis and Marta forget √d_k at
    the second score (and carry their number on), Marta skips e^x at the third power too."""
    folder = tmp_path / "answers"
    folder.mkdir()
    result = run("exercise", "--seed", "3", "--count", "3", "--method", "scaled",
                 "--answer-sheet", str(folder / "hoja.csv"), "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    students = {"ana": (3, {}), "luis": (4, None), "marta": (5, None)}
    paths = []
    for name, (seed, wrong) in students.items():
        rows = _rows(folder / f"hoja-{seed}.csv")
        sheet, _marking = corrector(seed, method="scaled")
        products = sheet.keys @ sheet.query
        if wrong is None:  # √d_k forgotten at the first score, its e^score from it
            wrong = {4: f"{products[1]:.0f}", 7: f"{math.exp(products[1]):.2f}"}
            if name == "marta":  # and e^x skipped at the third power
                wrong[8] = f"{products[2] / 2:.2f}"
        path = folder / f"{name}.csv"
        _write(path, _fill(rows, seed, "scaled", "en", name.capitalize(), wrong))
        paths.append(str(path))
    return paths


def test_a_class_is_one_table_with_its_most_common_mistake(run, class_files):
    result = run("check", *class_files, "--format", "table")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    for name in ("Ana", "Luis", "Marta"):
        assert sum(line.lstrip().startswith(name) for line in lines) == 1
    ana = next(line for line in lines if line.lstrip().startswith("Ana"))
    assert "✗" not in ana and "17/17" in ana
    assert "√d_k forgotten" in out and "(2 of 3 students)" in out


def test_the_class_as_json_for_a_grade_book(run_json, class_files):
    document = run_json("check", *class_files, "--json")
    students = {s["student"]: s for s in document["students"]}
    assert list(students) == ["Ana", "Luis", "Marta"]
    assert students["Ana"]["right"] == 17 and students["Ana"]["steps"]["score"]["right"] == 3
    assert students["Luis"]["steps"]["score"] == {"right": 2, "answered": 3, "blanks": 3}
    assert students["Luis"]["steps"]["power"]["right"] == 3  # carried from their own score
    assert document["most_common_mistake"] == {
        "mistake": "root_forgotten",
        "step": "score",
        "students": 2,
    }
    kinds = [v["kind"] for v in students["Marta"]["verdicts"]]
    assert kinds.count("wrong") == 2


@pytest.mark.parametrize("suffix", [".html", ".tex"])
def test_the_class_table_exports_like_every_result(run, class_files, tmp_path, suffix):
    target = tmp_path / f"clase{suffix}"
    result = run("check", *class_files, "--export", str(target), "--format", "table")
    assert result.exit_code == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert "Marta" in text and "Luis" in text and "forgotten" in text


def test_a_class_in_spanish(run, class_files):
    out = run("check", *class_files, "--lang", "es", "--format", "table").stdout
    assert "Alumno" in out and "√d_k olvidada" in out and "(2 de 3 alumnos)" in out


def test_json_answer_files_and_a_blank_left_empty(run_json, run, tmp_path):
    target = tmp_path / "s.json"
    assert (
        run("exercise", "--seed", "3", "--selfattn", "--answer-sheet", str(target)).exit_code == 0
    )
    document = json.loads(target.read_text(encoding="utf-8"))
    _sheet, marking = corrector(3, selfattn=True)
    for item, blank in zip(document["answers"], marking.blanks, strict=True):
        value = marking.exact(blank)
        item["answer"] = value.tolist() if blank.vector else round(float(value), blank.digits)
    document["answers"][-1]["answer"] = None  # the output left blank
    document["student"] = "Eva"
    target.write_text(json.dumps(document), encoding="utf-8")
    marked = run_json("check", str(target))["students"][0]
    assert marked["student"] == "Eva" and marked["right"] == len(marking.blanks) - 1
    assert marked["verdicts"][-1]["kind"] == "blank"
    assert marked["steps"]["output"] == {"right": 0, "answered": 0, "blanks": 1}


def _one_file(tmp_path, run, change) -> str:
    target = tmp_path / "hoja.csv"
    assert run("exercise", "--seed", "3", "--answer-sheet", str(target)).exit_code == 0
    rows = _fill(_rows(target), 3, "dot", "en", "Pia")
    text = change(rows)
    if isinstance(text, list):
        _write(target, text)
    else:
        target.write_text(text, encoding="utf-8")
    return str(target)


@pytest.mark.parametrize(
    ("change", "msgid_part"),
    [
        (lambda rows: "seed,step\n3,score\n", "the header lacks the column"),
        (lambda rows: rows[:-1], "rows of answers; sheet {seed} has {blanks} blanks"),
        (lambda rows: [rows[1], rows[0], *rows[2:]], "the sheet's blank there is"),
        (lambda rows: [{**rows[0], "answer": "dos"}, *rows[1:]], "{line}: {problem}"),
        (lambda rows: [{**row, "seed": "x"} for row in rows], "is {kind}; expected {expected}"),
        (lambda rows: [*rows[:2], {**rows[2], "seed": "4"}, *rows[3:]], "the rows above say"),
        (lambda rows: [*rows[:2], {**rows[2], "student": "Leo"}, *rows[3:]], "the rows above say"),
        (lambda rows: [{**row, "sheet": "euclidean"} for row in rows], "is {kind}; expected"),
        (lambda rows: [{**row, "lang": "xx"} for row in rows], "is {kind}; expected"),
    ],
)
def test_an_answer_file_attn_would_misread_is_one_line(run, tmp_path, change, msgid_part):
    path = _one_file(tmp_path, run, change)
    result = run("check", path)
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert msgid_part in result.error.msgid
    assert "\n" not in result.stderr.strip()


def test_a_language_attn_does_not_speak_is_refused_by_the_file_s_reader(run, tmp_path):
    path = _one_file(tmp_path, run, lambda rows: [{**row, "lang": "xx"} for row in rows])
    told(run("check", path).error, InputError, WRONG, where=f"{path}:2: lang",
         kind="xx", expected=("one of {languages}", {"languages": "en, es"}))  # fmt: skip


def test_other_answer_files_are_refused(run, tmp_path):
    text_file = tmp_path / "a.txt"
    text_file.write_text("1\n", encoding="utf-8")
    result = run("check", str(text_file))
    assert result.exit_code == 2 and "is a .csv or .json" in result.error.msgid
    not_a_sheet = tmp_path / "a.json"
    not_a_sheet.write_text('{"answers": []}', encoding="utf-8")
    result = run("check", str(not_a_sheet))
    assert result.exit_code == 2 and "not an answer sheet" in result.error.msgid
    result = run("check", str(tmp_path / "missing.csv"))
    assert result.exit_code == 2 and result.stdout == ""


def test_sheet_options_beside_answer_files_are_refused(run, class_files):
    result = run("check", *class_files, "--seed", "4")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.fields["option"] == "--seed"


def test_a_class_from_python(class_files):
    import attncli as attn

    marked = attn.check_files(class_files)
    assert [s.student for s in marked.students] == ["Ana", "Luis", "Marta"]
    assert marked.most_common() == ("root_forgotten", "score", 2)
    assert "Marta" in marked._repr_html_()


def test_a_vector_of_the_wrong_length_in_a_class_file_is_marked_wrong_not_refused(
    run_json, run, tmp_path
):
    """One student's slip does not stop the class's marking."""
    target = tmp_path / "s.json"
    assert run("exercise", "--seed", "3", "--answer-sheet", str(target)).exit_code == 0
    document = json.loads(target.read_text(encoding="utf-8"))
    _sheet, marking = corrector(3)
    for item, blank in zip(document["answers"], marking.blanks, strict=True):
        value = marking.exact(blank)
        item["answer"] = value.tolist() if blank.vector else round(float(value), blank.digits)
    vector = next(i for i, b in enumerate(marking.blanks) if b.vector)
    document["answers"][vector]["answer"] = "1 2 3"  # three numbers in a two-number blank
    document["student"] = "Pia"
    target.write_text(json.dumps(document), encoding="utf-8")
    marked = run_json("check", str(target))["students"][0]
    assert marked["verdicts"][vector]["kind"] == "wrong"
    assert marked["right"] == len(marking.blanks) - 1


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_file_saved_by_a_spreadsheet_with_decimal_commas_is_read(run_json, run, tmp_path, lang):
    """A spreadsheet whose decimal mark is the comma (Spanish Excel) saves the file with ';'
    between cells, in its Windows code page, a line ending of CRLF: read as attn wrote it."""
    target = tmp_path / "hoja.csv"
    assert (
        run("exercise", "--seed", "3", "--lang", "es", "--answer-sheet", str(target)).exit_code == 0
    )
    rows = _fill(_rows(target), 3, "dot", "es", "Núñez")
    saved = tmp_path / "excel.csv"
    with saved.open("w", encoding="cp1252", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter=";", lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    assert saved.read_bytes().startswith(b"student;seed;")
    marked = run_json("check", str(saved), "--lang", lang)["students"][0]
    assert marked["student"] == "Núñez" and marked["right"] == marked["blanks"] == len(rows)
    rows[10]["answer"] = "0; 0,5"  # a vector: between quotes, its ";" kept in its cell
    with saved.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter=";")
        writer.writeheader()
        writer.writerows(rows)
    marked = run_json("check", str(saved))["students"][0]
    assert marked["right"] == len(rows) - 1 and marked["verdicts"][10]["answer"] == [0, 0.5]


def test_an_answer_file_that_is_a_pipe_no_one_writes_is_refused_not_waited_for(run, tmp_path):
    """A FIFO named answers.csv: open() would wait for a writer forever."""
    import os
    import threading
    import time

    fifo = tmp_path / "respuestas.csv"
    os.mkfifo(fifo)
    stop = threading.Event()

    def release() -> None:  # should the reader wait, a writer comes after 5 s and ends it
        if not stop.wait(5):
            with open(fifo, "w"):
                pass

    helper = threading.Thread(target=release)
    helper.start()
    started = time.monotonic()
    try:
        result = run("check", str(fifo))
    finally:
        stop.set()
        helper.join()
    assert time.monotonic() - started < 5
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.fields["path"] == str(fifo)


@pytest.mark.parametrize(
    ("encoding", "delimiter", "ending"),
    [("utf-8", ",", "\r"), ("utf-16", "\t", "\r\n"), ("utf-16", ",", "\n")],
    ids=["old-mac-cr", "excel-unicode-text", "utf-16-commas"],
)
def test_a_file_in_another_spreadsheet_s_text_is_read(run_json, tmp_path, encoding, delimiter,
                                                      ending):  # fmt: skip
    """Rows ending in a lone CR (an older Mac's Excel) were 'not a row of an answer sheet';
    Excel's 'Unicode text', UTF-16 with tabs, was read as Windows-1252 and refused."""
    target = tmp_path / "hoja.csv"
    run_json("exercise", "--seed", "3", "--answer-sheet", str(target))
    rows = _fill(_rows(target), 3, "dot", "en", "Núñez")
    saved = tmp_path / "saved.csv"
    with saved.open("w", encoding=encoding, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter=delimiter,
                                lineterminator=ending)  # fmt: skip
        writer.writeheader()
        writer.writerows(rows)
    marked = run_json("check", str(saved))["students"][0]
    assert marked["student"] == "Núñez" and marked["right"] == marked["blanks"] == len(rows)
