"""Two sentences compared as rich renderables: how the tokens were aligned and what was
not, the two weight grids, the difference grid with its largest changes marked and listed;
and the heads of a model ranked by how much they change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from attncli.core.alignment import Alignment
from attncli.present import render
from attncli.present.drawn import natural_width
from attncli.present.format import ELLIPSIS, Format, shown_indices
from attncli.results.pairs import HeadsChange, SentencePair, pair_labels

MARK = "◆"
COLUMNS = 16  # a sentence's tokens shown in a grid, as far as the terminal allows


def signed(value: float, fmt: Format) -> str:
    """+0.193, −0.082 (a true minus), 0 for no change."""
    if value == 0:
        return fmt.decimal("0")
    text = fmt.number(abs(value), 3, whole_bare=False)
    return ("+" if value > 0 else "−") + text


@dataclass
class DifferenceGrid:
    """A difference grid [n, n] with labelled rows and columns, its marked cells ending in
    ◆; as many columns as the width holds (the marked ones kept), the rest as …."""

    title: str
    labels: Sequence[str]
    grid: np.ndarray
    marked: Sequence[tuple[int, int]]
    fmt: Format

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        size = len(self.labels)
        colour = console.color_system is not None and not console.no_color
        table = None
        # as many columns as fit, each headed by as much of its label as fits (12, else 8)
        for limit in range(min(size, COLUMNS), 1, -1):
            for cut in (12, 8):
                table = self._table(limit, colour, cut)
                width = natural_width(table, console, options)
                if width is None or width <= options.max_width:
                    break
            else:
                continue
            break
        assert table is not None
        yield Text(self.title, style="bold")
        yield table

    def blocks(self) -> list[Any]:
        """The title and the table for an export, where no width or colour applies: every
        column up to a page's EXPORT_COLUMNS."""
        from attncli.present.grid import EXPORT_COLUMNS

        return [Text(self.title), self._table(min(len(self.labels), EXPORT_COLUMNS), False, 12)]

    def _table(self, limit: int, colour: bool, cut: int) -> Table:
        from attncli.present.drawn import PlainTable
        from attncli.present.grid import short_labels

        fmt, size = self.fmt, len(self.labels)
        rows, names = short_labels(self.labels, 12), short_labels(self.labels, cut)
        columns = shown_indices(size, limit)
        table = PlainTable(box=box.SIMPLE_HEAVY)
        table.add_column("", no_wrap=True)
        for j in columns:
            header = ELLIPSIS if j is None else names[j]
            table.add_column(Text(header, justify="right"), justify="right", no_wrap=True)
        for i in range(size):
            row: list[Any] = [Text(rows[i])]
            for j in columns:
                if j is None:
                    row.append(Text(ELLIPSIS))
                    continue
                value = float(self.grid[i, j])
                marked = (i, j) in self.marked
                style = ("green" if value > 0 else "red") if colour and value else ""
                if marked:
                    style = (style + " bold").strip()
                row.append(Text(signed(value, fmt) + (MARK if marked else " "), style=style))
            table.add_row(*row)
        return table


def alignment_lines(alignment: Alignment, first: tuple[str, ...], second: tuple[str, ...],
                    fmt: Format, words_hint: bool) -> list[str]:  # fmt: skip
    """How the tokens were aligned, and each word that was not."""
    pairs = [first[i] if same else f"{first[i]} ↔ {second[j]}"
             for (i, j), same in zip(alignment.pairs, alignment.same, strict=True)]  # fmt: skip
    lines = [fmt.say("pair_aligned", count=len(alignment.pairs), pairs=", ".join(pairs))]
    if not alignment.unaligned:
        lines.append(fmt.say("pair_all_aligned"))
        return lines
    hint = fmt.say("pair_words_hint") if words_hint else ""
    for unaligned in alignment.unaligned:
        if unaligned.facing is not None:
            if unaligned.sentence == 1:
                continue  # said once, from the first sentence's side
            lines.append(fmt.say("pair_unaligned_pieces", word=unaligned.text,
                                 pieces=len(unaligned.pieces), facing=unaligned.facing,
                                 facing_pieces=unaligned.facing_pieces, hint=hint))  # fmt: skip
        else:
            key = "pair_unaligned_first" if unaligned.sentence == 0 else "pair_unaligned_second"
            lines.append(fmt.say(key, word=unaligned.text))
    lines.append(fmt.say("pair_left_out"))
    return lines


