"""Every handout through pdflatex, page by page: every exercise kind (its sheet, its key, a
class set) and every result kind's export compiles with no line too wide for the page
(Overfull \\hbox over 1 pt) and no title left as the last line of a page, away from its
table. Where pdflatex (or pdftotext, which reads the pages back) is not installed the
test is skipped saying so; CI installs both (.ci/run)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.present.printing import missing, reason

pytestmark = pytest.mark.slow

MISSING = missing("pdflatex", "lmodern", "pdftotext", "pdffonts")
needs_tex = pytest.mark.skipif(bool(MISSING), reason=reason(MISSING))

EXERCISES = {
    "dot": ("exercise", "--seed", "3", "--answers"),
    "scaled": ("exercise", "--seed", "3", "--method", "scaled", "--answers"),
    "general": ("exercise", "--seed", "3", "--method", "general", "--answers", "--lang", "es"),
    "additive": ("exercise", "--seed", "3", "--lang", "es", "--method", "additive", "--answers"),
    "additive-en": ("exercise", "--seed", "5", "--method", "additive", "--answers"),
    "selfattn": ("exercise", "--seed", "3", "--selfattn", "--answers"),
    "selfattn-es": ("exercise", "--seed", "4", "--selfattn", "--answers", "--lang", "es"),
    "class-set": ("exercise", "--seed", "1", "--count", "4", "--method", "scaled"),
    "class-set-additive": ("exercise", "--seed", "1", "--count", "3", "--method", "additive"),
    "class-set-selfattn": ("exercise", "--seed", "1", "--count", "3", "--selfattn"),
    "keys-only": ("exercise", "--seed", "1", "--count", "3", "--answers-only"),
    # θ and the turned x′, y′ of rotary positions, once stopped pdflatex in either language.
    "rope": ("exercise", "--positions", "rope", "--seed", "7"),
    "rope-es": ("exercise", "--positions", "rope", "--seed", "7", "--lang", "es"),
    "online": ("exercise", "--online", "--seed", "3", "--answers"),
    "online-es": ("exercise", "--online", "--seed", "3", "--answers", "--lang", "es"),
    # the lessons' questions: h̄ and H̄ᵀ (a combining macron) once stopped pdflatex
    "questions": ("exercise", "--questions", "--answers"),
    "questions-es": ("exercise", "--questions", "--answers", "--lang", "es"),
}
LLAVES = str(SAMPLES / "llaves.json")
RESULTS = {
    "score": ("score", "-i", str(SAMPLES / "tren.json"), "--steps"),
    "score-grid": ("score", "-i", str(SAMPLES / "tren-grid.json")),
    "heads-sum": ("selfattn", "el tren va lleno", "--heads", "2", "--heads-sum", "--lang", "es"),
    "softmax": ("softmax", "2", "-0.5", "1", "--steps"),
    "softmax-online": ("softmax", "2", "0", "1", "3", "--online", "--block", "2", "--steps"),
    "check-class": (
        "check",
        *sorted(str(path) for path in (SAMPLES.parent / "docs" / "clase").glob("*.csv")),
    ),  # fmt: skip
    "mix": ("mix", "-i", str(SAMPLES / "tren.json"), "--weights", "0.665,0.090,0.245", "--steps"),
    "grad": ("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--steps"),
    "selfattn": ("selfattn", "-i", LLAVES, "--show", "all", "--lang", "es"),
    "selfattn-steps": ("selfattn", "-i", LLAVES, "--steps", "--token", "están"),
    "selfattn-heads": (
        "selfattn",
        "un tren de siete palabras va lleno",
        "--heads",
        "2",
        "--show",
        "all",
    ),  # fmt: skip
    "grid": (
        "selfattn",
        "the keys to the old cabinet are on the table",
        "--show",
        "all",
        "--d-model",
        "8",
        "--lang",
        "es",
    ),  # fmt: skip
    # Before titles were kept with their tables, these left one at a page's foot.
    "grid-scores": (
        "selfattn",
        "the keys to the cabinet are on the table",
        "--show",
        "all",
        "--d-model",
        "8",
    ),  # fmt: skip
    "grid-weights": (
        "selfattn",
        "las llaves del coche están ahí",
        "--show",
        "all",
        "--d-model",
        "8",
    ),  # fmt: skip
    # The files' path is printed on the page: a deep folder of its own, wherever the clone is.
    "weights-file": (
        "selfattn",
        "-i",
        "{deep}/mha_x.npy",
        "--weights",
        "{deep}/mha.safetensors",
        "--heads",
        "2",
    ),  # fmt: skip
    "train": (
        "train",
        "las llaves del coche están ahí",
        "--want",
        "están=llaves",
        "--iterations",
        "30",
    ),  # fmt: skip
    "rope-steps": (
        "selfattn",
        "las llaves del coche están ahí",
        "--positions",
        "rope",
        "--steps",
        "--token",
        "están",
    ),  # fmt: skip
    "scaling": ("scaling", "--rows", "200"),
    "samples": ("samples",),
}


def _overfull(log: str) -> list[float]:
    """How far each line too wide runs past the margin, in pt."""
    return [float(points) for points in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]


def _letters(text: str) -> str:
    """Only the letters and digits: a title as the .tex writes it and as the PDF reads."""
    text = re.sub(r"\\[a-zA-Z]+", "", text)
    return "".join(char for char in text if char.isalnum())


def _titles(tex: str) -> set[str]:
    heads = re.findall(r"\\textbf\{(.*)\}\\par\\nobreak", tex)
    heads += re.findall(r"\\section\*\{(.*)\}", tex)
    return {_letters(head) for head in heads} - {""}


def _last_lines(pdf: Path) -> list[str]:
    """The last line of text of each page but the document's last."""
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    lasts = []
    for page in pages[:-1]:
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        # The page number at the foot is not text of the handout.
        while lines and lines[-1].isdigit():
            lines.pop()
        if lines:
            lasts.append(lines[-1])
    return lasts[:-1] if len(pages) > 1 and not pages[-1].strip() else lasts


