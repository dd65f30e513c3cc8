"""What a Spanish student types: numbers as attn prints them in Spanish (a decimal comma)
are read back where they cannot mean anything else, and refused elsewhere with how to type
them; the Spanish help and lines say everything in Spanish."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def _json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _one_line(result, *fragments):
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


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
        run("softmax", "2", "0", "1", "--temperature", "0,5", "--lang", "en"),
        "--temperature '0,5'",
        "--temperature 0.5",
        "--lang es",
    )
    _one_line(run("softmax", "2", "0", "1", "-t", "abc", "--lang", "en"), "not a number", "0.5")


def test_number_arguments_take_a_decimal_comma_in_spanish(run):
    comma = _json(run("softmax", "2,5", "-0,5", "1", "--lang", "es", "--json"))
    assert comma["scores"] == [2.5, -0.5, 1.0]


@pytest.mark.parametrize(
    ("lang", "typed", "fragments"),
    [
        ("en", "2,5", ["argument 1 is '2,5'", "separate numbers with spaces", "2.5 0 1"]),
        ("en", "2,0,1", ["argument 1 is '2,0,1'", "--lang es (2,5 0 1)"]),
        ("es", "2,0,1", ["argumento 1 es '2,0,1'", "separa los números con espacios"]),
    ],
)
def test_comma_arguments_that_cannot_be_read_say_how_to_type_them(run, lang, typed, fragments):
    _one_line(run("softmax", typed, "0", "--lang", lang), *fragments)


def test_inline_vectors_are_typed_as_the_language_writes_them_and_say_so(run):
    """In English a comma separates an option's numbers, ';' its rows, and decimals take a
    point; in Spanish, as Spanish mathematics writes them, ';' separates the numbers, '|' the
    rows, and the comma is the decimal mark. JSON reads the same in both."""
    _one_line(run("score", "--query", "1,0", "--keys", "2,1;0,x"), "decimals with a point")
    spanish = run("score", "--query", "1; 0", "--keys", "2; 1 | 0; x", "--lang", "es")
    _one_line(
        spanish,
        "--keys: 'x' no es un número",
        "separados por ';', las filas por '|' y los decimales con coma",
        "--keys '2; 0,5 | 0; 2'",
    )
    assert "con punto" not in spanish.stderr
    typed = _json(run("score", "--query", "0,5; 1", "--keys", "2; 1 | 0; 2", "--lang", "es"))
    given = _json(run("score", "--query", "[0.5, 1]", "--keys", "[[2, 1], [0, 2]]", "--lang", "es"))
    english = _json(run("score", "--query", "0.5,1", "--keys", "2,1;0,2"))
    assert typed == given == english and typed["query"] == [0.5, 1]
    assert typed["keys"] == [[2, 1], [0, 2]]


def test_a_spanish_option_that_reads_two_ways_is_refused_naming_both(run):
    """'1,0;0,1' is the numbers 1,0 and 0,1 in Spanish, and the rows (1, 0) and (0, 1) typed
    the English way: attn reads neither, and says both."""
    _one_line(
        run("score", "--query", "1,0;0,1", "--keys", "2; 1 | 0; 2", "--lang", "es"),
        "--query '1,0;0,1' se lee de dos maneras",
        "los números (1,0; 0,1)",
        "las filas (1, 0) | (0, 1)",
        "'|'",
    )
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
    softmax = _help("softmax", "--lang", "es")
    assert "[por defecto: 1,0]" in softmax and "1.0]" not in softmax
    assert "FLOAT" not in softmax and "NÚMERO" in softmax
    assert "[default: 1.0]" in _help("softmax") and "FLOAT" in _help("softmax")


def test_spanish_gradient_lines_and_token_errors_are_spanish(run):
    steps = run("grad", "--query", "1; 0", "--keys", "2; 1 | 0; 2", "--values", "10; 0 | 0; 10",
                "--target", "8; 2", "--steps", "--lang", "es").stdout  # fmt: skip
    assert "c − objetivo" in steps and "target" not in steps
    assert "8; 2" in steps
    _one_line(
        run("softmax", "2", "1", "--tokens", "a,b,c", "--lang", "es"),
        "3 nombres para 2 columnas de scores",
    )
