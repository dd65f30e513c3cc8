"""The result of training the layer's W^Q and W^K: the layer before and after, the
history, and on a corpus how often the trained layer finds the wanted key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.results.base import Result

if TYPE_CHECKING:
    from attncli.explain.training import TrainSteps


@dataclass(frozen=True)
class TestLink:
    """One wanted link of a test sentence, and what the trained layer's row picked."""

    tokens: tuple[str, ...]
    query: int  # 0-based row
    key: int  # the wanted column
    picked: int  # the column with the row's largest weight (of the first head)
    weight: float  # the wanted key's weight (the heads' mean)
    hit: bool  # the wanted key has the row's largest weight, in every head


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class TrainResult(Result):
    """A training run of the layer on one sentence (or a corpus, whose first sentence is
    the one shown), with heads a leading head axis on the weight grids."""

    tokens: tuple[str, ...]
    x: np.ndarray  # [T, d_model], positions added when asked for
    before: dict[str, np.ndarray]  # w_q, w_k, w_v (w_o) as drawn from the seed
    after: dict[str, np.ndarray]  # the same after training: only w_q and w_k moved
    weights_before: np.ndarray  # [T, T] or [h, T, T]
    weights_after: np.ndarray  # [T, T] or [h, T, T]
    output_after: np.ndarray  # [T, d_v], or [T, d_model] after W^O: the trained layer's output
    wants: tuple[str, ...]  # "están=llaves", the first sentence's
    wanted_cells: tuple[tuple[int, int], ...]  # their (row, column), 0-based
    allowed: np.ndarray | None  # [T, T] with --causal: True where a query may look
    loss: np.ndarray  # [done + 1]: before training, then after each update
    wanted: np.ndarray  # [done + 1, links, heads]: every wanted weight at the same moments
    iterations: int  # asked for
    done: int  # made: fewer when Ctrl-C stopped the run
    lr: float
    optimizer: str
    stopped: str | None  # "interrupted", or None
    heads: int | None
    divisor: float
    scale: bool
    causal: bool
    norm: float | None
    seed: int
    positions: str | None
    sentences: int  # trained on
    train_accuracy: float  # of the wanted links trained on: the share the layer finds
    test: tuple[TestLink, ...] = ()

    @property
    def wanted_before(self) -> np.ndarray:
        """The first sentence's wanted weights before training (the heads' mean)."""
        return self.wanted[0, : len(self.wants)].mean(axis=-1)

    @property
    def wanted_after(self) -> np.ndarray:
        """... and after it."""
        return self.wanted[-1, : len(self.wants)].mean(axis=-1)

    def moved_most(self, count: int = 3) -> list[tuple[int, int, float, float]]:
        """The cells besides the wanted ones whose weight training moved most, the largest
        change first: (row, column, before, after), the heads' mean (first sentence)."""
        before, after = (
            grid.mean(axis=0) if grid.ndim == 3 else grid
            for grid in (self.weights_before, self.weights_after)
        )
        change = np.abs(after - before)
        for row, column in self.wanted_cells:
            change[row, column] = -1.0
        # the largest change first; among equal ones, the first cell in reading order
        order = np.argsort(-change, axis=None, kind="stable")[:count]
        cells = [divmod(int(index), change.shape[1]) for index in order]
        return [
            (row, column, float(before[row, column]), float(after[row, column]))
            for row, column in cells
            if change[row, column] > 0
        ]

    @property
    def test_accuracy(self) -> float | None:
        """The share of test links whose wanted key gets the row's largest weight."""
        return float(np.mean([link.hit for link in self.test])) if self.test else None

    def __repr__(self) -> str:
        return (
            f"TrainResult(tokens={list(self.tokens)}, wants={list(self.wants)}, "
            f"loss={self.loss[0]:.4g} → {self.loss[-1]:.4g}, done={self.done})"
        )

    def to_document(self) -> dict[str, Any]:
        """The trained layer as attn selfattn -i reads it (x, w_q, w_k, w_v, tokens and the
        settings), its weight grid, and the training's history."""
        d_model, d_k = self.after["w_q"].shape
        heads = self.heads or 1
        document: dict[str, Any] = {"tokens": list(self.tokens), "x": self.x, **self.after}
        document.update(
            d_model=int(d_model),
            d_k=int(d_k) // heads,
            d_v=int(self.after["w_v"].shape[1]) // heads,
            heads=self.heads,
            scale=self.scale,
            divisor=self.divisor,
            causal=self.causal,
            projections=True,
            norm=self.norm,
            seed=self.seed,
            positions=self.positions,
            weights=self.weights_after,
            output=self.output_after,
        )
        training: dict[str, Any] = {
            "want": list(self.wants),
            "optimizer": self.optimizer,
            "lr": self.lr,
            "iterations": self.iterations,
            "done": self.done,
            "stopped": self.stopped,
            "sentences": self.sentences,
            "loss": self.loss,
            # [done + 1, wants] without heads, [done + 1, wants, h] with them
            "wanted_weights": self.wanted[:, : len(self.wants), 0]
            if self.heads is None
            else self.wanted[:, : len(self.wants)],
            "weights_before": self.weights_before,
            "w_q_before": self.before["w_q"],
            "w_k_before": self.before["w_k"],
            "train_accuracy": self.train_accuracy,
        }
        document["training"] = training
        if self.test:
            document["test"] = {
                "accuracy": self.test_accuracy,
                "links": [
                    {
                        "sentence": " ".join(link.tokens),
                        "want": f"{link.tokens[link.query]}={link.tokens[link.key]}",
                        "picked": link.tokens[link.picked],
                        "weight": link.weight,
                        "hit": link.hit,
                    }
                    for link in self.test
                ],
            }
        return document

    def steps(self, at: int | None = None, token: str | None = None) -> list[TrainSteps]:  # type: ignore[override]
        """Iteration `at` (1-based; default the first) worked by hand, as data. The run is
        replayed to just before it from the seeded matrices, so the numbers are the run's
        own (training is deterministic)."""
        from attncli.core import training as core
        from attncli.errors import OptionError
        from attncli.explain.training import explain_iteration
        from attncli.messages import Message, Setting, _
        from attncli.results.rows import check_pick

        at = 1 if at is None else at
        if self.heads is not None or self.sentences > 1:
            raise OptionError(
                _(
                    "--steps works one iteration of one sentence with one head; drop {option} "
                    "(or train the sentence alone)"
                ),
                option="--heads" if self.heads is not None else "--corpus",
            )
        made = Message(_("the run made {done} iterations"), done=self.done)
        check_pick(Setting("at", at), at, max(self.done, 1), made)
        example = core.Example(self.x, self.wanted_cells, self.allowed)
        divisor = None if self.scale else 1.0
        start = core.Optimizer(self.optimizer, self.lr)
        replayed = core.train([example], self.before, at - 1, start, self.heads, divisor)
        optimizer = replayed.optimizer or start  # Adam's moments after at − 1 updates
        evaluation = core.evaluate([example], replayed.params, self.heads, divisor)
        updated, _moments = optimizer.proposed(replayed.params, evaluation.grads)
        next_evaluation = core.evaluate([example], updated, self.heads, divisor, gradients=False)
        return [
            explain_iteration(
                iteration=at,
                tokens=list(self.tokens),
                x=self.x,
                params=replayed.params,
                updated=updated,
                wanted=self.wanted_cells,
                evaluation=evaluation,
                loss_after=next_evaluation.loss,
                wanted_after=[float(w) for w in next_evaluation.wanted[:, 0]],
                optimizer=self.optimizer,
                lr=self.lr,
            )
        ]
