"""The model view exported for print (attn heads --grid --export F.svg|.html|.tex): every
thumbnail drawn cell by cell (present/model/thumbnails), through present/written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from attncli.present.output import Output
from attncli.results.model import HeadsResult

if TYPE_CHECKING:
    from attncli.present.format import Format
    from attncli.present.model.thumbnails import SinkLabels


def drawn_export(result: HeadsResult, output: Output) -> bool:
    """Write the drawing when --export names .svg, .html or .tex; False for another kind,
    which the screen's own export writes."""
    from attncli.present.model import thumbnails
    from attncli.present.model.view import grid_marks, grid_title
    from attncli.present.written import write_file

    assert result.grid is not None
    suffix = Path(str(output.export)).suffix.lower()
    if suffix not in (".svg", ".html", ".tex"):
        return False
    fmt = output.format()
    marks = grid_marks(result)
    title = grid_title(result, fmt)
    word = fmt.say("grid_layer")
    theme = output.theme or "light"
    sinks = sink_labels(result, fmt)
    if suffix == ".svg":
        text = thumbnails.svg(result.grid, marks, title, word, theme, sinks)
    elif suffix == ".html":
        text = thumbnails.html(result.grid, marks, title, word, theme, sinks)
    else:
        text = thumbnails.tex(result.grid, marks, title, word, output.tex_fragment, sinks)
    write_file(str(output.export), text, "--export")
    return True


def sink_labels(result: HeadsResult, fmt: Format) -> SinkLabels | None:
    """Each head's sink rate as the drawing writes it under the head ("s0.29"), and the
    legend that says what it is; None for a sentence of one token."""
    from attncli.core.head_patterns import SINK_THRESHOLD
    from attncli.present.model.thumbnails import SinkLabels

    rates = result.sink_rates
    if rates is None:
        return None
    labels = [[fmt.say("grid_sink_mark", rate=fmt.number(float(rate), 2, whole_bare=False))
               for rate in row] for row in rates]  # fmt: skip
    legend = fmt.say("grid_sink_legend", sinks=result.sink_heads, total=rates.size,
                     threshold=fmt.number(SINK_THRESHOLD, 1))  # fmt: skip
    return SinkLabels(rates, labels, legend)
