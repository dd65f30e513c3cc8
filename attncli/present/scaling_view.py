"""The √d_k experiment as rich renderables: the spread of the scores against √d_k, a row's
largest weight and what it passes back, unscaled and ÷√d_k, and what the numbers show, said
only when this run's numbers show it."""

from __future__ import annotations

from rich.console import RenderableType

from attncli.core.saturation import SATURATED
from attncli.present import render
from attncli.present.format import SATURATED_MARK, Format
from attncli.results.scaling import ScalingResult


def scaling_view(result: ScalingResult, fmt: Format) -> list[RenderableType]:
    """Three tables (spread, largest weight, gradient) and the lines that read them."""
    lines = result.lines

    def weight(value: float) -> str:
        mark = SATURATED_MARK if value >= SATURATED else " "
        return fmt.number(value, 3, whole_bare=False) + mark

    def figure(value: float, digits: int = 2) -> str:
        return fmt.number(value, digits, whole_bare=False)

    def share(value: float) -> str:
        return fmt.say("scaling.percent", value=f"{value * 100:.0f}")

    spread = render.side_by_side(
        fmt.say("scaling.spread_heading"),
        [fmt.say("scaling.spread"), "√d_k"],
        [(str(line.d_k), [figure(line.spread), figure(line.root)]) for line in lines],
        "d_k",
    )
    largest = render.side_by_side(
        fmt.say("scaling.largest_heading", rows=fmt.count(result.rows)),
        [fmt.say("unscaled_column"), "÷ √d_k", fmt.say("scaling.one_row_column"),
         fmt.say("scaling.one_row_scaled")],
        [(str(line.d_k), [weight(line.largest[0]), weight(line.largest[1]),
                          weight(line.largest_one[0]), weight(line.largest_one[1])])
         for line in lines],
        "d_k",
    )  # fmt: skip
    gradient = render.side_by_side(
        fmt.say("scaling.gradient_heading"),
        [fmt.say("scaling.saturated"), fmt.say("scaling.saturated_scaled"), "max α(1 − α)",
         "÷ √d_k"],
        [(str(line.d_k), [share(line.saturated[0]), share(line.saturated[1]),
                          figure(line.gradient[0], 4), figure(line.gradient[1], 4)])
         for line in lines],
        "d_k",
    )  # fmt: skip
    first, last = lines[0], lines[-1]
    said = [
        fmt.say("scaling.about", keys=result.keys, rows=fmt.count(result.rows), seed=result.seed),
        fmt.say(
            "scaling.variance",
            first=figure(first.spread), d_first=first.d_k,
            last=figure(last.spread), d_last=last.d_k,
        ),
    ]  # fmt: skip
    if last.largest[0] >= SATURATED or last.saturated[0] >= 0.5:
        said.append(
            fmt.say(
                "scaling.saturates",
                weight=figure(last.largest[0], 3), d_k=last.d_k,
                share=share(last.saturated[0]), rule=figure(SATURATED),
            )
        )  # fmt: skip
    if last.gradient[0] < first.gradient[0]:
        said.append(
            fmt.say(
                "scaling.vanishes",
                first=figure(first.gradient[0], 4), last=figure(last.gradient[0], 4),
                scaled=figure(last.gradient[1], 2),
            )
        )  # fmt: skip
    if last.d_k > first.d_k and last.largest[1] > first.largest[1]:
        said.append(
            fmt.say(
                "scaling.scaled_grows",
                first=figure(first.largest[1], 3), first_d_k=first.d_k,
                last=figure(last.largest[1], 3), last_d_k=last.d_k,
            )
        )  # fmt: skip
    else:
        said.append(
            fmt.say(
                "scaling.scaled",
                least=figure(min(line.largest[1] for line in lines), 3),
                most=figure(max(line.largest[1] for line in lines), 3),
            )
        )
    said.append(fmt.say("scaling.one_row", keys=result.keys))
    said.append(fmt.say("row_saturated", mark=SATURATED_MARK, rule=figure(SATURATED)))
    return [spread, largest, gradient, render.lines(*said)]
