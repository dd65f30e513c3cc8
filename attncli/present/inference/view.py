"""Attention at inference on a terminal: the online softmax's blocks, one query row through
key tiles, the KV cache ledger. Renderers return renderables and never print."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group, RenderableType
from rich.text import Text

from attncli.errors import count
from attncli.messages import Message
from attncli.present import render
from attncli.present.drawn import PlainTable
from attncli.present.format import Format
from attncli.present.inference.words import BLOCK_SCORES, PROMPT_TOKENS

if TYPE_CHECKING:
    from attncli.core.inference import CacheStep
    from attncli.results.inference import CacheLedger, OnlineSoftmaxResult, TiledResult
    from attncli.results.predict import PredictResult

SHOWN_ROWS = 8  # rows of a grid of scores whose blocks are laid out


def _table() -> PlainTable:
    return PlainTable(box=box.SIMPLE_HEAVY)


def _titled(title: str, table: PlainTable) -> RenderableType:
    return Group(render.Line(title, style="bold"), table)


def _columns(labels: tuple[str, ...], start: int, end: int) -> str:
    """The tokens a block covers: 'tren, va'."""
    return ", ".join(labels[start - 1 : end])


def _ulps(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def online_softmax_view(
    result: OnlineSoftmaxResult, fmt: Format, show: frozenset[str]
) -> list[RenderableType]:
    """The weights beside the plain softmax's; with --steps (or on a worksheet) each row's
    blocks first: the block's scores and max, m, e^(m_old − m), its Σ and ℓ. A worksheet
    (blank format) has its heading and intro, and with answers its filled key after."""
    if fmt.blank:
        scores = fmt.vector(result.score_grid[0].tolist())
        sheet = [
            render.heading(fmt.say("worksheet")),
            render.lines(fmt.say("online_exercise_intro", scores=scores, block=result.block), ""),
            *_online_rows(result, fmt, show),
        ]
        if fmt.answers:
            filled = fmt.filled()
            sheet += [render.PageBreak(), render.heading(filled.say("answers"))]
            sheet += _online_rows(result, filled, frozenset({"steps"}))
        return sheet
    return _online_rows(result, fmt, show)


def _online_rows(
    result: OnlineSoftmaxResult, fmt: Format, show: frozenset[str]
) -> list[RenderableType]:
    view: list[RenderableType] = []
    rows = range(min(result.score_grid.shape[0], SHOWN_ROWS))
    if result.shown_row is not None:  # --row or --token: that row alone, wherever it is
        rows = range(result.shown_row, result.shown_row + 1)
    for row in rows:
        label = None if result.single else result.row_labels[row]
        if "steps" in show or fmt.blank:
            view.append(_blocks_table(result, row, label, fmt))
        view.append(_weights_table(result, row, fmt))
        view.append(render.lines(_closing(result, row, fmt), ""))
    if "steps" not in show and not fmt.blank:
        view.append(render.lines(fmt.say("online_hint")))
    return view


def _blocks_table(
    result: OnlineSoftmaxResult, row: int, label: str | None, fmt: Format
) -> RenderableType:
    scaled = result.temperature != 1.0
    table = render.FittedTable(box=box.SIMPLE_HEAVY)
    table.add_column(fmt.say("online_block"))
    table.add_column(fmt.say("online_tokens"))
    table.add_column(fmt.say("online_scores"))
    table.add_column(fmt.say("online_block_max"), justify="right")
    table.add_column(fmt.say("online_m"), justify="right")
    table.add_column(fmt.say("online_factor_t" if scaled else "online_factor"), justify="right")
    table.add_column(
        fmt.say("online_block_sum_t" if scaled else "online_block_sum"), justify="right"
    )
    table.add_column(fmt.say("online_l"), justify="right")
    render.whole_header_words(table)
    scores = result.score_grid[row]
    for number, block in enumerate(result.block_rows(row), start=1):
        covered = _columns(result.column_labels, block["start"], block["end"])
        table.add_row(
            str(number),
            render.safe_label(covered),
            fmt.vector(scores[block["start"] - 1 : block["end"]].tolist()),
            fmt.computed(fmt.number(block["block_max"])),
            fmt.computed(fmt.number(block["m"])),
            fmt.computed(fmt.number(block["factor"], whole_bare=True)),
            fmt.computed(fmt.number(block["block_sum"], whole_bare=False)),
            fmt.computed(fmt.number(block["l"], whole_bare=False)),
        )
    counted = Message.counted(*BLOCK_SCORES, result.block)
    title = (
        fmt.say("online_title", block=counted)
        if label is None
        else fmt.say("online_title_of", row=label, block=counted)
    )
    rule = fmt.say("online_rule_t" if scaled else "online_rule")
    return Group(Text(title, style="bold"), Text(fmt.say("online_start")), Text(rule), table)


def _weights_table(result: OnlineSoftmaxResult, row: int, fmt: Format) -> RenderableType:
    blocks = result.block_rows(row)
    last = blocks[-1]
    scaled = result.temperature != 1.0
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("score"), justify="right")
    table.add_column(fmt.say("online_power_t" if scaled else "online_power"), justify="right")
    table.add_column(fmt.say("weight"), justify="right")
    if not fmt.blank:
        table.add_column(fmt.say("online_plain"), justify="right")
    scores = result.score_grid[row]
    m = last["m"]
    for index, label in enumerate(result.column_labels):
        score = float(scores[index])
        if math.isinf(m) or math.isinf(score):
            power = 0.0
        else:
            power = math.exp((score - m) / result.temperature)
        cells: list[RenderableType] = [
            render.safe_label(label),
            fmt.number(score),
            fmt.computed(fmt.number(power, whole_bare=False)),
            fmt.computed(fmt.weight_number(float(result.weight_grid[row, index]))),
        ]
        if not fmt.blank:
            cells.append(fmt.weight_number(float(result.plain_grid[row, index])))
        table.add_row(*cells)
    shown_m = "−∞" if m == -math.inf else fmt.number(m)  # an all-masked row's m, not a dash
    title = fmt.say(
        "online_weights_t" if scaled else "online_weights",
        m=fmt.computed(shown_m) if not fmt.blank else "…",
        l=fmt.number(last["l"], whole_bare=False) if not fmt.blank else "…",
    )
    return _titled(title, table)


def _closing(result: OnlineSoftmaxResult, row: int, fmt: Format) -> str:
    if fmt.blank:
        return ""
    if result.block_rows(row)[-1]["l"] == 0:
        return fmt.say("online_masked_row")
    if result.ulps[row] == 0:
        return fmt.say("online_identical")
    return fmt.say("online_equal", ulps=fmt.decimal(_ulps(float(result.ulps[row]))))


def tiled_view(result: TiledResult, fmt: Format) -> list[RenderableType]:
    """The query's scores block by block: m, ℓ and the accumulator after each, the output
    against the layer's own, and the numbers each way holds."""
    t = result.tiled
    table = render.FittedTable(box=box.SIMPLE_HEAVY)
    table.add_column(fmt.say("online_block"))
    table.add_column(fmt.say("tiles_keys"))
    table.add_column(fmt.say("online_scores"))
    table.add_column(fmt.say("online_m"), justify="right")
    table.add_column(fmt.say("online_factor"), justify="right")
    table.add_column(fmt.say("online_l"), justify="right")
    render.whole_header_words(table)
    held = _table()
    held.add_column(fmt.say("online_block"))
    held.add_column(fmt.say("tiles_accumulator"))
    ends = [*t.starts[1:], len(result.tokens)]
    for i, (start, end) in enumerate(zip(t.starts, ends, strict=True)):
        table.add_row(
            str(i + 1),
            render.safe_label(_columns(result.tokens, start + 1, end)),
            fmt.vector(t.scores[start:end].tolist()),
            fmt.number(float(t.running_max[i])),
            fmt.number(float(t.factor[i])),
            fmt.number(float(t.running_sum[i]), whole_bare=False),
        )
        held.add_row(str(i + 1), fmt.vector(t.accumulator[i].tolist()))
    head = "" if result.head is None else fmt.say("tiles_head", head=result.head + 1)
    title = fmt.say(
        "tiles_title", token=result.tokens[result.token], block=result.tile_k, head=head
    )
    difference = float(abs(t.output - result.plain).max())
    memory = result.memory
    size = result.dtype_bytes
    return [
        Group(
            Text(title, style="bold"),
            Text(fmt.say("online_start")),
            Text(fmt.say("tiles_rule")),
            table,
            held,
        ),
        render.lines(
            fmt.say("tiles_output", vector=fmt.vector(t.output.tolist())),
            fmt.say(
                "tiles_plain",
                vector=fmt.vector(result.plain.tolist()),
                diff=fmt.scientific(difference) if difference else "0",
            ),
            "",
            fmt.say(
                "tiles_memory",
                tile_q=result.tile_q,
                tile_k=result.tile_k,
                tile=fmt.count(memory["tile_scores"]),
                running=fmt.count(memory["running"]),
                accumulator=fmt.count(memory["accumulator"]),
                tiled=fmt.count(memory["tiled"]),
                tiled_bytes=fmt.count(memory["tiled"] * size),
                length_q=len(result.tokens),
                length_k=len(result.tokens),
                grid=fmt.count(memory["grid"]),
                grid_bytes=fmt.count(memory["grid"] * size),
            ),
        ),
    ]


