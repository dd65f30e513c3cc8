"""Each option's help, in English and Spanish, names only options its own command takes."""

from __future__ import annotations

import re

import pytest

from attncli.cli.commands import every_command, parameters
from attncli.messages import languages

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
OTHER_TOOL = re.compile(r"pip install [^.;]*")  # another program's options


@pytest.mark.parametrize("name", list(every_command()))
def test_option_help_names_only_options_of_its_command(name):
    declared = parameters(every_command()[name])
    names = {option for parameter in declared for option in parameter.declaration.names}
    names.add("--help")
    for parameter in declared:
        for lang in languages():
            text = parameter.declaration.help_in(lang)
            for mentioned in OPTION.findall(OTHER_TOOL.sub("", text or "")):
                assert mentioned in names, f"attn {name} {parameter.declaration.names}: {text}"


def test_exercise_answers_help_says_what_it_does(run):
    """attn exercise's --blank is its own: a spreadsheet's student cells left empty (its
    screen and printed sheets are always blank), never the --steps worksheet of the others."""
    declared = {
        p.declaration.names[0]: p.declaration for p in parameters(every_command()["exercise"])
    }
    for lang in ("en", "es"):
        result = run("exercise", "--help", "--lang", lang)
        assert result.exit_code == 0 and "--blank" in result.stdout
        assert "--blank" not in declared["--answers"].help_in(lang)
        blank = declared["--blank"].help_in(lang)
        assert ".xlsx" in blank and "--steps" not in blank
