"""A plain command line runs without Typer (attncli.cli.fastpath) and gives the command
exactly what Typer would give it; anything else is left to Typer."""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.main import get_command
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.cli.commands import every_command, parameters
from attncli.cli.declare import Argument, Declared, is_enum
from attncli.cli.fastpath import read_plain, run_plain
from attncli.cli.group import app_for
from tests.conftest import ROOT

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

COMMANDS = every_command()


def test_every_option_click_knows_is_read_alike():
    """The fast reader's names, flags and types for each option are the ones Typer gives
    Click, and Click knows no name (like --no-x) the fast reader does not."""
    for name, command in COMMANDS.items():
        click_command = get_command(app_for(app, [name])).commands[name]  # type: ignore[attr-defined]
        ours = {parameter.name: parameter for parameter in parameters(command)}
        for parameter in click_command.params:
            if parameter.name == "help":
                continue
            mine = ours.pop(parameter.name)
            assert parameter.secondary_opts == []
            if isinstance(mine.declaration, Argument):
                assert parameter.nargs == (-1 if mine.kind == list[str] else 1)
                continue
            assert sorted(parameter.opts) == sorted(mine.declaration.names), name
            assert parameter.is_flag == (not mine.takes_value), parameter.name
            # a list option (--want) is given once per value, as Click's multiple option
            assert parameter.multiple is (mine.kind == list[str]) and parameter.nargs == 1
        assert ours == {}, name


def _recording(monkeypatch, command):
    """Replace the command's function by one that records what it is given."""
    calls: list[tuple] = []
    original = command.function

    @functools.wraps(original)
    def record(**given):
        calls.append(tuple(sorted((key, repr(value)) for key, value in given.items())))

    monkeypatch.setattr(command, "function", record)
    return calls


def _values(parameter: Declared, draw) -> list[str]:
    """Text a user might give `parameter`, mostly valid."""
    kind = parameter.kind
    settings_ = parameter.declaration.settings
    if kind is int:
        low, high = settings_.get("min"), settings_.get("max")
        edges = [] if low is None else [low - 1, low]
        edges += [] if high is None else [high, high + 1]
        number = draw(st.one_of(st.sampled_from([-1, 0, 1, 3, *edges]), st.integers(-5, 40)))
        return [draw(st.sampled_from([str(number), f" {number}", f"{number}.0", "1_0", "x"]))]
    if kind is float:
        number = draw(st.floats(allow_nan=False, width=32))
        return [draw(st.sampled_from([repr(number), "-inf", "1e3", "-0.5", "nan", "x", ""]))]
    if is_enum(kind):
        choice = draw(st.sampled_from([member.value for member in kind]))
        return [draw(st.sampled_from([choice, choice, choice.upper(), "nope"]))]
    return [draw(st.text(alphabet="ab1-=;, [].", max_size=6))]


@st.composite
def command_lines(draw, noisy: bool):
    """A command and a command line for it, built from its declarations."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    command = COMMANDS[name]
    declared = parameters(command)
    arguments: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        parameter = draw(st.sampled_from(declared))
        if isinstance(parameter.declaration, Argument):
            if command.numbers:
                arguments.append(draw(st.sampled_from(["2", "-1", "-inf", "0.5", "1e3", "-i"])))
            elif "sentence" not in {p for p in arguments}:
                arguments.append(draw(st.sampled_from(["el tren va", "-", "x"])))
            continue
        option = draw(st.sampled_from(parameter.declaration.names))
        if not parameter.takes_value:
            arguments.append(option)
            continue
        value = _values(parameter, draw)
        if option.startswith("--") and draw(st.booleans()):
            arguments.append(f"{option}={value[0]}")
        else:
            arguments += [option, *value]
    if noisy:
        noise = draw(st.sampled_from(["--", "-h", "--help", "--nope", "-x", "--json=1", "-sj"]))
        arguments.insert(draw(st.integers(0, len(arguments))), noise)
    return name, arguments


def _both(monkeypatch, name: str, arguments: list[str]):
    """What the command is given and what is printed, read by Typer and by the fast path;
    the fast path's is None when it leaves the command line to Typer."""
    command = COMMANDS[name]
    runner = CliRunner()
    line = [name, *arguments]
    calls = _recording(monkeypatch, command)
    by_typer = runner.invoke(app_for(app, line), line)
    typer_side = (by_typer.exit_code, by_typer.stdout, by_typer.stderr, calls[:])
    calls.clear()
    with runner.isolation() as (stdout, stderr, _):
        status = run_plain(line)
        fast_side = (status, stdout.getvalue().decode(), stderr.getvalue().decode(), calls[:])
    monkeypatch.undo()
    return typer_side, None if status is None else fast_side


@settings(max_examples=300, deadline=None, derandomize=True)
@given(command_lines(noisy=False))
def test_a_plain_command_line_gives_what_typer_gives(line):
    with pytest.MonkeyPatch.context() as monkeypatch:
        by_typer, fast = _both(monkeypatch, *line)
    if fast is not None:
        assert fast == by_typer, line
    else:  # left to Typer: only what Typer refuses too
        assert by_typer[0] != 0, line


@settings(max_examples=200, deadline=None, derandomize=True)
@given(command_lines(noisy=True))
def test_help_and_unknown_options_are_left_to_typer(line):
    name, arguments = line
    if read_plain(COMMANDS[name], arguments) is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        by_typer, fast = _both(monkeypatch, *line)
    assert fast == by_typer, line


@pytest.mark.parametrize(
    "line",
    [
        ["softmax", "2", "0", "1", "--json"],
        ["softmax", "2", "-inf", "1", "-t", "0.5", "--steps"],
        ["score", "-i", str(ROOT / "samples" / "tren.json"), "--steps", "--lang", "es"],
        ["selfattn", "en las llaves del coche", "--format", "table"],
        ["selfattn", "en las llaves", "--json", "--fields", "weights"],
        ["mix", "--weights", "0.5,0.5", "--values", "[[10,0],[0,10]]"],
        ["compare-scores", "--tx", "2", "--ty", "2", "--d-h", "2", "--d-a", "2", "--json"],
        ["exercise", "--seed", "3"],
    ],
)
def test_the_common_calls_are_plain(line):
    assert read_plain(COMMANDS[line[0]], line[1:]) is not None


@pytest.mark.parametrize(
    "line",
    [
        [],
        ["--version"],
        ["--lang", "es", "softmax", "2"],
        ["softmax", "-h"],
        ["softmax", "2", "--", "-1"],
        ["softmax", "2", "--nope"],
        ["softmax", "2", "--temperature"],
        ["softmax", "2", "--digits", "16"],
        ["score", "--method", "DOT"],
        ["selfattn", "one", "two"],
        ["selfattn", "-sj"],
        ["mix", "--json=yes"],
        ["nope"],
    ],
)
def test_what_the_fast_path_leaves_to_typer(line):
    assert run_plain(line) is None


def test_a_plain_run_never_imports_typer():
    probe = (
        "import sys; sys.argv = ['attn', 'softmax', '2', '0', '1', '--json']\n"
        "import os; leave = os._exit\n"
        "def report(status):\n"
        "    sys.stderr.write(str('typer' in sys.modules)); sys.stderr.flush(); leave(status)\n"
        "os._exit = report\n"
        "from attncli.cli.entry import main; main()"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "False", result.stderr
    failed = subprocess.run([sys.executable, "-m", "attncli", "softmax", "2", "x"],
                            capture_output=True, text=True)  # fmt: skip
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr == (
        "attn: error: scores: argument 2 is 'x'; expected a finite number (or -inf for masked)\n"
    )
