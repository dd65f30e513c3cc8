"""The arithmetic of attn cost (core/attention_cost.py): its sums against plain loops, and
its FLOPs against the multiplications attn's own numpy forward pass (core/transformer.py)
does on the tiny checkpoints of tests/models, counted here by watching every matrix product
the pass makes; DeepSeek-V3's next token, which attn cost prices in the absorbed form the
forward pass does not run, against the products of that form written out in numpy
(tests/latent_step.py) on the tiny checkpoint's own weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli.core import attention_cost as cost
from attncli.core.attention_cost import Latent, Shape

MODELS = Path(__file__).resolve().parent.parent / "models"


@pytest.mark.parametrize("window", [None, 1, 2, 5, 9, 40])
@pytest.mark.parametrize("tokens", [1, 2, 8, 9, 33])
def test_pairs_kept_and_seen_against_loops(window, tokens):
    allowed = [
        [j <= i and (window is None or i - j < window) for j in range(tokens)]
        for i in range(tokens)
    ]
    assert cost.pairs(window, tokens) == sum(map(sum, allowed))
    assert cost.seen(window, tokens) == sum(allowed[-1])
    # what the next token reads beside itself: the cache's rows
    assert cost.kept(window, tokens) == cost.seen(window, tokens + 1) - 1


def test_bytes_are_rounded_up_for_int4():
    assert cost.cache_bytes(3, "int4") == 2
    assert cost.cache_bytes(4, "int4") == 2
    assert cost.cache_bytes(3, "fp8") == 3
    assert cost.cache_bytes(3, "float32") == 12


def test_whole_numbers_do_not_overflow():
    """Python ints: a 10^12-token cache of a 405B-sized model is exact, past int64."""
    shape = Shape(126, 16384, 128, 128, 128, 128, (None,) * 126)
    numbers = cost.cache_numbers(shape, 10**12, batch=1000)
    assert numbers == 1000 * 126 * 128 * 256 * 10**12
    assert numbers > 2**63


def test_designs_keep_the_model_and_change_its_heads():
    shape = Shape(4, 64, 8, 2, 16, 16, (None, 4, None, 4), sinks=True)
    assert cost.redesigned(shape, "mha").kv_heads == 8
    assert cost.redesigned(shape, "mqa").kv_heads == 1
    assert cost.redesigned(shape, "gqa", 4).kv_heads == 4
    latent = cost.redesigned(shape, "mla", 32, 8)
    assert latent.latent == Latent(32, 8) and latent.windows == shape.windows and latent.sinks
    assert cost.per_token(latent) == 40
    assert cost.per_token(cost.redesigned(shape, "mqa")) == 32


def test_the_mla_decode_step_reads_the_latent():
    """DeepSeek-V2's absorbed step: each head scores r + d_rope numbers a key and mixes r."""
    shape = Shape(1, 32, 4, 4, 12, 10, (None,), Latent(6, 4, 12))
    step = cost.decode(shape, 7)
    assert step.scores == 2 * 4 * (6 + 4) * 7
    assert step.mix == 2 * 4 * 6 * 7


# --- the FLOPs against a count of attn's own forward pass -------------------------------------


class Counted(np.ndarray):
    """An array whose matrix products are written down: (left shape, right shape, the left
    operand, which right operand) for each one, as numpy's matmul is asked for them."""

    log: list[tuple[tuple[int, ...], tuple[int, ...], np.ndarray, int]] = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [np.asarray(i) if isinstance(i, Counted) else i for i in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(o) for o in kwargs["out"])
        result = getattr(ufunc, method)(*plain, **kwargs)
        if ufunc is np.matmul and method == "__call__":
            Counted.log.append((plain[0].shape, plain[1].shape, plain[0], id(inputs[1])))
        return result.view(Counted) if isinstance(result, np.ndarray) else result

    def __array_function__(self, func, types, args, kwargs):
        # np.concatenate and the like give a plain array: keep following what they make (MLA
        # joins each head's q^C and q^R, k^C and the shared k^R, before Q Kᵀ)
        result = super().__array_function__(func, types, args, kwargs)
        return result.view(Counted) if type(result) is np.ndarray else result


