"""The backward pass of one row as rich renderables: the gradient at the output, then a
table through the mix and the softmax, then a table through the score."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Group, RenderableType
from rich.text import Text

from attncli.explain.grad import GradSteps
from attncli.present import render
from attncli.present.format import Format
from attncli.present.method_looks import looks
from attncli.present.render import _table, _titled, dot_terms, safe_label
from attncli.results.grad import GradResult


def _row_name(steps: GradSteps, fmt: Format) -> str:
    return fmt.say("query") if steps.row_label is None else steps.row_label


def upstream_lines(steps: GradSteps, fmt: Format) -> RenderableType:
    """c, the target, ∇_c ℓ = c − target and ℓ; or the given ∇_c ℓ."""
    heading = fmt.say("grad_upstream", row=_row_name(steps, fmt))
    table = render.NamedRows(box=None, show_header=False, padding=(0, 1, 0, 2))
    table.add_column()
    table.add_column()
    table.add_row("c", fmt.carried(fmt.vector(steps.output)))
    if steps.target is not None:
        target = fmt.say("target")
        table.add_row(target, fmt.vector(steps.target))
        table.add_row(f"g = ∇_c ℓ = c − {target}", fmt.computed(fmt.vector(steps.grad_output)))
        if steps.loss is not None:
            table.add_row(
                f"ℓ = ½‖c − {target}‖²", fmt.computed(fmt.number(steps.loss, 4, whole_bare=False))
            )
    else:
        table.add_row("g = ∇_c ℓ", fmt.vector(steps.grad_output))
    return _titled(heading, table)


def mix_softmax_table(steps: GradSteps, fmt: Format) -> RenderableType:
    """Per key: α_j, v_j, g · v_j, minus the mean, ∂ℓ/∂e_j, and α_j gᵀ(v_j − c)."""
    over_t = steps.temperature != 1.0
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column(fmt.say("weight"), justify="right")
    table.add_column(fmt.say("value"))
    table.add_column("∂ℓ/∂α = g · " + fmt.say("value_short"))
    table.add_column(fmt.say("grad_minus_mean", mean=fmt.computed(fmt.number(steps.mean))))
    table.add_column("∂ℓ/∂e = α × (…)" + (" ÷ T" if over_t else ""), justify="right")
    table.add_column("α gᵀ(v − c)" + (" ÷ T" if over_t else ""), justify="right")
    for row in steps.mix_rows:
        dot = f"{dot_terms(row.terms, fmt)} = {fmt.number(row.grad_weight)}"
        table.add_row(
            safe_label(row.token),
            fmt.carried(fmt.weight_number(row.weight)),
            fmt.vector(row.value),
            fmt.computed(dot),
            fmt.computed(fmt.number(row.centered)),
            fmt.computed(fmt.number(row.grad_score, 4)),
            fmt.computed(fmt.number(row.lesson_form, 4)),
        )
    table.add_section()
    total = sum(row.grad_score for row in steps.mix_rows)
    table.add_row(
        fmt.say("total"),
        fmt.computed(fmt.weight_number(sum(row.weight for row in steps.mix_rows))),
        "",
        fmt.computed(fmt.say("mean_is", mean=fmt.number(steps.mean))),
        "",
        fmt.computed(fmt.number(total + 0.0, 4)),
        "",
    )
    heading = fmt.say("grad_softmax", row=_row_name(steps, fmt))
    return _titled(heading, table, [fmt.say("grad_softmax_note")])


def score_table(steps: GradSteps, fmt: Format) -> RenderableType:
    """Per key, by method: what ∂ℓ/∂e_j sends to the query and to the key."""
    method = steps.method
    shown = looks(method)
    table = _table()
    table.add_column(fmt.say("token"))
    table.add_column("∂ℓ/∂e", justify="right")
    table.add_column(fmt.say("key"))
    for heading in shown.grad_columns(fmt.say):
        table.add_column(heading)
    table.add_column(shown.to_query(fmt.say, fmt.number(steps.divisor or 1)))
    table.add_column(fmt.say("grad_key_row"))
    for row in steps.score_rows:
        cells: list[RenderableType] = [
            safe_label(row.token),
            fmt.computed(fmt.number(row.grad_score, 4)),
            fmt.vector(row.key),
        ]
        if row.transformed is not None:
            cells.append(fmt.computed(fmt.vector(row.transformed)))
        if row.slope is not None:
            cells.append(fmt.computed(fmt.vector(row.slope)))
        cells += [fmt.computed(fmt.vector(row.to_query)), fmt.computed(fmt.vector(row.grad_key))]
        table.add_row(*cells)
    summed = fmt.say(shown.summed)
    notes = [fmt.say(f"grad_score_note.{method}")]
    if steps.shared is not None and shown.shared is not None:
        notes.append(f"{shown.shared} = ({fmt.computed(fmt.vector(steps.shared))})")
    notes.append(f"∂ℓ/∂q = {summed} = ({fmt.computed(fmt.vector(steps.grad_query))})")
    for name, value in steps.grad_parameters.items():
        rows = value if value and isinstance(value[0], list) else [value]
        written = fmt.matrix_rows(rows)  # type: ignore[arg-type]
        heading = fmt.say("grad_parameter_row", name=render.notation(name))
        notes.append(f"{heading} = [{fmt.computed(written)}]")
    heading = fmt.say(f"grad_score.{method}", row=_row_name(steps, fmt))
    return Group(_titled(heading, table), *(Text(note) for note in notes))


def grad_steps_table(steps: GradSteps, fmt: Format) -> RenderableType:
    """The three stages, one after the other.

    Gradients are small: a third decimal keeps the products a student checks honest.
    """
    fmt = replace(fmt, other=max(fmt.other, 3))
    return Group(
        upstream_lines(steps, fmt),
        Text(""),
        mix_softmax_table(steps, fmt),
        Text(""),
        score_table(steps, fmt),
    )


def gradient_view(result: GradResult, fmt: Format) -> list[RenderableType]:
    """Without --steps: the loss, ∂ℓ/∂e per query row, and each gradient as a labelled grid."""
    parts: list[RenderableType] = []
    if result.loss is not None:
        parts.append(Text(fmt.say("loss", loss=fmt.stated(result.loss, 4, whole_bare=False))))
    rows = [fmt.say("query")] if result.single else list(result.row_labels)
    keys = list(result.column_labels)
    fmt = replace(fmt, other=max(fmt.other, 3))
    grids = [
        ("∂ℓ/∂e (grad_scores)", rows, keys, result.gradients.grad_scores),
        ("∂ℓ/∂q (grad_query)" if result.single else "∂ℓ/∂Q (grad_queries)", rows, None,
         result.gradients.score.queries),
        ("∂ℓ/∂K (grad_keys)", keys, None, result.grad_keys),
        ("∂ℓ/∂V (grad_values)", keys, None, result.grad_values),
    ]  # fmt: skip
    for name, value in result.gradients.score.parameters.items():
        matrix = value if value.ndim == 2 else value[None, :]
        shown = render.notation(name)
        labels = [f"{shown}[{i + 1}]" for i in range(matrix.shape[0])]
        grids.append((f"∂ℓ/∂{shown} (grad_{name})", labels, None, matrix))
    for title, row_labels, column_labels, grid in grids:
        parts.append(render.number_grid(title, row_labels, column_labels, grid, fmt))
    parts += saturated_note(result, fmt)
    return parts


def saturated_note(result: GradResult, fmt: Format) -> list[RenderableType]:
    """A saturated row (largest weight 0.95 or more) passes almost nothing back: say so, with
    the number that shows it, max α(1 − α), beside what an even row would pass (0.25)."""
    import numpy as np

    from attncli.core.saturation import SATURATED, saturated_rows

    weights = np.atleast_2d(result.weights)
    saturated = saturated_rows(weights)
    if not saturated.any():
        return []
    passed = float((weights[saturated] * (1 - weights[saturated])).max())
    said = fmt.say(
        "grad_saturated",
        weight=fmt.stated(float(weights[saturated].max()), 3),
        rule=fmt.stated(SATURATED, 2),
        passed=fmt.stated(passed, 4),
    )
    return [Text(said)]
