"""A pretrained model's attention as rich renderables: one layer (the seeded layer's screen
under the model's own header, or the grid between words), and the ranked heads."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from attncli.present import render
from attncli.present.format import Format
from attncli.present.layer.view import divisor_text, packed, selfattn_view
from attncli.results.model import HeadsResult, ModelAttnResult

MODEL_COLUMNS = 16  # a real sentence's keys shown in a grid, as far as the terminal allows


def model_header(result: ModelAttnResult, fmt: Format, show: frozenset[str]) -> RenderableType:
    """Which model, layer and head; the sizes; that the weights are trained."""
    s = result.source
    heads = (
        fmt.say("model_heads", heads=s.heads)
        if s.head is None
        else fmt.say("model_head", head=s.head, heads=s.heads)
    )
    first = fmt.say(
        "model_layer", model=s.name, kind=s.model_type, layer=s.layer, layers=s.layers, heads=heads
    )
    t = len(result.tokens)
    sizes = [fmt.say("tokens_count", count=t)]
    sizes += [f"{name} = {value}" for name, value in result.sizes.items()]
    sizes.append(fmt.say("divided_by", divisor=divisor_text(result, fmt)))
    if result.kv_heads is not None and result.kv_heads != s.heads:  # the Llama family's
        kv = result.kv_heads
        group = s.heads // kv
        sizes.append(fmt.say("kv_head_of" if kv == 1 else "kv_heads_of", kv=kv, group=group))
    if result.window is not None:
        sizes.append(fmt.say("window_causal", window=result.window, before=result.window - 1))
    elif result.causal:
        sizes.append(fmt.say("model_causal"))
    norms = {"gpt2": "model_after_norm", "llama": "model_after_rms",
             "mistral": "model_after_rms", "qwen2": "model_after_rms",
             "gemma": "model_after_rms", "qwen3": "model_after_rms",
             "olmo2": "model_no_norm_before", "gemma2": "model_norms_around",
             "gemma3_text": "model_norms_around", "gpt_oss": "model_after_rms",
             "deepseek_v3": "model_after_rms"}  # fmt: skip
    after = fmt.say(norms[s.model_type]) if s.model_type in norms else ""
    lines: list[str | Text] = [
        first,
        *packed(sizes),
        fmt.say("model_input", layer=s.layer, after=after),
    ]
    if s.query_scalar is not None:
        lines.append(fmt.say("model_query_scalar", scalar=fmt.number(s.query_scalar),
                             d=result.keys.shape[-1]))  # fmt: skip
    if s.rope is not None:
        base, scaled = s.rope
        lines.append(fmt.say("model_rotary", base=fmt.number(base),
                             scaling=rope_scaling_text(scaled, fmt)))  # fmt: skip
        if s.other_rope is not None:
            other = "sliding_attention" if s.layer_types[s.layer - 1] == "full_attention" else (
                "full_attention")  # fmt: skip
            lines.append(fmt.say("model_other_rope", kind=other, base=fmt.number(s.other_rope[0]),
                                 scaling=rope_scaling_text(s.other_rope[1], fmt)))  # fmt: skip
        if s.attention_factor != 1.0:
            lines.append(fmt.say("model_rope_factor", factor=fmt.number(s.attention_factor, 4),
                                 squared=fmt.number(s.attention_factor**2, 4)))  # fmt: skip
    if s.qk_norm is not None:
        lines.append(fmt.say(f"model_qk_norm.{s.qk_norm}"))
    if s.attn_softcap is not None:
        lines.append(fmt.say("model_softcap", cap=fmt.number(s.attn_softcap)))
    if s.latent is not None:
        cached, full = s.latent.cache_numbers()
        lines.append(fmt.say("model_latent", rank=s.latent.rank, rope=s.latent.rope,
                             nope=s.latent.nope, cached=cached, full=full,
                             heads=s.latent.heads))  # fmt: skip
        if s.absorbed_gap is not None:
            lines.append(fmt.say("model_absorbed", gap=fmt.scientific(s.absorbed_gap)))
        width = s.latent.nope + s.latent.rope
        if not math.isclose(result.divisor, math.sqrt(width), rel_tol=1e-12):
            lines.append(fmt.say("model_latent_divisor", d=width,
                                 mscale=fmt.number(math.sqrt(math.sqrt(width) / result.divisor),
                                                   4)))  # fmt: skip
    if s.sinks is not None:
        given = 1.0 - result.weights.sum(axis=-1)  # [h, T] or [T]: what each row gives the sink
        lines.append(fmt.say("model_sinks", least=fmt.number(float(given.min()), 3),
                             most=fmt.number(float(given.max()), 3)))  # fmt: skip
    if s.layer_types:
        full = s.layer_types.count("full_attention")
        lines.append(fmt.say("model_layer_types", sliding=len(s.layer_types) - full, full=full,
                             kind=s.layer_types[s.layer - 1]))  # fmt: skip
    lines.append(fmt.say("model_trained" if s.latent is None else "model_trained_latent"))
    if not show:
        lines.append(render.Hint(fmt.say("model_hint" if s.head is None else "model_head_hint")))
    return render.lines(*lines, "")


def rope_scaling_text(scaled: Any, fmt: Format) -> str:
    """ ", linear scaling ×8" for a scaled rotary setting, "" for none."""
    kind = "default" if scaled is None else scaled.kind
    if kind == "default":
        return ""
    named = fmt.say("model_rope_linear") if kind == "linear" else kind  # llama3 is a name
    return fmt.say("model_rope_scaling", kind=named, factor=fmt.number(scaled.factor))


def word_grids(result: ModelAttnResult, fmt: Format) -> list[RenderableType]:
    """The weight grid between words, per head, and the rule that merged it."""
    assert result.words is not None and result.word_weights is not None
    weights = result.word_weights
    title = fmt.say("model_word_weights")
    per_head = (
        [(title, weights)]
        if weights.ndim == 2
        else [(fmt.say("head", head=h + 1, title=title), weights[h]) for h in range(len(weights))]
    )
    grids: list[RenderableType] = [
        render.number_grid(
            heading, result.words, result.words, grid, fmt, heat=True, max_columns=MODEL_COLUMNS
        )
        for heading, grid in per_head
    ]
    return [*grids, render.lines(fmt.say("model_words"))]


def model_selfattn_view(
    result: ModelAttnResult, fmt: Format, show: frozenset[str] = frozenset()
) -> list[RenderableType]:
    """The model's header, then the seeded layer's screen on the real layer (score grid,
    weight grid, output, and what `show` asks for); with words, the grid between words."""
    header = model_header(result, fmt, show)
    if result.words is not None:
        return [header, *word_grids(result, fmt)]
    return [header, *selfattn_view(result, fmt, show, columns=MODEL_COLUMNS)[1:]]


def model_view(result: HeadsResult, fmt: Format) -> list[RenderableType]:
    """Every layer × head as a thumbnail (--grid), marked with its rank among those the
    ranking shows and its habit, and the legend."""
    from attncli.present.model.thumbnails import Thumbnails

    assert result.grid is not None
    marks = grid_marks(result)
    lines = [grid_title(result, fmt), fmt.say("heads_tokens", tokens=" ".join(result.tokens)), ""]
    legend = [fmt.say("grid_legend")]
    if result.ranking:
        legend.append(fmt.say("grid_ranked", shown=min(len(result.ranking), result.shown or 10)))
    windows = result.layer_windows
    layer_marks = [fmt.say("grid_window", window=w) if w is not None else "" for w in windows]
    if windows:
        window = next(w for w in windows if w is not None)
        legend.append(fmt.say("grid_windows", window=window, before=window - 1))
    thumbnails = Thumbnails(result.grid, marks, fmt.say("grid_layer"), too_wide(fmt),
                            layer_marks)  # fmt: skip
    # the ranking's table below says what the sink rates are; the view alone says it here
    sinks = sinks_grid(result, fmt, said=not result.ranking)
    return [render.lines(*lines), thumbnails, render.lines(*legend), *sinks]


def sinks_grid(result: HeadsResult, fmt: Format, said: bool = True) -> list[RenderableType]:
    """Every head's sink rate as a grid, a row per layer and a column per head, with what it
    is and how many heads pass Gu et al.'s ε."""
    if result.sink_rates is None:
        return []
    rates = result.sink_rates
    layers, heads = rates.shape
    word = fmt.say("grid_layer")
    grid = render.number_grid(
        fmt.say("grid_sinks_title"),
        [f"{word}{layer + 1}" for layer in range(layers)],
        [f"h{head + 1}" for head in range(heads)],
        rates,
        fmt,
        max_rows=layers,
        max_columns=heads,
    )
    return [grid, render.lines(*sinks_said(result, fmt))] if said else [grid]


