"""Attention at inference as results: the online softmax, a query row through key tiles, the
KV cache ledger. Data only; their looks are attncli.present.inference's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Result, Rowwise, shaped

if TYPE_CHECKING:
    from attncli.core.inference import CacheStep, OnlineBlocks, TiledRow

__all__ = ["CacheLedger", "OnlineSoftmaxResult", "TiledResult"]


def ulps_apart(online: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """Per row: the largest difference between two rows of weights in units in the last
    place of the row's largest plain weight (0 for a row of zeros)."""
    # [T_q, T_k], [T_q, T_k] -> [T_q]
    largest = plain.max(axis=-1)
    unit = np.spacing(np.where(largest > 0, largest, 1.0))
    return np.abs(online - plain).max(axis=-1) / unit


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class OnlineSoftmaxResult(Rowwise):
    """softmax row by row, read `block` scores at a time with a running max and sum."""

    score_grid: np.ndarray  # [T_q, T_k]
    weight_grid: np.ndarray  # [T_q, T_k]: the online weights
    plain_grid: np.ndarray  # [T_q, T_k]: attention.softmax of the same scores
    blocks: OnlineBlocks
    block: int
    temperature: float
    shown_row: int | None = None  # the row --row or --token picked (0-based); None: every row

    @property
    def weights(self) -> np.ndarray:
        """[T_k] for one row of scores, [T_q, T_k] for a grid."""
        return shaped(self.weight_grid, self.single)

    @property
    def ulps(self) -> np.ndarray:
        """Per row, how far the online weights are from the plain softmax's, in units in the
        last place of the row's largest weight."""
        return ulps_apart(self.weight_grid, self.plain_grid)

    def block_rows(self, row: int) -> list[dict[str, Any]]:
        """Row `row`'s blocks as data: the columns, the block's max, m, the factor, ℓ."""
        b = self.blocks
        ends = [*b.starts[1:], self.score_grid.shape[1]]
        return [
            {
                "start": start + 1,
                "end": end,
                "block_max": float(b.block_max[i, row]),
                "m": float(b.running_max[i, row]),
                "factor": float(b.factor[i, row]),
                "block_sum": float(b.block_sum[i, row]),
                "l": float(b.running_sum[i, row]),
            }
            for i, (start, end) in enumerate(zip(b.starts, ends, strict=True))
        ]

    def to_document(self) -> dict[str, Any]:
        document = {k: v for k, v in self.carried.items() if k not in ("weights", "output")}
        rows = [self.block_rows(row) for row in range(self.score_grid.shape[0])]
        ulps = [float(u) for u in self.ulps]
        document.update(
            scores=shaped(self.score_grid, self.single),
            temperature=self.temperature,
            block=self.block,
            blocks=rows[0] if self.single else rows,
            weights=self.weights,
            plain_weights=shaped(self.plain_grid, self.single),
            ulps=ulps[0] if self.single else ulps,
        )
        return document


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class TiledResult(Result):
    """One query row of a layer through its key blocks, FlashAttention's way."""

    tokens: tuple[str, ...]
    token: int  # the query's position (0-based)
    head: int | None  # the head shown (0-based), None for a layer without heads
    tile_q: int
    tile_k: int
    tiled: TiledRow
    plain: np.ndarray  # [d_v]: the layer's own output row (its weights × V)
    memory: dict[str, int]  # numbers held: tiled against the grid
    dtype_bytes: int

    def __repr__(self) -> str:
        return (
            f"TiledResult(token={self.tokens[self.token]!r}, tiles=({self.tile_q}, "
            f"{self.tile_k}), blocks={len(self.tiled.starts)}, "
            f"largest_difference={float(np.abs(self.tiled.output - self.plain).max()):.1e})"
        )

    def to_document(self) -> dict[str, Any]:
        t = self.tiled
        ends = [*t.starts[1:], len(self.tokens)]
        return {
            "tokens": list(self.tokens),
            "token": self.token + 1,
            "head": None if self.head is None else self.head + 1,
            "tiles": [self.tile_q, self.tile_k],
            "scores": t.scores,
            "blocks": [
                {
                    "start": start + 1,
                    "end": end,
                    "m": float(t.running_max[i]),
                    "factor": float(t.factor[i]),
                    "l": float(t.running_sum[i]),
                    "accumulator": t.accumulator[i],
                }
                for i, (start, end) in enumerate(zip(t.starts, ends, strict=True))
            ],
            "output": t.output,
            "plain_output": self.plain,
            "largest_difference": float(np.abs(t.output - self.plain).max()),
            "memory": dict(self.memory),
            "bytes_per_number": self.dtype_bytes,
        }


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class CacheLedger(Result):
    """A causal layer replayed token by token with its KV cache, and what the cache saves."""

    tokens: tuple[str, ...]
    ledger: list[CacheStep]  # a step per token
    full_weights: np.ndarray  # [h, T, T]: the whole causal grid, the same sums
    full_output: np.ndarray  # [T, d_out]
    layer_output: np.ndarray  # [T, d_out]: the layer's own (BLAS) output
    head: int  # the head the screen shows (0-based)
    heads: int
    kv_heads: int
    layers: int
    d_model: int
    d_k: int
    d_v: int
    multiplications: dict[str, int]
    cache_numbers: int  # what the cache holds after the last step, every layer's
    dtype_bytes: int
    source: str  # "seeded", "given" or the model's name
    divisor: float = 1.0  # what the scores were divided by (√d_k, a number, or 1)
    shown_step: int | None = None  # the step (0-based) whose whole cache is shown, if asked
    # what it would hold with every layer keeping every token (cache_numbers without
    # windows), and each layer's window (None: a full layer); one entry for a lone layer
    full_numbers: int = 0
    windows: tuple[int | None, ...] = (None,)
    window: int | None = None  # this layer's sliding window, None for a full layer
    # what a model's layer does besides x W that the replay did too, as the config names
    # it: qk_norm, rope_attention_factor, attn_logit_softcapping, sinks
    replayed: tuple[str, ...] = ()
    # a latent attention's (MLA) cache: (r, d_rope), its c_KV's and rotary key's sizes,
    # which each token writes instead of a key and a value per head; None for the others
    latent: tuple[int, int] | None = None

    def __repr__(self) -> str:
        return (
            f"CacheLedger(source={self.source!r}, steps={len(self.ledger)}, "
            f"cache_numbers={self.cache_numbers}, bit_for_bit={self.bit_for_bit})"
        )

    @property
    def bit_for_bit(self) -> bool:
        """Every step's weights and output row are the full causal grid's, bit for bit."""
        return all(
            np.array_equal(step.weights, self.full_weights[:, t, step.first : t + 1])
            and not self.full_weights[:, t, : step.first].any()  # outside the window: 0
            and np.array_equal(step.output, self.full_output[t])
            for t, step in enumerate(self.ledger)
        )

    @property
    def multi_head_numbers(self) -> int:
        """What the cache would hold with a key and a value for every query head: with
        grouped-query heads, heads ÷ kv_heads times what it holds; beside a latent cache,
        every layer's keys (d_k) and values (d_v) of every head and token."""
        if self.latent is not None:
            return self.layers * len(self.tokens) * self.heads * (self.d_k + self.d_v)
        return self.cache_numbers * self.heads // self.kv_heads

    @property
    def layer_difference(self) -> float:
        """The largest difference from the layer's own output (its products summed by BLAS,
        in another order)."""
        return float(np.abs(self.full_output - self.layer_output).max())

    def to_document(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens),
            "steps": [
                {
                    "token": self.tokens[t],
                    "position": t + 1,
                    "q": step.query,
                    "k": step.key,
                    "v": step.value,
                    "cached_keys": t + 1 - step.first,
                    "first_key": step.first + 1,
                    "kept": step.held,
                    "scores": step.scores,
                    "weights": step.weights,
                    "output": step.output,
                    # a latent attention's: what the step wrote into the cache
                    **(
                        {}
                        if step.latent is None
                        else {"c_kv": step.latent, "k_rope": step.rotary_key}
                    ),
                }
                for t, step in enumerate(self.ledger)
            ],
            "bit_for_bit": self.bit_for_bit,
            "layer_difference": self.layer_difference,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "layers": self.layers,
            "d_k": self.d_k,
            "d_v": self.d_v,
            "multiplications": dict(self.multiplications),
            "cache_numbers": self.cache_numbers,
            "cache_numbers_multi_head": self.multi_head_numbers,
            "cache_numbers_no_window": self.full_numbers or self.cache_numbers,
            "layer_windows": list(self.windows),
            "sliding_window": self.window,
            "replayed": list(self.replayed),
            **(
                {}
                if self.latent is None
                else {"kv_lora_rank": self.latent[0], "qk_rope_head_dim": self.latent[1]}
            ),
            "cache_bytes": self.cache_numbers * self.dtype_bytes,
            "bytes_per_number": self.dtype_bytes,
            **({} if self.shown_step is None else {"shown_step": self.shown_step + 1}),
        }