def _counted_forward(name: str, tokens: int):
    """attn's forward pass of the model in tests/models/`name` on `tokens` ids, each matrix
    product of the attention counted: the projections' multiplications per row (every
    weight matrix of the attention: W^Q, W^K, W^V, W^O, or MLA's W^DQ, W^UQ, W^DKV, W^UKV
    and W^O), and those of Q Kᵀ and of the weights × V on the cells the causal mask (and
    window) keeps."""
    from dataclasses import replace

    from attncli.core.transformer import forward
    from attncli.reading.models.model import load_model

    model = load_model(str(MODELS / name))
    blocks = [model.network.blocks[i] for i in range(model.architecture.layers)]
    weights = set()  # the attention's own matrices, by identity (an MLP's may share a shape)
    for block in blocks:  # the reader builds a block when asked: these are the ones run
        for key in [key for key in block.attention if key.startswith("w_")]:
            block.attention[key] = block.attention[key].view(Counted)
            weights.add(id(block.attention[key]))
    Counted.log = []
    run = forward(replace(model.network, blocks=blocks), np.arange(3, 3 + tokens))
    per_row = 0  # a token's projections, every layer
    scores = mix = 0  # every kept cell's d_k (Q Kᵀ) and d_v (weights × V) multiplications
    last_scores = last_mix = 0  # the same for the last token alone
    grids = iter(run.layers)  # each layer makes one grid of scores, in order
    for left, right, operand, which in Counted.log:
        if which in weights:
            per_row += right[0] * right[1]  # x W: a row of x against every column of W
        elif left[-2:] == (tokens, tokens):  # the weights × V, the weights as given
            kept = operand != 0
            mix += int(kept.sum()) * right[-1]
            last_mix += int(kept[..., -1, :].sum()) * right[-1]
        elif right[-1] == tokens and left[-2] == tokens:  # Q Kᵀ: its grid's kept cells
            kept = np.asarray(next(grids).attention.weights) != 0
            scores += int(kept.sum()) * left[-1]
            last_scores += int(kept[..., -1, :].sum()) * left[-1]
    return model, per_row, scores, mix, last_scores, last_mix


# attn's forward pass runs these families: grouped heads, windows on every layer (Mistral) or
# every other (Gemma 2, gpt-oss), five in six (Gemma 3), q and k norms (Qwen3, OLMo 2, Gemma
# 3), softcapped scores (Gemma 2), sinks (gpt-oss)
FAMILIES = ["tiny-llama", "tiny-mistral", "tiny-qwen2", "tiny-qwen3", "tiny-olmo2", "tiny-gemma",
            "tiny-gemma2", "tiny-gemma3", "tiny-gpt-oss"]  # fmt: skip


@pytest.mark.parametrize("name", FAMILIES)
def test_flops_are_twice_the_multiplications_attn_s_forward_pass_does(name):
    """A prefill of T tokens and the step of token T, from the model's config.json, against
    the multiplications counted in attn's numpy forward pass: the projections of every row,
    and Q Kᵀ and the weights × V on every cell the causal mask keeps (tiny-mistral's window
    of 4 keeps fewer)."""
    from attncli.reading.models.attention_config import read_shape

    tokens = 7  # past the window, and unlike d_k = 8
    model, per_row, scores, mix, last_scores, last_mix = _counted_forward(name, tokens)
    shape = read_shape(str(MODELS / name))[0]
    prefill = cost.prefill(shape, tokens)
    assert prefill.projections == 2 * tokens * per_row
    assert prefill.scores == 2 * scores
    assert prefill.mix == 2 * mix
    step = cost.decode(shape, tokens)
    assert step.projections == 2 * per_row
    assert (step.scores, step.mix) == (2 * last_scores, 2 * last_mix)
    windowed = model.architecture.windows and model.architecture.windows[0]
    full = shape.heads * shape.layers * tokens * (tokens + 1) // 2 * shape.d_k
    assert (scores < full) == bool(windowed)  # it can fail: the window keeps fewer