def pair_view(
    result: SentencePair, fmt: Format, show: frozenset[str] = frozenset()
) -> list[RenderableType]:
    """The layer, the alignment, both weight grids, the difference and its largest cells,
    of one head (--head H, the first by default) when the layer has several."""
    first, second = result.labels(0), result.labels(1)
    lines: list[str | Text] = [fmt.say("pair_title", first=result.sentences[0],
                                       second=result.sentences[1])]  # fmt: skip
    source = getattr(result.first, "source", None)
    if source is not None:
        heads = (fmt.say("model_heads", heads=source.heads) if source.head is None
                 else fmt.say("model_head", head=source.head, heads=source.heads))  # fmt: skip
        lines.append(fmt.say("model_layer", model=source.name, kind=source.model_type,
                             layer=source.layer, layers=source.layers, heads=heads))  # fmt: skip
    else:
        count, x = result.first.heads, result.first.x
        heads = fmt.say("pair_heads", heads=count) if count else ""
        d_model = x.shape[-1] if x is not None else ""
        lines.append(fmt.say("pair_seeded", seed=result.first.seed, d_model=d_model, heads=heads))
    words_hint = source is not None and not result.words
    lines += alignment_lines(result.alignment, first, second, fmt, words_hint)
    lines.append("")
    weights_a, weights_b = result.grid(0), result.grid(1)
    difference = result.difference
    several = difference.ndim == 3
    head = result.shown_head if several else 0
    if several:
        weights_a, weights_b, difference = weights_a[head], weights_b[head], difference[head]
    labels = pair_labels(result.alignment, first, second)
    marked = result.largest[head]
    suffix = f" · {fmt.say('pair_head', head=head + 1)}" if several else ""
    grids: list[RenderableType] = [
        render.number_grid(fmt.say("pair_weights", sentence=text) + suffix, tokens, tokens,
                           grid, fmt, heat=True, max_columns=COLUMNS)
        for text, tokens, grid in ((result.sentences[0], first, weights_a),
                                   (result.sentences[1], second, weights_b))
    ]  # fmt: skip
    title = fmt.say("pair_difference") + suffix
    below: list[str | Text] = []
    if not marked:
        below.append(fmt.say("pair_equal"))
    else:
        below.append(fmt.say("pair_marked", mark=MARK, count=len(marked)))
        below.append(fmt.say("pair_largest"))
        a, b = result.alignment.first, result.alignment.second
        for row, column in marked:
            before = float(weights_a[a[row], a[column]])
            after = float(weights_b[b[row], b[column]])
            change = signed(float(difference[row, column]), fmt)
            below.append("  " + fmt.say("pair_change", source=labels[row], target=labels[column],
                                        before=fmt.weight_number(before),
                                        after=fmt.weight_number(after), change=change))  # fmt: skip
    if several:
        below.append(
            render.Hint(fmt.say("pair_head_shown", head=head + 1, heads=len(result.largest)))
        )
    grid = DifferenceGrid(title, labels, difference, marked, fmt)
    return [render.lines(*lines), *grids, grid, render.lines(*below)]


