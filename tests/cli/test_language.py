"""Spanish: the course's tables, the decimal comma, errors, and how the language is chosen."""

from __future__ import annotations

import json

import pytest

from attncli.cli import usage
from attncli.core.methods import NAMES
from attncli.errors import InputError, ShapeError
from attncli.present.language import PHRASES, resolve, usage_error
from tests.conftest import SAMPLES
from tests.meaning import MASKED_NUMBER, WRONG, told

TREN = str(SAMPLES / "tren.json")


def test_every_phrase_has_both_languages():
    from attncli.messages import translate

    for key, english in PHRASES.items():
        assert english and translate(english, "es"), key


@pytest.mark.parametrize(
    ("option", "environ", "expected"),
    [
        ("en", {"ATTN_LANG": "es"}, "en"),
        (None, {"ATTN_LANG": "es"}, "es"),
        (None, {"ATTN_LANG": "es", "LANG": "en_US.UTF-8"}, "es"),
        (None, {"LANG": "es_ES.UTF-8"}, "es"),
        (None, {"LC_ALL": "en_GB.UTF-8", "LANG": "es_ES.UTF-8"}, "en"),
        (None, {"LC_ALL": "es_MX.UTF-8"}, "es"),
        (None, {}, "en"),
        (None, {"ATTN_LANG": "fr", "LANG": "es_AR"}, "es"),
    ],
)
def test_language_choice(option, environ, expected):
    assert resolve(option, environ) == expected


def test_score_steps_in_spanish(run):
    out = run("score", "-i", TREN, "--steps", "--lang", "es").stdout
    assert "Token" in out and "Clave" in out and "Puntuación" in out
    assert "1×2 + 0×1 = 2" in out


def test_softmax_steps_in_spanish_with_decimal_comma(run):
    out = run(
        "softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--steps", "--lang", "es"
    ).stdout
    assert "e elevado a la puntuación" in out and "Peso: dividir por 11,11" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["tren"] == ["2", "7,39", "0,665"]
    assert rows["va"] == ["0", "1,00", "0,090"]
    assert rows["Total"] == ["11,11", "1,000"]


def test_mix_steps_in_spanish(run, run_json):
    weighted = run_json("softmax", input=json.dumps(run_json("score", "-i", TREN)))
    out = run("mix", "--steps", "--lang", "es", input=json.dumps(weighted)).stdout
    assert "Peso" in out and "Valor" in out and "Peso por valor" in out
    assert "6,65; 0" in out and "0; 0,90" in out and "10; 0" in out
    salida = next(line for line in out.splitlines() if "Salida" in line)
    assert salida.split() == ["Salida", "unos", "7,88;", "2,12"]


def test_language_from_environment(run):
    from typer.testing import CliRunner

    from attncli.cli.app import app

    result = CliRunner().invoke(app, ["softmax", "2", "0", "--steps"], env={"ATTN_LANG": "es"})
    assert "e elevado a la puntuación" in result.stdout
    result = CliRunner().invoke(
        app, ["softmax", "2", "0", "--steps"], env={"ATTN_LANG": "", "LANG": "es_ES.UTF-8"}
    )
    assert "Peso" in result.stdout


def test_json_is_the_same_in_both_languages(run):
    english = run("selfattn", "el tren", "--json", "--lang", "en").stdout
    spanish = run("selfattn", "el tren", "--json", "--lang", "es").stdout
    assert english == spanish


QUERY_AND_KEYS = (
    "{query} has {numbers} but each key has {key_size} ({method} takes the dot product of the two, "
    "so they must be equal; {general} or {additive} allow different sizes)"
)
RAGGED = "{field}: row {index} has {row}, row 1 has {rows} (every row must have the same length)"
DECIMAL_COMMAS = (
    "{error} (if {option} {given} holds decimal commas: inside an option a comma separates "
    "numbers and ';' rows, so write decimals with a point, {option} {meant}, or give JSON)"
)


def _said_in_spanish(result) -> None:
    """One line, and it is the error said in Spanish (not the English msgid)."""
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    spanish = result.error.message("es")
    assert spanish != result.error.message("en") and spanish in result.stderr, result.stderr


def test_errors_in_spanish(run):
    from attncli.messages import translate

    result = run("score", "--query", "1; 0; 3", "--keys", "[[2,1],[0,2]]", "--lang", "es")
    told(result.error, ShapeError, QUERY_AND_KEYS, query=("the query", {}),
         numbers=("{count} number", {"count": 3}), key_size=2, method="--method dot")  # fmt: skip
    _said_in_spanish(result)
    # the catalog says the score in the lesson's words: the dot product, not «la puntuación»
    assert "producto escalar" in translate(QUERY_AND_KEYS, "es")
    result = run("softmax", "--lang", "es", input='{"scores": [[1, 2], [3]]}')
    told(result.error, ShapeError, RAGGED, field="scores", index=2,
         row=("{count} number", {"count": 1}), rows=2)  # fmt: skip
    _said_in_spanish(result)
    result = run("softmax", "--lang=es", input='{"scores": [1, true]}')
    told(result.error, InputError, WRONG,
         where=("{field}, item {item}", {"field": "scores", "item": 2}),
         kind=("{value} (a boolean)", {"value": "true"}), expected=MASKED_NUMBER)  # fmt: skip
    _said_in_spanish(result)


