"""Handouts that print: file exports in full colour whatever the terminal, on a light page
unless --theme dark, and .tex as a whole document that pdflatex compiles (or a fragment)."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.present.printing import missing


def _shades(text: str) -> set[str]:
    return set(re.findall(r"(?:background-color: |fill=\"|fill: )(#[0-9a-f]{6})", text))


@pytest.mark.parametrize("suffix", [".html", ".svg"])
def test_a_file_export_has_the_full_ramp_on_an_eight_colour_terminal(
    run, tmp_path, monkeypatch, suffix
):
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    path = tmp_path / f"sa{suffix}"
    result = run("selfattn", "el tren va lleno", "--format", "table", "--export", str(path))
    assert result.exit_code == 0, result.output
    written = path.read_text(encoding="utf-8")
    # 16 weights, every shade its own, none of them white on a white page.
    assert len(_shades(written) - {"#ffffff", "#000000"}) >= 12


def test_files_are_light_by_default_and_dark_when_asked(run, tmp_path):
    for suffix in (".html", ".svg"):
        light, dark = tmp_path / f"light{suffix}", tmp_path / f"dark{suffix}"
        assert run("softmax", "2", "0", "1", "--export", str(light)).exit_code == 0
        assert (
            run("softmax", "2", "0", "1", "--export", str(dark), "--theme", "dark").exit_code == 0
        )
        light_text, dark_text = light.read_text(), dark.read_text()
        assert "#ffffff" in light_text and "#292929" not in light_text
        assert "#292929" in dark_text


def _compiles(tex: Path) -> None:
    """pdflatex compiles the file as it is, where pdflatex is installed."""
    if missing("pdflatex", "lmodern"):
        return
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
        cwd=tex.parent,
        capture_output=True,
        encoding="latin-1",  # pdflatex quotes a line's text in its own 8-bit encoding
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert tex.with_suffix(".pdf").stat().st_size > 1000


def test_tex_is_a_whole_document_with_numbers_right_aligned(run, tmp_path):
    path = tmp_path / "hoja.tex"
    args = ("exercise", "--seed", "7", "--lang", "es", "--answers", "--export", str(path))
    assert run(*args).exit_code == 0
    written = path.read_text(encoding="utf-8")
    assert written.startswith("\\documentclass") and "\\usepackage{amsmath}" in written
    assert written.rstrip().endswith("\\end{document}") and "\\begin{document}" in written
    assert "\\section*{HOJA DE EJERCICIOS}" in written
    # Labels left, numbers right; an empty cell is a line to write on.
    assert "\\begin{tabular}{lrrr}" in written and "\\rule{3.4em}{0.4pt}" in written
    assert "\\_\\_\\_\\_" not in written
    _compiles(path)


def test_tex_words_columns_stay_left_and_spanish_commas_are_math_commas(run, tmp_path):
    path = tmp_path / "sa.tex"
    args = ("-i", str(SAMPLES / "llaves.json"), "--show", "x,shapes", "--lang", "es")
    assert run("selfattn", *args, "--export", str(path)).exit_code == 0
    written = path.read_text(encoding="utf-8")
    # Matriz, Forma, Qué contiene: its long words wrap in a column of their own, left
    assert "\\begin{tabular}{lrp{0.36\\linewidth}}" in written
    matrices = re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", written, re.DOTALL)
    assert len(matrices) >= 2 and any("1{,}56" in matrix for matrix in matrices)
    assert not any(re.search(r"\d,\d", matrix.replace("{,}", "")) for matrix in matrices)
    _compiles(path)


def test_a_tex_fragment_is_for_pasting(run, tmp_path):
    path = tmp_path / "frag.tex"
    assert run("softmax", "2", "0", "1", "--export", str(path), "--tex-fragment").exit_code == 0
    written = path.read_text(encoding="utf-8")
    assert "\\documentclass" not in written and "\\begin{document}" not in written
    assert "\\begin{tabular}" in written


@pytest.mark.parametrize(
    ("args", "english", "spanish"),
    [
        (("--theme", "dark"), "--theme dark colours an --export", "--theme dark colorea"),
        (("--export", "x.md", "--theme", "light"), "to .svg or .html", "a .svg o .html"),
        (("--tex-fragment",), "--tex-fragment shapes an --export to .tex", "da forma"),
        (("--export", "x.html", "--tex-fragment"), "add --export FILE.tex", "FICHERO.tex"),
    ],
)
def test_export_choices_without_their_export_are_refused(run, tmp_path, args, english, spanish):
    args = tuple(str(tmp_path / a) if a.startswith("x.") else a for a in args)
    for lang, words in (("en", english), ("es", spanish)):
        result = run("softmax", "2", "0", "1", "--lang", lang, *args)
        assert result.exit_code == 2 and result.stdout == ""
        assert words in result.stderr and result.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_tex_writes_the_gradient_at_the_output_with_its_names(run, tmp_path):
    path = tmp_path / "grad.tex"
    result = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--steps",
                 "--export", str(path))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    tex = path.read_text(encoding="utf-8")
    upstream = tex.split("Gradient at the output of query}", 1)[1].split("\\end{tabular}")[0]
    assert "c & 7.876, 2.124 \\\\" in upstream and "target & 8, 2 \\\\" in upstream
    assert "bmatrix" not in upstream and "% rows" not in upstream


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_long_column_of_words_wraps_within_the_page(run, tmp_path, lang):
    """The Shapes table's "what it holds" wraps in a paragraph column, where it ran past the
    right margin; pdflatex finds no line too wide."""
    path = tmp_path / "sa.tex"
    args = ("selfattn", "el tren va lleno", "--show", "all", "--lang", lang, "--export", str(path))
    assert run(*args).exit_code == 0
    assert "\\begin{tabular}{lrp{0.36\\linewidth}}" in path.read_text(encoding="utf-8")
    _compiles(path)
    if not missing("pdflatex", "lmodern"):
        log = path.with_suffix(".log").read_bytes().decode("latin-1")
        assert "Overfull \\hbox" not in log


def test_tex_sets_mathematics_as_mathematics():
    from attncli.present.latex import tex_text

    assert tex_text("W^Q, W_1 q, d_k, d_model") == (
        "$W^{Q}$, $W_{1}$ q, $d_{k}$, $d_{\\text{model}}$"
    )
    assert tex_text("÷ √d_k, √4 = 2") == "$\\div$ $\\sqrt{d_{k}}$, $\\sqrt{4}$ = 2"
    # A real minus sign, a decimal comma unspaced; a hyphen between words stays one.
    assert tex_text("(-1)×(-0,76) = -0,24") == "($-1$)$\\times$($-0{,}76$) = $-0{,}24$"
    assert tex_text("e^score, e^…") == "$e^{\\text{score}}$, $e^{\\ldots}$"
    assert tex_text("my_var well-known") == "my\\_var well-known"
    assert tex_text("--method scaled") == "\\texttt{-{}-method} scaled"
    # an em dash stays one (it was ---, then -{}-- by the rule for a typed --), an en dash too
    assert tex_text("— left blank") == "--- left blank" and tex_text("1–3") == "1--3"
    assert tex_text("a -- b") == "a -{}- b"
    assert tex_text("e^puntuación") == "$e^{\\text{puntuación}}$"  # a Spanish word whole
    # a word in a bracketed exponent upright (an accented one in maths stops pdflatex)
    assert tex_text("e^(puntuación ÷ T)") == "$e^{(\\text{puntuación} \\div  T)}$"
    assert tex_text("e^(m_old − m)") == "$e^{(m_{\\text{old}} - m)}$"


def test_a_character_pdflatex_cannot_set_is_written_as_its_code_point(run, tmp_path):
    """A token such as 日本, 🙂 or Ħ stopped pdflatex ('Unicode character not set up');
    the Latin letters it sets stay as they are."""
    from attncli.present.latex import tex_text

    # a macron on a digit is no barred letter: it recursed without end (an internal error)
    assert tex_text("h̄ 1̄") == "$\\bar{h}$ 1\\texttt{[U+0304]}"
    assert tex_text("el 日 🙂 Ħ ñ ¿ Ł") == (
        "el \\texttt{[U+65E5]} \\texttt{[U+1F642]} \\texttt{[U+0126]} ñ ¿ Ł"
    )
    if missing("pdflatex", "lmodern"):
        pytest.skip("pdflatex with Latin Modern is not installed")
    path = tmp_path / "tokens.tex"
    assert run("selfattn", "el 日本 🙂 Ħ come", "--steps", "--export", str(path)).exit_code == 0
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout[-800:]


def test_a_printed_sheet_carries_no_command_line_advice(run, tmp_path):
    """The terminal says how to see more (--show, --steps); a printed page, which cannot be
    typed, does not."""
    shown = run("selfattn", "el tren va lleno", "--format", "table")
    assert "--steps --token T" in shown.stdout and "-i samples/llaves.json" in shown.stdout
    for suffix in (".tex", ".html", ".md", ".txt", ".svg"):
        path = tmp_path / f"sa{suffix}"
        result = run("selfattn", "el tren va lleno", "--export", str(path))
        assert result.exit_code == 0, result.stderr
        written = path.read_text(encoding="utf-8")
        assert "--token" not in written and "token} T" not in written, suffix
        assert "samples/llaves.json" not in written, suffix  # -i FILE is typed, not read
        assert "trained" in written.replace("&#160;", " "), suffix  # what it says of its W
        assert "Weights" in written or "Weights" in written.replace("&#160;", " ")


def test_blanks_are_as_long_as_their_answers(run, tmp_path):
    path = tmp_path / "add.tex"
    result = run("exercise", "--seed", "3", "--method", "additive", "--export", str(path))
    assert result.exit_code == 0, result.stderr
    rules = [float(em) for em in re.findall(r"\\rule\{([\d.]+)em\}", path.read_text())]
    # The sum v_a · tanh(…) asks for "(-1)×0 + 1×(-0.76) = -0.76"; a weight for "0.287".
    assert max(rules) >= 15 and min(rules) >= 3.0
    assert "\\renewcommand{\\arraystretch}{2.2}" in path.read_text()  # room to write in


def _columns_of_blanks(tex: str) -> list[set[float]]:
    """The lengths of the blanks of each column, table by table, of a .tex worksheet."""
    found = []
    for table in re.findall(r"\\begin\{tabular\}\{[^}]*\}(.*?)\\end\{tabular\}", tex, re.S):
        rows = [row.split(" & ") for row in table.split("\\\\") if " & " in row][1:]  # no header
        for column in zip(*rows, strict=False):
            lengths = {float(em) for cell in column
                       for em in re.findall(r"\\rule\{([\d.]+)em\}", cell)}  # fmt: skip
            if lengths:
                found.append(lengths)
    return found


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_blank_s_length_does_not_give_its_answer_away(run, tmp_path, lang):
    """Every blank of a column is as long as the column's longest answer (rounded up): the
    line for «0; 0» is as long as the one for «2,11; 0,78» beside it."""
    from attncli.api.checking import corrector

    _sheet, marking = corrector(4)
    weighted = [marking.exact(blank) for blank in marking.blanks if blank.step == "weighted"]
    assert any(not value.any() for value in weighted)  # this sheet has a «0, 0» among them
    path = tmp_path / "hoja.tex"
    args = ("exercise", "--seed", "4", "--lang", lang, "--export", str(path))
    assert run(*args).exit_code == 0
    columns = _columns_of_blanks(path.read_text(encoding="utf-8"))
    assert len(columns) >= 4 and all(len(lengths) == 1 for lengths in columns), columns
    text = tmp_path / "hoja.txt"
    assert run("exercise", "--seed", "4", "--lang", lang, "--export", str(text)).exit_code == 0
    mix = text.read_text(encoding="utf-8").split("Mix" if lang == "en" else "Mezcla")[1]
    last = [re.findall(r"_+", line)[-1] for line in mix.splitlines() if "_" in line]
    assert len(last) == 4 and len(set(last)) == 1, last  # weight × value and the output


@pytest.mark.parametrize("suffix", [".tex", ".txt", ".html", ".svg", ".md"])
def test_a_printed_worksheet_has_a_name_line_and_a_screen_none(run, tmp_path, suffix):
    path = tmp_path / f"hoja{suffix}"
    assert run("exercise", "--seed", "3", "--lang", "es", "--export", str(path)).exit_code == 0
    written = html.unescape(path.read_text(encoding="utf-8")).replace("\xa0", " ")
    assert written.count("Nombre:") == 1, suffix  # the sheet's, not the key's
    assert "Nombre:" in written.split("HOJA DE EJERCICIOS" if suffix != ".md" else "HOJA", 1)[1]
    several = tmp_path / f"clase{suffix}"
    args = ("exercise", "--seed", "1", "--count", "3", "--export", str(several))
    assert run(*args).exit_code == 0
    assert html.unescape(several.read_text(encoding="utf-8")).count("Name:") == 3  # a sheet each
    screen = run("exercise", "--seed", "3", "--lang", "es", "--format", "table").stdout
    assert "Nombre" not in screen


def test_a_class_s_marks_print_as_a_tick_and_a_cross(run, tmp_path):
    """✓ and ✗ in a .tex of attn check: a tick and a bold X, not the √ of «√d_k olvidada»
    nor the × of weight × value beside them."""
    from tests.conftest import SAMPLES

    files = sorted(str(path) for path in (SAMPLES.parent / "docs" / "clase").glob("*.csv"))
    path = tmp_path / "clase.tex"
    assert run("check", *files, "--lang", "es", "--export", str(path)).exit_code == 0
    tex = path.read_text(encoding="utf-8")
    assert "$\\checkmark$" in tex and "\\textsf{\\bfseries X}" in tex
    marks = tex.split("\\begin{tabular}", 1)[1].split("\\end{tabular}", 1)[0]
    assert "\\surd" not in marks and "\\times" not in marks
    assert "\\usepackage{amssymb}" in tex
