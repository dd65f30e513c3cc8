"""What a model's attention costs (attn cost): for the model's own design and each other
design asked for, the KV cache, the parameters and the FLOPs at every length, and each
formula with the model's numbers (as data: its symbols and its numbers, a presenter writes
them in a language)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attncli.core import attention_cost as cost
from attncli.core.attention_cost import Flops, Shape
from attncli.results.base import Result

Term = str | int  # a formula is written as terms: symbols and operators, and whole numbers


@dataclass(frozen=True)
class Formula:
    """One quantity's formula: `symbols` (L · g · (d_k + d_v) · T), the same with the
    model's `numbers`, and its value."""

    quantity: str  # cache, cache_window, parameters, prefill_scores, …
    symbols: tuple[Term, ...]
    numbers: tuple[Term, ...]
    value: int
    window: int | None = None  # the layers' window a cache term is for

    def plain(self, terms: tuple[Term, ...]) -> str:
        return " ".join(str(term) for term in terms)


@dataclass(frozen=True)
class AtLength:
    """The cost at one length T."""

    tokens: int
    cache_numbers: int
    cache_bytes: int
    prefill: Flops
    decode: Flops  # the step of token T + 1, reading the T cached and itself


@dataclass(frozen=True)
class DesignCost:
    """One design of the model's attention and what it costs."""

    label: str  # the model's own ("mha", "gqa", …), or as --as named it ("gqa:4")
    own: bool  # the model's own design
    shape: Shape
    lengths: tuple[AtLength, ...]

    @property
    def parameters(self) -> dict[str, int]:
        return cost.parameters(self.shape)

    @property
    def layer_parameters(self) -> int:
        return sum(self.parameters.values())

    @property
    def total_parameters(self) -> int:
        return self.shape.layers * self.layer_parameters


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class CostResult(Result):
    """A model's attention cost under its own design and the others asked for."""

    model: str  # the name given, or "options"
    source: str  # where its shape was read: a path, or a published config.json
    batch: int
    dtype: str  # the cache's dtype (bfloat16, fp8, int4, …)
    designs: tuple[DesignCost, ...]  # the model's own first

    def __repr__(self) -> str:
        labels = [design.label for design in self.designs]
        lengths = [at.tokens for at in self.designs[0].lengths]
        return f"CostResult(model={self.model!r}, designs={labels}, tokens={lengths})"

    @property
    def bits(self) -> int:
        return cost.DTYPE_BITS[self.dtype]

    def formulas(self, design: DesignCost, at: AtLength) -> list[Formula]:
        """Each quantity of `design` at `at`'s length, with its formula and numbers."""
        return formulas(design.shape, at, self.batch, self.dtype)

    def to_document(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "source": self.source,
            "batch": self.batch,
            "cache_dtype": self.dtype,
            "bits_per_number": self.bits,
            "designs": [self._design(design) for design in self.designs],
        }

    def _design(self, design: DesignCost) -> dict[str, Any]:
        shape = design.shape
        latent = shape.latent
        per_token = cost.per_token(shape) * shape.layers
        document: dict[str, Any] = {
            "design": design.label,
            "kind": shape.design,
            "own": design.own,
            "layers": shape.layers,
            "d_model": shape.d_model,
            "heads": shape.heads,
            "kv_heads": shape.kv_heads,
            "d_k": shape.d_k,
            "d_v": shape.d_v,
            "windows": list(shape.windows),
            "sinks": shape.sinks,
            "biases": list(shape.biases),
            "qk_norm": shape.qk_norm,
            "cache_numbers_per_token_layer": cost.per_token(shape),
            "cache_numbers_per_token": per_token,  # every layer, one sequence
            "cache_bytes_per_token": cost.cache_bytes(per_token, self.dtype),
            "parameters_per_layer": design.parameters,
            "parameters": design.total_parameters,
            "lengths": [
                {
                    "tokens": at.tokens,
                    "cache_numbers": at.cache_numbers,
                    "cache_bytes": at.cache_bytes,
                    "prefill_flops": _flops(at.prefill),
                    "decode_position": at.tokens + 1,
                    "decode_flops": _flops(at.decode),
                }
                for at in design.lengths
            ],
        }
        if latent is not None:
            document["latent"] = {"kv_rank": latent.rank, "rope_dim": latent.rope,
                                  "q_rank": latent.q_rank}  # fmt: skip
            # what a cache that made every head's keys and values would hold instead
            document["expanded_numbers_per_token_layer"] = cost.expanded_per_token(shape)
        return document


def _flops(flops: Flops) -> dict[str, int]:
    return {"projections": flops.projections, "scores": flops.scores, "mix": flops.mix,
            "total": flops.total}  # fmt: skip


