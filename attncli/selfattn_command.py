"""The pieces of attn selfattn between parsing and printing.

cli.py stays a thin skin: this module chooses the computation for the inputs given,
builds the output document, picks the row that --steps explains, and lists the
tables a terminal shows. Arithmetic lives in core, layout in render.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.core import selfattn
from attncli.errors import InputError
from attncli.reading.inputs import Rows, pick_row
from attncli.reading.selfattn_inputs import SelfAttnInput, SelfAttnSettings

if TYPE_CHECKING:
    from collections.abc import Callable

    from attncli.explain import Step
    from attncli.present.render import Format


def compute(
    parsed: SelfAttnInput, heads: int | None, scale: bool, causal: bool
) -> selfattn.Attention:
    """Attention on the given Q, K, V; on X itself (--no-proj); or on X's projections."""
    if parsed.direct is not None:
        return selfattn.attend(*parsed.direct, scale=scale, causal=causal)
    assert parsed.x is not None
    w = parsed.weights
    if not w:
        return selfattn.attend(parsed.x, parsed.x, parsed.x, scale=scale, causal=causal)
    if heads is not None:
        return selfattn.multi_head_attention(
            parsed.x, w["w_q"], w["w_k"], w["w_v"], w["w_o"], heads, scale=scale, causal=causal
        )
    return selfattn.self_attention(
        parsed.x, w["w_q"], w["w_k"], w["w_v"], scale=scale, causal=causal
    )


def sizes(parsed: SelfAttnInput, run: selfattn.Attention) -> dict[str, int]:
    """d_model (when there is an X), d_k and d_v per head."""
    found = {"d_k": int(run.keys.shape[-1]), "d_v": int(run.values.shape[-1])}
    if parsed.x is not None:
        found = {"d_model": int(parsed.x.shape[1]), **found}
    return found


def parameter_count(parsed: SelfAttnInput, run: selfattn.Attention, heads: int | None) -> int:
    """The layer's learned weights: 0 without projections or when Q, K, V were given."""
    if not parsed.weights:
        return 0
    d = sizes(parsed, run)
    return selfattn.parameter_count(d["d_model"], d["d_k"], d["d_v"], heads)


def describe(
    parsed: SelfAttnInput,
    run: selfattn.Attention,
    settings: SelfAttnSettings,
    scale: bool,
    causal: bool,
) -> dict[str, Any]:
    """The JSON document: inputs, projections used, every intermediate and the output."""
    document: dict[str, Any] = {"tokens": parsed.key_labels}
    if parsed.query_labels != parsed.key_labels:
        document["query_tokens"] = parsed.query_labels
    if parsed.x is not None:
        document["x"] = parsed.x
    document.update(parsed.weights)
    document.update(
        sizes(parsed, run),
        heads=settings.heads,
        scale=scale,
        causal=causal,
        projections=bool(parsed.weights),
    )
    if parsed.norm is not None:
        document.update(norm=parsed.norm, seed=settings.seed)
    elif parsed.weights and parsed.drawn:
        document["seed"] = settings.seed
    document.update(
        queries=run.queries,
        keys=run.keys,
        values=run.values,
        scores=run.scores,
        weights=run.weights,
    )
    if run.concat is not None:
        document["concat"] = run.concat
    document.update(output=run.output, params=parameter_count(parsed, run, settings.heads))
    return document


def _head_view(run: selfattn.Attention, heads: int | None, head: int) -> tuple[np.ndarray, ...]:
    """Q, K, V, scores and weights of one head (the only one without --heads)."""
    arrays = (run.queries, run.keys, run.values, run.scores, run.weights)
    if heads is None:
        return arrays
    if not 1 <= head <= heads:
        raise InputError(
            f"--head {head} is out of range: there are {heads} heads (1 to {heads})",
            f"--head {head} está fuera de rango: hay {heads} cabezas (de 1 a {heads})",
        )
    return tuple(array[head - 1] for array in arrays)


def explain_row(
    parsed: SelfAttnInput,
    run: selfattn.Attention,
    heads: int | None,
    head: int,
    row: int | None,
    token: str | None,
    scale: bool,
) -> list[Step]:
    """Scores, softmax and mix for one row (one head), as the calculator's steps."""
    from attncli.explain import explain_mix, explain_scores, explain_softmax

    queries, keys, values, scores, weights = _head_view(run, heads, head)
    rows = Rows(scores, False, parsed.query_labels, parsed.key_labels)
    index = pick_row(rows, row, token)
    label = parsed.query_labels[index]
    return [
        explain_scores(
            "scaled" if scale else "dot",
            label,
            queries[index],
            keys,
            parsed.key_labels,
            {},
            masked=np.isneginf(scores[index]).tolist(),
        ),
        explain_softmax(label, scores[index], weights[index], parsed.key_labels, 1.0),
        explain_mix(label, weights[index], values, parsed.key_labels),
    ]


