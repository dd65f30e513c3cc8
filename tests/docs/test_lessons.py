"""The lessons' numbers: a 9-token sentence shows all 9 columns when they fit, the Shapes
table writes the divisor, tiny numbers do not print as zeros."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

NINE = "uno dos tres cuatro cinco seis siete ocho nueve"


def _screen(*args: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONIOENCODING": "utf-8"}
    env.pop("NO_COLOR", None)
    result = subprocess.run([sys.executable, "-m", "attncli", *args, "--format", "table"],
                            capture_output=True, text=True, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def _header_of(screen: str, title: str) -> list[str]:
    lines = screen.split(title, 1)[1].splitlines()
    return next(line.split() for line in lines if line.split()[:1] == ["uno"])


@pytest.mark.parametrize("columns", [120, 400])
def test_nine_tokens_show_nine_columns_when_they_fit(columns):
    screen = _screen("selfattn", NINE, columns=columns)
    assert _header_of(screen, "Weights (row") == NINE.split()
    assert _header_of(screen, "Scores Q K^T") == NINE.split()
    assert "of 9 columns" not in screen


def test_nine_tokens_on_80_columns_still_fit_and_say_what_is_left_out():
    screen = _screen("selfattn", NINE, columns=80)
    assert max(len(line) for line in screen.splitlines()) <= 80
    assert "of 9 columns" in screen


def test_an_export_of_nine_tokens_has_nine_columns(run, tmp_path):
    path = tmp_path / "nine.md"
    assert run("selfattn", NINE, "--export", str(path), "--format", "table").exit_code == 0
    header = next(line for line in path.read_text().splitlines() if "| uno |" in line)
    assert header.count("|") == 11  # the row label's column and nine tokens


@pytest.mark.parametrize(
    ("args", "formula"),
    [
        ((), "A = softmax(Q K^T / √d_k)"),
        (("--scale", "2"), "A = softmax(Q K^T / 2)"),
        (("--no-scale",), "A = softmax(Q K^T)"),
    ],
)
def test_the_shapes_table_writes_the_divisor(args, formula):
    screen = _screen("selfattn", "el tren va lleno", "--show", "shapes", *args, columns=100)
    assert f"  {formula}  " in screen


def test_a_grid_that_would_print_as_zeros_is_written_in_scientific_notation():
    screen = _screen("selfattn", "el tren va lleno", "--norm", "0.001", columns=100)
    scores = screen.split("Scores Q K^T", 1)[1].split("Weights (row", 1)[0]
    assert "0.00 " not in scores and "e-0" in scores
    assert "every number here rounds to 0 at 2 decimals" in scores
    weights = screen.split("Weights (row", 1)[1].split("Output", 1)[0]
    assert "e-0" not in weights  # weights are never that small all at once


def test_scientific_notation_in_spanish_and_only_when_needed(run):
    tiny = ("score", "--queries", "0.00001,0.00002;0.000003,0", "--keys", "0.001,0;0,0.002")
    tiny_es = ("score", "--queries", "0,00001; 0,00002 | 0,000003; 0",
               "--keys", "0,001; 0 | 0; 0,002")  # fmt: skip
    spanish = run(*tiny_es, "--format", "table", "--lang", "es").stdout
    assert "4,00e-08" in spanish and "3,00e-09" in spanish and "se redondea a 0" in spanish
    assert "e-" not in run(*tiny, "--format", "table", "--digits", "9").stdout
    plain = run("score", "--queries", "1,0;0,1", "--keys", "2,1;0,2", "--format", "table")
    assert "e-" not in plain.stdout and "rounds to 0" not in plain.stdout