def kv_head(result: CacheLedger) -> int:
    """The key/value head the shown query head reads: one of kv_heads, each shared by
    heads / kv_heads query heads (grouped-query attention), as the layer's grids label it."""
    return result.head // (result.heads // result.kv_heads)


def cache_view(result: CacheLedger, fmt: Format) -> list[RenderableType]:
    """Token by token: what it writes into the cache (k, v) beside its q and output row; then
    its one row of scores and weights against the cached keys; then what the cache saves and
    what it costs."""
    head = result.head
    kv = kv_head(result)  # the key/value head this query head reads
    written = _table()
    latent = "_latent" if result.latent is not None else ""  # c_KV and k^R, not k and v
    for column in ("cache_step", "token", "cache_vector", f"cache_numbers{latent}"):
        written.add_column(fmt.say(column))
    rows = _table()
    for column in ("cache_step", "token", "cache_rows"):
        rows.add_column(fmt.say(column))
    # ÷ √8 as the layer's header writes it, a number of one's own, or nothing
    from attncli.present.layer.view import divisor_said

    said = divisor_said(result.divisor, result.d_k, True, fmt)
    rows.add_column(fmt.say("cache_row", divided="" if said is None else f" ÷ {said}"))
    for t, step in enumerate(result.ledger):
        parts = (("q", step.query[head]), *_written(step, kv), (fmt.say("cache_out"), step.output))
        for index, (name, part) in enumerate(parts):
            label = render.safe_label(result.tokens[t]) if index == 0 else ""
            written.add_row(
                str(t + 1) if index == 0 else "", label, name, fmt.vector(part.tolist())
            )
        written.add_section()
        cached = fmt.say("cache_rows_of", count=t + 1 - step.first)
        row = "\n".join(
            (
                "s " + fmt.vector(step.scores[head].tolist()),
                "α " + fmt.joined(fmt.weight_number(w) for w in step.weights[head].tolist()),
            )
        )
        rows.add_row(str(t + 1), render.safe_label(result.tokens[t]), cached, row)
    heading = "" if result.heads == 1 else fmt.say("tiles_head", head=head + 1)
    grouped = result.kv_heads < result.heads
    if grouped:  # its k and v are its key/value head's, shared with the group's other heads
        heading = fmt.say("cache_head_kv", head=head + 1, kv=kv + 1)
    shown = [] if result.shown_step is None else [_cache_at(result, result.shown_step, fmt)]
    difference = result.layer_difference
    replayed = [fmt.say(f"cache_replayed.{name}") for name in result.replayed]
    if replayed:
        replayed.insert(0, fmt.say("cache_replayed"))
    return [
        _titled(fmt.say("cache_title", head=heading), written),
        _titled(fmt.say("cache_rows_title"), rows),
        *shown,
        render.lines(
            *replayed,
            fmt.say("cache_bit" if result.bit_for_bit else "cache_not_bit"),
            fmt.say("cache_layer", diff=fmt.scientific(difference) if difference else "0"),
            "",
            *_cache_costs(result, fmt),
        ),
    ]


