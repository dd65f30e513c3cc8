"""attn exercise --questions and attn check --questions on the command line: the sheet and
its key in both languages, the letters marked as typed or piped, the JSON, the refusals."""

from __future__ import annotations

import json
import re

from attncli.api.questions import QUESTIONS
from attncli.errors import InputError, OptionError
from tests.meaning import told

RIGHT = [question.letter for question in QUESTIONS]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_sheet_and_its_key(run):
    sheet = run("exercise", "--questions", "--format", "table").stdout
    assert "QUESTIONS" in sheet and "ANSWERS" not in sheet
    assert "9. The whole multiplicative grid is one product" in _flat(sheet)
    assert "d) Because W_a is updated after every step of the decoder." in _flat(sheet)
    keyed = _flat(run("exercise", "--questions", "--answers", "--format", "table").stdout)
    key = keyed[keyed.index("ANSWERS") :]
    assert "3. d) q · k adds d_k terms, so its spread grows as √d_k" in key
    assert "With coordinates of variance 1, q · k has variance d_k." in key
    alone = run("exercise", "--questions", "--answers-only", "--format", "table").stdout
    assert "ANSWERS" in alone and "QUESTIONS" not in alone


def test_in_spanish(run):
    sheet = _flat(run("exercise", "--questions", "--answers", "--lang", "es",
                      "--format", "table").stdout)  # fmt: skip
    assert "PREGUNTAS" in sheet and "SOLUCIONES" in sheet
    assert "4. Una frase de T tokens pasa por una cabeza con d_k = 64." in sheet
    assert "(lección 001)" in sheet


def test_piped_it_is_the_questions_as_data(run):
    document = json.loads(run("exercise", "--questions").stdout)
    assert [q["key"] for q in document["questions"]] == [q.key for q in QUESTIONS]
    assert "answer" not in document["questions"][0]
    keyed = json.loads(run("exercise", "--questions", "--answers").stdout)
    assert [q["answer"] for q in keyed["questions"]] == RIGHT


def test_check_marks_each_letter_as_it_comes(run):
    letters = ["c", "a", "b"]  # the third is wrong: √d_k is d
    screen = _flat(run("check", "--questions", "--format", "table",
                       input="\n".join(letters) + "\n").stdout)  # fmt: skip
    assert "question 1: c right: c) On its own diagonal cell" in screen
    assert "question 3: b not right: the answer is d) q · k adds d_k terms" in screen
    assert "2 of 3 answers right (9 questions)." in screen
    spanish = _flat(run("check", "--questions", "--format", "table", "--lang", "es",
                        input="c\nz\nd\n").stdout)  # fmt: skip
    assert "pregunta 1: c bien: c) En su propia casilla de la diagonal" in spanish
    assert "z: contesta con la letra de una opción, a, b, c, d" in spanish
    assert "pregunta 2: z z: contesta" in spanish  # said, then marked not right
    assert "no es correcto: la respuesta es a)" in spanish
    assert "2 de 3 respuestas bien (9 preguntas)." in spanish


def test_check_every_letter_and_one_too_many(run):
    screen = _flat(run("check", "--questions", "--format", "table",
                       input="\n".join([*RIGHT, "a"]) + "\n").stdout)  # fmt: skip
    assert "9 of 9 answers right (9 questions)." in screen
    assert "10 answers for 9 questions" in screen


def test_check_piped_for_json(run):
    marked = json.loads(run("check", "--questions", "--json", input="c\na\nb\n").stdout)
    assert marked["right"] == 2 and marked["answered"] == 3
    assert marked["verdicts"][2]["expected"] == "d"
    bad = run("check", "--questions", "--json", input="c\nmaybe\n")
    assert bad.exit_code == 2 and bad.stdout == ""
    told(bad.error, InputError, "answer {number} ({asked}): {problem}", number=2)


def test_refusals(run):
    seeded = run("exercise", "--questions", "--seed", "4")
    told(seeded.error, OptionError, "{option} with {beside}: {why}", option="--seed",
         beside="--questions", why=("the questions are the lessons' own, the same for everyone; "
                                    "leave out {option}", {"option": "--seed"}))  # fmt: skip
    assert run("check", "--questions", "--method", "scaled").exit_code == 2
    sheet = run("exercise", "--questions", "--export", "q.xlsx")
    assert sheet.exit_code == 2 and sheet.error.fields["path"] == "q.xlsx"
    marked = run("check", "--questions", "--export", "q.xlsx", "--format", "table", input="c\n")
    assert marked.exit_code == 2 and marked.stdout == ""  # before the first question


def test_a_printed_sheet_keeps_each_choice_on_its_line(run, tmp_path):
    path = tmp_path / "preguntas.md"
    assert run("exercise", "--questions", "--lang", "es", "--export", str(path)).exit_code == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("1. Con Q = K = V = X"))
    # a hard line break after the question and each choice but the last: Markdown would
    # otherwise run them into one paragraph
    assert [line[:2] for line in lines[first + 1 : first + 5]] == ["a)", "b)", "c)", "d)"]
    assert all(line.endswith("\\") for line in lines[first : first + 4])
    assert not lines[first + 4].endswith("\\")
