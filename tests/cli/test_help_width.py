"""attn --help as a terminal of 80 or 120 columns shows it, in English and Spanish: every
command's first sentence whole (wrapped under itself, never cut with '...'), no line wider
than the terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

# A process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow


def _help(columns: int, lang: str) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run([sys.executable, "-m", "attncli", "--help", "--lang", lang],
                            capture_output=True, text=True, env=env, check=True)  # fmt: skip
    return result.stdout


def _first_sentences(lang: str) -> dict[str, str]:
    from typer._click.utils import make_default_short_help

    from attncli.cli.app import build_app

    app = build_app(lang)
    return {
        info.name: make_default_short_help(info.help or "", 1000)
        for info in app.registered_commands
        if info.name
    }


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_command_s_first_sentence_is_whole(columns, lang):
    screen = _help(columns, lang)
    assert max(len(line) for line in screen.splitlines()) <= columns
    commands = screen.split("\n\n")[-1]  # the last section: the commands
    assert "..." not in commands
    described: dict[str, str] = {}
    name = ""
    for line in commands.splitlines()[1:]:
        found = re.match(r"  (\S+)\s+(.*)", line)
        if found:
            name, text = found.groups()
            described[name] = text
        else:  # a description's next line, under itself
            described[name] += " " + line.strip()
    sentences = _first_sentences(lang)
    assert set(described) == set(sentences)
    for name, sentence in sentences.items():
        assert described[name] == " ".join(sentence.split()), name
