"""Reference implementations written with plain loops and the math module.

They share no code with attncli, so agreement with them is evidence, not an echo.
"""

from __future__ import annotations

import math


def dot(a: list[float], b: list[float]) -> float:
    total = 0.0
    for x, y in zip(a, b, strict=True):
        total += x * y
    return total


def matvec(matrix: list[list[float]], vector: list[float]) -> list[float]:
    return [dot(row, vector) for row in matrix]


def scores(queries, keys, method="dot", w_a=None, w_1=None, w_2=None, v_a=None):
    grid = []
    for q in queries:
        row = []
        for k in keys:
            if method == "dot":
                row.append(dot(q, k))
            elif method == "scaled":
                row.append(dot(q, k) / math.sqrt(len(k)))
            elif method == "general":
                row.append(dot(q, matvec(w_a, k)))
            elif method == "additive":
                hidden = [
                    math.tanh(a + b) for a, b in zip(matvec(w_1, q), matvec(w_2, k), strict=True)
                ]
                row.append(dot(v_a, hidden))
        grid.append(row)
    return grid


def softmax_row(row: list[float], temperature: float = 1.0) -> list[float]:
    live = [s for s in row if s != -math.inf]
    if not live:
        return [0.0 for _ in row]
    top = max(live)
    powers = [0.0 if s == -math.inf else math.exp((s - top) / temperature) for s in row]
    total = math.fsum(powers)
    return [p / total for p in powers]


def mix_row(weights: list[float], values: list[list[float]]) -> list[float]:
    out = [0.0] * len(values[0])
    for w, value in zip(weights, values, strict=True):
        for j, v in enumerate(value):
            out[j] += w * v
    return out


def attention(queries, keys, values, scale=True, causal=False):
    """softmax(Q K^T / sqrt(d_k)) V with an optional causal mask, one cell at a time."""
    grid = scores(queries, keys, "scaled" if scale else "dot")
    if causal:
        grid = [
            [s if j <= i else -math.inf for j, s in enumerate(row)] for i, row in enumerate(grid)
        ]
    weights = [softmax_row(row) for row in grid]
    return grid, weights, [mix_row(w, values) for w in weights]


def linear(rows, weight, bias=None):
    """x W + b row by row: W as d_in × d_out."""
    out = []
    for row in rows:
        projected = [
            math.fsum(row[i] * weight[i][j] for i in range(len(row))) for j in range(len(weight[0]))
        ]
        if bias is not None:
            projected = [p + b for p, b in zip(projected, bias, strict=True)]
        out.append(projected)
    return out


def multihead(x_q, x_kv, params, heads=1, divisor=None, allowed=None, bias=None, kv_heads=None):
    """torch's nn.MultiheadAttention, one head, row and cell at a time: Q, K, V projected
    with biases, split into heads by columns, each head softmax(Q K^T / divisor + bias) V
    with the cells where `allowed` is false left out, the heads joined, then W^O + b_o if
    given. `bias` is one T_q × T_k grid, or one per head (a float attn_mask). With
    `kv_heads` G, W^K and W^V hold G heads, and query head h reads key/value head
    h // (heads / G) (grouped-query attention, as transformers' repeat_kv lays them out)."""
    queries = linear(x_q, params["w_q"], params.get("b_q"))
    keys = linear(x_kv, params["w_k"], params.get("b_k"))
    values = linear(x_kv, params["w_v"], params.get("b_v"))
    groups = heads if kv_heads is None else kv_heads
    d_k, d_v = len(queries[0]) // heads, len(values[0]) // groups
    joined = [[] for _ in x_q]
    for h in range(heads):
        g = h // (heads // groups)
        q = [row[h * d_k : (h + 1) * d_k] for row in queries]
        k = [row[g * d_k : (g + 1) * d_k] for row in keys]
        v = [row[g * d_v : (g + 1) * d_v] for row in values]
        scale = math.sqrt(d_k) if divisor is None else divisor
        for i, query in enumerate(q):
            row = []
            for j, key in enumerate(k):
                if allowed is not None and not allowed[i][j]:
                    row.append(-math.inf)
                else:
                    row.append(dot(query, key) / scale)
                    if bias is not None:
                        grid = bias[h] if isinstance(bias[0][0], list) else bias
                        row[-1] += grid[i][j]
            joined[i] += mix_row(softmax_row(row), v)
    if "w_o" in params:
        return linear(joined, params["w_o"], params.get("b_o"))
    return joined


