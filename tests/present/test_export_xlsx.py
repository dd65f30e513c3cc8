"""--export FILE.xlsx: a worksheet whose cells compute. The file is recalculated by a
formula engine (the formulas package, in the test extra), independently of attn, and
every step is held to the JSON of the same exercise to 1e-9; --answers leaves the
student's cells empty and puts the formulas in a key."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

openpyxl = pytest.importorskip("openpyxl")
formulas = pytest.importorskip("formulas")

pytestmark = pytest.mark.slow  # a formula engine per case


def _recalculated(path, sheet: str) -> dict[str, float]:
    """Every cell of `sheet` as the formula engine computes it: {"K6": 1.5, ...}."""
    model = formulas.ExcelModel().loads(str(path)).finish()
    solution = model.calculate()
    prefix = f"'[{path.name}]{sheet}'!".upper()
    cells = {}
    for name, value in solution.items():
        if name.upper().startswith(prefix) and ":" not in name:
            number = np.asarray(value.value).ravel()[0]
            if isinstance(number, (int, float, np.number)):
                cells[name[len(prefix) :].upper()] = float(number)
    return cells


def _column_of(sheet, title: str) -> int:
    return next(cell.column for cell in sheet[5] if cell.value == title)


@pytest.mark.parametrize(("method", "seed"), [("dot", 1), ("dot", 7), ("scaled", 3),
                                              ("scaled", 11)])  # fmt: skip
def test_every_cell_recalculates_to_the_exercise_s_numbers(run, run_json, tmp_path, method, seed):
    path = tmp_path / "hoja.xlsx"
    args = ("exercise", "--seed", str(seed), "--method", method)
    result = run(*args, "--export", str(path))
    assert result.exit_code == 0, result.stderr
    expected = run_json(*args, "--answers", "--json")
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[0]
    cells = _recalculated(path, sheet.title)
    from openpyxl.utils import get_column_letter as letter

    count, d = len(expected["keys"]), len(expected["keys"][0])
    columns = {name: letter(_column_of(sheet, name)) for name in
               ("Query · key", "Score", "e^score", "Weight", "Weight × value")}  # fmt: skip
    for t in range(count):
        row = 6 + t
        score = expected["scores"][t]
        dot = float(np.dot(expected["query"], expected["keys"][t]))
        assert cells[f"{columns['Query · key']}{row}"] == pytest.approx(dot, abs=1e-9)
        assert cells[f"{columns['Score']}{row}"] == pytest.approx(score, abs=1e-9)
        assert cells[f"{columns['e^score']}{row}"] == pytest.approx(math.exp(score), rel=1e-9)
        assert cells[f"{columns['Weight']}{row}"] == pytest.approx(expected["weights"][t], abs=1e-9)
        # every step a formula, not a number written down
        assert sheet[f"{columns['e^score']}{row}"].value == f"=EXP({columns['Score']}{row})"
        weight = sheet[f"{columns['Weight']}{row}"].value
        e = columns["e^score"]
        assert weight == f"={e}{row}/SUM({e}$6:{e}${5 + count})"
    first = _column_of(sheet, "Weight × value")
    total = 6 + count
    for i, value in enumerate(expected["output"]):
        assert cells[f"{letter(first + i)}{total}"] == pytest.approx(value, abs=1e-9)
    assert cells[f"{columns['Weight']}{total}"] == pytest.approx(1.0, abs=1e-12)
    if method == "scaled":
        assert f"/SQRT({d})" in sheet[f"{columns['Score']}6"].value


def test_a_changed_key_moves_the_chain(tmp_path, run):
    """What the spreadsheet is for: the student edits a key and every step follows."""
    path = tmp_path / "hoja.xlsx"
    assert run("exercise", "--seed", "1", "--export", str(path)).exit_code == 0
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[0]
    before = _recalculated(path, sheet.title)
    for column in ("B", "C"):  # the first key, one more in each number (d = 2)
        sheet[f"{column}6"] = sheet[f"{column}6"].value + 1
    book.save(path)
    after = _recalculated(path, sheet.title)
    weight = openpyxl.utils.get_column_letter(_column_of(sheet, "Weight"))
    assert after[f"{weight}6"] != before[f"{weight}6"]
    assert sum(after[f"{weight}{6 + t}"] for t in range(3)) == pytest.approx(1.0, abs=1e-12)


def test_answers_leave_the_student_s_cells_empty_and_key_them_apart(run, tmp_path):
    path = tmp_path / "hoja.xlsx"
    result = run("exercise", "--seed", "3", "--lang", "es", "--answers", "--export", str(path))
    assert result.exit_code == 0, result.stderr
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Hoja de ejercicios", "Soluciones"]
    sheet, key = book.worksheets
    weight = _column_of(sheet, "Peso")
    assert sheet.cell(6, 2).value is not None  # the givens are there
    assert all(sheet.cell(row, weight).value is None for row in range(6, 10))
    assert str(key.cell(6, weight).value).startswith("=")


@pytest.mark.parametrize(
    "args",
    [
        ("selfattn", "el tren"),
        ("exercise", "--method", "additive"),
        ("exercise", "--selfattn"),
        ("exercise", "--count", "3"),
    ],
)
def test_what_a_spreadsheet_does_not_hold_is_refused_in_one_line(run, tmp_path, args):
    path = tmp_path / "x.xlsx"
    result = run(*args, "--export", str(path))
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert "a spreadsheet holds a dot or scaled exercise" in result.stderr
    assert result.stderr.count("\n") == 1


def test_without_openpyxl_a_spreadsheet_is_refused_in_one_line(run, tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openpyxl" else real(name)
    )
    path = tmp_path / "hoja.xlsx"
    result = run("exercise", "--export", str(path))
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert "needs openpyxl" in result.stderr and result.stderr.count("\n") == 1
