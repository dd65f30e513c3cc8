"""attn train as rich renderables: what was trained and what stayed, the wanted weights
before → after, the loss as a line of block characters, the grids before and after, and on
a corpus the accuracy; the progress bar on stderr while it trains."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from attncli.core.saturation import saturated_rows
from attncli.present import render
from attncli.present.drawn import PlainTable
from attncli.present.format import Format
from attncli.results.training import TrainResult

BLOCKS = "▁▂▃▄▅▆▇█"  # the loss curve's eight heights
CURVE_WIDTH = 64  # characters of the curve at most; a narrower terminal gets fewer
TEST_ROWS = 12  # test links listed; the JSON has them all
SIDE_BY_SIDE = 2  # grids beside each other when the terminal is wide enough, else stacked


def curve(values: np.ndarray, width: int, log: bool) -> str:
    """The values as one line of block characters, `width` at most: each character is
    the value at its point of the run, the lowest as ▁ and the highest as █."""
    # [n] -> str
    count = min(len(values), width)
    picked = values[np.linspace(0, len(values) - 1, count).round().astype(int)]
    if log:
        picked = np.log(np.maximum(picked, np.finfo(float).tiny))
    low, high = float(picked.min()), float(picked.max())
    if high - low <= 0:
        return BLOCKS[0] * count
    levels = ((picked - low) / (high - low) * (len(BLOCKS) - 1)).round().astype(int)
    return "".join(BLOCKS[level] for level in levels)


def log_scale(values: np.ndarray) -> bool:
    """A curve is drawn on a log scale when its values span more than a factor of 100."""
    low, high = float(values.min()), float(values.max())
    return low > 0 and high / low > 100


def _names(result: TrainResult) -> tuple[str, str]:
    query, key = result.wants[0].split("=", 1)
    return query, key


def summary(result: TrainResult, fmt: Format) -> RenderableType:
    sentence = " ".join(result.tokens)
    title = (
        fmt.say("train_title", sentence=sentence)
        if result.sentences == 1
        else fmt.say("train_title_corpus", count=result.sentences, sentence=sentence)
    )
    d_model, columns = result.after["w_q"].shape
    parts = [fmt.say("tokens_count", count=len(result.tokens)), f"d_model = {d_model}"]
    parts.append(f"d_k = {columns // (result.heads or 1)}")
    if result.heads is not None:
        parts.append(fmt.say("head_of" if result.heads == 1 else "heads_of", heads=result.heads))
    if result.scale:
        parts.append(fmt.say("divided_by", divisor=f"√{columns // (result.heads or 1)}"))
    else:
        parts.append(fmt.say("unscaled"))
    if result.causal:
        parts.append(fmt.say("causal"))
    if result.positions is not None:
        parts.append(fmt.say("train_positions"))
    optimizer = "SGD" if result.optimizer == "sgd" else "Adam"
    lr = fmt.decimal(f"{result.lr:g}")
    if result.stopped is None:
        parts.append(fmt.say("train_run", optimizer=optimizer, lr=lr, done=result.done))
    else:
        parts.append(
            fmt.say(
                "train_run_of",
                optimizer=optimizer,
                lr=lr,
                done=result.done,
                total=result.iterations,
            )  # fmt: skip
        )
    from attncli.present.layer.view import packed

    if len(result.wants) == 1:
        query, key = _names(result)
        loss = fmt.say("train_loss_one", asker=query, answer=key)
    else:
        loss = fmt.say("train_loss_many", count=len(result.wants))
    if result.heads is not None:
        loss += fmt.say("train_loss_heads", heads=result.heads)
    if result.sentences > 1:
        loss += fmt.say("train_loss_corpus")
    with_output = "w_o" in result.after
    learns = fmt.say(
        "train_learns", formula=f"2·{d_model}·{columns}", count=fmt.count(2 * d_model * columns)
    )
    fixed = fmt.say(
        "train_fixed",
        fixed=fmt.say("train_fixed_vo" if with_output else "train_fixed_v"),
        stays=fmt.say("train_stays_vo" if with_output else "train_stays_v"),
    )
    return render.lines(title, *packed(parts), loss, learns, fixed, "")


def wanted_table(result: TrainResult, fmt: Format) -> RenderableType:
    table = PlainTable(box=box.SIMPLE_HEAVY)
    table.add_column(fmt.say("train_cell"))
    table.add_column(fmt.say("train_before"), justify="right")
    table.add_column(fmt.say("train_after"), justify="right")
    for want, before, after in zip(
        result.wants, result.wanted_before, result.wanted_after, strict=True
    ):
        query, key = want.split("=", 1)
        cells = (fmt.weight_number(float(before)), fmt.weight_number(float(after)))
        table.add_row(render.safe_label(f"{query} → {key}"), *cells)
    title = fmt.say("train_wanted" if result.sentences == 1 else "train_wanted_first")
    if result.heads is not None:
        title += " " + fmt.say("train_heads_mean")
    return Group(Text(title, style="bold"), table)


class LossCurve:
    """The loss as a line of block characters, as wide as the console allows."""

    def __init__(self, loss: np.ndarray, fmt: Format) -> None:
        self.loss, self.fmt = loss, fmt

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        log = log_scale(self.loss)
        fmt = self.fmt
        yield Text(
            fmt.say(
                "train_curve",
                first=fmt.number(float(self.loss[0]), 4),
                last=fmt.number(float(self.loss[-1]), 4),
                done=len(self.loss) - 1,
                scale=fmt.say("train_log_scale") if log else "",
            ),
            style="bold",
        )
        width = max(8, min(CURVE_WIDTH, options.max_width - 2))
        yield Text("  " + curve(self.loss, width, log), style="cyan")
        yield Text("")


class Grids:
    """The weight grid before training beside the one after; stacked on a narrow console."""

    def __init__(self, result: TrainResult, fmt: Format) -> None:
        self.result, self.fmt = result, fmt

    def _grids(self) -> list[tuple[str, RenderableType]]:
        result, fmt = self.result, self.fmt
        shown = []
        for key, weights in (
            ("train_grid_before", result.weights_before),
            ("train_grid_after", result.weights_after),
        ):
            grids = weights if weights.ndim == 3 else weights[None]
            for h, grid in enumerate(grids):
                title = fmt.say(key)
                if result.heads is not None:
                    title = fmt.say("head", head=h + 1, title=title)
                masked = None if result.allowed is None else ~result.allowed
                table = render.number_grid(
                    title, result.tokens, result.tokens, grid, fmt, heat=True, mask=masked
                )
                shown.append((title, table))
        return shown

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        grids = [table for _, table in self._grids()]
        half = len(grids) // 2
        pairs = list(zip(grids[:half], grids[half:], strict=True))
        for index, (before, after) in enumerate(pairs):
            if index:
                yield Text("")
            widths = [_table_width(console, options, part) for part in (before, after)]
            if sum(widths) + 3 <= options.max_width:
                side = Table.grid(padding=(0, 3))
                for width in widths:
                    side.add_column(width=width, no_wrap=True)
                side.add_row(before, after)
                yield side
            else:
                yield before
                yield Text("")
                yield after


def _table_width(console: Console, options: ConsoleOptions, grid: RenderableType) -> int:
    """The cells a weight grid's table takes when nothing is cut: the widest of its lines
    drawn without a width limit (its padding included), less the notes under it, which wrap
    to a narrow column."""
    lines = console.render_lines(grid, options.update(width=10_000), pad=False)
    from rich.cells import cell_len

    texts = ["".join(segment.text for segment in line) for line in lines]
    body = texts[:-1] if len(texts) > 2 else texts
    return max(cell_len(text) for text in body)


def corpus_lines(result: TrainResult, fmt: Format) -> RenderableType:
    if result.sentences == 1 and not result.test:
        return render.lines()
    shown: list[RenderableType] = [Text("")]
    links = round(result.train_accuracy * len(result.wanted[0]))
    if result.sentences > 1:
        text = fmt.say(
            "train_accuracy",
            sentences=result.sentences,
            hits=links,
            links=len(result.wanted[0]),
            share=_share(result.train_accuracy, fmt),
        )
        shown.append(Text(text))
    if result.test:
        hits = sum(link.hit for link in result.test)
        share = _share(result.test_accuracy or 0.0, fmt)
        shown.append(Text(""))
        shown.append(
            Text(fmt.say("train_test", hits=hits, links=len(result.test), share=share), "bold")
        )
        table = PlainTable(box=box.SIMPLE_HEAVY)
        for name in ("train_sentence", "train_want", "train_picked"):
            table.add_column(fmt.say(name))
        table.add_column("")
        misses_first = sorted(result.test, key=lambda link: link.hit)  # stable: file order kept
        for link in misses_first[:TEST_ROWS]:
            tokens = link.tokens
            table.add_row(
                render.safe_label(" ".join(tokens)),
                render.safe_label(f"{tokens[link.query]} → {tokens[link.key]}"),
                render.safe_label(tokens[link.picked]),
                "✓" if link.hit else "✗",
            )
        shown.append(table)
        if len(result.test) > TEST_ROWS:
            shown.append(Text(fmt.say("train_more_links", count=len(result.test) - TEST_ROWS)))
    shown.append(Text(""))
    shown.append(
        Text(fmt.say("train_with_order" if result.positions is not None else "train_no_order"))
    )
    return Group(*shown)


def _share(value: float, fmt: Format) -> str:
    return fmt.decimal(f"{100 * value:.1f} %")


def footer(result: TrainResult, fmt: Format) -> RenderableType:
    options = ""
    if result.heads is not None:
        options += f" --heads {result.heads}"
    if result.causal:
        options += " --causal"
    if not result.scale:
        options += " --no-scale"
    return render.lines("", render.Hint(fmt.say("train_pipe_hint", options=options)))


def memorised(result: TrainResult, fmt: Format) -> RenderableType:
    """On one sentence: the cells besides the wanted ones that moved most, and, when a
    wanted row went one-hot, what that means: the layer memorised the sentence."""
    if result.sentences != 1 or not result.done:
        return render.lines()
    table = PlainTable(box=box.SIMPLE_HEAVY)
    table.add_column(fmt.say("train_cell"))
    table.add_column(fmt.say("train_before"), justify="right")
    table.add_column(fmt.say("train_after"), justify="right")
    tokens = result.tokens
    for row, column, before, after in result.moved_most():
        label = render.safe_label(f"{tokens[row]} → {tokens[column]}")
        table.add_row(label, fmt.weight_number(before), fmt.weight_number(after))
    grid = result.weights_after.mean(axis=0) if result.heads else result.weights_after
    rows = sorted({row for row, _column in result.wanted_cells})
    one_hot = [tokens[row] for row in rows if saturated_rows(grid[row])[()]]
    parts: list[Any] = [Text(fmt.say("train_moved"), style="bold"), table]
    if one_hot:
        said = fmt.say("train_one_hot", rows=", ".join(f"«{t}»" for t in one_hot))
        parts.append(render.lines(said, ""))
    return Group(*parts)


def training_view(result: TrainResult, fmt: Format) -> list[RenderableType]:
    """What a terminal shows after training."""
    parts: list[Any] = [summary(result, fmt), wanted_table(result, fmt), memorised(result, fmt)]
    if result.done:
        parts.append(LossCurve(result.loss, fmt))
    parts += [Grids(result, fmt), corpus_lines(result, fmt), footer(result, fmt)]
    return parts
