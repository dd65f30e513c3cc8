"""The one reader of whole numbers in text attn reads itself (reading.parse.values
.whole_number): an answer sheet's seed, size and dim, a position in --want, --tiles. A
superscript «³» (which str.isdigit takes), 5,000 digits (past int()'s limit) and a value
past its range are refused alike, in one line that names where."""

from __future__ import annotations

import csv

import pytest

from attncli.errors import InputError, OptionError
from attncli.reading.parse.values import whole_number
from tests.meaning import WRONG, told

HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("text", "read"),
    [("3", 3), (" 12 ", 12), ("0", 0), ("³", None), ("1³", None), ("٣", None), ("3.0", None),
     ("3_000", None), (HUGE, None), (str(2**63), None), (str(2**63 - 1), 2**63 - 1),
     ("-1", None), ("", None)],
)  # fmt: skip
def test_only_the_digits_0_to_9_within_the_range(text, read):
    assert whole_number(text) == read


def test_the_range_is_the_callers():
    assert whole_number("-2", -5, 5) == -2
    assert whole_number("6", 1, 5) is None
    assert whole_number(str(2**64 - 1), 0, 2**64 - 1) == 2**64 - 1


@pytest.fixture
def sheet(run, tmp_path):
    path = tmp_path / "hoja.csv"
    assert run("exercise", "--answer-sheet", str(path), "--format", "json").exit_code == 0
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return path, rows


def _rewrite(path, rows):
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize(
    ("field", "value"),
    [("seed", "³"), ("size", HUGE), ("seed", str(2**64)), ("dim", "²")],
)
def test_a_sheet_s_number_that_is_not_one_is_one_line(run, sheet, field, value):
    path, rows = sheet
    _rewrite(path, [{**row, field: value} for row in rows])
    result = run("check", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, WRONG, where=f"{path}:2: {field}",
         expected=("a whole number", {}))  # fmt: skip
    assert len(result.error.fields["kind"]) <= 40  # 5,000 digits are not echoed whole


def test_a_cell_past_the_csv_module_s_limit_is_one_line_naming_its_line(run, sheet):
    path, rows = sheet
    rows[2]["answer"] = "1" * 140_000
    _rewrite(path, rows)
    result = run("check", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.fields["line"] == f"{path}:4"
    assert len(result.stderr) < 400


def test_a_want_s_position_in_other_digits_is_a_token_not_found(run):
    result = run("train", "el tren va", "--want", "va=³")
    assert result.exit_code == 2 and result.stdout == ""
    assert type(result.error) is InputError and result.error.fields["side"] == "³"


@pytest.mark.parametrize("tiles", [f"{2**70},2", "³,2", f"{HUGE},2"])
def test_tiles_past_the_range_or_in_other_digits(run, tiles):
    result = run("selfattn", "el tren va", "--causal", "--tiles", tiles)
    assert result.exit_code == 2 and result.stdout == ""
    assert type(result.error) is OptionError and len(result.stderr) < 200
