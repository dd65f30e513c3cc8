"""Every layer × head of a model as a small heatmap (attn heads --grid): on a terminal, two
weight rows per line in half-block characters (▀: the upper row's colour over the lower
row's), a column of thumbnails per layer and a band per head; on paper, the same cells
drawn as squares in SVG (also inside an HTML page) or TikZ.

A cell's shade is its weight itself, 0 to 1, the same scale in every thumbnail, so heads
compare at a glance. When the layers do not fit the terminal's width they are split into
bands of as many layers as fit; a terminal without colour gets one weight row per line in
shade characters ( ░▒▓█, by quarters of the weight)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

GAP = 2  # columns between two thumbnails
LABEL = 4  # the head labels' column ("h12 ")
DARK = (22, 32, 64)  # weight 0, the ramp of present/grid.py's weight grids
LIGHT = (250, 226, 150)  # weight 1
SHADES = " ░▒▓█"


def colour(weight: float) -> str:
    """The colour of a weight, on one ramp from 0 (dark) to 1 (light)."""
    return str(colours(np.asarray([weight]))[0])


def colours(weights: np.ndarray) -> np.ndarray:
    """Every weight's colour at once, as colour() gives one. [...] -> [...] of str"""
    levels = np.clip(weights, 0.0, 1.0)[..., None]
    dark, light = np.asarray(DARK, dtype=float), np.asarray(LIGHT, dtype=float)
    # round half to even on each channel, as Python's round() does
    channels = np.rint(dark + levels * (light - dark)).astype(int)
    codes = (channels[..., 0] << 16) | (channels[..., 1] << 8) | channels[..., 2]
    return np.vectorize(lambda code: f"#{code:06x}", otypes=[str])(codes)


