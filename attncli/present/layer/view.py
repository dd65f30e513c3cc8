"""attn selfattn as rich renderables: the header, the score and weight grids per head and
the outputs; the shapes and the matrices when --show asks for them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.console import RenderableType
from rich.text import Text

from attncli.messages import Setting
from attncli.present import render
from attncli.present.format import Format
from attncli.present.grid import NumberGrid
from attncli.results.selfattn import SelfAttnResult

# The projections and biases as the screen names them.
PROJECTION_NAMES = {"w_q": "W^Q", "w_k": "W^K", "w_v": "W^V", "w_o": "W^O",
                    "w_dkv": "W^DKV", "w_uk": "W^UK", "w_uv": "W^UV",
                    "w_qr": "W^QR", "w_kr": "W^KR",
                    "b_q": "b^Q", "b_k": "b^K", "b_v": "b^V", "b_o": "b^O",
                    "bias_k": "bias_k", "bias_v": "bias_v"}  # fmt: skip
HEADER_WIDTH = 78  # the header's facts are packed into lines that fit 80 columns


def packed(parts: list[str], width: int = HEADER_WIDTH) -> list[str]:
    """Facts joined by " · " into as few lines as fit `width`."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += f" · {part}"
        else:
            lines.append(part)
    return lines


def divisor_text(result: SelfAttnResult, fmt: Format) -> str | None:
    """What the scores were divided by, as the header writes it: √8, 2.50, √1 = 1 (heads of
    one column each are divided, by 1); None when they were not divided."""
    return divisor_said(result.divisor, result.keys.shape[-1], bool(result.scale), fmt)


def divisor_said(divisor: float, d_k: int, scaled: bool, fmt: Format) -> str | None:
    """A divisor of scores as a header writes it: √d_k when it is that, else the number;
    None for 1 (no division)."""
    if scaled and math.isclose(divisor, math.sqrt(d_k), rel_tol=1e-12):
        return f"√{d_k}" + (" = 1" if d_k == 1 else "")
    if divisor == 1.0:
        return None
    return fmt.stated(divisor)


def params_formula(projections: dict[str, Any]) -> str:
    """How the parameters add up, as the lesson writes it: '2·8·8 + 8·8' for W^Q, W^K and
    W^V, then W^O and the biases."""
    if "w_k" not in projections:  # a latent layer's W^Q, W^DKV, W^UK, W^UV (W^QR, W^KR)
        latent = ("w_q", "w_dkv", "w_uk", "w_uv", "w_qr", "w_kr")
        terms = ["{}·{}".format(*projections[name].shape) for name in latent
                 if name in projections]  # fmt: skip
    else:
        w_q, w_k, w_v = projections["w_q"], projections["w_k"], projections["w_v"]
        terms = [f"2·{w_q.shape[0]}·{w_q.shape[1]}", f"{w_v.shape[0]}·{w_v.shape[1]}"]
        if w_k.shape != w_q.shape:  # keys of their own width (kdim)
            terms = ["{}·{}".format(*matrix.shape) for matrix in (w_q, w_k, w_v)]
    if "w_o" in projections:
        terms.append("{}·{}".format(*projections["w_o"].shape))
    biases = [
        projections[name].size
        for name in ("b_q", "b_k", "b_v", "b_o", "bias_k", "bias_v")
        if name in projections
    ]
    terms += [str(size) for size in biases]
    return " + ".join(terms)


MATRIX_NAMES = {
    name: PROJECTION_NAMES[name]
    for name in ("w_q", "w_k", "w_v", "w_dkv", "w_uk", "w_uv", "w_qr", "w_kr", "w_o")
}


