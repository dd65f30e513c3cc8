"""Text from the user is data in a spreadsheet too: a token such as =HYPERLINK(…) is
written to an .xlsx export as a string cell (with the quote prefix a spreadsheet keeps when
the cell is edited), never as a live formula; the steps' own formulas stay formulas."""

from __future__ import annotations

import json

import pytest

openpyxl = pytest.importorskip("openpyxl")

TOKENS = ['=HYPERLINK("http://evil.example/","x")', "+1", "@SUM(A1)", "-2"]


def test_a_token_that_reads_as_a_formula_is_written_as_text(run, tmp_path):
    document = tmp_path / "scores.json"
    document.write_text(json.dumps({"scores": [2, 0, 1, 3], "tokens": TOKENS}))
    target = tmp_path / "online.xlsx"
    result = run("softmax", "-i", str(document), "--online", "--export", str(target))
    assert result.exit_code == 0, result.stderr
    cells = [cell for sheet in openpyxl.load_workbook(target) for row in sheet.iter_rows()
             for cell in row if isinstance(cell.value, str)]  # fmt: skip
    for token in TOKENS:
        holding = [cell for cell in cells if cell.value == token]
        assert holding, token
        assert all(cell.data_type == "s" and cell.quotePrefix for cell in holding)
    formulas = [cell.value for cell in cells if cell.data_type == "f"]
    assert formulas and not any("HYPERLINK" in formula for formula in formulas)