CHOICES = ", ".join(f"'{name}'" for name in NAMES)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["score", "--method", "euclidean"],
         [(usage.INVALID_VALUE, {"param": "'--method' / '-m'"}),
          (usage.NOT_A_CHOICE, {"value": "euclidean", "choices": CHOICES})]),
        (["score", "--digits", "99"],
         [(usage.INVALID_VALUE, {"param": "'--digits'"}),
          (usage.OUT_OF_RANGE, {"value": "99", "range": "0<=x<=15"})]),
        (["selfattn", "a", "--heads", "x"],
         [(usage.INVALID_VALUE, {"param": "'--heads'"}),
          (usage.NOT_A_NUMBER[usage.types.IntRange], {"value": "x"})]),
        (["score", "--bogus"], [(usage.NO_SUCH_OPTION, {"option": "--bogus"})]),
        (["mix", "--weights", "0,665", "0,090", "0,245"],
         [(usage.EXTRA_ARGUMENTS, {"arguments": "0,090 0,245"})]),
    ],
)  # fmt: skip
def test_usage_errors_in_spanish(run, args, said):
    """Click's usage errors, by their parts (cli/usage.py), said in Spanish in one line."""
    result = run(*args, "--lang", "es")
    assert result.exit_code == 2 and result.stdout == ""
    spanish = usage_error("es", said, f"root {args[0]}")  # CliRunner's program name
    assert result.stderr == f"attn: error: {spanish}\n", result.stderr
    assert spanish != usage_error("en", said, f"root {args[0]}")


def test_an_unreadable_number_is_told_in_spanish(run):
    result = run("softmax", "-t", "abc", "--lang", "es")
    told(result.error, InputError, WRONG, where="--temperature", kind="'abc'",
         expected=("a number, e.g. {option} {example}",
                   {"option": "--temperature", "example": "0,5"}))  # fmt: skip
    _said_in_spanish(result)


def test_selfattn_and_compare_in_spanish(run):
    out = run(
        "selfattn", "el tren va lleno", "--format", "table", "--lang", "es", "--show", "shapes"
    ).stdout
    assert "Pesos (fila = quién pregunta, columna = quién contesta)" in out
    assert "los mismos para cualquier T" in out and "Formas" in out
    args = ["--tx", "4", "--ty", "3", "--d-h", "8", "--d-a", "2", "--repeat", "1", "--dk", "4"]
    out = run("compare-scores", *args, "--format", "table", "--lang", "es").stdout
    assert "Productos y sumas" in out and "Evaluaciones de tanh" in out
    assert "pareja a pareja" in out and "la misma rejilla" in out


def test_every_help_text_is_in_the_catalog():
    """The help is the msgid; the Spanish build of the app says the catalog's words
    (tests/docs/test_catalog.py checks that every msgid has them)."""
    from attncli.cli.app import build_app

    spanish = build_app("es")
    helps = {info.name: info.help for info in spanish.registered_commands}
    assert helps["softmax"].startswith("Pasa las puntuaciones a pesos")
    # a score is how well a key fits the query, in the lesson's own verb
    assert "encaja" in helps["score"].split("\n")[0] and "se parecen" not in helps["score"]


def test_click_words_are_said_from_the_catalog():
    from attncli.cli.click_words import _in

    assert _in("es", "Seed. [default: 0]") == "Seed. [por defecto: 0]"
    assert _in("es", "Show this message and exit.") == "Muestra este mensaje y termina."


@pytest.mark.parametrize(
    ("args", "env"),
    [(["softmax", "--help", "--lang", "es"], {}), (["selfattn", "-h"], {"ATTN_LANG": "es"}),
     (["--lang", "es", "--help"], {}), (["mix", "-h"], {"LANG": "es_ES.UTF-8"})],
)  # fmt: skip
def test_help_speaks_spanish_when_the_command_line_does(args, env):
    import os
    import subprocess
    import sys

    environment = {key: value for key, value in os.environ.items()
                   if key not in ("ATTN_LANG", "LANG", "LC_ALL")}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "attncli", *args], capture_output=True,
                            text=True, env={**environment, **env})  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("Uso: attn") and "Opciones:" in out
    assert "Muestra este mensaje y termina." in out
    for english in ("Usage:", "Options:", "Show this message", "Default: ATTN_LANG", "Example:"):
        assert english not in out


def test_help_stays_english_otherwise():
    import os
    import subprocess
    import sys

    environment = {key: value for key, value in os.environ.items()
                   if key not in ("ATTN_LANG", "LANG", "LC_ALL")}  # fmt: skip
    out = subprocess.run([sys.executable, "-m", "attncli", "softmax", "-h"], capture_output=True,
                         text=True, env=environment).stdout  # fmt: skip
    assert out.startswith("Usage: attn softmax") and "Turn scores into weights" in out