def drawn_lines(result: SelfAttnResult, fmt: Format) -> list[str | Text]:
    """Which projections were drawn from the seed: all of W^Q, W^K, W^V (a sentence, or
    only X given), then on a terminal the hand-set sample to try; or exactly the ones
    --draw-missing drew beside the given ones."""
    drawn = [MATRIX_NAMES[name] for name in MATRIX_NAMES if name in result.drawn]
    given = [
        MATRIX_NAMES[name]
        for name in MATRIX_NAMES
        if name in result.projections and name not in result.drawn
    ]
    if not drawn:
        return []
    if not given:
        # a notebook's own line names the sample as a file; a printed page leaves the hint
        return [
            fmt.say("untrained", seed=result.seed, names=", ".join(drawn)),
            render.Hint(fmt.say("untrained_hint")),
        ]
    joined = {"drawn": ", ".join(drawn), "given": ", ".join(given)}
    return [fmt.say("some_drawn", seed=result.seed, draw=Setting("draw_missing", True), **joined)]


def without_projections(result: SelfAttnResult, fmt: Format) -> list[str]:
    """What Q = K = V = X does to the grids, said only when this run's numbers show it: the
    scores symmetric and the weights not; with vectors of one length every row's largest
    score on its own diagonal (Cauchy–Schwarz: x_i · x_j ≤ ‖x_i‖ ‖x_j‖ = r²); with lengths
    of their own, every row's largest score on the longest vector."""
    import numpy as np

    x = result.x
    if result.projections or x is None or x.ndim != 2 or result.x_kv is not None:
        return []
    if result.allowed is not None or not result.grids:
        return []
    scores, weights = result.attention.scores, result.attention.weights
    if scores.ndim != 2 or not np.allclose(scores, scores.T, rtol=0, atol=1e-12):
        return []
    said = [fmt.say("no_proj_symmetric")]
    if np.allclose(weights, weights.T, rtol=0, atol=1e-12):
        said = [fmt.say("no_proj_both_symmetric")]
    lengths = np.linalg.norm(x, axis=1)
    rows = np.argmax(scores, axis=1)
    if np.allclose(lengths, lengths[0], rtol=1e-9) and (rows == np.arange(len(x))).all():
        said.append(fmt.say("no_proj_diagonal", length=fmt.stated(float(lengths[0]))))
    elif (rows == int(np.argmax(lengths))).all():
        token = result.tokens[int(np.argmax(lengths))]
        said.append(fmt.say("no_proj_longest", token=token))
    return said


