"""A plain table drawn line by line (present/drawn.PlainTable) shows the same characters in
the same styles as rich's own drawing of it, in every colour system and width."""

from __future__ import annotations

import io

import pytest
from rich import box
from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text

import attncli as attn
from attncli.present import drawn
from attncli.present.drawn import PlainTable
from attncli.present.format import Format
from tests.present.test_golden import _cases


def _screen(renderables, color_system: str | None, width: int, encoding: str = "utf-8"):
    """Every character on screen with its style, line by line."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    console = Console(
        file=stream, width=width, color_system=color_system, force_terminal=True, emoji=False
    )
    lines: list[list[tuple[str, Style]]] = [[]]
    for renderable in renderables:
        for segment in console.render(renderable, console.options):
            if segment.control:
                continue
            for character in segment.text:
                if character == "\n":
                    lines.append([])
                else:
                    lines[-1].append((character, segment.style or Style.null()))
    return lines


def _both(monkeypatch, renderables, color_system, width, encoding="utf-8", drew=None):
    """The screen drawn with PlainTable's lines, and drawn by rich alone; `drew` hears, for
    each PlainTable, whether it drew itself."""
    drew = [] if drew is None else drew
    original = drawn._drawn

    def spy(*arguments):
        segments = original(*arguments)
        drew.append(segments is not None)
        return segments

    with monkeypatch.context() as patch:
        patch.setattr(drawn, "_drawn", spy)
        fast = _screen(renderables, color_system, width, encoding)
    with monkeypatch.context() as patch:
        patch.setattr(drawn, "_is_plain", lambda table: False)
        by_rich = _screen(renderables, color_system, width, encoding)
    return fast, by_rich


def _views():
    views = {name: result.view(Format()) for name, result in _cases().items()}
    everything = frozenset({"x", "w", "q", "k", "v", "shapes"})
    views["selfattn-show-all"] = _cases()["selfattn"].view(Format(), everything)
    long = attn.selfattn(" ".join(f"t{i}" for i in range(30)))
    views["selfattn-long"] = long.view(Format(lang="es"))
    steps = attn.softmax(attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], tokens=["tren", "va"]))
    from attncli.present.views import steps_view

    views["softmax-steps"] = steps_view(steps.steps(), Format())
    return views


@pytest.mark.parametrize("color_system", [None, "standard", "256", "truecolor"])
@pytest.mark.parametrize("width", [40, 80, 120])
def test_every_screen_is_drawn_as_rich_draws_it(monkeypatch, color_system, width):
    drew: list[bool] = []
    for name, renderables in _views().items():
        fast, by_rich = _both(monkeypatch, renderables, color_system, width, drew=drew)
        assert fast == by_rich, (name, color_system, width)
    assert drew.count(True) >= 20  # most tables were drawn line by line


def test_an_ascii_terminal_gets_rich_s_ascii_box(monkeypatch):
    renderables = _views()["softmax-grid"]
    drew: list[bool] = []
    fast, by_rich = _both(monkeypatch, renderables, None, 80, encoding="ascii", drew=drew)
    assert fast == by_rich and drew == [True]
    assert "━" not in "".join(character for line in fast for character, _ in line)


def _table(**settings) -> Table:
    table = PlainTable(**{"box": box.SIMPLE_HEAVY, **settings})
    table.add_column("")
    table.add_column("[b]head[/b]", justify="right")
    table.add_column(Text("x", style="red"), justify="right")
    table.add_row("a", "1.5 ", Text("2", style="on blue"))
    table.add_row(Text("«están»"), "[red]3[/red]", Text.assemble("4", ("5", "bold")))
    table.add_row("日本", "", Text("left", justify="left"))
    return table


@pytest.mark.parametrize(
    "settings", [{}, {"show_header": False}, {"header_style": "italic"}, {"box": box.ROUNDED}]
)
def test_markup_styles_spans_wide_characters_and_boxes_are_drawn_alike(monkeypatch, settings):
    table = _table(**settings)
    for width, fits in ((12, False), (30, True), (80, True)):
        drew: list[bool] = []
        fast, by_rich = _both(monkeypatch, [table], "truecolor", width, drew=drew)
        assert fast == by_rich, (settings, width)
        assert drew == [fits]


def test_what_is_not_plain_is_left_to_rich(monkeypatch):
    drawn_lines = []
    original = drawn._drawn

    def spy(table, console, options):
        result = original(table, console, options)
        drawn_lines.append(result is not None)
        return result

    monkeypatch.setattr(drawn, "_drawn", spy)
    titled = _table(title="t")
    wrapped = _table()
    wrapped.add_row("a\nb", "1", "2")
    console = Console(file=io.StringIO(), width=80)
    for table in (titled, wrapped, _table()):
        console.print(table)
    # the titled table is not plain, the two-line cell is refused, the plain one is drawn
    assert drawn_lines == [False, False, True]
    narrow = Console(file=io.StringIO(), width=12)
    narrow.print(_table())
    assert drawn_lines[-1] is False  # wider than the console: rich shrinks it


def test_a_plain_table_s_width_is_the_width_rich_measures():
    from rich.measure import Measurement

    console = Console(file=io.StringIO(), width=80)
    unlimited = console.options.update(width=10_000, max_width=10_000)
    wide = _table()
    wide.add_row("東京東京", "0.5", "1")  # two terminal cells a character
    for table in (_table(), _table(show_header=False), wide):
        measured = Measurement.get(console, unlimited, table).maximum
        assert drawn.natural_width(table, console, unlimited) == measured
    assert drawn.natural_width(_table(title="t"), console, unlimited) is None