def formulas(shape: Shape, at: AtLength, batch: int, dtype: str) -> list[Formula]:
    """The formulas of the cache (one per window the layers have), the parameters and the
    FLOPs of the prefill and of the decode step at `at`, each with its numbers."""
    said: list[Formula] = []
    bits = cost.DTYPE_BITS[dtype]
    tokens = at.tokens
    if shape.latent is None:
        per: tuple[Term, ...] = ("g", "·", "(d_k", "+", "d_v)")
        per_n: tuple[Term, ...] = (shape.kv_heads, "·", "(", shape.d_k, "+", shape.d_v, ")")
    else:
        per = ("(r", "+", "d_rope)")
        per_n = ("(", shape.latent.rank, "+", shape.latent.rope, ")")
    for window, count in shape.groups:
        held = cost.kept(window, tokens)
        t_sym: tuple[Term, ...] = ("T",) if window is None else ("min(T,", "W", "−", "1)")
        t_num: tuple[Term, ...] = (tokens,) if window is None else (
            "min(", tokens, ",", window, "−", "1", ")")  # fmt: skip
        numbers = batch * count * cost.per_token(shape) * held
        said.append(
            Formula(
                "cache" if window is None else "cache_window",
                ("B", "·", "L", "·", *per, "·", *t_sym),
                (batch, "·", count, "·", *per_n, "·", *t_num),
                numbers,
                window,
            )
        )
    said.append(
        Formula(
            "cache_bytes",
            ("numbers", "·", "bits", "÷", "8"),
            (at.cache_numbers, "·", bits, "÷", 8),
            at.cache_bytes,
        )
    )
    said += _parameter_formulas(shape)
    seen_pairs = sum(cost.pairs(w, tokens) for w in shape.windows)
    said.append(_pairs_formula(shape, tokens, seen_pairs))
    layers_per_token = cost.weights_per_token(shape)
    said += [
        Formula("prefill_projections", ("2", "·", "B", "·", "L", "·", "T", "·", "P_w"),
                (2, "·", batch, "·", shape.layers, "·", tokens, "·", layers_per_token),
                at.prefill.projections),
        *_scores_and_mix("prefill", shape, batch, ("pairs", seen_pairs), at.prefill),
    ]  # fmt: skip
    keys = sum(cost.seen(w, tokens + 1) for w in shape.windows)
    said.append(_keys_formula(shape, tokens, keys))
    if shape.latent is None:
        said += [
            Formula("decode_projections", ("2", "·", "B", "·", "L", "·", "P_w"),
                    (2, "·", batch, "·", shape.layers, "·", layers_per_token),
                    at.decode.projections),
            *_scores_and_mix("decode", shape, batch, ("keys", keys), at.decode),
        ]  # fmt: skip
    else:
        rank, rope = shape.latent.rank, shape.latent.rope
        own, _ = cost.absorbed_weights(shape)
        nope = shape.d_k - rope
        said += [
            Formula("decode_projections_latent",
                    ("2", "·", "B", "·", "L", "·", "(P_own", "+", "h", "·", "r", "·", "(d_nope",
                     "+", "d_v))"),
                    (2, "·", batch, "·", shape.layers, "·", "(", own, "+", shape.heads, "·",
                     rank, "·", "(", nope, "+", shape.d_v, "))"),
                    at.decode.projections),
            Formula("decode_scores_latent",
                    ("2", "·", "B", "·", "h", "·", "(r", "+", "d_rope)", "·", "keys"),
                    (2, "·", batch, "·", shape.heads, "·", "(", rank, "+", rope, ")", "·", keys),
                    at.decode.scores),
            Formula("decode_mix_latent", ("2", "·", "B", "·", "h", "·", "r", "·", "keys"),
                    (2, "·", batch, "·", shape.heads, "·", rank, "·", keys), at.decode.mix),
        ]  # fmt: skip
    return said


def _scores_and_mix(
    stage: str, shape: Shape, batch: int, over: tuple[str, int], flops: Flops
) -> tuple[Formula, Formula]:
    """Q Kᵀ and α V of a prefill or a next token: 2 · B · h · d_k (or d_v) · its pairs of a
    query and a key (`over`: the pairs' symbol and count; `flops`: the stage's counts)."""
    symbol, count = over
    return (
        Formula(f"{stage}_scores", ("2", "·", "B", "·", "h", "·", "d_k", "·", symbol),
                (2, "·", batch, "·", shape.heads, "·", shape.d_k, "·", count), flops.scores),
        Formula(f"{stage}_mix", ("2", "·", "B", "·", "h", "·", "d_v", "·", symbol),
                (2, "·", batch, "·", shape.heads, "·", shape.d_v, "·", count), flops.mix),
    )  # fmt: skip