def header(
    result: SelfAttnResult, fmt: Format, hint: bool = True, noted: bool = False
) -> RenderableType:
    """The header lines: T, d_model, d_k, d_v, the heads, the divisor, the mask, the
    embeddings' length, the parameters and which projections were drawn; with `hint`, how
    to see more (--show, --steps); `noted`: a batch's first sequence, whose note says so."""
    run = result.attention
    heads = result.heads
    d = result.sizes
    t_q, t_k = run.queries.shape[-2], len(result.tokens)
    parts = [fmt.say("tokens_count", count=t_k)]
    if result.x_kv is not None:
        parts = [fmt.say("cross", queries=t_q, keys=t_k)]
    parts += [f"{name} = {value}" for name, value in d.items()]
    if heads is not None:
        parts.append(fmt.say("head_of" if heads == 1 else "heads_of", heads=heads))
        if result.kv_heads is not None:
            kv = result.kv_heads
            parts.append(
                fmt.say("kv_head_of" if kv == 1 else "kv_heads_of", kv=kv, group=heads // kv)
            )
        if "w_o" not in result.projections:
            parts.append(fmt.say("no_out_proj"))
    divided = divisor_text(result, fmt)
    parts.append(fmt.say("unscaled") if divided is None else fmt.say("divided_by", divisor=divided))
    if result.causal_from is not None:  # causal by the checkpoint's layout (GPT-2)
        parts.append(fmt.say("causal_from", kind=result.causal_from))
    elif result.causal:
        parts.append(fmt.say("causal"))
    if result.bias is not None and (result.mask_bias is not None or not result.alibi):
        parts.append(fmt.say("bias_added"))
    if result.window is not None:
        key = "window_causal" if result.causal else "window_both"
        parts.append(fmt.say(key, window=result.window, before=result.window - 1))
    if result.alibi:
        from attncli.core.distance import alibi_slopes

        slopes = fmt.joined(slope_text(m, fmt) for m in alibi_slopes(heads or 1))
        parts.append(fmt.say("alibi_added", slopes=slopes))
    if result.extra_keys:
        # torch's own names for what is there: add_bias_kv's row, add_zero_attn's
        origins = {"bias_k": "add_bias_kv", "zero": "add_zero_attn"}
        made = ", ".join(origins[name] for name in result.extra_keys if name in origins)
        parts.append(fmt.say("extra_keys", names=", ".join(result.extra_keys), origins=made))
    if result.rope_base is not None:
        from attncli.present.layer.rotary import base_text

        rope = "rope" if result.rope_dim is None else "rope_latent"
        parts.append(fmt.say(rope, base=base_text(result.rope_base, fmt)))
    parts += scoring_parts(result, fmt)
    if result.positions is not None:  # sinusoidal, the one encoding added to X
        parts.append(fmt.say("positions_held" if result.positions_learned else "positions_added"))
    if result.norm is not None:
        parts.append(fmt.say("norm", norm=fmt.stated(result.norm)))
    if not result.projections:
        note = fmt.say("no_proj" if result.x is not None else "direct")
    else:
        # The count is the same for any h when every head takes d_model / h columns.
        split = heads is not None and result.projections["w_q"].shape[1] == d["d_model"]
        split = split and result.kv_heads is None  # grouped: the count depends on G
        key = "params_heads" if split else "params"
        note = fmt.say(
            key, formula=params_formula(result.projections), params=fmt.count(result.params)
        )
    lines: list[str | Text] = [*packed(parts), note, *without_projections(result, fmt)]
    if result.weights_from is not None:  # a state dict's file and layout
        source, kind = result.weights_from
        lines.append(fmt.say("weights_from", source=source, kind=kind))
        if result.heads_unchecked and heads is not None:  # nothing beside them to check
            field = {"GPT-2": "n_head", "BERT": "num_attention_heads"}.get(kind)
            where = fmt.say("heads_where_config", field=field) if field else None
            where = where or fmt.say("heads_where_module")
            lines.append(fmt.say("heads_unchecked", heads=Setting("heads", heads), where=where))
    if result.trained_by is not None:
        lines.append(fmt.say("trained_by", command=result.trained_by))
    if result.kv_heads is not None and heads is not None and result.projections:
        lines.append(grouped_line(result, fmt))
    if result.rope_base is not None and result.grids:
        from attncli.present.layer.rotary import relative_line

        lines.append(relative_line(result.relative_check(), fmt))
    lines += drawn_lines(result, fmt)
    if hint and (result.x is not None or result.projections):
        lines.append(render.Hint(fmt.say("show_hint")))
    if result.of_batch is not None and not noted:  # else the batch's note said which
        number, batch = result.of_batch
        lines.insert(0, fmt.say("sequence_of", number=number, batch=batch))
    return render.lines(*lines, "")


def scoring_parts(result: SelfAttnResult, fmt: Format) -> list[str]:
    """The header's facts of what this year's layers add: QK-norm, the rotary scaling and
    its attention factor, the softcap, the sinks with what the rows then sum to over the
    keys (from the run's own weights), and a latent attention's cache a token."""
    parts = []
    if result.qk_norm:
        parts.append(fmt.say("layer_qk_norm"))
    if result.scaling is not None:
        scaling = result.scaling
        parts.append(fmt.say("layer_rope_scaling", kind=scaling.kind,
                             factor=fmt.number(scaling.factor, 4)))  # fmt: skip
        factor = result.rope_factor
        if factor != 1.0:
            said = "layer_rope_factor" if result.rope_dim is None else "layer_rope_factor_latent"
            parts.append(fmt.say(said, factor=fmt.number(factor, 4),
                                 squared=fmt.number(factor * factor, 4)))  # fmt: skip
    if result.softcap is not None:
        capped = "layer_softcap" if np.isfinite(result.softcap) else "layer_softcap_none"
        parts.append(fmt.say(capped, cap=fmt.number(result.softcap)))
    if result.sinks is not None:
        sinks = fmt.joined(fmt.number(sink) for sink in result.sinks)
        key = "layer_sink" if len(result.sinks) == 1 else "layer_sinks"
        if result.grids and result.weights.size:
            sums = np.asarray(result.weights).sum(axis=-1)
            least, most = fmt.number(float(sums.min()), 3), fmt.number(float(sums.max()), 3)
            parts.append(fmt.say(key, sinks=sinks, least=least, most=most))
    if result.latent_rank is not None and result.heads is not None:
        sizes, rope = result.sizes, result.rope_dim
        if rope is None:
            full = result.heads * (sizes["d_k"] + sizes["d_v"])
            parts.append(fmt.say("layer_latent", rank=result.latent_rank, heads=full))
        else:
            full = result.heads * (sizes["d_k"] + sizes["d_rope"] + sizes["d_v"])
            parts.append(fmt.say("layer_latent_rotary", rank=result.latent_rank, rope=rope,
                                 heads=full))  # fmt: skip
    return parts


def slope_text(slope: float, fmt: Format) -> str:
    """An ALiBi slope as the paper writes it: 1/16 when it is one over a whole number."""
    inverse = 1 / slope
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else fmt.stated(slope, 4)


def bias_name(result: SelfAttnResult) -> str:
    """What was added to the scores: attn_mask, ALiBi, or both."""
    if not result.alibi:
        return "attn_mask"
    return "ALiBi" if result.mask_bias is None else "attn_mask + ALiBi"


def head_title(result: SelfAttnResult, head: int, title: str, fmt: Format) -> str:
    """'Head 3: …', and with grouped heads 'Head 3 (kv head 2): …': the keys and values it
    reads."""
    if result.kv_heads is None or result.heads is None:
        return fmt.say("head", head=head, title=title)
    kv = (head - 1) // (result.heads // result.kv_heads) + 1
    return fmt.say("kv_head", head=head, kv=kv, title=title)


def grouped_line(result: SelfAttnResult, fmt: Format) -> str:
    """What grouping saves: the parameters and the KV cache beside multi-head's."""
    assert result.heads is not None and result.kv_heads is not None
    heads, kv = result.heads, result.kv_heads
    d_k, d_v = result.keys.shape[-1], result.values.shape[-1]
    rows = result.projections["w_k"].shape[0]
    mha = result.params + (heads - kv) * (d_k + d_v) * rows
    count = len(result.tokens)
    return fmt.say(
        "grouped_saving",
        kv=kv,
        heads=heads,
        params=fmt.count(result.params),
        mha=fmt.count(mha),
        d_k=d_k,
        d_v=d_v,
        cache=fmt.count(kv * (d_k + d_v) * count),
        count=count,
        mha_cache=fmt.count(heads * (d_k + d_v) * count),
    )


def score_grid(
    result: SelfAttnResult, fmt: Format, head: int | None = None, **drawing: Any
) -> NumberGrid:
    """The score grid Q Kᵀ / √d_k (+ attn_mask when one was added), of one head when there
    are heads (1-based); `drawing` goes to the grid (max_rows, max_columns, cursor,
    clickable)."""
    divided = divisor_text(result, fmt)
    title = (
        fmt.say("scores_who_unscaled")
        if divided is None
        else fmt.say("scores_who", divisor=divided)
    )
    if result.softcap is not None and np.isfinite(result.softcap):  # what the softmax takes
        cap = fmt.number(result.softcap)
        title = (
            fmt.say("scores_who_capped_unscaled", cap=cap)
            if divided is None
            else fmt.say("scores_who_capped", cap=cap, divisor=divided)
        )
    if result.bias is not None:  # "Scores Q K^T / √2 + attn_mask (row = …)"
        title = title.replace(" (", f" + {bias_name(result)} (", 1)
    scores = result.scores if head is None else result.scores[head - 1]
    if head is not None:
        title = head_title(result, head, title, fmt)
    return NumberGrid(title, result.query_labels, result.key_labels, scores, fmt, **drawing)


def weight_grid(
    result: SelfAttnResult, fmt: Format, head: int | None = None, **drawing: Any
) -> NumberGrid:
    """The weight grid as the heat ramp, each row's largest marked, masked cells as such; of
    one head when there are heads (1-based); `drawing` goes to the grid."""
    title = fmt.say("weights_who")
    scores, weights = (
        (result.scores, result.weights)
        if head is None
        else (result.scores[head - 1], result.weights[head - 1])
    )
    if head is not None:
        title = head_title(result, head, title, fmt)
    return NumberGrid(
        title,
        result.query_labels,
        result.key_labels,
        weights,
        fmt,
        heat=True,
        mask=np.isneginf(scores),
        **drawing,
    )


def selfattn_view(
    result: SelfAttnResult,
    fmt: Format,
    show: frozenset[str] = frozenset(),
    columns: int | None = None,
    *,
    noted: bool = False,  # a batch's first sequence, under the note that says so
) -> list[RenderableType]:
    """What a terminal shows: the header, the score grid, the weight grid and the outputs,
    per head; the matrices X, W, Q, K, V and the shapes when `show` asks for them. Of a
    batch, the first sequence, said so. A grid shows every key that fits the terminal's
    width, or at most `columns` keys."""
    if result.batch is not None:
        note = render.lines(
            fmt.say("batch_first", batch=result.batch), render.Hint(fmt.say("batch_item")), ""
        )
        return [note, *selfattn_view(result.item(1), fmt, show, columns, noted=True)]
    run = result.attention
    heads = result.heads
    t_q = run.queries.shape[-2]
    columns = run.scores.shape[-1] if columns is None else columns

    def summary(fmt: Format) -> Any:
        return header(result, fmt, hint=not show, noted=noted)

    def shapes(fmt: Format) -> Any:
        listed: list[tuple[str, tuple[int, ...], str]] = []
        if result.x is not None and result.x_kv is None:
            listed.append(("X", result.x.shape, fmt.say("row_per_token")))
        elif result.x is not None and result.x_kv is not None:
            listed.append(("X_q", result.x.shape, fmt.say("row_per_query")))
            if result.x_v is None:
                listed.append(("X_kv", result.x_kv.shape, fmt.say("row_per_key")))
            else:  # keys and values of their own widths
                listed.append(("X_k", result.x_kv.shape, fmt.say("row_per_key")))
                listed.append(("X_v", result.x_v.shape, fmt.say("row_per_key")))
        for name, matrix in result.projections.items():
            drawn = name in result.drawn
            origin = fmt.say("drawn_from", seed=result.seed) if drawn else fmt.say("given")
            listed.append((PROJECTION_NAMES.get(name, name), matrix.shape, origin))
        if run.latent is not None:  # what a latent layer's cache keeps a token
            listed.append(("c_KV", run.latent.shape, fmt.say("latent_row")))
            if result.rope_dim is not None:
                rotary = (run.latent.shape[0], result.rope_dim)
                listed.append(("k^R", rotary, fmt.say("rotary_key_row")))
        for name, array in (("Q", run.queries), ("K", run.keys), ("V", run.values)):
            listed.append((name, array.shape, fmt.say("per_head") if array.ndim == 3 else ""))
        divided = divisor_text(result, fmt)
        root = "√d_k" if result.rope_dim is None else "√(d_k + d_rope)"  # a latent rotary key
        divisor = "" if divided is None else f" / {root if divided.startswith('√') else divided}"
        bias = "" if result.bias is None else " + attn_mask"
        formula = f"A = softmax(Q K^T{divisor}{bias})"
        listed.append((formula, run.weights.shape, fmt.say("who_asks")))
        listed.append(
            (fmt.say("output"), run.output.shape, fmt.say("a_v_heads" if heads else "a_v"))
        )
        return render.shapes_table(listed, fmt)

    def matrices(fmt: Format) -> Any:
        shown = []
        if result.x is not None and "x" in show and result.x_kv is None:
            shown.append(render.matrix_block("X", result.tokens, result.x, fmt))
        elif result.x is not None and result.x_kv is not None and "x" in show:
            shown.append(render.matrix_block("X_q", result.query_labels, result.x, fmt))
            name = "X_kv" if result.x_v is None else "X_k"
            shown.append(render.matrix_block(name, result.tokens, result.x_kv, fmt))
            if result.x_v is not None:
                shown.append(render.matrix_block("X_v", result.tokens, result.x_v, fmt))
        if "w" in show:
            for name, matrix in result.projections.items():
                title = PROJECTION_NAMES.get(name, name)
                if name in result.drawn:
                    title += f" ({fmt.say('drawn_from', seed=result.seed)})"
                if matrix.ndim == 1:  # a bias: one row
                    shown.append(render.matrix_block(title, [title], matrix[None, :], fmt))
                    continue
                rows = [f"d{i + 1}" for i in range(matrix.shape[0])]
                shown.append(render.matrix_block(title, rows, matrix, fmt))
        if run.latent is not None and "k" in show:  # what the cache keeps: c_KV (and k^R)
            shown.append(render.matrix_block("c_KV", result.key_labels, run.latent, fmt))
            if result.rope_dim is not None:
                rotary = run.keys[0, :, -result.rope_dim :]
                shown.append(render.matrix_block("k^R", result.key_labels, rotary, fmt))
        if run.queries.ndim == 2:
            for part, name, labels, array in (
                ("q", "Q", result.query_labels, run.queries),
                ("k", "K", result.key_labels, run.keys),
                ("v", "V", result.key_labels, run.values),
            ):
                if part in show:
                    shown.append(render.matrix_block(name, labels, array, fmt))
        if run.concat is not None and "v" in show:
            title = fmt.say(
                "joined", heads=heads, size=run.values.shape[-1], width=run.concat.shape[1]
            )
            shown.append(render.matrix_block(title, result.query_labels, run.concat, fmt))
        return render.Group(*shown)

    def score_grids(fmt: Format) -> Any:
        heads_shown = [None] if heads is None else range(1, heads + 1)
        return render.Group(
            *(score_grid(result, fmt, head, max_columns=columns) for head in heads_shown)
        )

    def grids(fmt: Format) -> Any:
        heads_shown = [None] if heads is None else range(1, heads + 1)
        return render.Group(
            *(weight_grid(result, fmt, head, max_columns=columns) for head in heads_shown)
        )

    def outputs(fmt: Format) -> Any:
        title = fmt.say("output_shape", rows=t_q, columns=run.output.shape[1])
        return render.matrix_block(title, result.query_labels, run.output, fmt)

    def gradients(fmt: Format) -> Any:
        if not result.grads:
            return render.lines()
        shown: list[Any] = []
        if result.loss is not None:
            shown.append(render.lines("", fmt.say("loss", loss=fmt.stated(result.loss, 4))))
        if result.of_batch is not None:
            shown.append(render.lines(fmt.say("batch_grads")))
        asking = result.query_labels  # a row per query; the others, a row per key
        labels = {"grad_queries": asking, "grad_output": asking, "grad_x_q": asking}
        for name, grad in result.grads.items():
            title = f"∂ℓ/∂{gradient_symbol(name)} ({name})"
            if grad.ndim == 1:  # a bias's (b_q, …, bias_k): one row
                shown.append(render.matrix_block(title, [name[5:]], grad[None], fmt))
                continue
            rows = list(labels.get(name, result.tokens))
            if name.startswith("grad_w_"):
                rows = [f"{name[5:]}[{i + 1}]" for i in range(grad.shape[0])]
            shown.append(render.matrix_block(title, rows, grad, fmt))
        return render.Group(*shown)

    parts = [summary, matrices, score_grids, grids, outputs, gradients]
    if "shapes" in show:
        parts.insert(1, shapes)
    return [part(fmt) for part in parts]


# The symbol each gradient is of, as the header and the course write it: grad_w_q is ∂ℓ/∂W^Q.
_SYMBOLS = {"output": "out", "x": "X", "queries": "Q", "keys": "K", "values": "V"}


def gradient_symbol(name: str) -> str:
    """grad_x -> X, grad_x_q -> X_q, grad_w_q -> W^Q, grad_b_o -> b^O, grad_bias_k -> bias_k."""
    of = name.removeprefix("grad_")
    if of in _SYMBOLS:
        return _SYMBOLS[of]
    if of[:2] in ("w_", "b_"):
        return f"{of[0].upper() if of[0] == 'w' else 'b'}^{of[2:].upper()}"
    if of.startswith("x_"):
        return f"X_{of[2:]}"
    return of
