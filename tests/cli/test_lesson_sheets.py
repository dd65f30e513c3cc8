"""The lessons' own sheets: attn exercise -i and attn check -i on «el tren va lleno»
(lesson 002's tables, its numbers typed as a student writes them) and on a row of the
«llaves» grid; the printed sheet is the one check shows; refusals one line each."""

from __future__ import annotations

import json
import math
import re

import pytest

from attncli.errors import InputError, OptionError
from tests import naive
from tests.conftest import SAMPLES
from tests.meaning import told

TREN, LLAVES, GRID = (str(SAMPLES / f"{name}.json") for name in ("tren", "llaves", "tren-grid"))
# Lesson 002's tables, as a student fills them in Spanish: the scores, e^score and the
# total, each weight, each weight × value and the output.
LESSON_ES = ["2", "0", "1", "7,39", "1,00", "2,72", "11,11", "0,665", "0,090", "0,245",
             "6,65; 0", "0; 0,90", "1,22; 1,22", "7,88; 2,12"]  # fmt: skip


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("args", [("-i", TREN), ("-i", "tren"), ("-i", LLAVES, "--token", "están"),
                                  ("-i", GRID, "--token", "va")])  # fmt: skip
def test_the_printed_sheet_is_the_one_check_asks(run, args, lang):
    printed = run("exercise", *args, "--lang", lang, "--format", "table")
    assert printed.exit_code == 0, printed.stderr
    shown = run("check", *args, "--lang", lang, "--format", "table", input="")
    assert shown.stdout.startswith(printed.stdout.rstrip("\n"))


def test_the_lesson_s_tren_table_marked_right_in_spanish(run):
    screen = run("check", "-i", "tren", "--lang", "es", "--format", "table",
                 input="\n".join(LESSON_ES) + "\n").stdout  # fmt: skip
    assert "14 de 14 respuestas bien (14 casillas en la hoja)." in screen
    marked = json.loads(run("check", "-i", TREN, "--lang", "es", "--json",
                            input="\n".join(LESSON_ES) + "\n").stdout)  # fmt: skip
    assert marked["right"] == marked["blanks"] == 14 and marked["seed"] is None


def test_a_slip_on_the_tren_sheet_is_named(run):
    typed = ["2", "0", "1", "7.39", "1", "2.72", "11.11", "2/3"]  # the scores normalised
    marked = json.loads(run("check", "-i", TREN, "--json", input="\n".join(typed)).stdout)
    last = marked["verdicts"][-1]
    assert last["kind"] == "wrong" and last["mistakes"][0]["mistake"] == "exp_skipped"


def test_a_row_of_the_llaves_grid(run):
    layer = json.loads((SAMPLES / "llaves.json").read_text())
    q = naive.linear(layer["x"], layer["w_q"])
    k = naive.linear(layer["x"], layer["w_k"])
    v = naive.linear(layer["x"], layer["w_v"])
    row = layer["tokens"].index("están")
    products = [naive.dot(q[row], key) for key in k]
    scores = [p / math.sqrt(len(k[0])) for p in products]
    powers = [math.exp(s) for s in scores]
    weights = [p / sum(powers) for p in powers]
    weighted = [[w * n for n in value] for w, value in zip(weights, v, strict=True)]
    output = naive.mix_row(weights, v)

    def vector(numbers):
        return " ".join(f"{n:.4f}" for n in numbers)

    answers = ([vector(r) for step in (q, k, v) for r in step] + [f"{p:.4f}" for p in products]
               + [f"{s:.4f}" for s in scores] + [f"{p:.4f}" for p in powers]
               + [f"{sum(powers):.4f}"] + [f"{w:.4f}" for w in weights]
               + [vector(r) for r in weighted] + [vector(output)])  # fmt: skip
    marked = json.loads(run("check", "-i", "llaves", "--token", "están", "--json",
                            input="\n".join(answers) + "\n").stdout)  # fmt: skip
    assert marked["right"] == marked["blanks"] == len(answers) == 6 * 3 + 6 * 5 + 2
    assert round(weights[1], 3) == 0.642  # «están» finds «llaves», as the lesson's grid has it
    sheet = _flat(run("exercise", "-i", "llaves", "--token", "están", "--answers",
                      "--format", "table").stdout)  # fmt: skip
    assert "Scaled scores: están (↑) · each key ÷ √d_k" in sheet and "0.642" in sheet


def test_the_total_of_another_row_is_named_on_any_row(run):
    from attncli.api.checking import corrector_of
    from attncli.api.exercise import lesson_sheet

    sheet = lesson_sheet(json.loads((SAMPLES / "llaves.json").read_text()), token="llaves")
    marking = corrector_of(sheet)
    total = next(blank for blank in marking.blanks if blank.step == "total")
    mistakes = {fields.get("other") for key, fields, _ in marking.mistakes(total)
                if key == "wrong_row"}  # fmt: skip
    assert mistakes == {0, 2, 3, 4, 5}  # every row but «llaves»'s own


def test_refusals(run):
    seeded = run("exercise", "-i", TREN, "--seed", "3")
    told(seeded.error, OptionError, "{option} with {beside}: {why}", option="--seed",
         beside=("-i FILE", {}), why=("the sheet is the file's problem; leave out {option}",
                                      {"option": "--seed"}))  # fmt: skip
    alone = run("check", "--token", "va", input="")
    assert alone.exit_code == 2 and alone.stdout == ""
    told(alone.error, OptionError, "{option} {why}; add {needed}", option="--token",
         why=("picks a row of a lesson's problem", {"option": "--token"}),
         needed=("-i FILE (-i tren)", {}))  # fmt: skip
    stdin = run("check", "-i", "-", input="2\n")
    told(
        stdin.error,
        OptionError,
        "{option} with {beside}: {why}",
        option="-i -",
        beside="attn check",
        why=("the answers come on standard input; name the file", {"option": "-i -"}),
    )
    one = run("exercise", "-i", TREN, "--token", "va")
    told(one.error, OptionError, "{option}: the problem has one query; leave it out")
    files = run("exercise", "-i", TREN, "--answer-sheet", "answers.csv")
    assert files.exit_code == 2
    told(files.error, OptionError, "{option} with {beside}: {why}", option="--answer-sheet",
         beside=("-i FILE", {}))  # fmt: skip
    other = run("exercise", "-i", str(SAMPLES / "mha_x.npy"))
    assert isinstance(other.error, InputError) and other.exit_code == 2
    assert other.error.msgid.startswith("a lesson's sheet is a query (or queries)")