# --- DeepSeek-V3's latent attention: the prefill counted on attn's forward pass, the next
# token on the absorbed form (tests/latent_step.py), proven to give the plain form's output


def _absorbed_next_token(tokens: int):
    """The token at position tokens + 1 through every layer of tiny-deepseek-v3 in the
    absorbed form, reading the latents of the `tokens` before it: its products counted, and
    each layer's output beside the plain form's (attn's forward pass on tokens + 1 ids)."""
    from attncli.core.transformer import forward
    from attncli.reading.models.model import load_model
    from tests.latent_step import Products, Sizes, absorbed_step, latents

    model = load_model(str(MODELS / "tiny-deepseek-v3"))
    arch, latent = model.architecture, model.architecture.latent
    assert latent is not None
    run = forward(model.network, np.arange(3, 3 + tokens + 1))
    products, outputs = Products(), []
    for number, layer in enumerate(run.layers):
        weights = model.network.blocks[number].attention
        sizes = Sizes(latent.heads, latent.nope, latent.rope, latent.v, latent.rank,
                      latent.interleave, latent.divisor, arch.rope_attention_factor(number),
                      arch.eps)  # fmt: skip
        theta = arch.rope_frequencies(tokens + 1, number)
        angles = np.arange(tokens + 1)[:, None] * theta[None, :]  # [T + 1, d_rope / 2]
        x = layer.attended  # what the attention read, row by row
        cache = latents(x[:tokens], weights, sizes, angles[:tokens])
        step = absorbed_step(x[tokens], weights, sizes, cache, angles[tokens], products)
        outputs.append((step, layer.attention.output[tokens]))
    return products.counted, outputs


def test_the_absorbed_step_gives_the_plain_form_s_output():
    """It can fail: a product left out, or W^UK taken from W^UV's columns, changes the
    output."""
    _, outputs = _absorbed_next_token(7)
    for absorbed, plain in outputs:
        np.testing.assert_allclose(absorbed, plain, rtol=1e-10, atol=1e-12)


def test_deepseek_v3_flops_are_the_multiplications_counted():
    """attn cost on tiny-deepseek-v3's config.json: a prefill of T tokens is twice the
    multiplications of attn's forward pass (W^DQ, W^UQ, W^DKV, W^UKV and W^O for every row;
    Q Kᵀ of d_nope + d_rope and α V of d_v on every kept cell); the next token, T + 1, twice
    those of the absorbed form (its own projections, q^C W^UKᵀ and the mixed latent × W^UV
    per head; r + d_rope a cached key scored, r a latent mixed). Through attncli.cost, as
    attn cost prints it."""
    import attncli

    tokens = 7
    _, per_row, scores, mix, _, _ = _counted_forward("tiny-deepseek-v3", tokens)
    step, _ = _absorbed_next_token(tokens)
    document = attncli.cost(str(MODELS / "tiny-deepseek-v3"), tokens=[tokens]).to_document()
    (design,) = document["designs"]
    (length,) = design["lengths"]
    assert design["design"] == "mla" and length["decode_position"] == tokens + 1
    assert length["prefill_flops"] == {
        "projections": 2 * tokens * per_row,
        "scores": 2 * scores,
        "mix": 2 * mix,
        "total": 2 * (tokens * per_row + scores + mix),
    }
    assert length["decode_flops"] == {"projections": 2 * step["projections"],
                                      "scores": 2 * step["scores"], "mix": 2 * step["mix"],
                                      "total": 2 * sum(step.values())}  # fmt: skip
    # the absorbed form scores r + d_rope = 12 + 4 numbers a key, where the plain form's row
    # would score d_k = 8 + 4 (2 layers, 4 heads, 8 keys): attn cost gives the absorbed count
    assert step["scores"] == 2 * 4 * (12 + 4) * 8 != 2 * 4 * (8 + 4) * 8
