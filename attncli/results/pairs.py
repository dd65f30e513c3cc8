"""Two sentences compared: one layer's weights on each and their difference on the tokens
that line up (SentencePair), and every head of a model ranked by how much it changes
(HeadsChange)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from attncli.messages import Message, _
from attncli.results.base import Result
from attncli.results.model import HEADS_NO_STEPS

if TYPE_CHECKING:
    from attncli.core.alignment import Alignment
    from attncli.results.selfattn import SelfAttnResult


def _alignment_document(alignment: Alignment, first: tuple[str, ...],
                        second: tuple[str, ...]) -> dict[str, Any]:  # fmt: skip
    """The alignment as the JSON writes it: 1-based positions, the tokens, what is left."""
    return {
        "aligned": [
            {
                "first": i + 1,
                "second": j + 1,
                "first_token": first[i],
                "second_token": second[j],
                "same": same,
            }
            for (i, j), same in zip(alignment.pairs, alignment.same, strict=True)
        ],  # fmt: skip
        "unaligned": [
            {
                "sentence": u.sentence + 1,
                "word": u.text,
                "positions": [p + 1 for p in u.pieces],
                "facing": u.facing,
                "facing_pieces": u.facing_pieces or None,
            }
            for u in alignment.unaligned
        ],  # fmt: skip
    }


def pair_labels(alignment: Alignment, first: tuple[str, ...], second: tuple[str, ...]) -> list[str]:
    """Each aligned pair's label: the token when both are the same, else «la/las»."""
    return [first[i] if same else f"{first[i]}/{second[j]}"
            for (i, j), same in zip(alignment.pairs, alignment.same, strict=True)]  # fmt: skip


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SentencePair(Result):
    """The same layer run on two sentences (each run exactly as attn selfattn runs it
    alone), their tokens aligned, and `difference` = second − first on the aligned tokens
    [n, n] or [h, n, n]; `largest` per head, the cells (aligned rows, columns) that changed
    most."""

    no_steps: ClassVar[Message | None] = Message(
        _("--compare shows two runs side by side and has no steps; explain one sentence alone "
          "with --steps")
    )  # fmt: skip

    first: SelfAttnResult
    second: SelfAttnResult
    sentences: tuple[str, str]
    alignment: Alignment
    difference: np.ndarray
    largest: tuple[tuple[tuple[int, int], ...], ...]  # [head][rank] -> (row, column)
    words: bool = False  # a model's word pieces merged into words
    shown_head: int = 0  # the head a screen shows (0-based), of a layer of several

    def __repr__(self) -> str:
        return (
            f"SentencePair({self.sentences[0]!r}, {self.sentences[1]!r}, "
            f"aligned={len(self.alignment.pairs)}, difference={self.difference.shape})"
        )

    @property
    def source_name(self) -> str:
        return getattr(self.first, "source_name", "")

    def labels(self, which: int) -> tuple[str, ...]:
        """The tokens (or words, with --words) of the first (0) or second (1) run."""
        run = self.first if which == 0 else self.second
        words = getattr(run, "words", None)
        return tuple(words) if words is not None else tuple(run.tokens)

    def grid(self, which: int) -> np.ndarray:
        """The weights of the first (0) or second (1) run, as they are compared."""
        run = self.first if which == 0 else self.second
        words = getattr(run, "word_weights", None)
        return words if words is not None else run.weights

    def to_document(self) -> dict[str, Any]:
        first, second = self.labels(0), self.labels(1)
        document: dict[str, Any] = {"sentences": list(self.sentences)}
        source = getattr(self.first, "source", None)
        if source is not None:
            document.update(model=source.name, model_type=source.model_type,
                            layer=source.layer, head=source.head)  # fmt: skip
        else:
            document.update(seed=self.first.seed, heads=getattr(self.first, "heads", None),
                            d_model=self.first.x.shape[-1] if self.first.x is not None else None,
                            causal=self.first.causal)  # fmt: skip
        document["level"] = "words" if self.words else "tokens"
        document["tokens"] = [list(first), list(second)]
        document["weights"] = [self.grid(0), self.grid(1)]
        document.update(_alignment_document(self.alignment, first, second))
        document["difference"] = self.difference
        labels = pair_labels(self.alignment, first, second)
        stacked = self.difference.reshape(-1, *self.difference.shape[-2:])
        document["largest"] = [
            {"head": h + 1 if self.difference.ndim == 3 else None, "from": labels[r],
             "to": labels[c], "row": r + 1, "column": c + 1,
             "change": float(stacked[h, r, c])}
            for h, cells in enumerate(self.largest) for r, c in cells
        ]  # fmt: skip
        return document


@dataclass(frozen=True)
class HeadChange:
    """One head's change (1-based layer and head): the cell (aligned row and column,
    0-based) ranked by, its weight before and after, and the head's mean |change|."""

    layer: int
    head: int
    change: float  # after − before
    row: int
    column: int
    before: float
    after: float
    mean: float


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class HeadsChange(Result):
    """Every head of a model ranked by how much its weights change from one sentence to
    another on the aligned tokens, most first."""

    no_steps: ClassVar[Message | None] = HEADS_NO_STEPS

    model: str
    model_type: str
    sentences: tuple[str, str]
    tokens: tuple[tuple[str, ...], tuple[str, ...]]
    alignment: Alignment
    ranking: tuple[HeadChange, ...]
    cell: tuple[int, int] | None = None  # --from/--to: the aligned row and column ranked by
    shown: int | None = 10
    grid: np.ndarray | None = None  # --grid: |second − first| [L, h, n, n]
    difference: np.ndarray | None = None  # second − first [L, h, n, n]

    def __repr__(self) -> str:
        best = self.ranking[0]
        return (
            f"HeadsChange(model={self.model!r}, heads={len(self.ranking)}, most=layer "
            f"{best.layer} head {best.head}: {best.change:+.3f})"
        )

    @property
    def source_name(self) -> str:
        return self.model

    def labels(self) -> list[str]:
        return pair_labels(self.alignment, *self.tokens)

    def to_document(self) -> dict[str, Any]:
        labels = self.labels()
        document: dict[str, Any] = {
            "model": self.model,
            "sentences": list(self.sentences),
            "tokens": [list(self.tokens[0]), list(self.tokens[1])],
            **_alignment_document(self.alignment, *self.tokens),
        }
        if self.cell is not None:
            document.update({"from": labels[self.cell[0]], "to": labels[self.cell[1]]})
        document["heads"] = [
            {"layer": c.layer, "head": c.head, "change": c.change, "from": labels[c.row],
             "to": labels[c.column], "row": c.row + 1, "column": c.column + 1,
             "before": c.before, "after": c.after, "mean_change": c.mean}
            for c in self.ranking
        ]  # fmt: skip
        if self.grid is not None and self.difference is not None:
            document["difference"] = self.difference  # [layer][head][row][column]
        return document
