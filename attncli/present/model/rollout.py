"""Attention rollout as rich renderables: the rolled-out grid, what rollout assumes, and the
one cell --steps writes out."""

from __future__ import annotations

from rich.console import RenderableType

from attncli.present import render
from attncli.present.format import Format
from attncli.present.model.view import MODEL_COLUMNS
from attncli.results.rollout import RolloutResult


def rollout_view(result: RolloutResult, fmt: Format) -> list[RenderableType]:
    """The header, the rollout up to the layer shown, what it assumes; the cell if asked."""
    layers = len(result.products)
    lines = [
        fmt.say(
            "rollout_title",
            model=result.model,
            kind=result.model_type,
            layer=result.layer,
            layers=layers,
        ),  # fmt: skip
        fmt.say("rollout_rule"),
        "",
    ]
    grid = render.number_grid(
        fmt.say("rollout_grid", layer=result.layer),
        result.tokens,
        result.tokens,
        result.rollout,
        fmt,
        heat=True,
        max_columns=MODEL_COLUMNS,
    )
    parts: list[RenderableType] = [render.lines(*lines), grid]
    if result.cell is not None:
        parts += _cell_view(result, fmt)
    parts.append(render.lines("", fmt.say("rollout_assumes")))
    return parts


def _cell_view(result: RolloutResult, fmt: Format) -> list[RenderableType]:
    """R_l[i, j] = Σ_k M_l[i, k] · R_(l−1)[k, j], a row per k and the total."""
    from rich import box

    from attncli.present.drawn import PlainTable

    cell = result.cell
    assert cell is not None
    tokens = result.tokens
    heading = fmt.say("rollout_cell", layer=cell.layer, before=cell.layer - 1,
                      source=tokens[cell.row], target=tokens[cell.column])  # fmt: skip
    table = PlainTable(box=box.SIMPLE_HEAVY)
    table.add_column("k", justify="right")
    table.add_column(fmt.say("rollout_through"))
    upper = f"M{cell.layer}[{tokens[cell.row]}, k]"
    lower = f"R{cell.layer - 1}[k, {tokens[cell.column]}]"
    for title in (upper, lower, "×"):
        table.add_column(render.safe_label(title), justify="right")  # no markup: M6[keys, k]
    for k, (a, b) in enumerate(zip(cell.upper, cell.lower, strict=True), start=1):
        table.add_row(str(k), render.safe_label(tokens[k - 1]), fmt.stated(a, 4),
                      fmt.stated(b, 4), fmt.stated(a * b, 4))  # fmt: skip
    table.add_section()
    table.add_row("", fmt.say("rollout_sum"), "", "", fmt.stated(cell.value, 4))
    return [render.lines("", heading), table]
