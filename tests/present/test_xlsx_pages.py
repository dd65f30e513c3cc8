"""--export FILE.xlsx as it prints: A4, one page wide (landscape when the columns are wider
than a portrait page), the table's header row on every page and wrapped at its words,
each column as wide as its content, a student's sheet with a line for their name. Where
LibreOffice and poppler-utils are installed, the workbook goes through LibreOffice's PDF
export and every worksheet is one page whose headings read whole."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

openpyxl = pytest.importorskip("openpyxl")

pytestmark = pytest.mark.slow  # LibreOffice per case where it is installed

SHEETS = {
    "dot-es": ("--seed", "3", "--lang", "es"),
    "scaled-dim-4": ("--seed", "3", "--method", "scaled", "--dim", "4", "--lang", "es"),
    "additive": ("--seed", "5", "--method", "additive"),
    "selfattn": ("--seed", "3", "--selfattn"),
    "online": ("--seed", "2", "--online", "--size", "5"),
}


def _workbook(run, tmp_path, name, *extra):
    path = tmp_path / f"{name}.xlsx"
    result = run("exercise", *SHEETS[name], *extra, "--export", str(path))
    assert result.exit_code == 0, result.stderr
    return path, openpyxl.load_workbook(path)


def _header_row(sheet) -> int:
    return int(re.fullmatch(r"\$?(\d+):\$?(\d+)", sheet.print_title_rows.split("!")[-1])[1])


@pytest.mark.parametrize("name", sorted(SHEETS))
def test_every_worksheet_prints_one_page_wide_with_its_header_repeated(run, tmp_path, name):
    _path, book = _workbook(run, tmp_path, name, "--blank")
    assert len(book.worksheets) == 2  # the student's sheet, then its key
    for number, sheet in enumerate(book.worksheets):
        setup = sheet.page_setup
        assert sheet.sheet_properties.pageSetUpPr.fitToPage
        assert (setup.fitToWidth, setup.fitToHeight) == (1, 0)
        assert str(setup.paperSize) == sheet.PAPERSIZE_A4
        header = _header_row(sheet)
        headings = [cell for cell in sheet[header] if cell.value is not None]
        assert len(headings) >= 3 and all(cell.font.b for cell in headings)
        for cell in headings:
            assert cell.alignment.wrap_text
            width = sheet.column_dimensions[cell.column_letter].width
            longest_word = max(len(word) for word in str(cell.value).split())
            assert width >= longest_word, (cell.value, width)  # no heading cut in a word
        widths = [dimension.width for dimension in sheet.column_dimensions.values()]
        wide = sum(widths) > 90
        assert setup.orientation == ("landscape" if wide else "portrait")
        name_line = sheet.oddHeader.right.text or ""
        label = "Nombre:" if "es" in SHEETS[name] else "Name:"
        assert name_line.startswith(label) == (number == 0)  # the student's sheet alone


def test_a_column_is_as_wide_as_its_longest_number(run, tmp_path):
    _path, book = _workbook(run, tmp_path, "additive")
    sheet = book.worksheets[0]
    for row in sheet.iter_rows(min_row=_header_row(sheet) + 1):
        for cell in row:
            if isinstance(cell.value, int | float):
                width = sheet.column_dimensions[cell.column_letter].width
                assert width >= len(f"{cell.value:g}"), (cell.coordinate, cell.value, width)


LIBREOFFICE = shutil.which("soffice") is not None and shutil.which("pdftotext") is not None


@pytest.mark.skipif(not LIBREOFFICE, reason="LibreOffice or poppler-utils not installed here")
@pytest.mark.parametrize("name", ["scaled-dim-4", "selfattn"])
def test_through_libreoffice_each_worksheet_is_one_page_its_headings_whole(run, tmp_path, name):
    path, book = _workbook(run, tmp_path, name, "--blank")
    done = subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{tmp_path}/profile", "--headless",
         "--convert-to", "pdf", "--outdir", str(tmp_path), str(path)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    pdf = path.with_suffix(".pdf")
    assert pdf.exists(), done.stdout + done.stderr
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True).stdout  # fmt: skip
    pages = text.split("\f")
    assert len([page for page in pages if page.strip()]) == len(book.worksheets)
    words = " ".join(text.split())
    for sheet in book.worksheets:
        for cell in sheet[_header_row(sheet)]:
            if cell.value is not None:
                for word in str(cell.value).split():
                    assert word in words, word  # a heading's every word printed whole
    assert ("Nombre:" if "es" in SHEETS[name] else "Name:") in pages[0]
