"""What a Spanish student types: numbers as attn prints them in Spanish (a decimal comma)
are read back where they cannot mean anything else, and refused elsewhere with how to type
them; the Spanish help and lines say everything in Spanish."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from attncli.errors import InputError, ShapeError
from attncli.messages import translate
from tests.cli.test_language import DECIMAL_COMMAS
from tests.meaning import DISAGREE, WRONG, said_in_spanish, told


def _json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _one_line(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


COMMA_ARGUMENT = (
    "numbers separated by spaces, decimals with a point (2.5 0 1), or with a comma under "
    "--lang es (2,5 0 1)"
)
NOT_A_NUMBER = (
    "a number (numbers separated by commas, rows by ';', decimals with a point, e.g. {option} "
    "'2,0.5;0,2', or JSON)"
)
A_NUMBER = "a number, e.g. {option} {example}"


def test_an_option_of_one_number_takes_a_decimal_comma_in_spanish(run):
    comma = _json(run("softmax", "2", "0", "1", "--temperature", "0,5", "--lang", "es", "--json"))
    point = _json(run("softmax", "2", "0", "1", "--temperature", "0.5", "--json"))
    assert comma == point and comma["temperature"] == 0.5
    short = _json(run("softmax", "2", "0", "1", "-t", "0,5", "--lang", "es", "--json"))
    assert short == point
    before = _json(run("--lang", "es", "softmax", "2", "0", "1", "-t", "0,5", "--json"))
    assert before == point


def test_attn_lang_reads_a_decimal_comma_too(run, monkeypatch):
    monkeypatch.setenv("ATTN_LANG", "es")
    assert _json(run("softmax", "2", "0", "1", "-t", "0,5", "--json"))["temperature"] == 0.5


def test_the_layers_numbers_take_a_decimal_comma(run):
    comma = _json(run("selfattn", "el tren", "--scale", "1,5", "--norm", "2,5", "--lang", "es"))
    point = _json(run("selfattn", "el tren", "--scale", "1.5", "--norm", "2.5"))
    assert comma["weights"] == point["weights"]


def test_a_decimal_comma_in_english_says_how_to_type_it(run):
    _one_line(
        run("softmax", "2", "0", "1", "--temperature", "0,5", "--lang", "en"), InputError,
        WRONG, where="--temperature", kind="'0,5'", expected=(
            "a number with a decimal point, {option} {dotted} (a decimal comma is read with "
            "--lang es)", {"option": "--temperature", "dotted": "0.5"}),
    )  # fmt: skip
    _one_line(run("softmax", "2", "0", "1", "-t", "abc", "--lang", "en"), InputError, WRONG,
              where="--temperature", kind="'abc'",
              expected=(A_NUMBER, {"option": "--temperature", "example": "0.5"}))  # fmt: skip


def test_text_that_is_no_number_gets_the_option_s_own_default_as_its_example(run):
    # a value the option takes: --rope-base must be above 1, so 0.5 would be refused next
    _one_line(run("selfattn", "a b", "--positions", "rope", "--rope-base", "abc"), InputError,
              WRONG, where="--rope-base", kind="'abc'",
              expected=(A_NUMBER, {"option": "--rope-base", "example": "10000"}))  # fmt: skip


def test_number_arguments_take_a_decimal_comma_in_spanish(run):
    comma = _json(run("softmax", "2,5", "-0,5", "1", "--lang", "es", "--json"))
    assert comma["scores"] == [2.5, -0.5, 1.0]


@pytest.mark.parametrize(("lang", "typed"), [("en", "2,5"), ("en", "2,0,1"), ("es", "2,0,1")])
def test_comma_arguments_that_cannot_be_read_say_how_to_type_them(run, lang, typed):
    result = run("softmax", typed, "0", "--lang", lang)
    _one_line(result, InputError, WRONG, lang=lang, kind=repr(typed),
              where=("{field}: argument {position}", {"field": "scores", "position": 1}),
              expected=(COMMA_ARGUMENT, {}))  # fmt: skip
    if lang == "es":
        said_in_spanish(result.error)
        assert result.stderr.strip() == "attn: error: " + result.error.message("es")


def test_inline_vectors_are_typed_as_the_language_writes_them_and_say_so(run):
    """In English a comma separates an option's numbers, ';' its rows, and decimals take a
    point; in Spanish, as Spanish mathematics writes them, ';' separates the numbers, '|' the
    rows, and the comma is the decimal mark. JSON reads the same in both."""
    cell = ("{field}: row {row}, item {item}", {"field": "--keys", "row": 2, "item": 2})
    _one_line(run("score", "--query", "1,0", "--keys", "2,1;0,x"), InputError, WRONG,
              where=cell, kind="'x'", expected=(NOT_A_NUMBER, {"option": "--keys"}))  # fmt: skip
    spanish = run("score", "--query", "1; 0", "--keys", "2; 1 | 0; x", "--lang", "es")
    _one_line(spanish, InputError, WRONG, lang="es", where=cell, kind="'x'",
              expected=(NOT_A_NUMBER, {"option": "--keys"}))  # fmt: skip
    # said in Spanish, whose catalog writes its example with Spanish marks
    assert spanish.error.message("es") != spanish.error.message("en")
    assert "{option} '2; 0,5 | 0; 2'" in translate(NOT_A_NUMBER, "es")
    typed = _json(run("score", "--query", "0,5; 1", "--keys", "2; 1 | 0; 2", "--lang", "es"))
    given = _json(run("score", "--query", "[0.5, 1]", "--keys", "[[2, 1], [0, 2]]", "--lang", "es"))
    english = _json(run("score", "--query", "0.5,1", "--keys", "2,1;0,2"))
    assert typed == given == english and typed["query"] == [0.5, 1]
    assert typed["keys"] == [[2, 1], [0, 2]]


def test_a_spanish_option_that_reads_two_ways_is_refused_naming_both(run):
    """'1,0;0,1' is the numbers 1,0 and 0,1 in Spanish, and the rows (1, 0) and (0, 1) typed
    the English way: attn reads neither, and says both."""
    spanish = run("score", "--query", "1,0;0,1", "--keys", "2; 1 | 0; 2", "--lang", "es")
    _one_line(
        spanish, InputError,
        "{option} {text!r} reads two ways: the numbers {numbers}, or the rows {rows} written the "
        "English way; write the rows with '{rows_mark}' between them, or give JSON",
        lang="es", option="--query", text="1,0;0,1", numbers="(1,0; 0,1)",
        rows="(1, 0) | (0, 1)", rows_mark="|",
    )  # fmt: skip
    said_in_spanish(spanish.error)
    english = _json(run("score", "--queries", "1,0;0,1", "--keys", "2,1;0,2"))
    assert english["queries"] == [[1, 0], [0, 1]]


def _help(*args: str) -> str:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("ATTN_LANG", "LANG", "LC_ALL")}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "attncli", *args, "--help"],
                            capture_output=True, text=True, env=environment)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_spanish_help_is_spanish():
    help_text = _help("selfattn", "--lang", "es")
    assert "FILE" not in help_text and "FICHERO" in help_text
    assert "[sentence]" not in help_text and "[frase]" in help_text and "<int>" not in help_text
    train = _help("train", "--lang", "es")  # a float default: --lr 0.1
    assert "[por defecto: 0,1]" in train and "0.1]" not in train
    assert "FLOAT" not in train and "NÚMERO" in train
    assert "[default: 0.1]" in _help("train") and "FLOAT" in _help("train")


def test_spanish_gradient_lines_and_token_errors_are_spanish(run):
    steps = run("grad", "--query", "1; 0", "--keys", "2; 1 | 0; 2", "--values", "10; 0 | 0; 10",
                "--target", "8; 2", "--steps", "--lang", "es").stdout  # fmt: skip
    assert "c − objetivo" in steps and "target" not in steps
    assert "8; 2" in steps
    tokens = run("softmax", "2", "1", "--tokens", "a,b,c", "--lang", "es")
    _one_line(tokens, ShapeError, DISAGREE, lang="es", field="--tokens",
              found=("{count} name", {"count": 3}), other="scores",
              bound=("{count} number", {"count": 2}), dimension="T_k")  # fmt: skip
    said_in_spanish(tokens.error)


ONE_NUMBER = (
    "{option} {given} is one number, {number}, where a vector is wanted (the comma is the "
    "decimal mark here); write a vector's numbers with '{mark}' between them, {option} "
    "{vector}, or as JSON, {option} {json}"
)


@pytest.mark.parametrize(
    ("args", "option", "typed"),
    [
        (["score", "--query", "0,1", "--keys", "[[2,1],[0,2]]"], "--query", "0,1"),
        (["grad", "-i", "samples/tren.json", "--target", "8,2"], "--target", "8,2"),
    ],
)
def test_a_vector_typed_with_a_comma_in_spanish_is_told_it_is_one_number(run, args, option, typed):
    """Under a decimal comma '0,1' is the number 0,1: the error says so and how a vector is
    written, '0; 1' or JSON, rather than how to score vectors of other sizes."""
    result = run(*args, "--lang", "es")
    first, second = typed.split(",")
    _one_line(result, ShapeError, ONE_NUMBER, lang="es", option=option, number=typed,
              given=repr(typed), vector=repr(f"{first}; {second}"),
              json=repr(f"[{first}, {second}]"))  # fmt: skip
    english = run(*args)  # in English the comma separates two numbers
    assert english.exit_code == 0 or english.error.msgid != ONE_NUMBER


@pytest.mark.parametrize("typed", ["0; 1", "[0, 1]", "[0,1]"])
def test_the_vector_as_the_course_writes_it_is_read_in_spanish(run, typed):
    spanish = _json(run("score", "--query", typed, "--keys", "[[2,1],[0,2]]", "--lang", "es"))
    assert spanish["query"] == [0, 1] and spanish["scores"] == [1, 2]


def test_a_json_row_with_commas_of_both_kinds_is_refused_in_spanish(run):
    """'[0,5, 1]' is JSON's 0, 5, 1, or (0,5; 1) typed with a decimal comma: refused under a
    decimal comma, naming both; in English it is JSON."""
    result = run("score", "--query", "[0,5, 1]", "--keys", "[[2,1], [0,2]]", "--lang", "es")
    _one_line(result, InputError, "{option} [{row}] reads two ways: JSON's numbers {json}, or "
              "{meant} with decimal commas; in JSON a decimal takes a point, [{dotted}]",
              lang="es", option="--query", json="(0, 5, 1)", meant="(0,5; 1)",
              dotted="0.5, 1")  # fmt: skip
    english = run("score", "--query", "[0,5, 1]", "--keys", "[[2,1,0], [0,2,0]]", "--json")
    assert _json(english)["query"] == [0, 5, 1]
    rows = _json(run("score", "--query", "[0, 1]", "--keys", "[[2,1], [0,2]]", "--lang", "es"))
    assert rows["keys"] == [[2, 1], [0, 2]]


def test_the_hint_follows_what_the_error_is_about_not_its_words():
    """Which option an error is about is data (its `field`, `name`, or what its raise site
    declares), not a word found in its English: 'query' in the text of an error about the
    keys brings no hint about --query."""
    from attncli.reading.parse.arguments import decimal_commas_told

    with pytest.raises(ShapeError) as raised, decimal_commas_told({"query": "0,5;1"}):
        raise ShapeError("the query is fine; the keys are not", about=("keys",))
    assert raised.value.msgid == "the query is fine; the keys are not"
    with pytest.raises(ShapeError) as raised, decimal_commas_told({"query": "0,5;1"}):
        raise ShapeError("sizes differ", about=("query",))
    told(raised.value, ShapeError, DECIMAL_COMMAS, option="--query", given="'0,5;1'")
    with pytest.raises(ShapeError) as raised, decimal_commas_told({"target": "8,2"}, "es"):
        raise ShapeError("{name} is the wrong size", name="target")
    told(raised.value, ShapeError, ONE_NUMBER, option="--target", vector="'8; 2'")
    with pytest.raises(InputError) as raised, decimal_commas_told({"target": "8,2"}, "es"):
        raise InputError("{name} is unreadable", name="target")  # not a size: said as it is
    assert raised.value.msgid == "{name} is unreadable"
