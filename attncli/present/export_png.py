"""--export FILE.png: the page an .svg export draws, as a picture a teacher pastes into
slides. The recording console's lines are drawn cell by cell with matplotlib (the plot
extra), the text in DejaVu Sans Mono, each background a rectangle; matplotlib is imported
here only."""

from __future__ import annotations

import io
from typing import Any

FONT_SIZE = 11.0  # pt
DPI = 160
ADVANCE = 0.602  # DejaVu Sans Mono's advance per character, in em
LINE = 1.3  # the line's height, in em
MARGIN = 2  # characters of paper around the page
# DejaVu Sans Mono lacks a few signs the steps use (ℓ, the online softmax's running sum):
# matplotlib draws those from the next family, rather than an empty box and a warning
FAMILIES = ["DejaVu Sans Mono", "DejaVu Sans"]


def png_bytes(renderables: list[Any], theme: str = "light") -> bytes:
    """The renderables drawn as a PNG on the theme's page (light, to print, by default)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from rich.cells import cell_len
    from rich.segment import Segment

    from attncli.present.html import THEMES, recorded
    from attncli.present.printed import for_print

    chosen = THEMES[theme]
    console = recorded(for_print(renderables), printed=theme == "light")
    buffer = console._record_buffer  # what export_svg and export_text read
    lines = list(Segment.split_and_crop_lines(buffer, console.width, pad=False))
    while lines and not "".join(segment.text for segment in lines[-1]).strip():
        lines.pop()
    columns = max((sum(cell_len(s.text) for s in line) for line in lines), default=1)
    wide, tall = columns + 2 * MARGIN, len(lines) + 2
    em = FONT_SIZE / 72  # inches
    figure = Figure(figsize=(wide * ADVANCE * em, tall * LINE * em), dpi=DPI)
    paper = chosen.background_color.hex
    figure.patch.set_facecolor(paper)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, wide)
    axes.set_ylim(tall, 0)
    axes.axis("off")
    ink = chosen.foreground_color.hex
    for row, line in enumerate(lines, 1):
        x = MARGIN
        for segment in line:
            width = cell_len(segment.text)
            style = segment.style
            colour, background = ink, None
            if style is not None:
                if style.color is not None:
                    colour = style.color.get_truecolor(chosen, foreground=True).hex
                if style.bgcolor is not None:
                    background = style.bgcolor.get_truecolor(chosen, foreground=False).hex
            if background is not None:
                axes.add_patch(Rectangle((x, row - 0.8), width, 1.0, color=background, lw=0))
            if segment.text.strip():
                axes.text(
                    x, row, segment.text, family=FAMILIES, fontsize=FONT_SIZE,
                    color=colour, weight="bold" if style is not None and style.bold else "normal",
                    verticalalignment="baseline",
                )  # fmt: skip
            x += width
    FigureCanvasAgg(figure)
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI, facecolor=paper, metadata={"Software": None})
    return out.getvalue()