def rotary(vector, position, base=10000.0):
    """A vector at `position` turned as transformers' Llama turns it: coordinate i paired
    with i + d/2, each pair by the angle position / base^(2i/d), through its 2 × 2 rotation
    matrix [[cos, −sin], [sin, cos]], one pair at a time."""
    half = len(vector) // 2
    turned = list(vector)
    for i in range(half):
        angle = position / base ** (2 * i / len(vector))
        x, y = vector[i], vector[i + half]
        turned[i] = math.cos(angle) * x - math.sin(angle) * y
        turned[i + half] = math.sin(angle) * x + math.cos(angle) * y
    return turned


def window_allowed(length, window, causal):
    """A sliding window, cell by cell: query i sees key j when j is fewer than `window`
    positions from i (and not after it when causal)."""
    return [
        [(0 <= i - j < window) if causal else (abs(i - j) < window) for j in range(length)]
        for i in range(length)
    ]


def alibi_slopes(heads):
    """ALiBi's slopes as the paper gives them (Press et al. 2022, section 3): for H a power
    of two the geometric sequence starting at 2^(−8/H) with that ratio; otherwise the
    slopes of the largest power of two n below H, then the odd-numbered ones (1st, 3rd,
    …) of 2n's sequence for the heads left."""

    def geometric(n):
        first = 2 ** (-8 / n)
        return [first ** (k + 1) for k in range(n)]

    n = 1
    while n * 2 <= heads:
        n *= 2
    return geometric(n) + geometric(2 * n)[0::2][: heads - n]


def alibi(heads, length):
    """ALiBi's bias for each head, cell by cell: −slope · |i − j|."""
    return [
        [[-slope * abs(i - j) for j in range(length)] for i in range(length)]
        for slope in alibi_slopes(heads)
    ]


def rms_normed(vector, eps=1e-6):
    """RMSNorm with weights of ones, one coordinate at a time: x ÷ √(mean(x²) + ε)."""
    root = math.sqrt(math.fsum(x * x for x in vector) / len(vector) + eps)
    return [x / root for x in vector]


def turned(vector, position, thetas, factor=1.0):
    """A vector at `position` turned pair (i, i + d/2) by position · θ_i, each θ_i given
    (a scaled rotary table), then multiplied by `factor` (a scaling's attention factor)."""
    half = len(vector) // 2
    out = list(vector)
    for i in range(half):
        angle = position * thetas[i]
        x, y = vector[i], vector[i + half]
        out[i] = (math.cos(angle) * x - math.sin(angle) * y) * factor
        out[i + half] = (math.sin(angle) * x + math.cos(angle) * y) * factor
    return out


def softmax_with_sink(row, sink):
    """softmax over a row and one more logit, the sink's, whose weight is dropped."""
    live = [s for s in [*row, sink] if s != -math.inf]
    top = max(live)
    powers = [0.0 if s == -math.inf else math.exp(s - top) for s in row]
    total = math.fsum([*powers, 0.0 if sink == -math.inf else math.exp(sink - top)])
    return [p / total for p in powers]


