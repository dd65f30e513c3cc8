"""attn cost as rich renderables: what the model is, the KV cache at each length for each
design, the FLOPs of a prefill and of one more token, the parameters, and with --steps each
formula with the model's numbers. Renderers return renderables and never print."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType

from attncli.core import attention_cost as arithmetic
from attncli.core.attention_cost import Flops
from attncli.present import render
from attncli.present.format import Format
from attncli.results.cost import CostResult, DesignCost, Formula

SI = ("", "k", "M", "G", "T", "P", "E", "Z", "Y")
IEC = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def short(value: int, fmt: Format) -> str:
    """A large count in three figures and an SI prefix: 23.4 T (the exact count is in the
    JSON document and in --steps)."""
    step, shown = 0, float(value)
    while abs(shown) >= 999.5 and step < len(SI) - 1:
        shown, step = shown / 1000, step + 1
    if step == 0:
        return fmt.count(value)
    return fmt.decimal(_three(shown)) + " " + SI[step]


def size(value: int, fmt: Format) -> str:
    """Bytes in binary units, three figures: 40.0 GiB."""
    step, shown = 0, float(value)
    while shown >= 999.5 and step < len(IEC) - 1:  # 0.98 GiB, not 1008 MiB
        shown, step = shown / 1024, step + 1
    if step == 0:
        return fmt.count(value) + " B"
    return fmt.decimal(_three(shown)) + " " + IEC[step]


def _three(shown: float) -> str:
    """Three figures: 172, 44.0, 1.34."""
    return (
        f"{shown:.0f}" if shown >= 99.95 else f"{shown:.1f}" if shown >= 9.995 else f"{shown:.2f}"
    )


def design_said(design: DesignCost, fmt: Format) -> str:
    """The design in words: grouped-query: 64 query heads of 128 share 8 key/value heads."""
    shape = design.shape
    fields: dict[str, Any] = {"heads": shape.heads, "d_k": shape.d_k, "kv_heads": shape.kv_heads}
    if shape.latent is not None:
        fields.update(rank=shape.latent.rank, rope=shape.latent.rope)
    said = [fmt.say("cost." + shape.design, **fields)]
    for window, count in shape.groups:
        if window is not None:
            said.append(fmt.say("cost.windows", count=count, window=fmt.count(window)))
    if shape.sinks:
        said.append(fmt.say("cost.sinks"))
    return "; ".join(said)


def cost_view(result: CostResult, fmt: Format, show: frozenset[str]) -> list[RenderableType]:
    """The model, then the cache, the FLOPs and the parameters of every design; with
    --steps (show "steps") each design's formulas at the largest length."""
    own = result.designs[0]
    shape = own.shape
    key = "cost.shape" if result.source != "options" else "cost.shape_options"
    header = render.lines(
        fmt.say("cost.title", model=result.model, batch=result.batch, dtype=result.dtype),
        fmt.say(
            key,
            layers=shape.layers,
            d_model=fmt.count(shape.d_model),
            design=design_said(own, fmt),
            source=result.source,
        ),  # fmt: skip
    )
    # a row per design, a column per length: designs may be many, lengths are a few
    columns = [fmt.count(at.tokens) for at in own.lengths] + [fmt.say("cost.per_token")]
    cache_rows = []
    for design in result.designs:
        whole = arithmetic.per_token(design.shape) * design.shape.layers * result.batch
        cells = [size(at.cache_bytes, fmt) for at in design.lengths]
        cache_rows.append(
            (design.label, [*cells, size(arithmetic.cache_bytes(whole, result.dtype), fmt)])
        )
    cache = render.side_by_side(fmt.say("cost.cache_heading"), columns, cache_rows,
                                fmt.say("cost.design"))  # fmt: skip
    parts = [fmt.say(part) for part in ("cost.projections", "cost.scores", "cost.mix",
                                        "cost.total")]  # fmt: skip
    tables = []
    for heading, step in (("cost.prefill_heading", "prefill"), ("cost.decode_heading", "decode")):
        rows = []
        for design in result.designs:
            for at in design.lengths:
                flops: Flops = getattr(at, step)
                counts = [flops.projections, flops.scores, flops.mix, flops.total]
                rows.append((f"{design.label} {fmt.count(at.tokens)}",
                             [short(count, fmt) for count in counts]))  # fmt: skip
        tables.append(render.side_by_side(fmt.say(heading), parts, rows,
                                          f"{fmt.say('cost.design')} T"))  # fmt: skip
    parameters = render.side_by_side(
        fmt.say("cost.parameters_heading"),
        [fmt.say("cost.per_layer"), fmt.say("cost.all_layers")],
        [(d.label, [short(d.layer_parameters, fmt), short(d.total_parameters, fmt)])
         for d in result.designs],
        fmt.say("cost.design"),
    )  # fmt: skip
    view: list[RenderableType] = [header, render.lines(""), cache, *tables, parameters]
    view.append(render.lines(*_notes(result, fmt)))
    if "steps" in show:
        view += [render.lines(""), *steps_view(result, fmt)]
    else:
        view.append(render.lines(render.Hint(fmt.say("cost.steps_hint"))))
    return view


