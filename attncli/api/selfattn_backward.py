"""The backward pass of the self-attention layer as an operation: the upstream gradient
given with the inputs, the core's gradients, a batch sequence by sequence."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from attncli.core.selfattn import Attention
    from attncli.reading.check.selfattn_checked import CheckedSelfAttn
    from attncli.reading.parse.layer_inputs import LayerInputs


def selfattn_backward(
    inputs: LayerInputs, checked: CheckedSelfAttn, run: Attention, divisor: float
) -> tuple[float | None, dict[str, np.ndarray]]:
    """The loss and gradients of a self-attention run, when the inputs give an upstream
    gradient (or a target)."""
    if not inputs.backward:
        return None, {}
    from attncli.core import gradients
    from attncli.reading.check.grad import upstream_gradient

    name, upstream = upstream_gradient(
        inputs.grad_output, inputs.target, run.output.shape, required=False
    )
    if upstream is None:
        return None, {}
    upstream = upstream.astype(run.output.dtype)  # --dtype float32: the backward pass too
    loss = None
    if name == "target":
        loss, upstream = gradients.squared_error(run.output, upstream)
    x = checked.x if checked.direct is None else None
    extra = run.keys.shape[-2] - len(checked.key_labels)  # add_bias_kv's, add_zero_attn's
    batched = run.output.ndim == 3  # B × T × d
    if not batched:
        grads = gradients.selfattn_backward(
            x, checked.x_kv, checked.weights, run.queries, run.keys, run.values, run.weights,
            run.concat, upstream, divisor, extra_keys=extra, x_v=checked.x_v,
        )  # fmt: skip
        return loss, {"grad_output": upstream, **grads}
    # A batch: each sequence's backward pass; the gradients of its inputs stacked (batch
    # axis first), the parameters' summed over the batch (ℓ is the sum of the sequences').
    each = [
        gradients.selfattn_backward(
            None if x is None else x[b],
            None if checked.x_kv is None else checked.x_kv[b],
            checked.weights,
            run.queries[b],
            run.keys[b],
            run.values[b],
            run.weights[b],
            None if run.concat is None else run.concat[b],
            upstream[b],
            divisor,
            extra_keys=extra,
            x_v=None if checked.x_v is None else checked.x_v[b],
        )  # fmt: skip
        for b in range(run.output.shape[0])
    ]
    grads = {
        name: np.sum([part[name] for part in each], axis=0)
        if name.startswith(("grad_w_", "grad_b_", "grad_bias_"))
        else np.stack([part[name] for part in each])
        for name in each[0]
    }
    return loss, {"grad_output": upstream, **grads}
