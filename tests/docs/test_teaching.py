"""Worksheets, answer keys, exercises, exports and the picture."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser

import numpy as np
import pytest

from attncli.errors import OptionError
from tests.conftest import SAMPLES
from tests.meaning import told

# an output file of a kind the option does not write (present/written.check_kind)
UNKNOWN_KIND = "{option} {path}: unknown kind {kind}; name a file ending in {kinds}"

TREN = str(SAMPLES / "tren.json")
BLANK = "____"


def _section(text: str, start: str, end: str | None = None) -> str:
    tail = text[text.index(start) :]
    return tail[: tail.index(end)] if end else tail


def test_blank_softmax_keeps_givens_and_empties_what_is_computed(run):
    out = run("softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--blank").stdout
    assert "WORKSHEET" in out and "ANSWERS" not in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["tren"] == ["2", BLANK, BLANK]  # the score is given
    assert rows["Total"] == [BLANK, BLANK]
    assert "7.39" not in out and "0.665" not in out and "11.11" not in out


def test_blank_score_and_mix(run, run_json):
    score = run("score", "-i", TREN, "--blank").stdout
    tren = next(line for line in score.splitlines() if line.strip().startswith("tren"))
    assert tren.split() == ["tren", "2,", "1", BLANK, BLANK]
    weighted = run_json("softmax", input=json.dumps(run_json("score", "-i", TREN)))
    mix = run("mix", "--blank", input=json.dumps(weighted)).stdout
    assert "0.665" in mix and "10, 0" in mix  # weights and values are given
    assert "6.65" not in mix and "7.88" not in mix and mix.count(BLANK) == 4


def test_answers_follow_the_worksheet(run):
    out = run("softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--answers").stdout
    worksheet, answers = _section(out, "WORKSHEET", "ANSWERS"), _section(out, "ANSWERS")
    assert BLANK in worksheet and "0.665" not in worksheet
    assert BLANK not in answers and "7.39" in answers and "0.665" in answers


def test_worksheet_in_spanish(run):
    out = run("softmax", "2", "0", "1", "--answers", "--lang", "es").stdout
    assert "HOJA DE EJERCICIOS" in out and "SOLUCIONES" in out and "0,665" in out


def test_selfattn_worksheet(run):
    out = run(
        "selfattn", "-i", str(SAMPLES / "llaves.json"), "--token", "están", "--answers"
    ).stdout
    worksheet = _section(out, "WORKSHEET", "ANSWERS")
    assert "2, 0, 0, 0" in worksheet and "0.642" not in worksheet
    assert "0.642" in _section(out, "ANSWERS")


def test_exercise_is_small_integers_and_reproducible(run_json):
    first = run_json("exercise", "--seed", "4", "--json")
    assert first == run_json("exercise", "--seed", "4", "--json")
    assert first != run_json("exercise", "--seed", "5", "--json")
    assert set(first) == {"tokens", "query", "keys", "values"}
    assert len(first["tokens"]) == 3 and len(first["query"]) == 2
    assert set(first["query"]) <= {0, 1} and any(first["query"])
    assert all(k in (0, 1, 2) for row in first["keys"] for k in row)
    assert all(v in (0, 5, 10) for row in first["values"] for v in row)
    bigger = run_json("exercise", "--size", "5", "--dim", "3", "--json")
    assert np.array(bigger["keys"]).shape == (5, 3)


def test_exercise_answers_match_the_pipeline(run_json):
    keyed = run_json("exercise", "--seed", "2", "--answers", "--json")
    problem = run_json("exercise", "--seed", "2", "--json")
    chained = run_json(
        "mix",
        input=json.dumps(
            run_json("softmax", input=json.dumps(run_json("score", input=json.dumps(problem))))
        ),
    )
    np.testing.assert_allclose(keyed["output"], chained["output"], rtol=1e-15)
    np.testing.assert_allclose(keyed["weights"], chained["weights"], rtol=1e-15)


def test_exercise_worksheet_asks_each_number_of_the_chain_once(run, run_json):
    tokens = run_json("exercise", "--seed", "1", "--json")["tokens"]
    out = run("exercise", "--seed", "1", "--answers", "--format", "table").stdout
    worksheet, answers = _section(out, "WORKSHEET", "ANSWERS"), _section(out, "ANSWERS")
    for table in ("Scores", "Softmax", "Mix"):
        assert table in worksheet and table in answers
    # Scores carried into the softmax table and weights into the mix table are the
    # student's own from the table above: ↑, as attn check shows the sheet and asks it.
    softmax = _section(worksheet, "Softmax", "Mix")
    rows = [
        line.split() for line in softmax.splitlines() if line.split()[:1] in ([t] for t in tokens)
    ]
    assert len(rows) == len(tokens) and all(row[1:] == ["↑", BLANK, BLANK] for row in rows)
    assert "↑ is your own answer from a table above." in worksheet
    assert not re.search(r"\d\.\d\d", worksheet)
    assert re.search(r"≈ [\d.]+, [\d.]+", answers)


def test_exercise_refuses_sizes(run):
    result = run("exercise", "--size", "0")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{size}: give 1 to {most} tokens (the course uses 3)",
         size="--size 0", most=8)  # fmt: skip


def test_exercise_piped_writes_the_problem_as_json(run, run_json):
    """Like every other command: JSON when piped, the worksheet on a terminal."""
    piped = run("exercise", "--seed", "3")
    assert piped.exit_code == 0 and json.loads(piped.stdout) == run_json(
        "exercise", "--seed", "3", "--json"
    )


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("kind", [".txt", ".svg", ".html", ".md", ".tex"])
def test_export_writes_what_the_terminal_shows(run, tmp_path, kind):
    path = tmp_path / f"softmax{kind}"
    result = run(
        "softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--steps", "--export", str(path)
    )
    assert result.exit_code == 0, result.output
    assert "0.665" in result.stdout  # the terminal still gets its tables
    written = path.read_text(encoding="utf-8")
    if kind == ".txt":
        assert "0.665" in written and "11.11" in written and "\x1b" not in written
    elif kind == ".svg":
        root = ElementTree.fromstring(written)
        assert root.tag.endswith("svg")
        text = "".join(root.itertext()).replace("\xa0", " ")
        assert "0.665" in text and "tren" in text
    elif kind == ".html":
        collector = _Collector()
        collector.feed(written)
        collector.close()
        assert "<html" in written and "</html>" in written
        assert "0.665" in "".join(collector.text)
    elif kind == ".md":
        rows = [line for line in written.splitlines() if line.startswith("|")]
        assert rows[0].split("|")[1:-1] == [
            " Token ",
            " Score ",
            " e^score ",
            " Weight = e^… ÷ 11.11 ",
        ]
        assert rows[1].count("---") == 4
        assert "| tren | 2 | 7.39 | 0.665 |" in rows
        assert "| Total |  | 11.11 | 1.000 |" in rows
    else:
        environments = re.findall(r"\\(begin|end)\{(\w+)\}", written)
        stack = []
        for verb, name in environments:
            if verb == "begin":
                stack.append(name)
            else:
                assert stack.pop() == name
        assert not stack and ("begin", "tabular") in environments
        assert "tren & 2 & 7.39 & 0.665 \\\\" in written
        assert "Weight = $e^{\\ldots}$ $\\div$ 11.11" in written


def test_export_of_matrices_to_latex_and_json_still_on_stdout(run, tmp_path):
    path = tmp_path / "self.tex"
    args = ("-i", str(SAMPLES / "llaves.json"), "--show", "all", "--json", "--export", str(path))
    result = run("selfattn", *args)
    assert json.loads(result.stdout)["params"] == 48
    written = path.read_text(encoding="utf-8")
    assert written.count("\\begin{bmatrix}") == written.count("\\end{bmatrix}") >= 4
    assert "% rows: las, llaves, del, coche, están, ahí" in written


def test_export_in_spanish_and_markdown_escapes(run, tmp_path):
    path = tmp_path / "w.md"
    run("softmax", "2", "0", "1", "--lang", "es", "--blank", "--export", str(path))
    written = path.read_text(encoding="utf-8")
    assert "HOJA DE EJERCICIOS" in written and "\\_\\_\\_\\_" in written


@pytest.mark.parametrize(
    ("target", "msgid", "fields"),
    [("out.pdf", UNKNOWN_KIND, {"kind": ".pdf", "option": "--export"}),
     ("missing-folder/out.md",
      "{option} {path}: the folder does not exist; name a file in an existing folder",
      {"option": "--export"})],
)  # fmt: skip
def test_export_refusals(run, tmp_path, target, msgid, fields):
    result = run("softmax", "2", "0", "--export", str(tmp_path / target))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, msgid, path=str(tmp_path / target), **fields)


def test_plot_draws_the_grid(run, tmp_path):
    import matplotlib.image

    path = tmp_path / "grid.png"
    result = run("selfattn", "en las llaves del coche", "--causal", "--plot", str(path), "--json")
    assert result.exit_code == 0, result.output
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 200
    assert len(np.unique(image.reshape(-1, image.shape[2]), axis=0)) > 50  # a picture, not a blank


def test_plot_per_head_is_wider(run, tmp_path):
    import matplotlib.image

    one, two = tmp_path / "one.png", tmp_path / "two.png"
    run("selfattn", "a b c", "--plot", str(one))
    run("selfattn", "a b c", "--heads", "2", "--plot", str(two))
    assert matplotlib.image.imread(two).shape[1] > 1.5 * matplotlib.image.imread(one).shape[1]


def test_plot_without_matplotlib_says_how_to_install(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("selfattn", "a b", "--plot", str(tmp_path / "g.png"))
    assert result.exit_code == 2 and result.stdout == ""
    assert f"{sys.executable} -m pip install matplotlib" in result.stderr


def test_plot_refuses_unknown_kinds(run, tmp_path):
    result = run("selfattn", "a b", "--plot", str(tmp_path / "g.jpg"))
    assert result.exit_code == 2
    told(result.error, OptionError, UNKNOWN_KIND, option="--plot", kind=".jpg",
         path=str(tmp_path / "g.jpg"), kinds=".png, .svg, .pdf")  # fmt: skip
