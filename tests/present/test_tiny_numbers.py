"""A number alone in a line (a header's length or divisor, a loss, a head's weight) that
would print as 0.00 but is not zero is written in scientific notation, by the rule the
grids follow (present/format.vanishes)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from attncli.present.format import Format, vanishes
from attncli.present.model.view import heads_view
from attncli.results.model import HeadsResult, HeadWeight

TINY = ("selfattn", "el tren llega", "--d-model", "4", "--norm", "0.0001", "--format", "table")


def _header(stdout: str) -> list[str]:
    return stdout.split("\n\n", 1)[0].splitlines()


@pytest.mark.parametrize(
    ("value", "digits", "written"),
    [
        (0.004, 2, "4.00e-03"),
        (-0.0001, 2, "-1.00e-04"),
        (0.005, 2, "0.01"),  # rounds up: not zero
        (0.00004, 4, "4.00e-05"),
        (0.0004, 3, "4.00e-04"),
        (0.0004, 4, "0.0004"),
        (0.0, 2, "0"),
        (2.0, 2, "2"),
        (1.5, 2, "1.50"),
    ],
)
def test_a_number_alone_is_never_written_as_zero_when_it_is_not(value, digits, written):
    assert Format().stated(value, digits) == written
    assert vanishes(value, digits) == ("e-" in written)


def test_spanish_writes_the_decimal_comma_in_scientific_notation_too():
    assert Format(lang="es").stated(0.0001) == "1,00e-04"


def test_the_selfattn_header_writes_a_tiny_length_and_divisor(run):
    result = run(*TINY, "--scale", "0.001")
    assert result.exit_code == 0, result.stderr
    header = _header(result.stdout)
    assert "every embedding has length 1.00e-04" in header
    assert header[0].endswith("scores ÷ 1.00e-03")
    assert not any("0.00" in line for line in header)
    assert "Scores Q K^T / 1.00e-03 (row" in result.stdout


def test_the_selfattn_header_in_spanish(run):
    result = run(*TINY, "--scale", "0.001", "--lang", "es")
    header = _header(result.stdout)
    assert "cada vector de token mide 1,00e-04" in header
    assert header[0].endswith("puntuaciones ÷ 1,00e-03")


def test_an_ordinary_header_keeps_its_decimals(run):
    header = _header(run(*TINY[:-4], "--norm", "2", "--scale", "0.5", "--format", "table").stdout)
    assert "every embedding has length 2" in header
    assert header[0].endswith("scores ÷ 0.50")
    assert not any("e-0" in line for line in header)


def test_a_tiny_loss_of_selfattn_and_of_grad(run):
    zeros = ";".join(["0,0,0,0"] * 3)
    selfattn = run(*TINY, "--target", zeros).stdout
    assert "loss ℓ = ½‖c − target‖² = 8.64e-09" in selfattn
    grad = run("grad", "-q", "1,0", "-k", "1,0;0,1", "-v", "0.0001,0;0,0.0001",
               "--target", "0,0", "--format", "table").stdout  # fmt: skip
    loss = next(line for line in grad.splitlines() if line.startswith("loss"))
    assert "e-09" in loss and "0.0000" not in loss


def test_the_steps_divisor_is_written_as_it_is(run):
    steps = run(*TINY, "--scale", "0.001", "--steps", "--token", "tren").stdout
    assert "÷ 1.00e-03" in steps and "÷ 0.00" not in steps


def test_a_head_whose_weight_would_print_as_zero():
    ranking = (HeadWeight(1, 1, 0.9), HeadWeight(1, 2, 0.0004), HeadWeight(2, 1, 0.0))
    result = HeadsResult(model="m", model_type="bert", sentence="a b", tokens=("a", "b"),
                         ranking=ranking, source=1, target=0)  # fmt: skip
    console = Console(width=100, color_system=None, file=io.StringIO(), record=True)
    for part in heads_view(result, Format()):
        console.print(part)
    rows = [line.split() for line in console.export_text().splitlines()]
    weights = [row[3] for row in rows if row[:1] in (["1"], ["2"], ["3"])]
    assert weights == ["0.900", "4.00e-04", "0.000"]


def _drawn(grid, color_system: str | None = "truecolor") -> str:
    console = Console(width=100, color_system=color_system, file=io.StringIO(), record=True)
    console.print(grid)
    return console.export_text()


def test_weights_alike_to_the_digits_shown_get_one_shade_and_say_so():
    from attncli.present.grid import NumberGrid, heat_style

    alike = [[0.3333315, 0.3333368, 0.3333317], [0.3333320, 0.3333338, 0.3333342]]
    grid = NumberGrid("W", ["a", "b"], ["x", "y", "z"], alike, Format(), heat=True)
    text = _drawn(grid)
    assert "one shade: every weight is 0.333 to the digits shown" in text
    assert "darkest" not in text
    console = Console(width=100, color_system="truecolor", file=io.StringIO(), record=True)
    console.print(grid)
    cells = [s for s in console._record_buffer if s.text.strip() in ("0.333", "0.333*")]
    styles = {str(segment.style) for segment in cells}
    assert len(cells) == 6
    assert styles == {heat_style(1.0, "truecolor")}  # one shade for all
    spanish = NumberGrid("W", ["a", "b"], ["x", "y", "z"], alike, Format(lang="es"), heat=True)
    assert "un solo tono: todos los pesos son 0,333" in _drawn(spanish)
    apart = [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1]]
    spread = _drawn(NumberGrid("W", ["a", "b"], ["x", "y", "z"], apart, Format(), heat=True))
    assert "lighter = more weight (0.100 darkest, 0.700 lightest)" in spread
    assert "shade" not in _drawn(grid, color_system=None)  # no colours, no legend
