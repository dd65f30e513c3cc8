"""compare-scores as rich renderables: figures side by side, the loop check, the d_k
sweep and the closing line, said only when the run's numbers show it."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType

from attncli.limits import size_text
from attncli.present import render
from attncli.present.format import Format
from attncli.results.comparison import Comparison


def closing_line(comparison: Comparison, fmt: Format) -> str | None:
    """The lesson's point, said only when this run's numbers show it."""
    by_method = {cost.method: cost for cost in comparison.costs}
    additive, general = by_method["additive"], by_method["general"]
    additive_time = comparison.timings["additive"].median
    general_time = comparison.timings["general"].median
    ratio = fmt.number(additive_time / general_time, 1, whole_bare=False)
    if additive.mult_adds < general.mult_adds and additive_time > general_time:
        return fmt.say(
            "fewer_but_slower",
            additive=_millions(additive.mult_adds, fmt),
            general=_millions(general.mult_adds, fmt),
            ratio=ratio,
        )
    if additive_time > general_time:
        return fmt.say(
            "slower",
            ratio=ratio,
            tanh=fmt.count(additive.tanh),
            numbers=fmt.count(additive.intermediate_numbers),
        )
    return None


def held_line(comparison: Comparison, fmt: Format) -> str:
    """Lesson 001's factor d_a between the grids: d_a numbers per pair against one, beside
    the states general projects once."""
    by_method = {cost.method: cost for cost in comparison.costs}
    additive, general = by_method["additive"], by_method["general"]
    return fmt.say(
        "held_factor",
        d_a=fmt.count(comparison.sizes.d_a),
        numbers=fmt.count(additive.intermediate_numbers),
        scores=fmt.count(general.intermediate_numbers),
        states=fmt.count(general.projected),
        projected=fmt.count(general.projected * general.projected_width),
    )


def init_line(comparison: Comparison, fmt: Format) -> str | None:
    """Why the rows start where they do, from this run's spreads and peaks: the reason
    (tanh bounds additive's terms) said only when the numbers show its effect."""
    if not comparison.spreads or not comparison.peaks:
        return None
    spread, peak = comparison.spreads, comparison.peaks
    fields = {
        "additive_spread": fmt.number(spread["additive"], 3, whole_bare=False),
        "general_spread": fmt.number(spread["general"], 3, whole_bare=False),
        "additive_peak": fmt.number(peak["additive"][0], 3, whole_bare=False),
        "general_peak": fmt.number(peak["general"][0], 3, whole_bare=False),
        "uniform": fmt.number(1 / comparison.sizes.t_x, 3, whole_bare=False),
    }
    bounded = spread["additive"] < spread["general"] and peak["additive"][0] < peak["general"][0]
    return fmt.say("init_bounded" if bounded else "init_plain", **fields)


def _millions(amount: int, fmt: Format) -> str:
    """2.2 million; below a hundred thousand the count itself (272, not 0.0 million)."""
    if amount < 100_000:
        return fmt.count(amount)
    return fmt.say("million", amount=fmt.number(amount / 1e6, 1, whole_bare=False))


def comparison_view(comparison: Comparison, fmt: Format) -> list[RenderableType]:
    """Side by side figures, the loop check, the sweep and the closing line."""
    sizes = comparison.sizes
    document = comparison.to_document()
    methods = document["methods"]

    def figures(fmt: Format) -> Any:
        def count(amount: int) -> str:
            # Millions under the count, on a line of their own: a cell never breaks mid-figure.
            millions = f"\n({fmt.number(amount / 1e6, 1, whole_bare=False)} M)"
            return fmt.count(amount) + (millions if amount >= 10**6 else "")

        def projected(m: dict[str, Any]) -> str:
            if not m["projected_states"]:
                return "0"
            width = m["projected_numbers"] // m["projected_states"]
            return f"{fmt.count(m['projected_states'])} × {fmt.count(width)}"

        def milliseconds(value: float) -> str:
            return fmt.decimal(f"{value * 1e3:.3g}")

        rows: list[tuple[str, list[str]]] = [
            (fmt.say("parameters"), [fmt.count(m["params"]) for m in methods]),
            (fmt.say("mult_adds"), [count(m["mult_adds"]) for m in methods]),
            (fmt.say("elementwise"), [count(m["elementwise"]) for m in methods]),
            (fmt.say("tanh"), [count(m["tanh"]) for m in methods]),
            (fmt.say("intermediate"), [count(m["intermediate_numbers"]) for m in methods]),
            (
                fmt.say("at_float64"),
                [fmt.decimal(size_text(m["intermediate_bytes"])) for m in methods],
            ),
            (fmt.say("projected_states"), [projected(m) for m in methods]),
            (fmt.say("time_median"), [milliseconds(m["seconds"]) for m in methods]),
            (fmt.say("time_fastest"), [milliseconds(m["seconds_fastest"]) for m in methods]),
            (fmt.say("time_slowest"), [milliseconds(m["seconds_slowest"]) for m in methods]),
            (
                fmt.say("times_general"),
                [fmt.number(m["ratio_to_general"], 1, whole_bare=False) + "×" for m in methods],
            ),
            (
                fmt.say("times_fastest"),
                [fmt.number(m["ratio_to_fastest"], 1, whole_bare=False) + "×" for m in methods],
            ),
        ]
        if all("largest_weight_at_init" in m for m in methods):
            peaks = [m["largest_weight_at_init"] for m in methods]
            uniform = fmt.number(peaks[0]["uniform"], 3, whole_bare=False)
            rows += [
                (fmt.say("at_init"), ["" for _ in methods]),
                (
                    fmt.say("spread_at_init"),
                    [fmt.number(m["score_spread_at_init"], 3, whole_bare=False) for m in methods],
                ),
                (
                    fmt.say("peak_mean"),
                    [fmt.number(p["mean"], 3, whole_bare=False) for p in peaks],
                ),
                (
                    fmt.say("peak_range", uniform=uniform),
                    [
                        f"{fmt.number(p['min'], 3, whole_bare=False)}–"
                        f"{fmt.number(p['max'], 3, whole_bare=False)}"
                        for p in peaks
                    ],
                ),
            ]
        heading = fmt.say(
            "grid_heading",
            ty=sizes.t_y,
            tx=sizes.t_x,
            d_h=sizes.d_h,
            d_a=sizes.d_a,
            runs=fmt.say("runs_one")
            if sizes.repeat == 1
            else fmt.say("runs_many", repeat=sizes.repeat),
            threads=fmt.say("threads_one")
            if sizes.threads == 1
            else fmt.say("threads_many", threads=sizes.threads),
        )
        names = [fmt.say(f"method.{m['method']}") for m in methods]
        return render.side_by_side(heading, names, rows)

    def loop_check(fmt: Format) -> Any:
        lines = []
        total = sizes.t_x * sizes.t_y
        for m in methods:
            if "loop_check" not in m:
                continue
            check = m["loop_check"]
            scope = (
                fmt.say("every_pair")
                if check["pairs"] == total
                else fmt.say(
                    "some_pairs", checked=fmt.count(check["pairs"]), total=fmt.count(total)
                )
            )
            lines.append(
                fmt.say(
                    "loop_check",
                    method=fmt.say(f"method.{m['method']}"),
                    scope=scope,
                    verdict=fmt.say("same_grid" if check["agrees"] else "different_grid"),
                    difference=fmt.decimal(f"{check['max_difference']:.1e}"),
                )
            )
        return render.lines("", *lines)

    def sweep(fmt: Format) -> Any:
        draws = {entry["d_k"]: entry for entry in document["scaling_one_draw"]}

        def weights(entry: dict[str, Any]) -> list[str]:
            return [
                fmt.number(entry["largest_weight"], 3, whole_bare=False),
                fmt.number(entry["largest_weight_scaled"], 3, whole_bare=False),
            ]

        rows = [
            (str(entry["d_k"]), weights(entry) + (weights(draws[entry["d_k"]]) if draws else []))
            for entry in document["scaling"]
        ]
        names = [fmt.say("unscaled_column"), "÷ √d_k"]
        if draws:
            names += [fmt.say("draw_unscaled"), fmt.say("draw_scaled")]
        table = render.side_by_side(fmt.say("sweep_heading"), names, rows, "d_k")
        if not draws:
            return table
        return render.Group(table, render.lines(fmt.say("draw_note")))

    def held_and_init(fmt: Format) -> Any:
        return render.lines(
            "", held_line(comparison, fmt), *filter(None, [init_line(comparison, fmt)])
        )

    def conclusion(fmt: Format) -> Any:
        return render.lines(closing_line(comparison, fmt) or "")

    def warning(fmt: Format) -> Any:
        return render.lines(fmt.say("busy")) if comparison.busy else render.lines()

    return [part(fmt) for part in (figures, warning, held_and_init, loop_check, sweep, conclusion)]
