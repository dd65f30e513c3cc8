"""attn check as a newcomer meets it: the sheet it shows has exactly the blanks it asks
for (a cell repeating an answer above is ↑, one that only works out the next cell of its
row is left out); a vector may be typed with spaces between its numbers, and one that
cannot be read is told how to type a vector; an option typed with commas is told about
decimal commas only by an error about that option."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from attncli.present.format import BLANK, CARRIED
from tests.meaning import told

# What an option typed with decimal commas is told (reading/parse/arguments.py)
COMMA_HINT = (
    "{error} (if {option} {given} holds decimal commas: inside an option a comma separates "
    "numbers and ';' rows, so write decimals with a point, {option} {meant}, or give JSON)"
)

KINDS = [(), ("--method", "scaled"), ("--method", "general"), ("--method", "additive"),
         ("--selfattn",)]  # fmt: skip


def _ones(kind: tuple[str, ...]) -> str:
    """An answer of ones for every blank the check asks, as many numbers as each takes."""
    from attncli.api.checking import corrector

    method = kind[1] if kind[:1] == ("--method",) else "dot"
    _sheet, marking = corrector(3, 3, None, method, kind == ("--selfattn",))
    return "".join(" ".join(["1"] * marking.exact(blank).size) + "\n" for blank in marking.blanks)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_sheet_shows_as_many_blanks_as_the_check_asks(run, kind, lang):
    shown = run("check", "--seed", "3", *kind, "--lang", lang, "--format", "table", input="")
    assert shown.exit_code == 0, shown.stderr
    sheet = shown.stdout.split("\n\n" + ("Type each" if lang == "en" else "Escribe"))[0]
    piped = run("check", "--seed", "3", *kind, "--json", input=_ones(kind))
    document = json.loads(piped.stdout)
    assert sheet.count(BLANK) == document["blanks"] == len(document["verdicts"])
    assert f"({document['blanks']} " in shown.stdout.splitlines()[-1]  # the count it closes on
    assert CARRIED in sheet  # the scores and weights carried from a table above


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_printed_sheet_is_the_sheet_check_shows(run, kind, lang):
    """attn exercise prints the sheet attn check shows and asks, blank for blank: q · k where
    a step follows it, the softmax ÷ the total of its Total row, each weight asked once."""
    printed = run("exercise", "--seed", "3", *kind, "--lang", lang, "--format", "table").stdout
    shown = run("check", "--seed", "3", *kind, "--lang", lang, "--format", "table", input="")
    assert shown.stdout.startswith(printed.rstrip("\n"))
    divisor = "÷ total" if lang == "en" else "dividir por el total"
    assert divisor in printed and "÷ ____" not in printed


@pytest.mark.parametrize(
    ("typed", "lang", "read"),
    [
        ("1 2", "en", [1, 2]),
        ("0   0.78", "en", [0, 0.78]),
        ("2,5 0", "es", [2.5, 0]),
        ("1, 2", "en", [1, 2]),
        ("1; 2", "es", [1, 2]),
    ],
)
def test_a_vector_typed_with_spaces_is_read(typed, lang, read):
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    np.testing.assert_array_equal(read_answer(typed, Blank("weighted", 0), lang), read)


def test_a_vector_that_cannot_be_read_is_told_how_to_type_a_vector(run):
    answers = "1\n2\n2\n2.72\n7.39\n7.39\n17.5\n0.155\n0.422\n0.422\n2,5 0\n"
    result = run("check", "--seed", "3", "--json", input=answers)
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    problem = result.error.fields["problem"]
    assert problem.msgid.startswith("{text} is not a vector of numbers")
    assert (problem.fields["example"], problem.fields["spaced"]) == ("6.65, 0", "6.65 0")
    spanish = run("check", "--seed", "3", "--lang", "es", "--json",
                  input=answers.replace("2,5 0", "2.5.0"))  # fmt: skip
    problem = spanish.error.fields["problem"]  # the numbers as a Spanish sheet writes them
    assert (problem.fields["example"], problem.fields["spaced"]) == ("6,65; 0", "6,65 0")


def test_one_number_typed_as_two_is_told_the_blank_takes_one():
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    with pytest.raises(InputError) as raised:
        read_answer("1 2", Blank("score", 0))
    told(raised.value, InputError, "{text}: this blank takes {count}", text="1 2",
         count=("{count} number", {"count": 1}))  # fmt: skip
    with pytest.raises(InputError) as raised:  # from Python, refused where it stands
        attn.check(seed=3, answers=["1", "2", "2", "2.72 7.39"])
    assert raised.value.msgid == "answers[{index}]: {problem}"
    told(raised.value, InputError, "answers[{index}]: {problem}", index=3,
         problem=("{text}: this blank takes {count}",
                  {"text": "2.72 7.39", "count": ("{count} number", {"count": 1})}))  # fmt: skip
    with pytest.raises(InputError) as raised:
        attn.check(seed=3, answers=["1", "x"])
    told(raised.value, InputError, "answers[{index}]: {problem}", index=1)
    problem = raised.value.fields["problem"]
    assert problem.msgid.startswith("{text} is not a number") and problem.fields["text"] == "x"


def test_a_read_back_error_says_nothing_of_decimal_commas_in_another_option(run):
    piped = run("exercise", "--seed", "3", "--answers", "--json").stdout
    result = run("grad", "--target", "8,2", "--method", "scaled", input=piped)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.fields["name"] == "scores" and result.error.msgid != COMMA_HINT


def test_an_error_about_another_option_names_none_typed_with_commas(run):
    result = run("grad", "--query", "1,0", "--keys", "1,0;0,1", "--values", "1,0;0,1",
                 "--target", "8,2,1")  # fmt: skip
    assert result.exit_code == 2
    told(result.error, ShapeError, "{name} is {shown} but the output is {wanted} (give one "
         "number per number of the output)", name="--target", shown="3", wanted="2")  # fmt: skip
    assert result.error.msgid != COMMA_HINT
    about = run("score", "--query", "0,5", "--keys", "1,0,1;0,1,1")  # the query's own size
    told(about.error, ShapeError, COMMA_HINT, option="--query", given="'0,5'", meant="'0.5'")


@pytest.mark.parametrize("typed", ["nan", "inf", "-Infinity", "1e400", "1e400/2"])
def test_an_infinite_or_undefined_number_is_no_answer(run, typed):
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    with pytest.raises(InputError) as raised:
        read_answer(typed, Blank("score", 0))
    assert raised.value.msgid.startswith("{text}: no step of the sheet gives an infinite")
    piped = run("check", "--seed", "3", "--json", input=f"1\n{typed}\n")
    assert piped.exit_code == 2 and piped.stdout == "" and piped.stderr.count("\n") == 1
    assert piped.error.fields["problem"].msgid == raised.value.msgid
    with pytest.raises(InputError):  # a file's, from Python, are refused the same way
        read_answer(f"{typed} 1", Blank("weighted", 0), size=2)


def test_the_minus_the_sheet_prints_is_a_minus():
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    assert read_answer("\u22122,11", Blank("score", 0), "es") == -2.11
    np.testing.assert_array_equal(read_answer("\u22121 2", Blank("weighted", 0), size=2), [-1, 2])


def test_a_vector_of_the_wrong_length_is_told_how_many_numbers_the_blank_takes(run):
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    with pytest.raises(InputError) as raised:
        read_answer("1 2 3", Blank("weighted", 0), size=2)
    assert raised.value.msgid == "{text}: this blank takes {count}"
    assert raised.value.message("en") == "1 2 3: this blank takes 2 numbers"
    assert raised.value.message("es") == "1 2 3: esta casilla lleva 2 números"
    answers = "1\n2\n2\n7.39\n1\n7.39\n15.78\n0.47\n0.06\n0.47\n1 2 3\n"
    piped = run("check", "--seed", "3", "--json", input=answers)
    assert piped.exit_code == 2 and piped.error.msgid == "answer {number} ({asked}): {problem}"
    assert piped.error.fields["problem"].msgid == "{text}: this blank takes {count}"


@pytest.mark.parametrize("suffix", [".html", ".tex", ".txt"])
def test_a_student_s_marked_answers_are_exported_at_a_terminal_too(run, tmp_path, suffix):
    target = tmp_path / f"marked{suffix}"
    result = run("check", "--seed", "3", "--format", "table", "--export", str(target),
                 input="1\n2\n")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "2 of 2 answers right" in target.read_text(encoding="utf-8")
    spreadsheet = run("check", "--seed", "3", "--format", "table", "--export",
                      str(tmp_path / "m.xlsx"), input="1\n")  # fmt: skip
    assert spreadsheet.exit_code == 2 and spreadsheet.stdout == ""  # refused before asking
    assert not (tmp_path / "m.xlsx").exists()


def test_a_vector_typed_with_a_semicolon_is_a_vector_in_english_too():
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Blank

    np.testing.assert_array_equal(read_answer("0; 0.78", Blank("weighted", 0), size=2), [0, 0.78])
    answers = ["1", "2", "2", "2.72", "7.39", "7.39", "17.5", "0.155", "0.422", "0.422", "0; 0.78"]
    assert attn.check(seed=3, answers=answers).verdicts[-1].kind == "right"


def test_numbers_from_python_are_answers_as_typed_ones_are():
    typed = attn.check(seed=3, answers=["1", "2", "2", "2.72"])
    given = attn.check(seed=3, answers=[1, 2, 2.0, 2.72])
    assert [v.kind for v in given.verdicts] == [v.kind for v in typed.verdicts] == ["right"] * 4


@pytest.mark.parametrize(
    ("lang", "typed", "shown"),
    [("en", "2.72", "2.72"), ("es", "2,72", "2,72"), ("es", "25,5", "25,5")],
)
def test_a_marked_sheet_quotes_the_answer_as_the_student_wrote_it(run, tmp_path, lang, typed,
                                                                  shown):  # fmt: skip
    path = tmp_path / "marked.txt"
    result = run("check", "--seed", "3", "--lang", lang, "--format", "table", "--export",
                 str(path), input=f"1\n2\n2\n{typed}\n")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    line = [row for row in path.read_text(encoding="utf-8").splitlines() if "«" in row][3]
    assert f": {shown} —" in line, line


@pytest.mark.parametrize("typed", ["1e300/1e-300", "1,2;3", "[1, [2]]", "{}", "1,2;3,4"])
def test_a_fraction_past_the_numbers_or_a_ragged_answer_is_refused_in_one_line(run, typed):
    result = run("check", "--seed", "3", "--json", input=f"1\n{typed}\n")
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert result.error.msgid == "answer {number} ({asked}): {problem}"


def test_a_fraction_is_quoted_at_six_decimals_on_the_marked_sheet(run, tmp_path):
    path = tmp_path / "marked.txt"
    assert run("check", "--seed", "3", "--format", "table", "--export", str(path),
               input="2/3\n").exit_code == 0  # fmt: skip
    assert "score of «perro»: 0.666667 —" in path.read_text(encoding="utf-8")