def compile_tex(tex: Path) -> str:
    """pdflatex's log of the file, compiled as it is."""
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
        cwd=tex.parent,
        capture_output=True,
        encoding="latin-1",  # pdflatex quotes a line's text in its own 8-bit encoding
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    return tex.with_suffix(".log").read_bytes().decode("latin-1")


def _check_pages(tex: Path) -> None:
    source = tex.read_text(encoding="utf-8")
    # mathematics set as text: e^(m_old − m) as "eˆ(m\_old", ℓ_old and ∇_c as "ℓ\_old"
    assert "textasciicircum" not in source and "$\\_" not in source, tex.name
    log = compile_tex(tex)
    too_wide = [points for points in _overfull(log) if points > 1.0]
    assert not too_wide, f"{tex.name}: lines too wide by {too_wide} pt"
    titles = _titles(tex.read_text(encoding="utf-8"))
    stranded = [line for line in _last_lines(tex.with_suffix(".pdf")) if _letters(line) in titles]
    assert not stranded, f"{tex.name}: a title is the last line of a page: {stranded}"
    fonts = subprocess.run(["pdffonts", str(tex.with_suffix(".pdf"))], capture_output=True,
                           text=True).stdout  # fmt: skip
    assert "Type 3" not in fonts, fonts  # bitmap fonts: the PDF is neither vector nor searchable


@needs_tex
@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_kind_typesets_within_the_page(run, tmp_path, name):
    path = tmp_path / f"{name}.tex"
    result = run(*EXERCISES[name], "--export", str(path))
    assert result.exit_code == 0, result.stderr
    _check_pages(path)


# Longer than a line of the page, as a clone's folder or a student's may be.
DEEP = ("a-folder-of-handouts-for-the-course", "lesson-two-self-attention-weights",
        "files-a-class-downloaded-from-the-course-page")  # fmt: skip


def _in_deep_folder(args: tuple[str, ...], tmp_path: Path) -> list[str]:
    """The arguments with {deep} a folder whose path is longer than the page's line, the
    samples they name copied into it: what the page prints does not depend on where the
    clone lives."""
    import shutil

    deep = tmp_path.joinpath(*DEEP)
    if any("{deep}" in arg for arg in args):
        deep.mkdir(parents=True, exist_ok=True)
    filled = []
    for arg in args:
        if "{deep}" in arg:
            name = arg.split("/")[-1]
            shutil.copyfile(SAMPLES / name, deep / name)
            arg = arg.replace("{deep}", str(deep))
        filled.append(arg)
    return filled


@needs_tex
@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_result_kind_typesets_within_the_page(run, tmp_path, name):
    """Every kind's export within the page, a file's path printed on it too."""
    path = tmp_path / f"{name}.tex"
    result = run(*_in_deep_folder(RESULTS[name], tmp_path), "--export", str(path))
    assert result.exit_code == 0, result.stderr
    _check_pages(path)


@needs_tex
def test_a_model_s_heads_typeset_within_the_page(run, tmp_path):
    pytest.importorskip("tokenizers")
    path = tmp_path / "heads.tex"
    args = ("heads", "the keys to the cabinet are on the table", "--model", "all-MiniLM-L6-v2",
            "--from", "are", "--to", "keys")  # fmt: skip
    result = run(*args, "--export", str(path))
    if result.exit_code != 0 and "pip install" in result.stderr:
        pytest.skip("the demo model is not installed: " + result.stderr.strip())
    assert result.exit_code == 0, result.stderr
    _check_pages(path)


# A model's rows start [CLS] and [SEP]: after a row's \\ LaTeX read "[SEP]" as a length.
MODELS = {
    "model-head": (
        "selfattn",
        "the keys",
        "--model",
        "all-MiniLM-L6-v2",
        "--layer",
        "4",
        "--head",
        "2",
    ),  # fmt: skip
    "rollout-cell": (
        "rollout",
        "the keys to the cabinet are on the table",
        "--model",
        "all-MiniLM-L6-v2",
        "--steps",
        "--token",
        "keys",
        "--to",
        "the",
    ),  # fmt: skip
}


@needs_tex
@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_model_s_tokens_in_brackets_typeset_within_the_page(run, tmp_path, name):
    pytest.importorskip("tokenizers")
    path = tmp_path / f"{name}.tex"
    result = run(*MODELS[name], "--export", str(path))
    if result.exit_code != 0 and "pip install" in result.stderr:
        pytest.skip("the demo model is not installed: " + result.stderr.strip())
    assert result.exit_code == 0, result.stderr
    _check_pages(path)
    assert "textbackslash" not in path.read_text(encoding="utf-8")  # M6[keys, k], as it is
    markdown = path.with_suffix(".md")
    assert run(*MODELS[name], "--export", str(markdown)).exit_code == 0
    assert "\\\\" not in markdown.read_text(encoding="utf-8")  # no backslash shown


def test_the_overfull_and_title_checks_can_fail(tmp_path):
    """The checks themselves: a line too wide is measured, a title at a page's foot found."""
    assert _overfull("Overfull \\hbox (83.7415pt too wide) in paragraph") == [83.7415]
    assert _titles("\\textbf{Salida (7 $\\times$ 8)}\\par\\nobreak") == {"Salida78"}
    assert _letters("Salida (7 × 8)") == "Salida78"