def frontier_layer(x, params, heads, causal=False, qk_norm=False, thetas=None, factor=1.0,
                   softcap=None, sinks=None):  # fmt: skip
    """One self-attention layer with this year's additions, head by head and cell by cell:
    q and k RMSNormed (QK-norm), turned by the θ_i given and × factor, scored ÷ √d_k, the
    score softcapped (cap · tanh(s ÷ cap)), masked when causal, then a softmax with each
    head's sink logit (sinks[h], or sinks[0] for all) as one more column, dropped; the
    heads joined and projected by W^O when given."""
    queries, keys = linear(x, params["w_q"]), linear(x, params["w_k"])
    values = linear(x, params["w_v"])
    d_k, d_v = len(queries[0]) // heads, len(values[0]) // heads
    joined = [[] for _ in x]
    for h in range(heads):
        q = [row[h * d_k : (h + 1) * d_k] for row in queries]
        k = [row[h * d_k : (h + 1) * d_k] for row in keys]
        v = [row[h * d_v : (h + 1) * d_v] for row in values]
        if qk_norm:
            q, k = [rms_normed(r) for r in q], [rms_normed(r) for r in k]
        if thetas is not None:
            q = [turned(r, p, thetas, factor) for p, r in enumerate(q)]
            k = [turned(r, p, thetas, factor) for p, r in enumerate(k)]
        for i, query in enumerate(q):
            row = []
            for j, key in enumerate(k):
                score = dot(query, key) / math.sqrt(d_k)
                if softcap is not None:
                    score = softcap * math.tanh(score / softcap)
                row.append(-math.inf if causal and j > i else score)
            if sinks is None:
                weights = softmax_row(row)
            else:
                weights = softmax_with_sink(row, sinks[h] if len(sinks) > 1 else sinks[0])
            joined[i] += mix_row(weights, v)
    return linear(joined, params["w_o"]) if "w_o" in params else joined


def latent_layer(x, params, heads, causal=False, eps=1e-6, base=10000.0):
    """Multi-head latent attention as the seeded layer computes it, cell by cell: each
    token's latent c = RMSNorm(x W^DKV) (weights of ones), each head's key c W^UK_h and
    value c W^UV_h read from it, scores q_h · k_h ÷ √d_k (masked when causal), a softmax,
    the heads joined and projected by W^O. With w_qr and w_kr in `params`, DeepSeek's
    decoupled rotary key: the score gains q^R_h · k^R, q^R_h = RoPE(x W^QR_h) and k^R =
    RoPE(x W^KR) turned by `base`, and is divided by √(d_k + d_rope). Also the latents and
    the scores, [h][i][j]."""
    queries = linear(x, params["w_q"])
    latents = [rms_normed(row, eps) for row in linear(x, params["w_dkv"])]
    keys, values = linear(latents, params["w_uk"]), linear(latents, params["w_uv"])
    d_k, d_v = len(queries[0]) // heads, len(values[0]) // heads
    rope = len(params["w_kr"][0]) if "w_kr" in params else 0
    if rope:
        rotary_queries = [rotary_rows(row, heads, rope, i, base)
                          for i, row in enumerate(linear(x, params["w_qr"]))]  # fmt: skip
        rotary_keys = [rotary(row, i, base) for i, row in enumerate(linear(x, params["w_kr"]))]
    joined = [[] for _ in x]
    grids = []
    for h in range(heads):
        q = [row[h * d_k : (h + 1) * d_k] for row in queries]
        k = [row[h * d_k : (h + 1) * d_k] for row in keys]
        v = [row[h * d_v : (h + 1) * d_v] for row in values]
        grid = []
        for i, query in enumerate(q):
            row = []
            for j, key in enumerate(k):
                if causal and j > i:
                    row.append(-math.inf)
                    continue
                score = dot(query, key)
                if rope:
                    score += dot(rotary_queries[i][h], rotary_keys[j])
                row.append(score / math.sqrt(d_k + rope))
            grid.append(row)
            joined[i] += mix_row(softmax_row(row), v)
        grids.append(grid)
    return linear(joined, params["w_o"]), latents, grids


def rotary_rows(row, heads, width, position, base):
    """A row of h heads' rotary parts, each of `width` numbers, each turned at `position`."""
    return [rotary(row[h * width : (h + 1) * width], position, base) for h in range(heads)]
