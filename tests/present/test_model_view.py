"""attn heads --grid, the model view: every layer × head as a thumbnail whose cells are that
head's own weights (the exported SVG's, HTML's and TeX's cells equal attn selfattn --model
--layer L --head H's weights and the JSON's, digit for digit), fitting 120 columns for
6 × 12 heads at T = 11, split into bands of layers on a narrower terminal."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from rich.console import Console

import attncli as attn
from attncli.present.model.thumbnails import Thumbnails
from tests import tiny_models

SENTENCE = "the keys to the cabinet are on the table"
DEMO = "all-MiniLM-L6-v2"
CELL = re.compile(r'<rect [^>]*data-row="(\d+)" data-column="(\d+)" data-weight="([^"]+)"')
HEAD = re.compile(r'<g class="head" data-layer="(\d+)" data-head="(\d+)">(.*?)</g>', re.S)


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "bert"
    tiny_models.WRITERS["bert"](folder)
    return str(folder)


def svg_cells(text: str) -> dict[tuple[int, int], np.ndarray]:
    heads = {}
    for layer, head, body in HEAD.findall(text):
        cells = CELL.findall(body)
        count = int(len(cells) ** 0.5)
        grid = np.zeros((count, count))
        for row, column, weight in cells:
            grid[int(row) - 1, int(column) - 1] = float(weight)
        heads[int(layer), int(head)] = grid
    return heads


def test_the_exported_cells_are_each_heads_own_weights(run, bert, tmp_path):
    path = tmp_path / "model.svg"
    result = run("heads", SENTENCE, "--model", bert, "--grid", "--pattern", "previous",
                 "--export", str(path), "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    drawn = svg_cells(path.read_text(encoding="utf-8"))
    assert len(drawn) == 8
    for (layer, head), grid in drawn.items():
        own = attn.selfattn(SENTENCE, model=bert, layer=layer, head=head).weights
        assert np.array_equal(grid, own)  # bit for bit: the SVG keeps 17 digits
        assert np.array_equal(grid, np.asarray(document["weights"][layer - 1][head - 1]))
    page = tmp_path / "model.html"
    assert run("heads", SENTENCE, "--model", bert, "--grid", "--export", str(page),
               "--json").exit_code == 0  # fmt: skip
    assert svg_cells(page.read_text(encoding="utf-8")).keys() == drawn.keys()
    tex = tmp_path / "model.tex"
    assert run("heads", SENTENCE, "--model", bert, "--grid", "--export", str(tex),
               "--json").exit_code == 0  # fmt: skip
    calls = re.findall(r"\\attnw\{(\d+)\}\{(\d+)\}\{(\d+)\}\{(\d+)\}\{([^}]+)\}",
                       tex.read_text(encoding="utf-8"))  # fmt: skip
    assert len(calls) == 8 * 11 * 11
    for layer, head, row, column, weight in calls:
        grid = drawn[int(layer), int(head)]
        assert float(weight) == grid[int(row) - 1, int(column) - 1]


def test_the_marks_are_the_rankings_and_the_habits(bert):
    from attncli.present.model.view import grid_marks

    ranked = attn.heads(SENTENCE, bert, pattern="self", grid=True)
    marks = grid_marks(ranked)
    for rank, entry in enumerate(ranked.ranking[:10], start=1):
        assert marks[entry.layer - 1][entry.head - 1].split()[0] == f"#{rank}"
    alone = attn.heads(SENTENCE, bert, grid=True)
    assert alone.ranking == () and alone.to_document()["heads"] == []
    assert all(not mark.startswith("#") for row in grid_marks(alone) for mark in row)


def rendered(weights: np.ndarray, width: int, colour: bool = True) -> list[str]:
    console = Console(width=width, record=True, color_system="truecolor" if colour else None,
                      force_terminal=colour)  # fmt: skip
    marks = [["#1 p"] * weights.shape[1] for _ in range(weights.shape[0])]
    console.print(Thumbnails(weights, marks, "L"))
    return console.export_text().splitlines()


def demo_like(count: int) -> np.ndarray:
    weights = np.random.default_rng(0).random((6, 12, count, count))
    return weights / weights.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("count", [11, 12])
def test_six_layers_of_twelve_heads_fit_120_columns(count):
    lines = rendered(demo_like(count), 120)
    assert max(len(line) for line in lines) <= 120
    header = [line for line in lines if line.startswith("    L1")]
    assert len(header) == 1 and header[0].split() == [f"L{n}" for n in range(1, 7)]
    # a head's band: its label, then T / 2 lines of half blocks (two weight rows a line)
    assert sum(1 for line in lines if "▀" in line) == 12 * ((count + 1) // 2)


def test_a_narrow_terminal_splits_the_layers_into_bands():
    lines = rendered(demo_like(12), 50)
    assert max(len(line) for line in lines) <= 50
    headers = [line.split() for line in lines if line.startswith("    L")]
    assert headers == [["L1", "L2", "L3"], ["L4", "L5", "L6"]]


@pytest.mark.parametrize("colour", [True, False])
def test_a_thumbnail_wider_than_the_terminal_says_which_keys_it_draws(colour):
    weights = demo_like(60)[:1, :2]  # 60 tokens on a terminal of 40 columns
    console = Console(width=40, record=True, color_system="truecolor" if colour else None,
                      force_terminal=colour)  # fmt: skip
    said = []
    console.print(Thumbnails(weights, [["", ""]], "L", lambda t, d: said.append((t, d)) or "!"))
    lines = console.export_text().splitlines()
    assert said == [(60, 36)] and lines[0] == "!"  # 40 columns less the head's label, 4
    assert max(len(line) for line in lines) <= 40  # never wrapped nor cut by the terminal
    drawn = [line[4:] for line in lines if line.startswith("    ") and line.strip(" ▀░▒▓█") == ""]
    assert drawn and all(len(line.rstrip()) <= 36 for line in drawn)


def test_the_demo_model_on_a_long_sentence_says_it_in_both_languages(run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    longer = " ".join(["the keys to the cabinet are on the table"] * 9)  # 83 tokens
    english = run("heads", longer, "--model", DEMO, "--grid", "--format", "table").stdout
    assert max(len(line) for line in english.splitlines()) <= 80
    assert ("Each thumbnail has a column per token, 83, more than fit here: the first 76 keys "
            "of each row are drawn; --export model.svg draws every head whole.") in " ".join(
        english.split())  # fmt: skip
    spanish = run("heads", longer, "--model", DEMO, "--grid", "--format", "table", "--lang", "es")
    assert ("Cada miniatura tiene una columna por token, 83, más de las que caben aquí: se "
            "dibujan las 76 primeras claves") in " ".join(spanish.stdout.split())  # fmt: skip


def test_without_colour_each_row_is_a_line_of_shades():
    weights = np.zeros((1, 1, 4, 4))
    weights[0, 0, :, 0] = 1.0
    weights[0, 0, 1] = [0.0, 0.25, 0.5, 0.25]
    lines = rendered(weights, 80, colour=False)
    shades = [line[4:8] for line in lines[2:6]]
    assert shades == ["█   ", " ░▒░", "█   ", "█   "]


def test_the_screen_in_english_and_spanish(run, bert):
    screen = run("heads", SENTENCE, "--model", bert, "--grid", "--format", "table").stdout
    screen = " ".join(screen.split())  # the model's folder may be long enough to wrap a line
    assert "Every head of" in screen and "2 layers × 4 heads, 11 tokens each" in screen
    assert "Heads of" not in screen  # nothing ranked, no table
    spanish = run("heads", SENTENCE, "--model", bert, "--grid", "--pattern", "previous",
                  "--format", "table", "--lang", "es").stdout  # fmt: skip
    assert "Todas las cabezas de" in spanish and "    C1 " in spanish


def test_the_demo_models_72_heads(run):
    result = run("heads", SENTENCE, "--model", DEMO, "--grid", "--json")
    weights = np.asarray(json.loads(result.stdout)["weights"])
    assert weights.shape == (6, 12, 11, 11)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
