"""attn selfattn --heads N --heads-sum: the screen in both languages, the JSON piped, and
its refusals one line with nothing on stdout."""

from __future__ import annotations

import json
import re

import numpy as np

from attncli.errors import OptionError
from tests.meaning import told

TREN = "el tren va lleno"


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


def _block(screen: str, title: str) -> list[str]:
    """A grid's rows under its title (its header row and rule skipped)."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    return lines[start + 4 : start + 8]


def test_the_sum_and_the_one_head_grid_print_alike(run):
    result = run("selfattn", TREN, "--heads", "2", "--heads-sum", "--format", "table")
    assert result.exit_code == 0, result.stderr
    screen = result.stdout
    assert screen.startswith("2 heads of 4 columns against one head of all 8")
    summed = _block(screen, "The heads added up: Q_1 K_1ᵀ + Q_2 K_2ᵀ")
    assert summed == _block(screen, "One head: Q Kᵀ, all 8 columns")
    assert summed[3].split() == ["lleno", "-2.94", "-2.08", "0.34", "-2.56"]
    assert "in the last place of float64" in _flat(screen)
    assert "the row of «lleno» (one head ÷ √8, each head ÷ √4)" in _flat(screen)
    # the one-head row is attn selfattn's own, without heads
    assert "one head   0.150    0.203    0.477*   0.171" in screen


def test_in_spanish(run):
    screen = run("selfattn", TREN, "--heads", "2", "--heads-sum", "--token", "tren",
                 "--lang", "es", "--format", "table").stdout  # fmt: skip
    summed = _block(screen, "Las cabezas sumadas: Q_1 K_1ᵀ + Q_2 K_2ᵀ")
    assert summed == _block(screen, "Una cabeza: Q Kᵀ, las 8 columnas")
    assert summed[0].split() == ["el", "2,30", "0,43", "2,26", "2,67"]
    assert "la fila de «tren» (una cabeza ÷ √8, cada cabeza ÷ √4)" in _flat(screen)
    assert "Las puntuaciones se suman; los pesos no." in _flat(screen)


def test_piped(run):
    document = json.loads(run("selfattn", TREN, "--heads", "4", "--heads-sum").stdout)
    products = np.array(document["head_products"])
    assert products.shape == (4, 4, 4) and document["d_k"] == 2 and document["row"] == 4
    np.testing.assert_allclose(products.sum(axis=0), document["one_head"], rtol=0, atol=1e-14)
    assert document["largest_difference"] < 1e-14
    assert np.isclose(np.sum(document["one_head_weights"]), 1.0)
    kept = json.loads(run("selfattn", TREN, "--heads", "2", "--heads-sum", "--fields",
                          "largest_difference").stdout)  # fmt: skip
    assert list(kept) == ["largest_difference"] and kept["largest_difference"] < 1e-14


def test_refused_in_one_line(run):
    alone = run("selfattn", TREN, "--heads-sum")
    assert alone.exit_code == 2 and alone.stdout == ""
    told(alone.error, OptionError, "{option} adds up several heads' scores; give {heads}",
         option="--heads-sum", heads="--heads 2")  # fmt: skip
    steps = run("selfattn", TREN, "--heads", "2", "--heads-sum", "--steps")
    told(
        steps.error,
        OptionError,
        "{option} with {beside}: {why}",
        option="--steps",
        beside="--heads-sum",
        why=("the sum is a view of its own; leave out {option}", {"option": "--steps"}),
    )
    assert len(steps.stderr.strip().splitlines()) == 1