@dataclass
class Thumbnails:
    """The renderable: weights [L, h, T, T] and a short mark per head ("#1", "p", …)."""

    weights: np.ndarray
    marks: Sequence[Sequence[str]]  # [L][h]
    layer_word: str  # "L" in "L1", as the language writes it
    # said above the grid when one thumbnail is wider than the terminal: (tokens, drawn) ->
    # the line, in the view's language
    too_wide: Callable[[int, int], str] | None = None
    # after each layer's label: its kind ("w4" for a sliding window of 4), or nothing
    layer_marks: Sequence[str] = ()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        layers, heads, size = self.weights.shape[:3]
        fitting = max(1, min(layers, (options.max_width - LABEL + GAP) // (size + GAP)))
        coloured = console.color_system is not None
        self._hex = colours(self.weights) if coloured else None
        self._styles: dict[tuple[str, str | None], Style] = {}
        # a thumbnail wider than the terminal: its first keys drawn, and said, never cut
        # silently by the terminal
        drawn = max(1, min(size, options.max_width - LABEL))
        if drawn < size and self.too_wide is not None:
            yield Text(self.too_wide(size, drawn), style="italic")  # wrapped to the width
            yield Segment("\n")
        for start in range(0, layers, fitting):
            band = range(start, min(layers, start + fitting))
            yield from self._band(band, heads, size, coloured, drawn)

    def _band(
        self, band: range, heads: int, size: int, coloured: bool, drawn: int
    ) -> Iterator[Segment]:
        def label(layer: int) -> str:
            mark = self.layer_marks[layer] if layer < len(self.layer_marks) else ""
            return f"{self.layer_word}{layer + 1}" + (f" {mark}" if mark else "")

        header = " " * LABEL + (" " * GAP).join(label(layer).ljust(drawn)[:drawn] for layer in band)
        yield Segment(header.rstrip() + "\n", Style(bold=True))
        for head in range(heads):
            marks = " " * LABEL + (" " * GAP).join(
                self.marks[layer][head].ljust(drawn)[:drawn] for layer in band
            )
            yield Segment(f"h{head + 1}".ljust(LABEL))
            yield Segment(marks[LABEL:].rstrip() + "\n", Style(dim=True))
            step = 2 if coloured else 1
            for top in range(0, size, step):
                yield Segment(" " * LABEL)
                for index, layer in enumerate(band):
                    if index:
                        yield Segment(" " * GAP)
                    if not coloured:
                        row = self.weights[layer, head, top, :drawn]
                        yield Segment("".join(SHADES[min(4, int(round(w * 4)))] for w in row))
                        continue
                    assert self._hex is not None
                    upper = self._hex[layer, head, top]
                    lower = self._hex[layer, head, top + 1] if top + 1 < size else None
                    for column in range(drawn):
                        pair = (upper[column], None if lower is None else lower[column])
                        style = self._styles.get(pair)
                        if style is None:
                            style = self._styles[pair] = Style(color=pair[0], bgcolor=pair[1])
                        yield Segment("▀", style)
                yield Segment("\n")
        yield Segment("\n")


CELL = 6  # an exported cell's side, in SVG units
SPACE = 14  # between two exported thumbnails, room for a label above
BELOW = 10  # under each thumbnail, room for its sink rate when it is drawn


@dataclass(frozen=True)
class SinkLabels:
    """Each head's sink rate [L, h] for the drawing: the number, its label as the language
    writes it ("s0.29") and the legend line that says what it is."""

    rates: np.ndarray
    labels: Sequence[Sequence[str]]
    legend: str


def svg(
    weights: np.ndarray,
    marks: Sequence[Sequence[str]],
    title: str,
    layer_word: str,
    theme: str = "light",
    sinks: SinkLabels | None = None,
) -> str:
    """The model view for print: each head's T × T cells as squares filled by weight, a
    cell's weight kept in data-weight (at float64's 17 digits) with its layer, head, row
    and column; with `sinks`, each head's sink rate under it (at 17 digits in its
    data-sink-rate) and a legend line at the foot."""
    from xml.sax.saxutils import escape

    layers, heads, size = weights.shape[:3]
    side = size * CELL
    below = 0 if sinks is None else BELOW
    legend = "" if sinks is None else sinks.legend
    # as wide as the thumbnails, or as the title at 9 units of monospace (0.6 em a character)
    width = max(40 + layers * (side + SPACE), 8 + round(max(len(title), len(legend)) * 9 * 0.6))
    height = 40 + heads * (side + SPACE + below) + (14 if sinks is not None else 0)
    ink = "#000000" if theme == "light" else "#ffffff"
    paper = "#ffffff" if theme == "light" else "#1e1e1e"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="9">',
        f'<rect width="{width}" height="{height}" fill="{paper}"/>',
        f'<text x="4" y="12" fill="{ink}">{escape(title)}</text>',
    ]
    for layer in range(layers):
        x0 = 40 + layer * (side + SPACE)
        parts.append(f'<text x="{x0}" y="26" fill="{ink}">{escape(layer_word)}{layer + 1}</text>')
        for head in range(heads):
            y0 = 40 + head * (side + SPACE + below)
            if layer == 0:
                parts.append(f'<text x="4" y="{y0 + side / 2 + 3}" fill="{ink}">h{head + 1}</text>')
            mark = marks[layer][head]
            if mark:
                parts.append(f'<text x="{x0}" y="{y0 - 3}" fill="{ink}">{escape(mark)}</text>')
            if sinks is not None:  # its number kept whole, as a cell's weight is
                label = escape(sinks.labels[layer][head])
                rate = float(sinks.rates[layer, head])
                parts.append(f'<text class="sink" x="{x0}" y="{y0 + side + 8}" fill="{ink}" '
                             f'font-size="7" data-layer="{layer + 1}" data-head="{head + 1}" '
                             f'data-sink-rate="{rate!r}">{label}</text>')  # fmt: skip
            parts.append(f'<g class="head" data-layer="{layer + 1}" data-head="{head + 1}">')
            for row in range(size):
                for column in range(size):
                    value = float(weights[layer, head, row, column])
                    parts.append(
                        f'<rect x="{x0 + column * CELL}" y="{y0 + row * CELL}" width="{CELL}" '
                        f'height="{CELL}" fill="{colour(value)}" data-row="{row + 1}" '
                        f'data-column="{column + 1}" data-weight="{value!r}"/>'
                    )
            parts.append("</g>")
    if legend:
        parts.append(f'<text x="4" y="{height - 6}" fill="{ink}">{escape(legend)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def html(
    weights: np.ndarray,
    marks: Sequence[Sequence[str]],
    title: str,
    layer_word: str,
    theme: str = "light",
    sinks: SinkLabels | None = None,
) -> str:
    """The SVG in a page of its own (no script, no network)."""
    from xml.sax.saxutils import escape

    drawing = svg(weights, marks, title, layer_word, theme, sinks)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head>\n<body>\n{drawing}</body></html>\n"
    )


