"""A teacher's class set: attn exercise --count N writes N different sheets, each numbered
with its seed, a page each; --answers-only writes the keys alone, numbered to match."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from attncli.errors import OptionError
from tests.meaning import said_in_spanish, told


def _json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_count_gives_different_sheets_numbered_by_seed(run):
    sheets = _json(run("exercise", "--count", "3", "--seed", "7", "--json"))["sheets"]
    assert [(s["sheet"], s["seed"]) for s in sheets] == [(1, 7), (2, 8), (3, 9)]
    for sheet in sheets:
        alone = _json(run("exercise", "--seed", str(sheet["seed"]), "--json"))
        assert {k: sheet[k] for k in alone} == alone and "scores" not in sheet
    problems = {json.dumps([s["query"], s["keys"], s["values"]]) for s in sheets}
    assert len(problems) == 3


def test_the_terminal_shows_each_sheet_under_its_number(run):
    screen = run("exercise", "--count", "3", "--seed", "7", "--format", "table").stdout
    for number, seed in ((1, 7), (2, 8), (3, 9)):
        assert screen.count(f"SHEET {number} OF 3 · SEED {seed}") == 1
    # The sheet's number is its heading: not a second "Worksheet" under it.
    assert "WORKSHEET" not in screen and "ANSWERS" not in screen
    spanish = run("exercise", "--count", "2", "--lang", "es", "--format", "table").stdout
    assert "HOJA 2 DE 2 · SEMILLA 1" in spanish


def test_answers_only_writes_the_keys_alone_numbered_as_the_sheets(run):
    screen = run("exercise", "--count", "2", "--seed", "7", "--answers-only",
                 "--format", "table").stdout  # fmt: skip
    assert (
        "ANSWERS · SHEET 1 OF 2 · SEED 7" in screen and "ANSWERS · SHEET 2 OF 2 · SEED 8" in screen
    )
    assert "WORKSHEET" not in screen and "____" not in screen
    sheets = _json(run("exercise", "--count", "2", "--seed", "7", "--answers-only", "--json"))
    assert all("weights" in sheet for sheet in sheets["sheets"])
    one = _json(run("exercise", "--seed", "7", "--answers-only", "--json"))["sheets"]
    assert len(one) == 1 and one[0]["seed"] == 7


def test_a_class_set_prints_a_sheet_a_page(run, tmp_path):
    tex, html, md = tmp_path / "set.tex", tmp_path / "set.html", tmp_path / "set.md"
    for path in (tex, html, md):
        result = run("exercise", "--count", "3", "--lang", "es", "--export", str(path))
        assert result.exit_code == 0
    assert tex.read_text().count("\\newpage") == 2
    assert html.read_text().count("break-before:page") == 2
    assert md.read_text().count("\n---\n") == 2
    if shutil.which("pdflatex") is not None:
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                               tex.name], cwd=tmp_path, capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:]
        pages = re.search(r"Output written on set.pdf \((\d+) pages?", done.stdout)
        assert pages is not None and pages.group(1) == "3"


@pytest.mark.parametrize("count", ["0", "101"])
def test_a_count_out_of_range_is_refused(run, count):
    from attncli.cli import usage
    from attncli.present.language import usage_error

    result = run("exercise", "--count", count)
    assert result.exit_code == 2 and result.stdout == ""
    said = [(usage.INVALID_VALUE, {"param": "'--count'"}),
            (usage.OUT_OF_RANGE, {"value": count, "range": "1<=x<=100"})]  # fmt: skip
    assert result.stderr == f"attn: error: {usage_error('en', said, 'root exercise')}\n"


@pytest.mark.parametrize(("count", "msgid", "bound"), [
    (0, "{setting}: it must be {least} or more", {"least": 1}),
    (101, "{setting}: it must be {most} or less", {"most": 100}),
])  # fmt: skip
def test_a_count_out_of_range_is_refused_in_python(count, msgid, bound):
    from attncli.api.exercise import exercise_set

    with pytest.raises(OptionError) as caught:
        exercise_set(seed=7, count=count)
    told(caught.value, OptionError, msgid, "python", setting=f"count={count}", **bound)


def _pages(run, tmp_path, suffix: str, *args: str) -> str:
    path = tmp_path / f"set{suffix}"
    result = run("exercise", "--count", "4", "--seed", "3", *args, "--export", str(path))
    assert result.exit_code == 0, result.stderr
    return path.read_text()


def test_the_html_breaks_a_page_between_sheets_never_before_the_first_nor_after_the_last(
    run, tmp_path
):
    text = _pages(run, tmp_path, ".html")
    sheets = re.findall(r"<pre style=\"([^\"]*)\">(.*?)</pre>", text, flags=re.S)
    assert len(sheets) == 4
    breaks = [("break-before:page" in style, "page-break-before:always" in style)
              for style, _ in sheets]  # fmt: skip
    assert breaks == [(False, False)] + [(True, True)] * 3
    assert "break-after" not in text and "page-break-after" not in text
    # on a screen, where no page break shows, a dashed line between sheets; never printed
    assert "@media screen { pre + pre { border-top: 1px dashed" in text
    for number, (_, code) in enumerate(sheets, 1):
        assert f"SHEET {number} OF 4" in code and code.count("SHEET ") == 1


def test_the_tex_and_text_and_markdown_break_between_sheets_only(run, tmp_path):
    tex = _pages(run, tmp_path, ".tex", "--lang", "es")
    body = tex.split("\\begin{document}", 1)[1].split("\\end{document}", 1)[0]
    parts = body.split("\\newpage")
    assert len(parts) == 4 and "\\clearpage" not in body
    assert [f"HOJA {n} DE 4" in part for n, part in enumerate(parts, 1)] == [True] * 4
    assert parts[0].strip().startswith("\\section*{HOJA 1 DE 4")  # no page before it
    # and none after the last: it ends on its last table and the line under it
    last_line = "$\\uparrow$ es tu propia respuesta de una tabla de arriba.\\par"
    assert parts[-1].strip().endswith(last_line)
    text = _pages(run, tmp_path, ".txt").split("\f")
    assert [f"SHEET {n} OF 4" in page for n, page in enumerate(text, 1)] == [True] * 4
    assert text[-1].strip() != "" and text[0].lstrip().startswith("SHEET 1 OF 4")
    markdown = _pages(run, tmp_path, ".md")
    assert markdown.count("\n---\n") == 3 and not markdown.rstrip().endswith("---")


def test_with_answers_each_key_has_a_page_of_its_own_named_by_its_sheet(run, tmp_path):
    tex = _pages(run, tmp_path, ".tex", "--answers")
    pages = tex.split("\\begin{document}", 1)[1].split("\\newpage")
    assert len(pages) == 8
    for number in range(1, 5):
        sheet, key = pages[2 * number - 2], pages[2 * number - 1]
        assert f"SHEET {number} OF 4" in sheet and "ANSWERS" not in sheet
        assert f"ANSWERS $\\cdot$ SHEET {number} OF 4" in key and "WORKSHEET" not in key
    html = _pages(run, tmp_path, ".html", "--answers")
    assert html.count("page-break-before:always") == 7
    one = run("exercise", "--answers", "--export", str(tmp_path / "one.tex"))
    assert one.exit_code == 0 and (tmp_path / "one.tex").read_text().count("\\newpage") == 1


def test_answers_and_answers_only_together_are_refused(run):
    for lang in ("en", "es"):
        result = run("exercise", "--answers", "--answers-only", "--lang", lang)
        assert result.exit_code == 2 and result.stdout == ""
        told(result.error, OptionError, "{option} with {beside}: {why}", option="--answers",
             beside="--answers-only")  # fmt: skip
        assert result.error.fields["why"].msgid == (
            "--answers-only writes the keys alone, --answers each sheet followed by its key; "
            "give one"
        )
        assert len(result.stderr.strip().splitlines()) == 1
    said_in_spanish(result.error)
    assert result.stderr == f"attn: error: {result.error.message('es')}\n"
