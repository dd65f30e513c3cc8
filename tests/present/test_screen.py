"""What a student sees on a real terminal: 80 and 120 columns, every colour system."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from rich.color import Color
from rich.console import Console
from rich.style import Style

from attncli.errors import InputError, OptionError
from attncli.present.format import Format
from attncli.present.grid import NumberGrid, heat_style, short_labels
from tests.meaning import UNKNOWN_NAMES, told

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

ATTN = [sys.executable, "-m", "attncli"]
NOT_A_ROW = "{token} is not a row here; the rows are: {rows}"
SYSTEMS = ["truecolor", "256", "standard"]
FORTY = " ".join(f"treinta{i}" for i in range(40))


def _screen(*args: str, columns: int = 80) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONIOENCODING": "utf-8"}
    env.pop("NO_COLOR", None)
    result = subprocess.run([*ATTN, *args], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _lightness(style_text: str) -> float:
    red, green, blue = Style.parse(style_text).bgcolor.get_truecolor()
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_colour_systems_ramp_is_monotone_in_lightness(system):
    levels = [i / 100 for i in range(101)]
    lightness = [_lightness(heat_style(level, system)) for level in levels]
    assert lightness == sorted(lightness) and lightness[-1] > lightness[0]


@pytest.mark.parametrize("system", [*SYSTEMS, None])
def test_rendered_cells_sorted_by_weight_are_sorted_by_lightness(system):
    rng = np.random.default_rng(3)
    weights = rng.dirichlet(np.ones(6), size=6)
    labels = [f"t{i}" for i in range(6)]
    grid = NumberGrid("W", labels, labels, weights, Format(), heat=True)
    console = Console(color_system=system, force_terminal=True, width=80, record=True)
    cells = []
    for segment in console.render(grid):
        number = re.fullmatch(r"\s*(\d\.\d{3})\*?\s*", segment.text)
        if number and segment.style is not None and segment.style.bgcolor is not None:
            color: Color = segment.style.bgcolor
            red, green, blue = color.get_truecolor()
            cells.append((float(number.group(1)), 0.2126 * red + 0.7152 * green + 0.0722 * blue))
    if system is None:
        assert cells == []
        return
    assert len(cells) == 36
    lightness = [light for _, light in sorted(cells)]
    assert lightness == sorted(lightness)
    console.print(grid)
    text = console.export_text()
    low, high = weights.min(), weights.max()
    assert f"lighter = more weight ({low:.3f} darkest, {high:.3f} lightest)" in text


def test_without_colour_there_is_no_legend():
    console = Console(color_system=None, width=80, record=True)
    console.print(NumberGrid("W", ["a"], ["a", "b"], [[0.25, 0.75]], Format(), heat=True))
    assert "lighter" not in console.export_text()


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_seeded_default_says_its_weights_are_untrained(lang):
    out = _screen("selfattn", "en las llaves del coche", "--format", "table", "--lang", lang)
    said = {"en": "are random (seed 0), not trained", "es": "son aleatorias (semilla 0), no"}
    assert said[lang] in out and "samples/llaves.json" in out
    given = _screen("selfattn", "-i", "samples/llaves.json", "--format", "table", "--lang", lang)
    assert "samples/llaves.json" not in given


def test_the_default_view_is_scores_weights_and_output_and_show_adds_the_matrices():
    out = _screen("selfattn", "en las llaves del coche", "--format", "table")
    assert "Scores Q K^T / √8" in out and "Weights (row" in out and "Output (5 × 8)" in out
    assert "Shapes" not in out and "W^Q (drawn" not in out and "\nX\n" not in out
    assert len(out.splitlines()) < 50
    everything = _screen(
        "selfattn", "en las llaves del coche", "--format", "table", "--show", "all"
    )
    for part in ("Shapes", "\nX\n", "W^Q (drawn from seed 0)", "\nQ\n", "\nK\n", "\nV\n"):
        assert part in everything
    assert re.search(r"\n\s+d1\s+d2\s+d3", everything)
    only_q = _screen("selfattn", "a b", "--format", "table", "--show", "q")
    assert "\nQ\n" in only_q and "\nK\n" not in only_q


def test_show_refuses_an_unknown_part(run):
    result = subprocess.run([*ATTN, "selfattn", "a b", "--show", "x,z"], capture_output=True)
    assert result.returncode == 2 and result.stdout == b""
    error = run("selfattn", "a b", "--show", "x,z").error  # the same line, in-process
    told(error, OptionError, UNKNOWN_NAMES, option="--show", text="'x,z'", unknown="z",
         known="x, w, q, k, v, shapes, all")  # fmt: skip
    assert result.stderr.decode() == f"attn: error: {error.message('en')}\n"
    told(run("selfattn", "a b", "--show", ",").error, OptionError,
         "{option} {text}: name at least one of {known}", option="--show", text="','",
         known="x, w, q, k, v, shapes, all")  # fmt: skip


def _weight_rows(out: str) -> list[str]:
    block = out[out.index("Weights (row") :]
    block = block[: block.index("* the row")]
    return [line for line in block.splitlines() if re.match(r"\s+treinta\d+\s.*\d\.\d{3}", line)]


@pytest.mark.parametrize("columns", [80, 120])
def test_forty_tokens_fit_without_cutting_a_number_or_a_label(columns):
    out = _screen("selfattn", FORTY, "--format", "table", columns=columns)
    assert max(len(line) for line in out.splitlines()) <= columns
    assert not re.search(r"\d…", out), "a number was cut"
    rows = _weight_rows(out)
    assert len(rows) == 16
    labels = [row.split()[0] for row in rows]
    assert len(set(labels)) == len(labels) and not any("…" in label for label in labels)
    for row in rows:  # every shown row shows its largest weight: starred, or named at the end
        assert "*" in row or re.search(r"treinta\d+ 0\.\d{3}\s*$", row), row


def test_a_long_sentences_grid_works_out_only_the_widths_it_tries(monkeypatch):
    """How many columns fit is found from the widths of the columns tried, never every
    column's: a grid of 3000 tokens at 120 columns (where at most 30 can fit) works out a
    few dozen widths, not 3000, and shows what the first 8 columns would."""
    from attncli.present import grid as grids

    worked: list[int] = []
    column = grids._Widths.column
    monkeypatch.setattr(
        grids._Widths, "column", lambda self, j: worked.append(j) or column(self, j)
    )
    weights = np.random.default_rng(3).dirichlet(np.ones(3000), size=3000)
    labels = [f"t{i}" for i in range(3000)]
    drawn = NumberGrid("Weights", labels, labels, weights, Format(), heat=True, max_columns=3000)
    with open(os.devnull, "w") as nowhere:
        console = Console(width=120, color_system="truecolor", record=True, file=nowhere)
        console.print(drawn)
    assert 0 < len(set(worked)) <= 40
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 120 and "…" in lines[2]


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_compare_scores_fits_without_cutting(columns, lang):
    out = _screen("compare-scores", "--repeat", "2", "--format", "table", "--lang", lang,
                  columns=columns)  # fmt: skip
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "…" not in out
    if lang == "es":
        for head in ("aditiva", "general", "escalada", "más lento"):
            assert head in out
        # at 80 columns the dot product's name takes two lines, at 120 one
        assert ("producto escalar" in out) is (columns == 120)
        lines = out.splitlines()
        rule = next(n for n, line in enumerate(lines) if "━" in line)
        header = lines[rule - 2 : rule]  # the columns' names, on one line or two
        assert "producto" in " ".join(header) and "escalar" in header[-1]
        assert re.search(r"mayor\s+diferencia\s+\d,\de-\d\d", out)


def test_labels_are_cut_to_prefixes_that_still_tell_them_apart():
    assert short_labels(["palabralarguísima1", "otra"], limit=8) == ["palabra…", "otra"]
    twins = ["palabralarga1", "palabralarga2"]
    assert short_labels(twins, limit=8) == twins


def test_spanish_usage_errors_and_plurals(run):
    from attncli.cli import usage
    from attncli.present.language import usage_error

    result = run("score", "--tokn", "a", "--lang", "es")
    said = [(usage.NO_SUCH_OPTION, {"option": "--tokn"}),
            (usage.POSSIBLE_OPTIONS, {"options": "--json, --token, --tokens"})]  # fmt: skip
    assert result.stderr == f"attn: error: {usage_error('es', said, 'root score')}\n"
    said = [(usage.NO_SUCH_COMMAND, {"name": "scor"}), (usage.DID_YOU_MEAN, {"option": "'score'"})]
    assert run("scor", "--lang", "es").stderr == f"attn: error: {usage_error('es', said, 'root')}\n"
    one = run("selfattn", "a b", "--heads", "1", "--lang", "es", "--format", "table").stdout
    assert "· 1 cabeza ·" in one and "1 cabezas" not in one


def test_token_matches_without_accents_when_unique(run):
    out = run("selfattn", "en las llaves están", "--steps", "--token", "estan").stdout
    assert out.startswith("Scaled scores: están")
    both = run("selfattn", "Están están", "--steps", "--token", "estan")
    assert both.exit_code == 2
    told(both.error, InputError, NOT_A_ROW, token="--token 'estan'", rows="Están, están")
    exact = run("selfattn", "Están están", "--steps", "--token", "están").stdout
    assert exact.startswith("Scaled scores: están")


def test_weight_columns_keep_their_decimal_points_in_line(run):
    """A weight cell ends in its mark or a space; the decimal points of a column line up."""
    out = run("selfattn", "en las llaves del coche", "--format", "table").stdout
    after = out[out.index("Weights (") :].splitlines()
    grid = after[: next(i for i, line in enumerate(after) if line.startswith("*"))]
    rows = [line for line in grid if re.search(r"\d\.\d", line)]
    points = [{m.start() for m in re.finditer(r"\d\.\d", row)} for row in rows]
    assert len(rows) == 5 and all(len(found) == 5 for found in points)
    assert all(found == points[0] for found in points), rows


def test_a_token_in_a_column_heading_is_text_not_markup(run, tmp_path):
    document = tmp_path / "markup.json"
    document.write_text('{"scores": [[1, 2], [3, 4]], "tokens": ["[red]x", "[b]y"]}')
    out = run("softmax", "-i", str(document), "--format", "table").stdout
    heading = out.splitlines()[2]
    assert "[red]x" in heading and "[b]y" in heading, out


def test_wide_character_tokens_are_cut_and_fitted_by_terminal_cells(run):
    """日本 takes two cells a character: labels are cut by cells, and the grid is measured
    in cells, so no number is cut on an 80-column terminal."""
    from rich.cells import cell_len

    assert short_labels(["日本語日本語日本語", "東京"]) == ["日本語日本…", "東京"]
    assert cell_len(short_labels(["日本語日本語日本語"])[0]) <= 12
    sentence = "日本語日本語日本語 東京東京東京東京 大阪大阪大阪大阪 京都京都京都京都"
    result = subprocess.run(
        [sys.executable, "-m", "attncli", "selfattn", sentence, "--format", "table"],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    after = result.stdout[result.stdout.index("Weights (") :].splitlines()
    rows = [line for line in after[3:] if re.search(r"\d\.\d", line)][:4]
    assert len(rows) == 4 and all(len(re.findall(r"\d\.\d{3}", row)) == 4 for row in rows), rows
    assert all(cell_len(line) <= 80 for line in result.stdout.splitlines())


def _on_a_terminal(*args: str, **env: str) -> str:
    """What `attn ARGS` prints on a real terminal (a pseudo-terminal), 100 columns."""
    import pty

    leader, follower = pty.openpty()
    environment = {**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    environment.pop("NO_COLOR", None)
    environment.update(env)
    process = subprocess.Popen([*ATTN, *args], stdout=follower, stderr=follower, env=environment)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait() == 0
    return b"".join(chunks).decode("utf-8")


def test_no_color_prints_no_legend_about_lighter_cells():
    for lang, legend in (("en", "lighter"), ("es", "más claro")):
        screen = _on_a_terminal(
            "selfattn", "el tren va lleno", "--lang", lang, NO_COLOR="1", TERM="xterm-256color"
        )
        assert "*" in screen and legend not in screen
        coloured = _on_a_terminal(
            "selfattn", "el tren va lleno", "--lang", lang, TERM="xterm-256color"
        )
        assert legend in coloured
