"""The numbers a command's --help shows are ones its language reads: in Spanish the decimal
comma, ';' between numbers and '|' between rows ('2; 0 | 1; 1'), as attn prints them; in
English '2,0;1,1'. An example written the other language's way would be refused."""

from __future__ import annotations

import re
import shlex

import pytest

from attncli.cli.commands import every_command, parameters
from attncli.messages import languages
from attncli.reading.parse.arguments import parse_inline

# The options read as numbers written inline (reading/parse/sources.document_from), and the
# whole sizes --tiles reads the same way in every language.
INLINE = {"query", "queries", "keys", "values", "weights", "scores", "grad_output", "target"}
EXAMPLE = re.compile(r"--(?:" + "|".join(f.replace("_", "-") for f in INLINE) + r"|tiles) \S")
# An example in an option's help: quoted, or bare after "e.g." or a colon.
SHOWN = re.compile(r"'([^']+)'|(?:p\. ej\.|e\.g\.|:),? ([^\s']\S*?)\.?(?=\s|$)")
NUMBERS = re.compile(r"[\[\]\d\s.,;|+-]*\d[\[\]\d\s.,;|+-]*")


def _option_examples(lang: str) -> list[tuple[str, str, str]]:
    found = []
    for name, command in every_command().items():
        for parameter in parameters(command):
            names = parameter.declaration.names
            field = names[0].removeprefix("--").replace("-", "_") if names else ""
            if field not in INLINE:
                continue
            for quoted, bare in SHOWN.findall(parameter.declaration.help_in(lang) or ""):
                if NUMBERS.fullmatch(quoted or bare):
                    found.append((name, field, quoted or bare))
    return found


def _read(name: str, field: str, text: str, lang: str) -> object:
    try:
        return parse_inline(text, field, lang)
    except Exception as error:  # noqa: BLE001 - the message is the point
        pytest.fail(f"attn {name} --help --lang {lang}: --{field} {text!r}: {error}")


@pytest.mark.parametrize("lang", languages())
def test_option_help_examples_read_in_their_language(lang):
    """Each example reads, and as the same numbers as the English help's: Spanish '1,0' is
    the one number 1.0, not the vector (1, 0) the English help shows."""
    english, examples = _option_examples("en"), _option_examples(lang)
    assert {field for _, field, _ in examples} >= {
        "query",
        "queries",
        "weights",
        "scores",
        "target",
    }
    assert [where[:2] for where in examples] == [where[:2] for where in english]
    for (name, field, text), (_, _, shown) in zip(examples, english, strict=True):
        assert _read(name, field, text, lang) == _read(name, field, shown, "en"), (name, text)


def _command_examples(lang: str) -> list[str]:
    """Every command line in a command's help that gives numbers inline, as one line."""
    lines = []
    for command in every_command().values():
        for line in command.help_in(lang).splitlines():
            if "attn " in line and EXAMPLE.search(line):
                lines.append(line[line.index("attn ") :])
    return lines


@pytest.mark.parametrize("lang", languages())
def test_command_help_examples_run_in_their_language(run, lang):
    examples = _command_examples(lang)
    assert len(examples) >= 4, examples
    for example in examples:
        stages, words = [], []
        for word in [*shlex.split(example), "|"]:
            if word == "|":
                stages.append(words)
                words = []
            else:
                words.append(word)
        piped = None
        for stage in stages:
            assert stage[0] == "attn", example
            result = run(*stage[1:], "--lang", lang, input=piped)
            assert result.exit_code == 0, f"{example} --lang {lang}: {result.stderr}"
            piped = result.stdout
