"""Rotary positions on screen: a vector's pairs turned by their angles (--steps), and the
line that shows the score depends on the distance alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from attncli.present.render import _table, _titled, safe_label

if TYPE_CHECKING:
    from attncli.explain.rotary import QuarterTurnSteps, RelativeCheck, RotarySteps
    from attncli.present.format import Format


def base_text(base: float, fmt: Format) -> str:
    """10,000 as a header writes it (10 000 in Spanish); any other base as a number."""
    return fmt.count(int(base)) if base == int(base) else fmt.stated(base)


def relative_line(check: RelativeCheck, fmt: Format) -> str:
    """q at i and k at j, and both moved n on: the same score (a latent layer's q^R and
    k^R: the same part of the score)."""
    q, k = check.names
    return fmt.say(
        "rope_relative" if check.names == ("q", "k") else "rope_relative_part",
        q=q,
        k=k,
        divisor=fmt.number(check.divisor, 2),
        query=check.query_token,
        answer=check.key_token,
        i=check.query_position,
        j=check.key_position,
        score=fmt.number(check.score, 4),
        shift=check.shift,
        i_shifted=check.query_position + check.shift,
        j_shifted=check.key_position + check.shift,
        shifted=fmt.number(check.shifted_score, 4),
    )


def rotary_steps_table(steps: RotarySteps, fmt: Format) -> RenderableType:
    """Per pair (i, i + d/2): its numbers, its angle, and the pair turned by it."""
    d = 2 * len(steps.rows)
    heading = fmt.say(
        "rope_heading" if not steps.scaled else
        "rope_heading_scaled" if steps.factor == 1.0 else "rope_heading_factor",
        vector=steps.vector,
        token=steps.token,
        position=steps.position,
        base=base_text(steps.base, fmt),
        d=d,
        factor=fmt.number(steps.factor, 4),
    )  # fmt: skip
    table = _table()
    table.add_column(fmt.say("rope_pair"))
    table.add_column(fmt.say("rope_before"))
    table.add_column(fmt.say("rope_angle"), justify="right")
    table.add_column("x cos θ − y sin θ", justify="right")
    table.add_column("x sin θ + y cos θ", justify="right")
    for row in steps.rows:
        cells = [
            f"{row.first}, {row.second}",
            f"({fmt.joined([fmt.number(row.x), fmt.number(row.y)])})",
            fmt.number(row.angle, 4, whole_bare=False),  # 4.0000 above 0.4000
            fmt.computed(
                f"{fmt.number(row.x)}·{paren(row.cos, fmt, 3)} − {paren(row.y, fmt)}·"
                f"{paren(row.sin, fmt, 3)} = {fmt.number(row.turned_x)}"
            ),
            fmt.computed(
                f"{fmt.number(row.x)}·{paren(row.sin, fmt, 3)} + {paren(row.y, fmt)}·"
                f"{paren(row.cos, fmt, 3)} = {fmt.number(row.turned_y)}"
            ),
        ]
        table.add_row(*cells)
    notes = [] if steps.relative is None else [relative_line(steps.relative, fmt)]
    return Group(_titled(heading, table, notes), Text(""))


def paren(value: float, fmt: Format, digits: int | None = None) -> str:
    """A factor after an operator: (−0.48) in brackets, 0.48 bare."""
    text = fmt.number(value, digits)
    return f"({text})" if text.startswith("-") else text


def quarter_turns_table(steps: QuarterTurnSteps, fmt: Format) -> RenderableType:
    """A worksheet's turns: per vector its position, θ, cos θ and sin θ (0 or ±1) and the
    pair turned by them."""
    table = _table()
    for heading in ("rope_vector", "token", "rope_position"):
        table.add_column(fmt.say(heading))
    table.add_column("(x, y)")
    table.add_column("θ", justify="right")
    table.add_column(fmt.say("rope_cos_sin"), justify="right")
    table.add_column("(x′, y′)", justify="right")
    for row in steps.rows:
        pair = f"({fmt.joined([fmt.number(row.x), fmt.number(row.y)])})"
        turned = f"({fmt.joined([fmt.number(row.turned_x), fmt.number(row.turned_y)])})"
        table.add_row(
            row.vector,
            safe_label(row.token),
            str(row.position),
            pair,
            f"{row.degrees}°",
            fmt.computed(fmt.joined([fmt.number(row.cos), fmt.number(row.sin)])),
            fmt.computed(turned),
        )
    return Group(_titled(fmt.say("rope_turns"), table), Text(""))
