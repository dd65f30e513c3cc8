"""The model view exported for print (attn heads --grid --export F.svg|.html|.tex): every
thumbnail drawn cell by cell (present/model/thumbnails), through present/written."""

from __future__ import annotations

from pathlib import Path

from attncli.present.output import Output
from attncli.results.model import HeadsResult


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
    if suffix == ".svg":
        text = thumbnails.svg(result.grid, marks, title, word, theme)
    elif suffix == ".html":
        text = thumbnails.html(result.grid, marks, title, word, theme)
    else:
        text = thumbnails.tex(result.grid, marks, title, word, output.tex_fragment)
    write_file(str(output.export), text, "--export")
    return True