def tables(
    parsed: SelfAttnInput, run: selfattn.Attention, document: dict[str, Any]
) -> list[Callable[[Format], Any]]:
    """What a terminal shows: sizes, X, Q, K, V, the weight grid per head, the outputs."""
    from attncli.present import render

    heads = document["heads"]
    d = sizes(parsed, run)
    t_q, t_k = run.scores.shape[-2], run.scores.shape[-1]

    def summary(fmt: Format) -> Any:
        parts = [fmt.say("tokens_count", count=t_k)]
        parts += [f"{name} = {value}" for name, value in d.items()]
        if heads is not None:
            parts.append(fmt.say("heads_of", heads=heads, size=d["d_model"] // heads))
        scale = document["scale"]
        parts.append(fmt.say("scaled_by", d_k=run.keys.shape[-1]) if scale else fmt.say("unscaled"))
        if document["causal"]:
            parts.append(fmt.say("causal"))
        if parsed.norm is not None:
            parts.append(fmt.say("norm", norm=fmt.number(parsed.norm)))
        if not parsed.weights:
            note = fmt.say("no_proj" if parsed.x is not None else "direct")
        else:
            key = "params_single" if heads is None else "params_heads"
            note = fmt.say(key, params=fmt.count(document["params"]), **d)
        return render.lines(" · ".join(parts), note, "")

    def shapes(fmt: Format) -> Any:
        listed: list[tuple[str, tuple[int, ...], str]] = []
        if parsed.x is not None:
            listed.append(("X", parsed.x.shape, fmt.say("row_per_token")))
        names = {"w_q": "W^Q", "w_k": "W^K", "w_v": "W^V", "w_o": "W^O"}
        for name, matrix in parsed.weights.items():
            drawn = name in parsed.drawn
            origin = fmt.say("drawn_from", seed=document.get("seed")) if drawn else fmt.say("given")
            listed.append((names[name], matrix.shape, origin))
        for name, array in (("Q", run.queries), ("K", run.keys), ("V", run.values)):
            listed.append((name, array.shape, fmt.say("per_head") if array.ndim == 3 else ""))
        listed.append(("A = softmax(Q K^T)", run.weights.shape, fmt.say("who_asks")))
        listed.append(("output", run.output.shape, fmt.say("a_v_heads" if heads else "a_v")))
        return render.shapes_table(listed, fmt)

    def matrices(fmt: Format) -> Any:
        shown = []
        if parsed.x is not None:
            shown.append(render.matrix_block("X", parsed.key_labels, parsed.x, fmt))
        if run.queries.ndim == 2 and parsed.weights or parsed.direct is not None:
            shown += [
                render.matrix_block("Q", parsed.query_labels, run.queries, fmt),
                render.matrix_block("K", parsed.key_labels, run.keys, fmt),
                render.matrix_block("V", parsed.key_labels, run.values, fmt),
            ]
        if run.concat is not None:
            title = fmt.say(
                "joined", heads=heads, size=run.values.shape[-1], width=run.concat.shape[1]
            )
            shown.append(render.matrix_block(title, parsed.query_labels, run.concat, fmt))
        return render.Group(*shown)

    def grids(fmt: Format) -> Any:
        title = fmt.say("weights_who")
        masked = np.isneginf(run.scores)
        per_head = (
            [(title, run.weights, masked)]
            if heads is None
            else [
                (fmt.say("head", head=h + 1, title=title), run.weights[h], masked[h])
                for h in range(heads)
            ]
        )
        return render.Group(
            *(
                render.number_grid(
                    heading,
                    parsed.query_labels,
                    parsed.key_labels,
                    weights,
                    fmt,
                    heat=True,
                    mask=mask,
                )
                for heading, weights, mask in per_head
            )
        )

    def outputs(fmt: Format) -> Any:
        title = fmt.say("output_shape", rows=t_q, columns=run.output.shape[1])
        return render.matrix_block(title, parsed.query_labels, run.output, fmt)

    return [summary, shapes, matrices, grids, outputs]
