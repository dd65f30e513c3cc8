"""Training W^Q and W^K so that chosen cells of the weight grid grow: attn train.

A wanted cell (i, j) says that query i should look at key j. The loss is the
cross-entropy of the wanted cells, summed over heads and over a sentence's wanted cells,
averaged over the sentences of a corpus:

    ℓ = −Σ_(i,j) c_ij log α_ij          (c_ij: how many times cell (i, j) is wanted)
    ∂ℓ/∂α_ij = −c_ij / α_ij              (0 on the cells nobody wants)
    ∂ℓ/∂e_ij = α_ij Σ_k c_ik − c_ij      (through the softmax: α − the one-hot, per row)

and from ∂ℓ/∂α on, the gradients are the layer's own backward pass
(core.gradients.selfattn_backward), never a second implementation. The loss reads the
weights alone, so ∂ℓ/∂output = 0: W^V and W^O get exactly zero gradient and stay as they
were; only W^Q and W^K, which make the scores, can learn. Updates are plain gradient descent,
W ← W − lr ∇W, or Adam (Kingma & Ba, 2015, algorithm 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from attncli.core.gradients import selfattn_backward
from attncli.core.selfattn import Attention, attention_layer

TRAINED = ("w_q", "w_k")  # the parameters a loss on the weights reaches
OPTIMIZERS = ("sgd", "adam")
ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8
# A run has diverged when the loss becomes infinite or NaN, or climbs this many times above
# where it started: gradient descent with a step that is too large overshoots and climbs.
DIVERGED_FACTOR = 10.0


@dataclass
class Example:
    """One sentence of the training set: its X and the cells it wants."""

    x: np.ndarray  # [T, d_model], positions already added if asked for
    wanted: tuple[tuple[int, int], ...]  # (query row, key column), 0-based
    allowed: np.ndarray | None = None  # [T, T], True where query i may look at key j


def wanted_counts(length: int, wanted: Sequence[tuple[int, int]]) -> np.ndarray:
    """c: how many times each cell of the T × T grid is wanted."""
    # -> [T, T]
    counts = np.zeros((length, length))
    for row, column in wanted:
        counts[row, column] += 1.0
    return counts


def wanted_loss(weights: np.ndarray, counts: np.ndarray) -> float:
    """ℓ = −Σ c_ij log α_ij, over every head; +inf when a wanted weight is 0."""
    # [..., T, T], [T, T] -> float
    full = np.broadcast_to(counts, weights.shape)
    chosen = full > 0
    with np.errstate(divide="ignore"):
        return -float(np.sum(full[chosen] * np.log(weights[chosen])))


def loss_grad_weights(weights: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """∂ℓ/∂α = −c / α on the wanted cells, 0 on the others (masked cells included)."""
    # [..., T, T], [T, T] -> [..., T, T]
    full = np.broadcast_to(counts, weights.shape)
    grad = np.zeros(weights.shape)
    np.divide(-full, weights, out=grad, where=full > 0)
    return grad


@dataclass
class Evaluation:
    """The loss of the parameters on every example, and its gradients."""

    loss: float
    runs: list[Attention]  # the layer's forward pass, per example
    grads: dict[str, np.ndarray]  # grad_w_q, grad_w_k, grad_w_v (grad_w_o): mean over examples
    wanted: np.ndarray  # [links, heads]: the weight of every wanted cell, example by example


def evaluate(
    examples: Sequence[Example],
    params: dict[str, np.ndarray],
    heads: int | None,
    divisor: float | None,
    gradients: bool = True,
) -> Evaluation:
    """The layer on every example, the mean loss and, through the layer's backward pass,
    the mean gradient of every parameter. A wanted weight of 0 gives an infinite loss and
    non-finite gradients, without a warning: the caller checks (see diverged)."""
    with np.errstate(all="ignore"):
        return _evaluate(examples, params, heads, divisor, gradients)


def _evaluate(
    examples: Sequence[Example],
    params: dict[str, np.ndarray],
    heads: int | None,
    divisor: float | None,
    gradients: bool,
) -> Evaluation:
    total = 0.0
    runs: list[Attention] = []
    sums: dict[str, np.ndarray] = {}
    wanted: list[np.ndarray] = []
    for example in examples:
        run = attention_layer(example.x, example.x, params, heads, divisor, example.allowed)
        counts = wanted_counts(example.x.shape[0], example.wanted)
        total += wanted_loss(run.weights, counts)
        runs.append(run)
        grid = run.weights if run.weights.ndim == 3 else run.weights[None]  # [h, T, T]
        wanted.extend(grid[:, row, column] for row, column in example.wanted)
        if not gradients:
            continue
        found = selfattn_backward(
            example.x,
            None,
            params,
            run.queries,
            run.keys,
            run.values,
            run.weights,
            run.concat,
            np.zeros_like(run.output),  # the loss does not read the output
            run.divisor,
            loss_grad_weights(run.weights, counts),
        )
        for name in params:
            key = f"grad_{name}"
            sums[key] = sums[key] + found[key] if key in sums else found[key]
    count = max(len(examples), 1)
    grads = {name: value / count for name, value in sums.items()}
    return Evaluation(total / count, runs, grads, np.array(wanted).reshape(len(wanted), -1))


@dataclass
class Optimizer:
    """SGD (W − lr ∇W) or Adam on the trained parameters; `state` is Adam's moments."""

    kind: str
    lr: float
    steps: int = 0
    state: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def proposed(
        self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]
    ) -> tuple[dict[str, np.ndarray], Optimizer]:
        """The parameters after one update, and the optimizer as it is after it; neither
        `params` nor self is changed, so a stopped step leaves nothing half-done. A step
        too large overflows to inf without a warning: the caller checks (see diverged)."""
        with np.errstate(all="ignore"):
            return self._proposed(params, grads)

    def _proposed(
        self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]
    ) -> tuple[dict[str, np.ndarray], Optimizer]:
        updated = dict(params)
        moments = dict(self.state)
        step = self.steps + 1
        for name in TRAINED:
            grad = grads[f"grad_{name}"]
            if self.kind == "sgd":
                updated[name] = params[name] - self.lr * grad
                continue
            beta_1, beta_2 = ADAM_BETAS
            first, second = moments.get(name, (np.zeros_like(grad), np.zeros_like(grad)))
            first = beta_1 * first + (1 - beta_1) * grad
            second = beta_2 * second + (1 - beta_2) * grad**2
            moments[name] = (first, second)
            unbiased_first = first / (1 - beta_1**step)
            unbiased_second = second / (1 - beta_2**step)
            updated[name] = params[name] - self.lr * unbiased_first / (
                np.sqrt(unbiased_second) + ADAM_EPSILON
            )
        return updated, Optimizer(self.kind, self.lr, step, moments)


