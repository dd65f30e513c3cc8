"""Output that leaves the terminal: piped or redirected, tables are laid out for the
terminal the user is in (stderr's, or COLUMNS), else 80 columns, and no line of a file
ends in spaces."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

pytestmark = pytest.mark.slow  # a process per case

STEPS = ("selfattn", "las llaves del coche están ahí", "--steps", "--lang", "es")


def _attn(*args: str, stderr_columns: int | None = None, columns: str | None = None) -> str:
    """attn's stdout through a pipe; stderr a terminal `stderr_columns` wide, or a pipe."""
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    environment["PYTHONIOENCODING"] = "utf-8"
    if columns is not None:
        environment["COLUMNS"] = columns
    command = [sys.executable, "-m", "attncli", *args]
    if stderr_columns is None:
        done = subprocess.run(command, capture_output=True, env=environment, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode()
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, stderr_columns, 0, 0))
    try:
        done = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=follower, env=environment, timeout=60
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    return done.stdout.decode()


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_piped_steps_fit_the_terminal_stderr_is():
    wide = _attn(*STEPS, stderr_columns=140)
    narrow = _attn(*STEPS, stderr_columns=90)
    assert 90 < _widest(wide) <= 140  # the long sums stay on one line at 140 columns
    assert _widest(narrow) <= 90


def test_piped_with_no_terminal_is_80_columns_and_columns_is_honoured():
    assert 60 < _widest(_attn(*STEPS)) <= 80
    assert 80 < _widest(_attn(*STEPS, columns="120")) <= 120


@pytest.mark.parametrize(
    "args",
    [STEPS, ("samples", "--format", "table"), ("exercise", "--seed", "3", "--format", "table")],
)
def test_table_output_to_a_file_has_no_trailing_spaces(args):
    text = _attn(*args)
    assert text.strip() and not [line for line in text.splitlines() if line.endswith(" ")]