def _written(step: CacheStep, kv: int) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """What a step writes into the cache: the key and value of its key/value head, or a
    latent attention's c_KV and rotary key k^R (shared by every head)."""
    if step.latent is not None:
        return ("c_KV", step.latent), ("k^R", step.rotary_key)
    return ("k", step.key[kv]), ("v", step.value[kv])


def _cache_costs(result: CacheLedger, fmt: Format) -> list[str]:
    """What the cache saves (multiplications) and what it holds: every token, a sliding
    layer's last W − 1, a latent attention's c_KV and k^R; and what grouped heads share."""
    count = len(result.tokens)
    said = []
    m = result.multiplications
    if m:  # a latent attention's are not counted here (attn cost counts them)
        said.append(fmt.say(
            "cache_multiplications" if result.layers == 1 else "cache_multiplications_layers",
            layers=result.layers, count=count, cached=fmt.count(m["cached"]),
            recomputed=fmt.count(m["recomputed"]),
            times=fmt.decimal(f"{m['recomputed'] / m['cached']:.1f}"),
        ))  # fmt: skip
    else:
        said.append(fmt.say("cache_multiplications_latent"))
    size_fields: dict[str, object] = {
        "layers": result.layers,
        "kv_heads": result.kv_heads,
        "d_k": result.d_k,
        "d_v": result.d_v,
        "count": count,
        "numbers": fmt.count(result.cache_numbers),
        "bytes": fmt.count(result.cache_numbers * result.dtype_bytes),
        "half": fmt.count(result.cache_numbers * 2),
    }
    size = "cache_size" if result.d_v == result.d_k else "cache_size_dv"
    windowed = [window for window in result.windows if window is not None]
    if windowed:  # a sliding layer keeps W − 1 tokens, a full one every token
        size = "cache_size_windows"
        size_fields.update(
            full=len(result.windows) - len(windowed),
            sliding=len(windowed),
            windows=", ".join(str(window) for window in sorted(set(windowed))),
            all=fmt.count(result.full_numbers),
        )
    if result.latent is not None:
        size = "cache_size_latent"
        multi = result.multi_head_numbers
        size_fields.update(rank=result.latent[0], rope=result.latent[1], heads=result.heads,
                           multi=fmt.count(multi),
                           times=fmt.decimal(f"{multi / result.cache_numbers:.1f}"))  # fmt: skip
    if result.window is not None:
        said.append(fmt.say("cache_window", window=result.window, kept=result.window - 1))
    said.append(fmt.say(size, **size_fields))
    if result.kv_heads < result.heads:  # grouped: what a key and a value per head would take
        multi = result.multi_head_numbers
        said.append(fmt.say("cache_grouped", heads=result.heads, kv_heads=result.kv_heads,
                            group=result.heads // result.kv_heads, multi=fmt.count(multi),
                            multi_bytes=fmt.count(multi * result.dtype_bytes)))  # fmt: skip
    return said


