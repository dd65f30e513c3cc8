"""The explorer's renderables: attn selfattn's header and grids, a cursor on the grid, the
side panel with the cell's arithmetic, and the status line. Rich only; nothing prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from attncli.explore.state import Frame, State
from attncli.explore.words import say
from attncli.present import render
from attncli.present.format import MASKED, Format
from attncli.present.layer import view as layer_view

if TYPE_CHECKING:
    from attncli.explain.calculator import MixSteps, ScoreSteps, SoftmaxSteps
    from attncli.results.selfattn import SelfAttnResult


def header(result: SelfAttnResult, fmt: Format) -> RenderableType:
    """attn selfattn's header lines: T, d_model, d_k, the divisor, the parameters, the note
    on untrained weights (without the command line's hint on --show and --steps); of a
    model, its own header (which model, layer and head; trained weights)."""
    if _model(result) is not None:
        from attncli.present.model.view import model_header

        # A `show` that is not empty leaves out the command line's hint.
        return model_header(result, fmt, frozenset({"explore"}))  # type: ignore[arg-type]
    return layer_view.header(result, fmt, hint=False)


def drawn_note(result: SelfAttnResult, lang: str) -> Text | None:
    """While the seed draws every W (a typed sentence, or an X alone): that no row means
    anything yet, and the two ways to a grid that does (the lesson's hand-set sample, or
    attn train); None for given or trained W, a model's, and a layer without projections."""
    if _model(result) is not None or not result.projections:
        return None
    if not {"w_q", "w_k", "w_v"} <= set(result.drawn):
        return None
    return Text(say(lang, "drawn_note", seed=result.seed))


def grid(result: SelfAttnResult, state: State, fmt: Format) -> RenderableType:
    """The weight grid (or the score grid) of the head shown, every row and as many columns
    as fit, the cursor's cell marked and every cell answering a click; of a model's words,
    the weights between words."""
    head = state.head if result.heads is not None else None
    words = getattr(result, "words", None)
    size = len(words) if words is not None else len(result.tokens)
    drawing: dict[str, Any] = dict(
        max_rows=size, max_columns=size, cursor=(state.row, state.column), clickable=True
    )
    if words is not None:
        from attncli.present.grid import NumberGrid

        title = fmt.say("model_word_weights")
        merged = result.word_weights  # type: ignore[attr-defined]
        return NumberGrid(title, words, words, merged, fmt, heat=True, **drawing)
    make = layer_view.weight_grid if state.grid == "weights" else layer_view.score_grid
    return make(result, fmt, head, **drawing)


def _model(result: SelfAttnResult) -> Any:
    """The model a result comes from (attncli.results.model.ModelSource), else None."""
    return getattr(result, "source", None)


def _head(result: SelfAttnResult, state: State) -> int:
    """The head whose steps are shown: the state's among a seeded layer's heads; 1 when the
    result holds one head (a model's is computed alone)."""
    return state.head if result.heads is not None else 1


def word_panel(result: SelfAttnResult, state: State, fmt: Format) -> RenderableType:
    """A cell between words: how the pieces' weights were merged, and the weight."""
    words = result.words  # type: ignore[attr-defined]
    groups = result.word_groups  # type: ignore[attr-defined]
    i, j = state.row, state.column
    pieces = [" ".join(result.tokens[p] for p in groups[k]) for k in (i, j)]
    weight = fmt.weight_number(float(result.word_weights[i, j]))  # type: ignore[attr-defined]
    # The merge with the head's own weights [T, T]: a row per piece of the asking word, the
    # sum over the answering word's pieces; then the mean of those rows.
    lines = []
    sums = []
    for piece in groups[i]:
        parts = [float(result.weights[piece, column]) for column in groups[j]]
        sums.append(sum(parts))
        added = " + ".join(fmt.weight_number(part) for part in parts)
        total = f" = {fmt.weight_number(sums[-1])}" if len(parts) > 1 else ""
        lines.append(Text(f"{result.tokens[piece]} → {words[j]}: {added}{total}"))
    if len(sums) > 1:
        shown = " + ".join(fmt.weight_number(part) for part in sums)
        lines.append(Text(f"({shown}) ÷ {len(sums)} = {weight}"))
    return Group(
        Text(say(fmt.lang, "word_cell", row=words[i], column=words[j]), style="bold"),
        Text(f"{words[i]}: {pieces[0]}  ·  {words[j]}: {pieces[1]}"),
        *lines,
        Text(f"{fmt.say('weight')} = {weight}"),
        Text(fmt.say("model_words"), style="dim"),
        Text(say(fmt.lang, "word_enter"), style="dim"),
    )


def panel(
    result: SelfAttnResult, state: State, fmt: Format, compact: bool = False
) -> RenderableType:
    """The cursor cell's arithmetic as --steps lays out its row (q · k term by term,
    ÷ √d_k, e^score, ÷ the row's total = the weight) and the row's mix; compact: on a few
    lines for a short screen."""
    if getattr(result, "words", None) is not None:
        return word_panel(result, state, fmt)
    lang = fmt.lang
    i, j = state.row, state.column
    # the row's steps: with rotary positions, the turns of q and k come first; with a
    # softcap, its step between the scores and the softmax
    steps = result.steps(row=i + 1, head=_head(result, state))
    from attncli.explain.softcap import SoftcapSteps

    capped = next((step for step in steps if isinstance(step, SoftcapSteps)), None)
    scored, softmax, mixed = _typed(*[step for step in steps if step is not capped][-3:])
    score_row, power_row, mix_row = scored.rows[j], softmax.rows[j], mixed.rows[j]
    row_name, column_name = result.query_labels[i], result.tokens[j]
    title = say(lang, "cell", row=row_name, column=column_name, i=i + 1, j=j + 1)
    cell: list[tuple[str, str]] = []
    sunk = None  # the sink's e^s, in the softmax's total (its weight is dropped after)
    if softmax.sink is not None:
        sink = softmax.rows[-1]
        power = fmt.number(sink.power, whole_bare=False)
        sunk = (say(lang, "sink_total", sink=fmt.number(sink.score)), power)
    between: list[tuple[str, float]] = []  # each step from q · k to the score, and its result
    if not power_row.masked:
        dot = f"{render.dot_terms(score_row.terms, fmt)} = {fmt.number(score_row.total)}"
        cell.append((fmt.say("query_key"), dot))
        scaled = score_row.total
        if scored.divisor:
            root = layer_view.divisor_text(result, fmt) or fmt.number(scored.divisor)
            division = f"{fmt.number(score_row.total)} ÷ {fmt.number(scored.divisor)}"
            scaled = score_row.total / scored.divisor
            cell.append((f"÷ {root}", division))
            between.append((division, scaled))
        if capped is not None:  # cap · tanh(score ÷ cap), before any bias
            cap = fmt.number(capped.cap)
            bent = f"{cap} · tanh({fmt.number(scaled)} ÷ {cap})"
            scaled = capped.rows[j].capped
            cell.append(("softcap", bent))
            between.append((bent, scaled))
        if score_row.bias is not None:  # ALiBi's −m·|i − j|, a float attn_mask's number
            added = fmt.number(score_row.bias)
            added = f"({added})" if score_row.bias < 0 else added
            cell.append((f"+ {scored.bias_name}", f"{fmt.number(scaled)} + {added}"))
            between.append((f"{fmt.number(scaled)} + {added}", power_row.score))
        cell.append((fmt.say("score"), fmt.number(power_row.score)))  # what the softmax took
        cell.append((fmt.say("power"), fmt.number(power_row.power, whole_bare=False)))
        total = fmt.number(softmax.total, whole_bare=False)
        if sunk is not None:
            cell.append(sunk)
        cell.append((fmt.say("weight_is", total=total), fmt.weight_number(power_row.weight)))
    part = (
        f"{fmt.weight_number(mix_row.weight)} × ({fmt.vector(mix_row.value)}) = "
        f"{fmt.vector(mix_row.product)}"
    )
    mix = [
        (say(lang, "mix_term", column=column_name), part),
        (fmt.say("output"), fmt.say("about", vector=fmt.vector(mixed.output))),
    ]
    masked_line = Text(say(lang, "cell_masked", row=row_name)) if power_row.masked else None
    if compact:
        lines = [Text(title, style="bold")]
        if masked_line is not None:
            lines.append(masked_line)
        else:
            score = fmt.number(power_row.score)
            power = fmt.number(power_row.power, whole_bare=False)
            said = [f"{cell[0][0]} = {cell[0][1]}"]
            # each step between the dot and the score: ÷ √d_k, the softcap, + the bias
            said += [f"{value} = {fmt.number(number)}" for value, number in between]
            said.append(f"e^{score} = {power}")
            total = fmt.number(softmax.total, whole_bare=False)
            if sunk is not None:
                said.append(f"{sunk[0]} = {sunk[1]}")
            said.append(f"{power} ÷ {total} = {fmt.weight_number(power_row.weight)}")
            lines.append(Text(" · ".join(said)))
        lines.append(Text(f"{fmt.say('mix_for', row=row_name)} {mix[1][1]}"))
        return Group(*lines)
    parts: list[RenderableType] = [Text(title, style="bold")]
    if masked_line is not None:
        parts.append(masked_line)
    else:
        parts += [Text(cell[0][0]), Text("  " + cell[0][1]), _pairs(cell[1:])]
    parts += [Text(""), Text(fmt.say("mix_for", row=row_name), style="bold")]
    parts += [Text(f"{column_name}: {part}"), Text(f"{mix[1][0]} {mix[1][1]}")]
    parts += [Text(""), Text(say(lang, "enter_hint"), style="dim")]
    return Group(*parts)


def _pairs(pairs: list[tuple[str, str]]) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1, 0, 0))
    table.add_column()
    table.add_column(justify="right", no_wrap=True)
    for label, value in pairs:
        table.add_row(Text(label), Text(value))
    return table