def _pairs_formula(shape: Shape, tokens: int, total: int) -> Formula:
    """The query-key pairs of a causal prefill, every layer: T(T + 1)/2 where a layer sees
    every earlier key, W(W + 1)/2 + (T − W) · W where it sees W (T > W)."""

    def pairs(window: int | None, count: int) -> tuple[list[Term], list[Term]]:
        if window is None or window >= tokens:
            return (
                ["L", "·", "T", "·", "(T", "+", "1)", "÷", "2"],
                [count, "·", tokens, "·", "(", tokens, "+", 1, ")", "÷", 2],
            )
        return (["L", "·", "(W", "·", "(W", "+", "1)", "÷", "2", "+", "(T", "−", "W)", "·",
                 "W)"],
                [count, "·", "(", window, "·", "(", window, "+", 1, ")", "÷", 2, "+", "(",
                 tokens, "−", window, ")", "·", window, ")"])  # fmt: skip

    return _over_groups("pairs", shape, pairs, total)


def _keys_formula(shape: Shape, tokens: int, total: int) -> Formula:
    """The keys the next token reads, every layer: T + 1, or min(T + 1, W)."""

    def keys(window: int | None, count: int) -> tuple[list[Term], list[Term]]:
        if window is None:
            return ["L", "·", "(T", "+", "1)"], [count, "·", "(", tokens, "+", 1, ")"]
        return (["L", "·", "min(T", "+", "1,", "W)"],
                [count, "·", "min(", tokens, "+", 1, ",", window, ")"])  # fmt: skip

    return _over_groups("keys", shape, keys, total)


def _over_groups(
    quantity: str,
    shape: Shape,
    term: Callable[[int | None, int], tuple[list[Term], list[Term]]],
    total: int,
) -> Formula:
    """A sum with a term for each group of layers of one window (`term`: its symbols and
    its numbers, for the window and the count of layers)."""
    symbols: list[Term] = []
    numbers: list[Term] = []
    for window, count in shape.groups:
        if symbols:
            symbols.append("+")
            numbers.append("+")
        said, counted = term(window, count)
        symbols += said
        numbers += counted
    return Formula(quantity, tuple(symbols), tuple(numbers), total)


def _parameter_formulas(shape: Shape) -> list[Formula]:
    """Each part of a layer's parameters, then the whole: L · the layer's."""
    d, h, g, d_k, d_v = shape.d_model, shape.heads, shape.kv_heads, shape.d_k, shape.d_v
    parts = cost.parameters(shape)
    said: list[Formula] = []
    latent = shape.latent
    if latent is None:
        rows: list[tuple[str, tuple[Term, ...], tuple[Term, ...]]] = [
            ("w_q", ("d", "·", "h", "·", "d_k"), (d, "·", h, "·", d_k)),
            ("w_k", ("d", "·", "g", "·", "d_k"), (d, "·", g, "·", d_k)),
            ("w_v", ("d", "·", "g", "·", "d_v"), (d, "·", g, "·", d_v)),
            ("w_o", ("h", "·", "d_v", "·", "d"), (h, "·", d_v, "·", d)),
        ]
    else:
        nope, rank, rope = d_k - latent.rope, latent.rank, latent.rope
        rows = []
        if latent.q_rank is None:
            rows.append(("w_q", ("d", "·", "h", "·", "d_k"), (d, "·", h, "·", d_k)))
        else:
            q = latent.q_rank
            rows += [("w_dq", ("d", "·", "r_q"), (d, "·", q)),
                     ("w_uq", ("r_q", "·", "h", "·", "d_k"), (q, "·", h, "·", d_k))]  # fmt: skip
        rows += [
            ("w_dkv", ("d", "·", "(r", "+", "d_rope)"), (d, "·", "(", rank, "+", rope, ")")),
            ("w_ukv", ("r", "·", "h", "·", "(d_nope", "+", "d_v)"),
             (rank, "·", h, "·", "(", nope, "+", d_v, ")")),
            ("w_o", ("h", "·", "d_v", "·", "d"), (h, "·", d_v, "·", d)),
        ]  # fmt: skip
    for name, symbols, numbers in rows:
        said.append(Formula("parameters_" + name, symbols, numbers, parts[name]))
    for extra in ("biases", "norms", "sinks"):
        if parts[extra]:
            said.append(Formula("parameters_" + extra, (), (), parts[extra]))
    layer = sum(parts.values())
    said.append(
        Formula(
            "parameters", ("L", "·", "P_layer"), (shape.layers, "·", layer), shape.layers * layer
        )  # fmt: skip
    )
    return said