def _cache_at(result: CacheLedger, step: int, fmt: Format) -> RenderableType:
    """The whole cache as step `step` reads it: every earlier token's k and v, and the row
    this token appends, then its one row of weights over them."""
    head, kv = result.head, kv_head(result)
    table = _table()
    latent = result.latent is not None
    for column in ("cache_position", "token", "cache_k", "cache_v", "cache_weight"):
        names = {"cache_k": "c_KV", "cache_v": "k^R"} if latent else {}
        table.add_column(names.get(column, fmt.say(column)))
    table.add_column("")
    weights = result.ledger[step].weights[head]
    first = result.ledger[step].first  # a sliding window's oldest key still kept
    for t in range(first, step + 1):
        (_, key), (_, value) = _written(result.ledger[t], kv)
        table.add_row(
            str(t + 1),
            render.safe_label(result.tokens[t]),
            fmt.vector(key.tolist()),
            fmt.vector(value.tolist()),
            fmt.weight_number(float(weights[t - first])),
            fmt.say("cache_new") if t == step else "",
        )
    title = fmt.say("cache_at_latent" if latent else "cache_at", step=step + 1,
                    token=result.tokens[step], rows=count(step + 1 - first, "row"))  # fmt: skip
    return _titled(title, table)


def _visible(word: str) -> str:
    """A token as a cell shows it: escapes for what does not print (\\n), and a token of
    spaces alone between « » so that its cell is not blank."""
    shown = repr(word)[1:-1]
    return shown if shown.strip() else f"«{shown}»"