def _notes(result: CostResult, fmt: Format) -> list[str]:
    """What the tables count, said where it applies to this model."""
    notes = []
    shapes = [design.shape for design in result.designs]
    for design in result.designs:
        if design.shape.latent is not None:
            per = arithmetic.per_token(design.shape)
            expanded = arithmetic.expanded_per_token(design.shape)
            notes.append(fmt.say("cost.latent_note", design=design.label, per=fmt.count(per),
                                 expanded=fmt.count(expanded),
                                 times=fmt.number(expanded / per, 1, whole_bare=True)))  # fmt: skip
    if any(w is not None for s in shapes for w in s.windows):
        notes.append(fmt.say("cost.window_note"))
    mla = fmt.say("cost.mla_flops") if any(s.latent for s in shapes) else ""
    notes.append(fmt.say("cost.flops_note", mla=mla).rstrip())
    return notes


def formula_lines(formula: Formula, fmt: Format) -> list[str]:
    """One formula in the language's words and number marks: what it counts; the formula,
    indented; then = its numbers = its value."""
    what = fmt.say("cost.f." + formula.quantity,
                   window=fmt.count(formula.window or 0))  # fmt: skip
    if not formula.symbols:
        return [f"{what}: {fmt.count(formula.value)}"]

    def joined(terms: tuple[int | str, ...]) -> str:
        text = " ".join(fmt.count(t) if isinstance(t, int) else t for t in terms)
        return text.replace("( ", "(").replace(" )", ")").replace(" ,", ",")

    numbers = f"  = {joined(formula.numbers)} = {fmt.count(formula.value)}"
    return [what, "  " + joined(formula.symbols), numbers]


def steps_view(result: CostResult, fmt: Format) -> list[RenderableType]:
    """Each design's formulas at the largest length asked for."""
    view: list[RenderableType] = []
    for design in result.designs:
        at = design.lengths[-1]
        heading = fmt.say("cost.steps_heading", design=design.label, tokens=fmt.count(at.tokens))
        lines = [line for f in result.formulas(design, at) for line in formula_lines(f, fmt)]
        view.append(render.lines(heading, *lines, ""))
    return view


def steps_document(result: CostResult) -> list[dict[str, Any]]:
    """Every design's formulas at every length, as data for --json --steps."""
    return [
        {
            "design": design.label,
            "tokens": at.tokens,
            "formulas": [
                {
                    "quantity": formula.quantity,
                    "formula": formula.plain(formula.symbols),
                    "with_numbers": formula.plain(formula.numbers),
                    "value": formula.value,
                    **({} if formula.window is None else {"window": formula.window}),
                }
                for formula in result.formulas(design, at)
            ],
        }
        for design in result.designs
        for at in design.lengths
    ]