def test_lang_before_the_command_is_the_commands_language(run):
    out = run("--lang", "es", "softmax", "1", "2", "--format", "table").stdout
    assert "Puntuación" in out and "0,731" in out


def test_a_phrase_said_twice_is_refused_not_overridden():
    """Each screen's words are joined into one table; the same key in two of them is a
    mistake the joining names."""
    from attncli.present import language

    table = {"title": ("Title", "Título")}
    with pytest.raises(KeyError, match="phrases defined twice: title"):
        language._joined(dict(table), {"other": ("x", "x")}, {"title": ("T", "T")})
    joined = dict(table)
    language._joined(joined, {"other": ("Other", "Otro")})
    assert joined == {"title": ("Title", "Título"), "other": ("Other", "Otro")}


TWO_READINGS = (
    "{option} {text!r} reads two ways: the numbers {numbers}, or the rows {rows} written the "
    "English way; write the rows with '{rows_mark}' between them, or give JSON"
)


@pytest.mark.parametrize(
    ("args", "meant", "spanish"),
    [
        (
            ("score", "--query", "0,5;1", "--keys", "2,1;0,2;1,1"),
            "--query '0.5,1'",
            {"option": "--keys", "text": "2,1;0,2;1,1", "numbers": "(2,1; 0,2; 1,1)",
             "rows": "(2, 1) | (0, 2) | (1, 1)"},
        ),
        (
            ("mix", "--weights", "0,665;0,090;0,245", "--values", "[[10,0],[0,10],[5,5]]"),
            "--weights '0.665,0.090,0.245'",
            {"option": "--weights", "text": "0,665;0,090;0,245",
             "numbers": "(0,665; 0,090; 0,245)"},
        ),
        (("softmax", "--scores", "2,5;0;1"), "--scores '2.5,0,1'", {"scores": [2.5, 0, 1]}),
        (
            ("grad", "--query", "0,5;1", "--keys", "2,1;0,2", "--values", "[[1],[2]]",
             "--target", "1"),
            "--query '0.5,1'",
            {"option": "--keys", "text": "2,1;0,2", "numbers": "(2,1; 0,2)",
             "rows": "(2, 1) | (0, 2)"},
        ),
    ],
    ids=["score", "mix", "softmax", "grad"],
)  # fmt: skip
def test_an_error_about_numbers_typed_with_decimal_commas_says_how_to_type_them(
    run, args, meant, spanish
):
    """In English a comma inside an option separates numbers, so decimal commas come out as
    rows of other lengths; the error that follows also says to write decimals with a point.
    In Spanish the comma is the decimal mark and ';' separates the numbers: the same text is
    read as Spanish numbers (2,5;0;1 is 2.5, 0, 1), or, where it also reads as English rows
    (2,1;0,2), refused in one line naming both readings; no hint about decimal commas."""
    result = run(*args, "--lang", "en")
    assert result.exit_code == 2 and result.stdout == ""
    option, meant = meant.split(" ", 1)
    told(result.error, type(result.error), DECIMAL_COMMAS, option=option, meant=meant)
    assert len(result.stderr.strip().splitlines()) == 1
    result = run(*args, "--lang", "es", "--json")
    if "scores" in spanish:  # read as Spanish numbers
        assert result.exit_code == 0 and result.error is None, result.stderr
        read = json.loads(result.stdout)
        assert {name: read[name] for name in spanish} == spanish
    else:  # both readings named, and no hint about decimal commas
        told(result.error, InputError, TWO_READINGS, **spanish)
        _said_in_spanish(result)


def test_numbers_without_decimal_commas_get_no_such_hint(run):
    result = run("score", "--query", "1; 0; 1", "--keys", "[[2,1],[0,2]]", "--lang", "es")
    # the msgid itself, not DECIMAL_COMMAS's hint wrapped around it
    told(result.error, ShapeError, QUERY_AND_KEYS, numbers=("{count} number", {"count": 3}),
         key_size=2)  # fmt: skip
    _said_in_spanish(result)
    fine = run("score", "--query", "1,0", "--keys", "2,1;0,2;1,1")
    assert fine.exit_code == 0


def test_click_s_placeholders_are_said_as_the_parameters_own(capsys, monkeypatch):
    """<int>, <str> and the sentence argument's name, said in Spanish as each
    parameter's metavar: the usage line and the options alike, and English's help, built
    after in the same process, keeps Click's own."""
    from attncli.cli.app import run as run_app
    from attncli.cli.click_words import TERMS
    from attncli.messages import translate

    monkeypatch.setenv("COLUMNS", "100")

    def help_of(*args: str) -> str:
        with pytest.raises(SystemExit):
            run_app([*args, "--help"])
        return capsys.readouterr().out

    spanish, english = help_of("selfattn", "--lang", "es"), help_of("selfattn")
    assert spanish.startswith("Uso: attn selfattn [OPCIONES] [frase]\n"), spanish
    for word in ("<str>", "<int>", "<int range>"):  # --token <str>, --seed <int>, …
        assert word in TERMS and word in english and word not in spanish, word
        assert translate(word, "es") in spanish, word
    assert english.startswith("Usage: attn selfattn [OPTIONS] [sentence]\n"), english