def predict_view(result: PredictResult, fmt: Format) -> list[RenderableType]:
    """The likeliest next tokens: logit, probability and what sampling leaves; the number
    kept; with the logit lens, each layer's likeliest tokens."""
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("predict_logit"), justify="right")
    table.add_column(fmt.say("predict_probability"), justify="right")
    reshaped = result.temperature != 1.0 or result.top_k is not None or result.top_p is not None
    if reshaped:
        table.add_column(fmt.say("predict_sampled"), justify="right")
    for index, word in zip(result.top_ids, result.top_words, strict=True):
        cells: list[RenderableType] = [
            render.safe_label(_visible(word)),
            fmt.number(float(result.logits[index]), whole_bare=False),
            fmt.weight_number(float(result.probabilities[index])),
        ]
        if reshaped:
            cells.append(fmt.weight_number(float(result.sampled[index])))
        table.add_row(*cells)
    read = Message.counted(*PROMPT_TOKENS, len(result.tokens))
    title = fmt.say("predict_title", model=result.model, tokens=read)
    view: list[RenderableType] = [_titled(title, table)]
    kept = int((result.sampled > 0).sum())
    # what reshaped the distribution, in the order it is applied: ÷ T, then top-k, top-p;
    # the plain softmax says its temperature, 1
    how = []
    if result.temperature != 1.0 or (result.top_k is None and result.top_p is None):
        how.append(fmt.say("predict_temperature", t=fmt.number(result.temperature)))
    if result.top_k is not None and result.top_k < result.logits.size:
        how.append(fmt.say("predict_top_k", k=fmt.count(result.top_k)))
    if result.top_p is not None:
        how.append(fmt.say("predict_top_p", p=fmt.number(result.top_p)))
    if not how:  # a top-k of the whole vocabulary keeps every token
        how.append(fmt.say("predict_temperature", t=fmt.number(result.temperature)))
    view.append(
        render.lines(
            fmt.say(
                "predict_kept",
                kept=fmt.count(kept),
                total=fmt.count(result.logits.size),
                how="; ".join(how),
            ),
            render.Hint(fmt.say("predict_steps_hint")),
        )
    )
    if result.lens_words is not None:
        lens = _table()
        lens.add_column(fmt.say("predict_layer"))
        lens.add_column(fmt.say("predict_lens_top"))
        for number, words in enumerate(result.lens_words):
            # each token in «» with its spaces: a lens's tokens are often " ", "," or " ("
            shown = " ".join(f"«{repr(word)[1:-1]}»" for word in words)
            lens.add_row(fmt.say("predict_embeddings") if number == 0 else str(number),
                         render.safe_label(shown))  # fmt: skip
        view.append(_titled(fmt.say("predict_lens"), lens))
    return view