def heads_source(result: HeadsResult, fmt: Format) -> str:
    """Whose heads: the model's name, or the seeded layer with its seed."""
    if result.seeded is None:
        return result.model
    seed = dict(result.seeded).get("seed", 0)
    return fmt.say("heads_seeded", seed=seed)


def grid_title(result: HeadsResult, fmt: Format) -> str:
    """The model view's title: a model's layers × heads, or the seeded layer's heads."""
    assert result.grid is not None
    layers, heads, count = result.grid.shape[0], result.grid.shape[1], len(result.tokens)
    if result.seeded is not None:
        return fmt.say("grid_title_seeded", source=heads_source(result, fmt), heads=heads,
                       count=count)  # fmt: skip
    return fmt.say("grid_title", model=result.model, layers=layers, heads=heads, count=count)


def too_wide(fmt: Format) -> Callable[[int, int], str]:
    """What the thumbnails say above the grid when one is wider than the terminal."""

    def said(tokens: int, drawn: int) -> str:
        return fmt.say("grid_too_wide", tokens=fmt.count(tokens), drawn=fmt.count(drawn))

    return said


HABIT_MARKS = {"previous": "p", "first": "f", "last": "l"}


def grid_marks(result: HeadsResult) -> list[list[str]]:
    """Each head's mark [L][h]: "#3" when it is third in the ranking shown, then the first
    letter of its habit (p, f, l)."""
    assert result.grid is not None
    layers, heads = result.grid.shape[:2]
    ranks = {}
    for rank, entry in enumerate(result.ranking[: result.shown or 10], start=1):
        ranks[entry.layer - 1, entry.head - 1] = f"#{rank}"
    marks = []
    for layer in range(layers):
        row = []
        for head in range(heads):
            habit = result.habits[layer][head] if result.habits else ""
            parts = [ranks.get((layer, head), ""), HABIT_MARKS.get(habit, "")]
            row.append(" ".join(part for part in parts if part))
        marks.append(row)
    return marks