def _typed(*parts: Any) -> tuple[ScoreSteps, SoftmaxSteps, MixSteps]:
    return parts  # type: ignore[return-value]


def explanation(result: SelfAttnResult, state: State, fmt: Format) -> RenderableType:
    """The cursor row's three steps, as attn selfattn --steps --token shows them."""
    from attncli.present.views import steps_view

    if getattr(result, "words", None) is not None:
        return Text(say(fmt.lang, "word_enter"))
    return Group(*steps_view(result.steps(row=state.row + 1, head=_head(result, state)), fmt))


def _sink_rate(result: SelfAttnResult | None, state: State) -> float | None:
    """The shown head's sink rate, its mean weight on the first token over the rows after
    the first (attn heads'), when there are two tokens or more and a grid to read it from."""
    if result is None or not result.grids or result.weights.shape[-1] < 2:
        return None
    if getattr(result, "words", None) is not None:
        return None
    from attncli.core.head_patterns import sink_rates

    weights = result.weights
    if weights.ndim == 3:  # the seeded layer's heads: the one shown
        weights = weights[min(state.head, len(weights)) - 1]
    return float(sink_rates(weights))


def status(
    state: State, frame: Frame, result: SelfAttnResult | None, width: int | None = None
) -> Text:
    """Each knob with its key and its state, on as few lines of `width` as fit, a knob never
    cut between its key and its name (None: one line, for the terminal to wrap)."""
    lang = state.lang

    def onoff(value: bool) -> str:
        return say(lang, "on" if value else "off")

    fmt = Format(lang=lang)
    knobs = []
    model = None if result is None else _model(result)
    if model is not None:
        knobs.append(say(lang, "knob.layer", value=f"{model.layer}/{model.layers}"))
        knobs.append(say(lang, "knob.head", value=f"{state.head}/{model.heads}"))
        knobs.append(
            say(lang, "knob.words", value=say(lang, "words.on" if state.words else "words.off"))
        )
    if model is None and not frame.direct:
        knobs.append(say(lang, "knob.projections", value=onoff(state.projections)))
    if model is None:
        knobs.append(say(lang, "knob.scale", value=onoff(state.scale)))
        knobs.append(say(lang, "knob.causal", value=onoff(state.causal)))
    if model is None and not frame.direct:
        knobs.append(say(lang, "knob.heads", value=state.heads if state.projections else MASKED))
    if model is None and state.heads > 1 and state.projections:
        knobs.append(say(lang, "knob.head", value=f"{state.head}/{state.heads}"))
    if frame.sentence:
        norm = result.norm if result is not None and result.norm is not None else None
        knobs.append(say(lang, "knob.norm", value=MASKED if norm is None else fmt.number(norm)))
    if result is not None and model is None and not frame.direct:
        knobs.append(say(lang, "knob.d_k", value=result.sizes["d_k"]))
    if model is None and (frame.sentence or not frame.given_w):
        knobs.append(say(lang, "knob.seed", value=state.seed))
    if model is None and not frame.direct:
        knobs.append(say(lang, "knob.positions", value=onoff(state.positions)))
    if model is None:
        window = MASKED if state.window is None else state.window
        knobs.append(say(lang, "knob.window", value=window))
        knobs.append(say(lang, "knob.alibi", value=onoff(state.alibi)))
        knobs.append(say(lang, "knob.qk_norm", value=onoff(state.qk_norm)))
        cap = MASKED if state.softcap is None else fmt.number(state.softcap)
        knobs.append(say(lang, "knob.softcap", value=cap))
        sink = MASKED if state.sink is None else fmt.number(state.sink)
        knobs.append(say(lang, "knob.sink", value=sink))
    rate = _sink_rate(result, state)
    if rate is not None:
        knobs.append(say(lang, "knob.sink_rate", value=fmt.number(rate, 2, whole_bare=False)))
    knobs.append(say(lang, "knob.grid", value=say(lang, f"grid.{state.grid}")))
    knobs.append(f"l {lang}")
    knobs.append(say(lang, "knob.help"))
    lines = [knobs[0]]
    for knob in knobs[1:]:
        joined = f"{lines[-1]} · {knob}"
        if width is None or cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(knob)
    return Text("\n".join(lines))