def heads_change_view(result: HeadsChange, fmt: Format) -> list[RenderableType]:
    """The heads ranked by their change, most first; with --grid, every head's |change|
    as the model view first."""
    from attncli.present.drawn import PlainTable

    labels = result.labels()
    if result.cell is not None:
        title = fmt.say("pair_heads_cell", model=result.model, source=labels[result.cell[0]],
                        target=labels[result.cell[1]])  # fmt: skip
    else:
        title = fmt.say("pair_heads_title", model=result.model)
    lines: list[str | Text] = [
        title,
        fmt.say("pair_heads_from", tokens=" ".join(result.tokens[0])),
        fmt.say("pair_heads_to", tokens=" ".join(result.tokens[1])),
    ]
    lines += alignment_lines(result.alignment, *result.tokens, fmt, False)
    parts: list[RenderableType] = [render.lines(*lines)]
    shown = result.ranking if result.shown is None else result.ranking[: result.shown]
    if result.grid is not None:
        from attncli.present.model.thumbnails import Thumbnails
        from attncli.present.model.view import too_wide

        layers, heads = result.grid.shape[:2]
        marks = change_marks(result)
        parts += [
            render.lines(
                "",
                fmt.say(
                    "pair_grid_title",
                    model=result.model,
                    count=len(labels),
                    layers=layers,
                    heads=heads,
                ),
            ),  # fmt: skip
            Thumbnails(np.clip(result.grid, 0.0, 1.0), marks, fmt.say("grid_layer"), too_wide(fmt)),
            render.lines(fmt.say("pair_grid_legend", shown=len(shown))),
        ]
    table = PlainTable(box=box.SIMPLE_HEAVY)
    for key in ("heads_rank", "heads_layer", "heads_head", "pair_heads_change"):
        table.add_column(fmt.say(key), justify="right")
    table.add_column(fmt.say("pair_heads_where"))
    for key in ("pair_heads_before", "pair_heads_after", "pair_heads_mean"):
        table.add_column(fmt.say(key), justify="right")
    for rank, change in enumerate(shown, start=1):
        cell = Text(f"{labels[change.row]} → {labels[change.column]}")
        table.add_row(str(rank), str(change.layer), str(change.head), signed(change.change, fmt),
                      cell, fmt.weight_number(change.before), fmt.weight_number(change.after),
                      fmt.number(change.mean, 3, whole_bare=False))  # fmt: skip
    below: list[str | Text] = []
    if len(shown) < len(result.ranking):
        below.append(fmt.say("heads_more", more=len(result.ranking) - len(shown),
                             total=len(result.ranking)))  # fmt: skip
    below.append(fmt.say("pair_heads_rule"))
    return [*parts, table, render.lines(*below)]


def change_marks(result: HeadsChange) -> list[list[str]]:
    """Each head's mark [L][h] in the model view of changes: "#3" when it is third in the
    table shown."""
    assert result.grid is not None
    shown = result.ranking if result.shown is None else result.ranking[: result.shown]
    ranks = {(c.layer - 1, c.head - 1): f"#{rank}" for rank, c in enumerate(shown, start=1)}
    layers, heads = result.grid.shape[:2]
    return [[ranks.get((lay, h), "") for h in range(heads)] for lay in range(layers)]


def drawn_change_export(result: HeadsChange, output: Any) -> bool:
    """attn heads --compare --grid --export F.svg|.html|.tex: every head's |change| drawn
    cell by cell as the model view's export draws weights; False for another kind of file,
    which the screen's own export writes."""
    from pathlib import Path

    from attncli.present.model import thumbnails
    from attncli.present.written import write_file

    assert result.grid is not None
    suffix = Path(str(output.export)).suffix.lower()
    if suffix not in (".svg", ".html", ".tex"):
        return False
    fmt = output.format()
    layers, heads = result.grid.shape[:2]
    title = fmt.say("pair_grid_title", model=result.model, count=len(result.labels()),
                    layers=layers, heads=heads)  # fmt: skip
    marks, word, grid = change_marks(result), fmt.say("grid_layer"), result.grid
    theme = output.theme or "light"
    if suffix == ".svg":
        text = thumbnails.svg(grid, marks, title, word, theme)
    elif suffix == ".html":
        text = thumbnails.html(grid, marks, title, word, theme)
    else:
        text = thumbnails.tex(grid, marks, title, word, output.tex_fragment)
    write_file(str(output.export), text, "--export")
    return True