def heads_view(result: HeadsResult, fmt: Format) -> list[RenderableType]:
    """The heads ranked, highest first: the first ten, or all; with --grid, the model view
    first."""
    shown: list[RenderableType] = model_view(result, fmt) if result.grid is not None else []
    if not result.ranking:
        return shown
    return [*shown, *ranking_view(result, fmt)]


def sinks_said(result: HeadsResult, fmt: Format) -> list[str]:
    """What the sink rates are, how many heads pass Gu et al.'s ε, and over which keys."""
    from attncli.core.head_patterns import SINK_THRESHOLD

    if result.sink_rates is None:
        return []
    said = [fmt.say("heads_sinks", sinks=result.sink_heads, total=result.sink_rates.size,
                    threshold=fmt.number(SINK_THRESHOLD, 1))]  # fmt: skip
    if result.sentences is not None and len(result.sentences) > 1:
        said.append(fmt.say("heads_sinks_over", count=len(result.sentences)))
    if result.learned_sinks:
        said.append(fmt.say("heads_sinks_learned", model=result.model))
    return said


def ranking_view(result: HeadsResult, fmt: Format) -> list[RenderableType]:
    """The heads ranked, highest first: the first ten, or all."""
    import textwrap

    from rich import box

    several = result.sentences is not None
    if result.pattern is not None:
        asked = fmt.say(f"heads_pattern.{result.pattern}")
    elif several:
        asked = fmt.say("heads_from_to_words", source=result.asked_from, target=result.asked_to)
    else:
        assert result.source is not None and result.target is not None
        asked = fmt.say(
            "heads_from_to",
            source=result.tokens[result.source],
            start=result.source + 1,
            target=result.tokens[result.target],
            end=result.target + 1,
        )
    # No cell is split at 80 columns: a long column name takes two lines, the bars shorten.
    table = render.FittedTable(box=box.SIMPLE_HEAVY)
    controls = result.source is not None  # --from/--to: the row's rival and the column
    columns = [("heads_rank", "right"), ("heads_layer", "right"), ("heads_head", "right"),
               ("heads_mean" if several else "heads_weight", "right")]  # fmt: skip
    if several:
        columns.append(("heads_lowest", "right"))
    if controls:
        columns += [("heads_rival", "left"), ("heads_column", "right")]
    sinks = result.sink_rates is not None
    if sinks:
        columns.append(("heads_sink", "right"))
    columns.append(("heads_habit", "left"))
    for number, (key, justify) in enumerate(columns):
        name = fmt.say(key)
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
        if key != "heads_rival" and " " in name:  # «Row's next» stays on one line
            room = max(max(map(len, name.split())), (len(name) + 1) // 2)  # two lines
            table.narrow_headers[number] = Text("\n".join(textwrap.wrap(name, room)))
    table.add_column("", min_width=4)
    table.give = render.BAR_LENGTH - 4
    shown = result.ranking if result.shown is None else result.ranking[: result.shown]
    top = max((entry.weight for entry in result.ranking), default=0.0) or 1.0
    for rank, entry in enumerate(shown, start=1):
        bar = render.Bar(entry.weight / top)
        cells: list[Any] = [str(rank), str(entry.layer), str(entry.head),
                 fmt.stated(entry.weight, 3, whole_bare=False)]  # fmt: skip
        if several:
            cells.append(fmt.stated(entry.lowest or 0.0, 3, whole_bare=False))
        if controls and entry.rival_weight is not None:
            rival = fmt.stated(entry.rival_weight, 3)
            if entry.rival is not None:
                rival = f"{result.tokens[entry.rival]} {rival}"
            cells += [render.safe_label(rival), fmt.stated(entry.column_mean or 0.0, 3)]
        if sinks:
            cells.append(fmt.stated(entry.sink_rate or 0.0, 3))
        habit = fmt.say(f"heads_habit.{entry.habit}") if entry.habit else ""
        table.add_row(*cells, habit, bar)
    lines = [fmt.say("heads_title", model=heads_source(result, fmt), asked=asked)]
    if result.sentences is not None:
        lines.append(fmt.say("heads_over", count=len(result.sentences)))
        lines += [f"  {render.safe_label(' '.join(tokens))}" for tokens in result.sentence_tokens]
    else:
        lines.append(fmt.say("heads_tokens", tokens=" ".join(result.tokens)))
    below: list[str | Text] = []
    if len(shown) < len(result.ranking):
        more = len(result.ranking) - len(shown)
        below.append(fmt.say("heads_more", more=more, total=len(result.ranking)))
    import shlex

    if result.unseen is not None and result.source is not None and result.target is not None:
        below.append(fmt.say(f"heads_unseen.{result.unseen}",
                             source=result.tokens[result.source],
                             target=result.tokens[result.target]))  # fmt: skip
    if controls:
        below.append(fmt.say("heads_controls_over" if several else "heads_controls"))
    if result.metric is not None:
        below.append(fmt.say(f"heads_metric.{result.metric}"))
        if result.exclude:
            below.append(fmt.say(f"heads_excluded.{','.join(result.exclude)}"))
        if not result.causal and result.pattern in ("previous", "duplicate", "induction"):
            below.append(fmt.say(f"heads_bidirectional.{result.pattern}"))
    if several:
        below.append(fmt.say("heads_lowest_means"))
    below += sinks_said(result, fmt)
    best = result.ranking[0]
    token = result.tokens[result.source] if result.source is not None else result.tokens[-1]
    if result.seeded is not None:  # the same layer, its best head explained
        settings = " ".join(result.seeded_line)
        below.append(
            render.Hint(
                fmt.say(
                    "heads_next_seeded",
                    sentence=shlex.quote(result.sentence),
                    settings=settings,
                    head=best.head,
                    token=shlex.quote(token),
                )
            )
        )
    else:
        below.append(
            render.Hint(
                fmt.say(
                    "heads_next",
                    sentence=shlex.quote(result.sentence),
                    model=shlex.quote(result.model),
                    layer=best.layer,
                    head=best.head,
                    token=shlex.quote(token),
                )
            )
        )
    return [render.lines(*lines), table, render.lines(*below)]
