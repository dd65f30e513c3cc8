"""attn train --steps as rich renderables: one iteration as a student works it."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.text import Text

from attncli import messages
from attncli.explain.training import TrainSteps, WorkedEntry
from attncli.messages import _
from attncli.present import render
from attncli.present.drawn import PlainTable
from attncli.present.format import Format

NAMES = {"w_q": "W^Q", "w_k": "W^K"}


def _signed(value: float, fmt: Format, digits: int = 4) -> str:
    text = fmt.number(value, digits, whole_bare=False)
    return f"({text})" if text.startswith("-") else text


def _divisor(steps: TrainSteps, fmt: Format) -> str:
    if steps.divisor == 1.0:
        return "1"
    d_k = steps.sizes["d_k"]
    if abs(steps.divisor - d_k**0.5) < 1e-12:
        return f"√{d_k}"
    return fmt.number(steps.divisor)


def _softmax_table(steps: TrainSteps, fmt: Format) -> RenderableType:
    parts: list[RenderableType] = []
    column = steps.entries[0].column
    for row in steps.rows:
        table = PlainTable(box=box.SIMPLE_HEAVY)
        table.add_column(fmt.say("key"))
        for heading in ("α", fmt.say("train_steps_wanted"), "∂ℓ/∂α", "∂ℓ/∂e"):
            table.add_column(heading, justify="right")
        for phrase in ("train_steps_key_column", "train_steps_to_query"):
            label = render.safe_label(fmt.say(phrase, column=column + 1))
            table.add_column(label, justify="right")
        for key in row.keys:
            table.add_row(
                render.safe_label(key.token),
                fmt.weight_number(key.weight),
                fmt.number(key.wanted),
                fmt.number(key.grad_weight, 3) if key.wanted else "0",
                fmt.number(key.grad_score, 4, whole_bare=False),
                fmt.number(key.key, 3, whole_bare=False),
                fmt.number(key.grad_score * key.key, 4, whole_bare=False),
            )
        parts.append(Text(fmt.say("train_steps_softmax", query=row.token), style="bold"))
        parts.append(table)
        parts.append(
            Text(
                fmt.say(
                    "train_steps_query_sum",
                    query=row.token,
                    column=column + 1,
                    divisor=_divisor(steps, fmt),
                    value=fmt.number(row.grad_query, 4, whole_bare=False),
                )
            )
        )
        parts.append(Text(""))
    return Group(*parts)


def _shapes(steps: TrainSteps, fmt: Format) -> RenderableType:
    t, d_model, d_k = steps.sizes["T"], steps.sizes["d_model"], steps.sizes["d_k"]
    divisor = _divisor(steps, fmt)
    rows = [
        ("∂ℓ/∂E", f"{t} × {t}", messages.say(fmt.lang, _("α − wanted, row by row"))),
        ("∂ℓ/∂Q", f"{t} × {d_k}", f"∂ℓ/∂E · K ÷ {divisor}"),
        ("∂ℓ/∂K", f"{t} × {d_k}", f"∂ℓ/∂Eᵀ · Q ÷ {divisor}"),
        ("∂ℓ/∂W^Q", f"{d_model} × {d_k}", "Xᵀ · ∂ℓ/∂Q"),
        ("∂ℓ/∂W^K", f"{d_model} × {d_k}", "Xᵀ · ∂ℓ/∂K"),
    ]
    table = PlainTable(box=box.SIMPLE_HEAVY)
    table.add_column(fmt.say("matrix"))
    table.add_column(fmt.say("shape"), justify="right")
    table.add_column("")
    for row in rows:
        table.add_row(*row)
    return Group(Text(fmt.say("train_steps_shapes"), style="bold"), table)


def _entry(entry: WorkedEntry, steps: TrainSteps, fmt: Format) -> RenderableType:
    matrix = NAMES[entry.name]
    part = "Q" if entry.name == "w_q" else "K"
    heading = fmt.say(
        "train_steps_entry", matrix=matrix, row=entry.row + 1, column=entry.column + 1, part=part
    )
    table = PlainTable(box=box.SIMPLE_HEAVY)
    table.add_column("t")
    table.add_column(
        render.safe_label(fmt.say("train_steps_x", row=entry.row + 1)), justify="right"
    )
    through = entry.asker is not None
    if through:
        table.add_column(render.safe_label(f"∂ℓ/∂e[{entry.asker}, t]"), justify="right")
    table.add_column(render.safe_label(f"∂ℓ/∂{part}[t, {entry.column + 1}]"), justify="right")
    table.add_column(fmt.say("train_steps_product"), justify="right")
    for term in entry.terms:
        cells: list[Text | str] = [
            render.safe_label(term.token),
            fmt.number(term.x, 3, whole_bare=False),
        ]
        if through:
            cells.append(fmt.number(term.grad_score or 0.0, 4, whole_bare=False))
        cells += [
            fmt.number(term.grad, 4, whole_bare=False),
            fmt.number(term.x * term.grad, 4, whole_bare=False),
        ]
        table.add_row(*cells)
    below = []
    if through and entry.query is not None:
        below.append(
            Text(
                fmt.say(
                    "train_steps_key_grad",
                    asker=entry.asker,
                    column=entry.column + 1,
                    query=fmt.number(entry.query, 4, whole_bare=False),
                    divisor=_divisor(steps, fmt),
                )
            )
        )
    total = fmt.say("train_steps_sum", value=fmt.number(entry.gradient, 4, whole_bare=False))
    fields = {
        "matrix": matrix,
        "row": entry.row + 1,
        "column": entry.column + 1,
        "before": fmt.number(entry.before, 4, whole_bare=False),
        "after": fmt.number(entry.after, 4, whole_bare=False),
        "lr": fmt.decimal(f"{steps.lr:g}"),
        "gradient": _signed(entry.gradient, fmt),
        "step": _signed(entry.step, fmt),
    }
    key = "train_steps_update_sgd" if steps.optimizer == "sgd" else "train_steps_update_adam"
    return Group(
        Text(heading, style="bold"),
        *below,
        table,
        Text(total),
        Text(fmt.say(key, **fields)),
        Text(""),
    )


def train_steps_table(steps: TrainSteps, fmt: Format) -> RenderableType:
    """The loss, the softmax's way back, the shapes, one entry of each gradient worked and
    its update, and what the update did."""
    optimizer = "SGD" if steps.optimizer == "sgd" else "Adam"
    title = fmt.say(
        "train_steps_title",
        iteration=steps.iteration,
        optimizer=optimizer,
        lr=fmt.decimal(f"{steps.lr:g}"),
    )
    wanted = [fmt.weight_number(key.weight) for row in steps.rows for key in row.keys if key.wanted]
    terms = "−log " + " − log ".join(wanted)
    loss = fmt.say("train_steps_loss", terms=terms, loss=fmt.number(steps.loss, 4))
    after = fmt.say(
        "train_steps_after",
        loss=fmt.number(steps.loss_after, 4),
        before=" ".join(fmt.weight_number(w) for w in steps.wanted_before),
        after=" ".join(fmt.weight_number(w) for w in steps.wanted_after),
    )
    return Group(
        Text(title, style="bold underline"),
        Text(""),
        Text(loss),
        Text(""),
        _softmax_table(steps, fmt),
        _shapes(steps, fmt),
        *(_entry(entry, steps, fmt) for entry in steps.entries),
        Text(fmt.say("train_steps_untouched")),
        Text(after),
    )
