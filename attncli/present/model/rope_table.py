"""This year's steps on screen (--steps), a model's or the seeded layer's: scaled rotary
positions, each pair's θ_i and wavelength before and after the scaling and the attention
factor; the scores softcapped before the softmax; q and k RMSNormed (QK-norm)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from attncli.present.layer.rotary import base_text
from attncli.present.render import _table, _titled, safe_label

if TYPE_CHECKING:
    from attncli.explain.qk_norm import QkNormSteps
    from attncli.explain.rope_scaling import RopePairs
    from attncli.explain.softcap import SoftcapSteps
    from attncli.present.format import Format


def tokens_text(length: float, fmt: Format) -> str:
    """A wavelength in tokens: 6.28, 628, 1,987,654 (whole from 100 on)."""
    return fmt.count(round(length)) if length >= 100 else fmt.number(length, 2)


def theta_text(theta: float, fmt: Format) -> str:
    """θ_i with four digits that count: 0.3162, 7.91e-04."""
    return fmt.scientific(theta) if theta < 0.01 else fmt.number(theta, 4, whole_bare=False)


def rope_pairs_table(steps: RopePairs, fmt: Format) -> RenderableType:
    """Per pair: θ_i = base^(−2i/d), 2π/θ_i, the scaled θ_i, its wavelength, and θ_i ÷
    scaled θ_i; the attention factor below."""
    heading = fmt.say(
        "rope_factors_heading" if steps.kind == "factors" else "rope_scaled_heading",
        kind=steps.kind,
        base=base_text(steps.base, fmt),
        d=steps.d,
        factor=fmt.number(steps.factor, 4),
        original=fmt.count(steps.original_positions),
        tokens=steps.tokens,
    )
    table = _table()
    table.add_column(fmt.say("rope_pair"))
    table.add_column("θ_i", justify="right")
    table.add_column(fmt.say("rope_wavelength"), justify="right")
    table.add_column(fmt.say("rope_scaled_theta"), justify="right")
    table.add_column(fmt.say("rope_scaled_wavelength"), justify="right")
    table.add_column("÷", justify="right")
    for row in steps.rows:
        table.add_row(
            f"{row.first}, {row.second}",
            theta_text(row.theta, fmt),
            tokens_text(row.wavelength, fmt),
            theta_text(row.scaled, fmt),
            tokens_text(row.scaled_wavelength, fmt),
            fmt.number(row.divided_by, 3),
        )
    squared = steps.attention_factor * steps.attention_factor
    note = (
        fmt.say("rope_factor_one")
        if steps.attention_factor == 1.0
        else fmt.say(
            "rope_factor",
            factor=fmt.number(steps.attention_factor, 4),
            squared=fmt.number(squared, 4),
        )
    )
    return Group(_titled(heading, table, [note]), Text(""))


def softcap_table(steps: SoftcapSteps, fmt: Format) -> RenderableType:
    """Per key: the score, ÷ cap, tanh, × cap: what the softmax below takes."""
    cap = fmt.number(steps.cap)
    heading = fmt.say("softcap_heading", row=steps.query_label, cap=cap)
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("score"), justify="right")
    table.add_column(f"÷ {cap}", justify="right")
    table.add_column("tanh", justify="right")
    table.add_column(f"× {cap}", justify="right")
    for row in steps.rows:
        if row.score == float("-inf"):
            table.add_row(
                safe_label(row.token), fmt.number(row.score), "", "", fmt.number(row.capped)
            )
            continue
        table.add_row(
            safe_label(row.token),
            fmt.number(row.score),
            fmt.computed(fmt.number(row.over_cap)),
            fmt.computed(fmt.number(row.tanh)),
            fmt.computed(fmt.number(row.capped)),
        )
    return Group(_titled(heading, table, [fmt.say("softcap_note", cap=cap)]), Text(""))


def qk_norm_table(steps: QkNormSteps, fmt: Format) -> RenderableType:
    """Per vector (the row's q, then each k): its numbers, mean(x²), the root it is divided
    by and the normed vector."""
    eps = fmt.scientific(steps.eps)
    heading = fmt.say("qk_norm_heading", row=steps.query_label, eps=eps)
    table = _table()
    table.add_column(fmt.say("qk_norm_vector"))
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("qk_norm_before"))
    table.add_column(fmt.say("qk_norm_mean_square"), justify="right")
    table.add_column(f"√(… + {eps})", justify="right")
    table.add_column(fmt.say("qk_norm_after"))
    for row in steps.rows:
        table.add_row(
            row.vector,
            safe_label(row.token),
            fmt.vector(row.before),
            fmt.computed(fmt.number(row.mean_square, 4, whole_bare=False)),
            fmt.computed(fmt.number(row.root, 4, whole_bare=False)),
            fmt.computed(fmt.vector(row.after)),
        )
    return Group(_titled(heading, table, [fmt.say("qk_norm_note")]), Text(""))
