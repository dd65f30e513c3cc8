"""attn check with answers piped in for JSON, and answer files as a student fills them."""

from __future__ import annotations

import csv
import json

from attncli.errors import InputError


def test_an_unreadable_piped_answer_is_refused_in_one_line(run):
    for lang in ("en", "es"):
        result = run("check", "--seed", "0", "--json", "--lang", lang, input="garbage {{{\n")
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert isinstance(result.error, InputError) and result.error.fields["number"] == 1
        assert result.error.message(lang) in result.stderr


def test_answered_counts_only_the_blanks_written_in(run, tmp_path):
    sheet = tmp_path / "hoja.csv"
    made = run("exercise", "--seed", "3", "--lang", "es", "--answer-sheet", str(sheet))
    assert made.exit_code == 0, made.stderr
    with sheet.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["answer"] = "3"
    rows[1]["answer"] = "2,0"  # a decimal comma, quoted by the writer: it stays in its cell
    with sheet.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), quoting=csv.QUOTE_NONNUMERIC)
        writer.writeheader()
        writer.writerows(rows)
    document = json.loads(run("check", str(sheet), "--json").stdout)
    student = document["students"][0] if "students" in document else document
    assert student["answered"] == 2 and student["blanks"] == len(rows)


def test_the_empty_answer_file_quotes_its_text_cells(run, tmp_path):
    sheet = tmp_path / "hoja.csv"
    assert (
        run("exercise", "--seed", "3", "--lang", "es", "--answer-sheet", str(sheet)).exit_code == 0
    )
    first = sheet.read_text(encoding="utf-8").splitlines()[1]
    assert first.startswith('"",3,"') and first.endswith(',""')
    # typed between the quotes, in a text editor, a decimal comma keeps its cell
    filled = sheet.read_text(encoding="utf-8").replace(first, first[:-2] + '"2,5"', 1)
    sheet.write_text(filled, encoding="utf-8")
    assert run("check", str(sheet), "--json").exit_code == 0
    # unquoted, it splits the row: one line says where and how to write it
    sheet.write_text(filled.replace('"2,5"', "2,5"), encoding="utf-8")
    broken = run("check", str(sheet), "--json")
    assert broken.exit_code == 2 and broken.error.fields["line"].endswith(":2")
