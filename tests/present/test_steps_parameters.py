"""--steps shows the drawn (or given) score parameters a step multiplies by, so that a
student can check the step by hand."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLES

TREN = str(SAMPLES / "tren.json")


def test_general_steps_show_w_a(run):
    document = json.loads(run("score", "-i", TREN, "--method", "general", "--json").stdout)
    steps = run("score", "-i", TREN, "--method", "general", "--steps").stdout
    assert steps.index("W_a (drawn from seed 0)") < steps.index("General scores")
    assert "W_a · key" in steps and "w_a" not in steps  # the columns' notation
    for row in document["w_a"]:
        assert "   ".join(f"{value:.2f}" for value in row) in steps


def test_additive_steps_show_w_1_w_2_v_a_in_spanish_too(run):
    steps = run("score", "-i", TREN, "--method", "additive", "--steps", "--lang", "es").stdout
    for name in ("W_1", "W_2", "v_a"):
        assert f"{name} (al azar con la semilla 0)" in steps
    assert "w_1" not in steps and "w_2" not in steps
    document = {**json.loads((SAMPLES / "tren.json").read_text()), "w_a": [[1, 0], [0, 1]]}
    given = run("score", "-i", "-", "--method", "general", "--steps", input=json.dumps(document))
    assert given.stdout.startswith("W_a\n") and "drawn" not in given.stdout


def test_grad_steps_show_them_and_dot_has_none(run):
    grad = run("grad", "-i", TREN, "--method", "general", "--target", "8,2", "--steps").stdout
    assert "W_a (drawn from seed 0)" in grad
    dot = run("score", "-i", TREN, "--steps").stdout
    assert "drawn" not in dot and "w_a" not in dot


def test_a_worksheet_gives_the_parameters_under_its_heading(run):
    for lang, heading, drawn in (("en", "WORKSHEET", "W_a (drawn"), ("es", "HOJA", "W_a (al azar")):
        sheet = run("score", "-i", TREN, "--method", "general", "--blank", "--lang", lang).stdout
        assert sheet.index(heading) < sheet.index(drawn) < sheet.index("____")
    answers = run("score", "-i", TREN, "--method", "additive", "--blank", "--answers").stdout
    assert answers.count("W_1 (drawn from seed 0)") == 1  # given once, above the sheet
    assert answers.index("W_1 (drawn") < answers.index("ANSWERS")


def test_grad_writes_the_parameters_gradients_in_the_same_notation(run):
    args = ("grad", "-i", TREN, "--method", "additive", "--target", "8,2")
    grids = run(*args, "--format", "table").stdout
    assert "∂ℓ/∂W_1 (grad_w_1)" in grids and "W_1[1]" in grids and "∂ℓ/∂v_a (grad_v_a)" in grids
    steps = run(*args, "--steps").stdout
    assert "∂ℓ/∂W_2 from this row = [" in steps and "∂ℓ/∂w_" not in steps
    document = json.loads(run(*args, "--json").stdout)
    assert {"grad_w_1", "grad_w_2", "grad_v_a"} <= set(document)  # the fields keep their names


def test_a_tex_export_writes_every_column_of_the_parameters(run, tmp_path):
    path = tmp_path / "general.tex"
    result = run("score", "-i", TREN, "--method", "general", "--steps", "--lang", "es",
                 "--export", str(path))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    tex = path.read_text()
    w_a = tex.split("$W_{a}$ (al azar con la semilla 0)", 1)[1].split("\\end{bmatrix}", 1)[0]
    assert "0{,}47 & 1{,}08 \\\\" in w_a and "0{,}74 & 0{,}26 \\\\" in w_a
    assert "% rows" not in w_a  # no column of labels taken off
    additive = tmp_path / "additive.tex"
    run("score", "-i", TREN, "--method", "additive", "--steps", "--export", str(additive))
    v_a = additive.read_text().split("$v_{a}$ (drawn from seed 0)", 1)[1]
    drawn = json.loads(run("score", "-i", TREN, "--method", "additive", "--json").stdout)["v_a"]
    assert v_a.split("\\end{bmatrix}", 1)[0].split("\\begin{bmatrix}", 1)[1].strip() == (
        " & ".join(f"{value:.2f}" for value in drawn) + " \\\\"
    )


def _notebook_views(steps) -> dict[str, str]:
    """What rich.print and a notebook cell show of a result's steps, as plain text."""
    import io
    import re

    from rich.console import Console

    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(steps)
    html = re.sub(r"<[^>]+>", "", steps._repr_html_()).replace("&#x27;", "'")
    return {"rich": console.file.getvalue(), "html": html}


def test_steps_in_a_notebook_show_the_parameters_as_the_command_does(monkeypatch):
    import attncli as attn

    for name in ("ATTN_LANG", "LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    general = attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], method="general")
    additive = attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], method="additive")
    cases = (
        ("en", general, ("W_a (drawn from seed 0)",), "General scores", "."),
        ("es", general, ("W_a (al azar con la semilla 0)",), "Puntuaciones generales", ","),
        ("en", additive, ("W_1 (drawn", "W_2 (drawn", "v_a (drawn"), "Additive scores", "."),
        ("es", additive, ("W_1 (al azar", "W_2 (al azar", "v_a (al azar"), "aditivas", ","),
    )
    for lang, result, headings, table, mark in cases:
        with attn.options(lang=lang, digits=None):
            views = _notebook_views(result.steps())
        for where, text in views.items():
            for heading in headings:
                assert text.index(heading) < text.index(table), (lang, where, heading)
            for value in result.parameters["w_a" if "W_a" in headings[0] else "w_1"][0]:
                assert f"{value:.2f}".replace(".", mark) in text, (lang, where)
    with attn.options(lang="en", digits=None):
        dot = _notebook_views(attn.score(query=[1, 0], keys=[[2, 1], [0, 2]]).steps())
    assert all("drawn" not in text and "W_a" not in text for text in dot.values())


def test_steps_in_a_notebook_and_on_the_command_line_are_the_same(run):
    import attncli as attn

    args = ("--query", "1,0", "--keys", "2,1;0,2", "--method", "additive", "--steps")
    command = run("score", *args).stdout
    with attn.options(lang="en", digits=None):
        shown = _notebook_views(
            attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], method="additive").steps()
        )
    assert [line.rstrip() for line in shown["rich"].splitlines() if line.strip()] == [
        line.rstrip() for line in command.splitlines() if line.strip()
    ]


@pytest.mark.parametrize(
    ("lang", "target", "rows", "numbers"), [("en", "8,2", "; ", ", "), ("es", "8; 2", " | ", "; ")]
)
def test_a_gradient_matrix_on_one_line_keeps_its_rows(run, run_json, lang, target, rows, numbers):
    """∂ℓ/∂W_a on a line is its rows with the row mark between them: '[a, b; c, d]', in
    Spanish '[a; b | c; d]' (';' there separates a row's numbers), never four numbers alike."""
    args = ("grad", "-i", TREN, "--method", "general", "--target", target, "--lang", lang)
    shape = len(run_json(*args, "--json")["grad_w_a"]), len(run_json(*args)["grad_w_a"][0])
    line = next(
        line for line in run(*args, "--steps").stdout.splitlines() if line.startswith("∂ℓ/∂W_a")
    )
    inside = line[line.index("[") + 1 : line.rindex("]")]
    read = [row.split(numbers) for row in inside.split(rows)]
    assert (len(read), *{len(row) for row in read}) == shape == (2, 2), line