def tex(weights: np.ndarray, marks: Sequence[Sequence[str]], title: str, layer_word: str,
        fragment: bool = False, sinks: SinkLabels | None = None) -> str:  # fmt: skip
    """The model view in LaTeX's own picture environment (needs only the color package):
    each cell a square, white for 0 to black for 1, drawn by
    \\attnw{layer}{head}{row}{column}{weight}{x}{y}{grey}, the weight kept at 17 digits;
    with `sinks`, each head's sink rate under it and the legend below the picture."""
    from attncli.present.latex import tex_text

    layers, heads, size = weights.shape[:3]
    pitch = size + 3  # a thumbnail and the room beside it, in cells
    # a cell's side: the whole picture within an A4 page's text, 170 × 225 mm
    unit = min(1.6, 170 / (layers * pitch + 4), 225 / (heads * pitch + 4))
    lines = [
        r"\providecommand{\attnw}[8]{\put(#6,#7){\color[gray]{#8}\rule{\unitlength}{\unitlength}}}",
        r"\setlength{\unitlength}{" + f"{unit:.2f}" + "mm}",
        r"\begin{picture}(" + f"{layers * pitch + 4},{heads * pitch + 4}" + ")",
    ]
    top = heads * pitch + 2
    for layer in range(layers):
        x0 = 4 + layer * pitch
        lines.append(rf"\put({x0},{top}){{\tiny {tex_text(layer_word)}{layer + 1}}}")
        for head in range(heads):
            y0 = top - 2 - head * pitch
            if layer == 0:
                lines.append(rf"\put(0,{y0 - size // 2}){{\tiny h{head + 1}}}")
            mark = marks[layer][head]
            if mark:
                lines.append(rf"\put({x0},{y0 + 0.3}){{\tiny {tex_text(mark)}}}")
            if sinks is not None:  # in the room below the thumbnail, above the next mark
                label = tex_text(sinks.labels[layer][head])
                lines.append(rf"\put({x0},{y0 - size - 1.3}){{\tiny {label}}}")
            for row in range(size):
                for column in range(size):
                    value = float(weights[layer, head, row, column])
                    grey = 1.0 - min(max(value, 0.0), 1.0)
                    lines.append(rf"\attnw{{{layer + 1}}}{{{head + 1}}}{{{row + 1}}}"
                                 rf"{{{column + 1}}}{{{value!r}}}{{{x0 + column}}}"
                                 rf"{{{y0 - row - 1}}}{{{grey:.4f}}}")  # fmt: skip
    lines.append(r"\end{picture}")
    if sinks is not None:
        lines.append(r"\par\medskip\noindent{\small " + tex_text(sinks.legend) + "}")
    body = "\n".join(lines) + "\n"
    if fragment:
        return "% attn export; needs \\usepackage{color}\n" + body
    return (
        "\\documentclass{article}\n\\usepackage{color}\n\\usepackage[margin=1.5cm]{geometry}\n"
        "\\begin{document}\n\\noindent "
        + tex_text(title)
        + "\\par\\medskip\n\\noindent\n"
        + body
        + "\\end{document}\n"
    )