@dataclass
class Training:
    """A finished (or stopped) run: the last good parameters and the history."""

    params: dict[str, np.ndarray]
    loss: np.ndarray  # [done + 1]: before any update, then after each
    wanted: np.ndarray  # [done + 1, links, heads]: the wanted weights at the same moments
    done: int  # updates made
    stopped: str | None = None  # "diverged" or "interrupted"; None when every iteration ran
    diverged_loss: float | None = None  # the loss the diverging update would have given
    optimizer: Optimizer | None = None  # as it is after the last whole update (Adam's moments)


def diverged(first: float, evaluation: Evaluation) -> bool:
    """Whether an update broke the run: a loss or gradient that is not finite, or a loss
    far above where the run started."""
    if not np.isfinite(evaluation.loss) or evaluation.loss > DIVERGED_FACTOR * max(first, 1.0):
        return True
    return not all(np.isfinite(grad).all() for grad in evaluation.grads.values())


def train(
    examples: Sequence[Example],
    params: dict[str, np.ndarray],
    iterations: int,
    optimizer: Optimizer,
    heads: int | None = None,
    divisor: float | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> Training:
    """`iterations` updates of W^Q and W^K from `params` (which are not changed).

    Stops early on divergence (the last good parameters are kept) and on Ctrl-C
    (KeyboardInterrupt): the parameters and history are those of the last whole update.
    `on_step(done, loss)` is called after every update.
    """
    evaluation = evaluate(examples, params, heads, divisor)
    if not np.isfinite(evaluation.loss):
        return Training(
            params, np.array([evaluation.loss]), evaluation.wanted[None], 0, "diverged",
            optimizer=optimizer,
        )  # fmt: skip
    losses, wanted = [evaluation.loss], [evaluation.wanted]
    current = (params, evaluation, optimizer)
    stopped, diverged_loss = None, None
    try:
        for _ in range(iterations):
            state, last, before = current
            proposed, after = before.proposed(state, last.grads)
            next_evaluation = evaluate(examples, proposed, heads, divisor)
            if diverged(losses[0], next_evaluation):
                stopped, diverged_loss = "diverged", next_evaluation.loss
                break
            losses.append(next_evaluation.loss)
            wanted.append(next_evaluation.wanted)
            current = (proposed, next_evaluation, after)  # one assignment: a whole update
            if on_step is not None:
                on_step(after.steps, next_evaluation.loss)
    except KeyboardInterrupt:
        stopped = "interrupted"
    done = current[2].steps - optimizer.steps
    return Training(
        current[0],
        np.array(losses[: done + 1]),
        np.array(wanted[: done + 1]),
        done,
        stopped,
        diverged_loss,
        current[2],
    )


def links(examples: Sequence[Example]) -> list[tuple[int, int, int]]:
    """(example, query row, key column) of every wanted cell, in the order of `wanted`."""
    return [(index, row, column) for index, e in enumerate(examples) for row, column in e.wanted]


def link_is_largest(weights: np.ndarray, row: int, column: int) -> bool:
    """Whether the wanted key gets the row's largest weight (strictly: a tie is a miss),
    in every head."""
    # [T, T] or [h, T, T] -> bool
    grid = weights if weights.ndim == 3 else weights[None]
    cells = grid[:, row, :]  # [h, T]
    others = np.delete(cells, column, axis=1)
    return bool(np.all(cells[:, column] > others.max(axis=1, initial=-np.inf)))
