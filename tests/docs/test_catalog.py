"""The message catalogs: every sentence attn says is in each language's catalog with the same
fields, the compiled .mo is the .po's, no error is written as an f-string (which the catalog
could not find), and a new language is one file."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attncli import messages
from attncli.errors import ShapeError, count
from attncli.messages import Message, Setting, say

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import catalog  # noqa: E402

ERRORS = catalog.ERRORS


def test_every_catalog_is_whole() -> None:
    """Every msgid is translated with the same {fields}, and each .mo is its .po compiled."""
    assert catalog.problems() == []


def test_the_catalog_tool_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalog missing a msgid, or with other fields, is reported."""
    po = tmp_path / "xx" / "LC_MESSAGES" / "attncli.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "{count} row"\nmsgid_plural "{count} rows"\n'
        'msgstr[0] "{n} fila"\nmsgstr[1] "{count} filas"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(catalog, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(catalog, "ROOT", tmp_path)
    found = catalog.problems()
    assert any("other fields in '{count} row'" in line for line in found)
    assert any(line.startswith("xx: not translated:") for line in found)
    assert any("is not the compiled" in line for line in found)


def _error_calls() -> list[tuple[str, int, ast.Call]]:
    calls = []
    for path in sorted((ROOT / "attncli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and catalog._called(node) in ERRORS and node.args:
                calls.append((str(path.relative_to(ROOT)), node.lineno, node))
    return calls


def test_every_error_is_a_msgid_with_fields() -> None:
    """An error's text is `_("…")` (or a name holding one), never an f-string or a
    sentence per language: otherwise the catalog cannot translate it."""
    wrong = []
    for where, line, node in _error_calls():
        first = node.args[0]
        marked = isinstance(first, ast.Call) and catalog._called(first) == "_"
        named = isinstance(first, ast.Name | ast.Attribute | ast.Subscript)
        if len(node.args) > 1 or not (marked or named):
            wrong.append(f"{where}:{line}")
    assert wrong == []
    assert len(_error_calls()) > 200  # the test reads the errors it is about


def test_no_spanish_sentence_in_the_code() -> None:
    """Spanish lives in the catalog: a .py file holds no Spanish word of attn's messages
    (the samples' sentences and the course's examples aside)."""
    words = (" la fila", " una fila", " se espera", " falta ", " debe tener", " quita ", " añade ")
    found = []
    for path in sorted((ROOT / "attncli").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(word in line for word in words):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_a_message_is_said_by_the_language_rules() -> None:
    error = ShapeError("{field} has {rows}; expected {d}", field="w_o", rows=count(4, "row"), d=8)
    assert str(error) == "w_o has 4 rows; expected 8"
    # A msgid no catalog holds is said in English, its fields in the language asked for.
    assert error.message("es") == "w_o has 4 filas; expected 8"
    assert error.msgid == "{field} has {rows}; expected {d}"
    assert say("es", "Weights") == "Pesos"
    assert Message.counted("{count} row", "{count} rows", 1).said("es") == "1 fila"
    assert Message.counted("{count} row", "{count} rows", 3).said("es") == "3 filas"
    assert Message("{weight:.3f}", weight=0.5).said("es") == "0,500"
    assert Message("{weight:.3f}", weight=0.5).said("en") == "0.500"
    # a number given to an option is written as its language types it on the command line,
    # and as Python writes it in Python
    lr = Message("{setting}", setting=Setting("lr", 0.1))
    assert (lr.said("es", "cli"), lr.said("en", "cli")) == ("--lr 0,1", "--lr 0.1")
    assert lr.said("es", "python") == "lr=0.1"


def test_a_setting_is_named_as_each_surface_writes_it() -> None:
    error = ShapeError("{setting} must divide d_model", setting=Setting("heads", 3))
    assert str(error) == "heads=3 must divide d_model"  # Python's words
    assert error.message("en") == "--heads 3 must divide d_model"  # the command line's
    assert str(Setting("d_k").written("cli")) == "--d-k"


def test_the_api_and_the_command_line_name_a_setting_each_their_way(run) -> None:
    import attncli

    with pytest.raises(attncli.errors.InputError) as raised:
        attncli.selfattn("el tren va", heads=3)
    assert str(raised.value).startswith("heads=3 does not divide d_model = 8")
    assert "give d_k and d_v" in str(raised.value)
    told = run("selfattn", "el tren va", "--heads", "3", "--lang", "es")
    assert told.exit_code == 2
    assert "--heads 3 no divide d_model = 8" in told.stderr and "da --d-k y --d-v" in told.stderr


THIRD = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: pt\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgctxt "decimal mark"
msgid "."
msgstr ","

msgid "Weights"
msgstr "Pesos (pt)"

msgid "Score"
msgstr "Pontuação"

msgid "Softmax of {row}"
msgstr "Softmax de {row} (pt)"
"""


def test_a_new_language_is_one_file(tmp_path: Path) -> None:
    """A third catalog, one .po of a few strings (compiled as tools/catalog.py compiles every
    catalog), is offered by --lang and said on screen; what it does not translate stays
    English."""
    shutil.copytree(messages.LOCALE_DIR, tmp_path, dirs_exist_ok=True)
    po = tmp_path / "pt" / "LC_MESSAGES" / "attncli.po"
    po.parent.mkdir(parents=True)
    po.write_text(THIRD, encoding="utf-8")
    po.with_suffix(".mo").write_bytes(catalog.compiled(po))
    env = {**os.environ, "ATTN_LOCALE_DIR": str(tmp_path), "COLUMNS": "100"}
    shown = subprocess.run(
        [sys.executable, "-m", "attncli", "softmax", "2", "0", "1.5", "--lang", "pt"]
        + ["--format", "table"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "Pesos (pt)" in shown and "Pontuação" in shown
    assert "0," in shown  # its decimal mark
    helped = subprocess.run(
        [sys.executable, "-m", "attncli", "softmax", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "en|es|pt" in helped.replace(" ", "")
