"""Training the layer's W^Q and W^K as an operation: a sentence and its wants (or a corpus)
→ the same seeded layer attn selfattn builds → core.training → a TrainResult. No I/O."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from attncli.api.keywords import SEED, Hinted, OneOf, keywords
from attncli.core.training import OPTIMIZERS
from attncli.errors import InputError, OptionError
from attncli.layer import POSITIONS, SQRT, SelfAttnSettings
from attncli.limits import MAX_ITERATIONS
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.parse.wants import Sentence, at, parse_wants
from attncli.results.training import TestLink, TrainResult
from attncli.settings import Real, Whole

if TYPE_CHECKING:
    from attncli.core.training import Evaluation, Example, Training

ITERATIONS = 300
LEARNING_RATE = 0.1
# SGD by default: its update is the lesson's W − lr·∇W, the one --steps works by hand,
# and with lr 0.1 the loss falls at every iteration on the headline sentence and on the
# sample corpus. Adam moves every entry by about lr whatever the gradient's size.
OPTIMIZER = "sgd"


@keywords(seed=SEED, iterations=Hinted(Whole(0, MAX_ITERATIONS), ITERATIONS),
          lr=Hinted(Real(0), LEARNING_RATE), optimizer=OneOf(OPTIMIZERS),
          positions=OneOf(POSITIONS))  # fmt: skip
def train(
    sentence: str | None = None,
    *,
    want: str | Sequence[str] = (),
    corpus: Sequence[Sentence] | None = None,
    test: Sequence[Sentence] | None = None,
    iterations: int = ITERATIONS,
    lr: float = LEARNING_RATE,
    optimizer: str = OPTIMIZER,
    seed: int = 0,
    d_model: int | None = None,
    d_k: int | None = None,
    heads: int | None = None,
    causal: bool = False,
    scale: bool = True,
    projections: bool = True,
    positions: str | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> TrainResult:
    """Gradient descent on W^Q and W^K of the seeded layer attn selfattn builds, so that
    each wanted query looks at its wanted key: the loss is ℓ = −Σ log α(query, key) over
    the wanted cells (averaged over a corpus's sentences). W^V and W^O get no gradient
    from a loss on the weights and stay as drawn.

    `want` is 'query=key' (or several); `corpus` trains one set of W's on many sentences
    (reading.parse.wants.parse_corpus), `test` reports on others whether each wanted key gets
    its row's largest weight. `positions='sinusoidal'` adds Vaswani et al.'s encoding
    to X. `on_step(done, loss)` hears every update.

    >>> t = train("las llaves del coche están ahí", want="están=llaves")
    >>> round(float(t.wanted_before[0]), 3), float(t.wanted_after[0]) > 0.9
    (0.029, True)
    """
    from attncli.core import training as core

    _check_options(projections, positions)
    settings = SelfAttnSettings(
        d_model=d_model,
        d_k=d_k,
        seed=seed,
        heads=heads,
        scale=SQRT if scale else None,
        causal=causal,
    )
    sentences = _sentences(sentence, want, corpus)
    examples, tokens, x, params, norm = _examples(sentences, settings, positions)
    divisor = None if scale else 1.0
    run = _descended(examples, params, iterations, optimizer, lr, heads, divisor, on_step)
    before = core.evaluate(examples[:1], params, heads, divisor, gradients=False)
    after = core.evaluate(examples, run.params, heads, divisor, gradients=False)
    return TrainResult(
        tokens=tuple(tokens),
        x=x,
        before=params,
        after=run.params,
        weights_before=before.runs[0].weights,
        weights_after=after.runs[0].weights,
        output_after=after.runs[0].output,
        wants=tuple(_labels(sentences[0])),
        wanted_cells=sentences[0].wanted,
        allowed=examples[0].allowed,
        loss=run.loss,
        wanted=run.wanted,
        iterations=iterations,
        done=run.done,
        lr=lr,
        optimizer=optimizer,
        stopped=run.stopped,
        heads=heads,
        divisor=float(before.runs[0].divisor),
        scale=scale,
        causal=causal,
        norm=norm,
        seed=seed,
        positions=positions,
        sentences=len(examples),
        train_accuracy=_accuracy(examples, after),
        test=tuple(_tested(test, settings, positions, run.params, heads, divisor)),
    )


def _descended(
    examples: list[Example],
    params: dict[str, np.ndarray],
    iterations: int,
    optimizer: str,
    lr: float,
    heads: int | None,
    divisor: float | None,
    on_step: Callable[[int, float], None] | None,
) -> Training:
    """The gradient descent run; a loss that diverged is refused with a smaller step."""
    from attncli.core import training as core

    start = core.Optimizer(optimizer, lr)
    run = core.train(examples, params, iterations, start, heads, divisor, on_step)
    if run.stopped == "diverged":
        raise _diverged(run, lr)
    return run


def _accuracy(examples: list[Example], after: Evaluation) -> float:
    """The share of the wanted cells, over every sentence trained on, whose key gets its
    row's largest weight after training."""
    from attncli.core import training as core

    hits = [
        core.link_is_largest(after.runs[e].weights, row, column)
        for e, row, column in core.links(examples)
    ]
    return float(np.mean(hits))


def _check_options(projections: bool, positions: str | None) -> None:
    """The training's own options, and the positions it can add to X (its step, its
    optimizer and a known kind of positions: train's keywords): what it cannot train is
    refused beside it, saying why."""
    from attncli.api.refusals import refuse_beside

    training = OnSurface("attn train", "train()")
    refuse_beside({Setting("projections", False, "--no-proj"): not projections}, training,
                  _("Q = K = V = X, so the layer has no parameter to train: W^Q, W^K and W^V "
                    "are all it can learn"))  # fmt: skip
    refuse_beside({Setting("positions", positions): positions == "rope"}, training,
                  _("it adds positions to X, and rotary positions turn q and k inside the "
                    "score, which training does not follow yet; use {sinusoidal}"),
                  sinusoidal=Setting("positions", "sinusoidal"))  # fmt: skip


def _sentences(
    sentence: str | None, want: str | Sequence[str], corpus: Sequence[Sentence] | None
) -> list[Sentence]:
    """The sentences to train on: the one given with its wants, or the corpus's."""
    from attncli.reading.parse.samples import LESSON
    from attncli.reading.parse.sentence import tokenize

    if (sentence is None) == (corpus is None):
        raise InputError(
            _("give a sentence and what it wants ({example}) or {corpus}, one of the two"),
            example=OnSurface(
                f'attn train "{LESSON}" --want están=llaves',
                f'train("{LESSON}", want="están=llaves")',
            ),
            corpus=OnSurface(Message(_("--corpus FILE")), Setting("corpus", metavar="…")),
        )
    if corpus is not None:
        from attncli.api.refusals import refuse_beside

        refuse_beside({Setting("want"): bool(want)},
                      OnSurface(Message(_("--corpus FILE")), Setting("corpus", metavar="…")),
                      _("each of its sentences says its own wants{how}; leave out {option}"),
                      how=OnSurface(Message(_(", after a | on its line")), ""))  # fmt: skip
        return list(corpus)
    assert sentence is not None
    tokens = tokenize(sentence)
    pairs = [want] if isinstance(want, str) else list(want)
    return [Sentence(tuple(tokens), parse_wants(pairs, tokens))]


def _examples(
    sentences: list[Sentence], settings: SelfAttnSettings, positions: str | None
) -> tuple[list[Example], list[str], np.ndarray, dict[str, np.ndarray], float | None]:
    """Each sentence's X (as attn selfattn embeds it, positions added) and causal mask;
    the first sentence's tokens and X; the seeded W's; the embeddings' length."""
    from attncli.core.training import Example

    examples, params, first, norm = [], None, None, None
    for sentence in sentences:
        x, weights, norm, allowed = _layer(sentence, settings, positions)
        params = weights if params is None else params
        first = x if first is None else first
        examples.append(Example(x, sentence.wanted, allowed))
    assert params is not None and first is not None
    return examples, list(sentences[0].tokens), first, params, norm


def _layer(
    sentence: Sentence, settings: SelfAttnSettings, positions: str | None
) -> tuple[np.ndarray, dict[str, np.ndarray], float | None, np.ndarray | None]:
    """X, the seeded W's and the mask of one sentence, checked as attn selfattn checks them."""
    from attncli.core.positions import with_positions
    from attncli.reading.check.selfattn import checked_arrays
    from attncli.reading.check.selfattn_checked import fill_from_seed
    from attncli.reading.parse.layer_inputs import LayerInputs

    text, seeded = " ".join(sentence.tokens), replace(settings, causal=False)
    checked = fill_from_seed(checked_arrays(LayerInputs(), text, seeded), settings)
    assert checked.x is not None
    allowed = None
    if settings.causal:
        from attncli.core.attention import causal_mask

        allowed = causal_mask(len(sentence.tokens), len(sentence.tokens))
        for row, column in sentence.wanted:
            if column > row:
                raise InputError(
                    _(
                        "{want}{where}: with {causal} a token sees only itself and the ones "
                        "before it, and «{key}» comes after «{query}»; drop {causal} or want an "
                        "earlier key"
                    ),
                    want=Setting("want", f"{sentence.tokens[row]}={sentence.tokens[column]}"),
                    causal=Setting("causal", True),
                    query=sentence.tokens[row],
                    key=sentence.tokens[column],
                    where=_at(sentence),
                )
    return with_positions(checked.x, positions), checked.weights, checked.norm, allowed


def _at(sentence: Sentence) -> Message | str:
    return at(sentence.where)


def _labels(sentence: Sentence) -> list[str]:
    return [f"{sentence.tokens[row]}={sentence.tokens[column]}" for row, column in sentence.wanted]


def _diverged(run: Training, lr: float) -> OptionError:
    """The one line a diverging run ends with."""
    start, end = float(run.loss[0]), run.diverged_loss

    def written(value: float | None) -> Message:
        if value is not None and np.isfinite(value):
            return Message(_("{value:.4g}"), value=float(value))
        if value is not None and not np.isnan(value):
            return Message(_("infinity"))
        return Message(_("not a number"))

    return OptionError(
        _(
            "training diverged at iteration {iteration}: the loss went from {start} to {end}; "
            "the step is too large, lower {option} (it is {lr:g}), e.g. {lower}"
        ),
        iteration=run.done + 1,
        start=written(start),
        end=written(end),
        option=Setting("lr"),
        lr=float(lr),
        lower=Setting("lr", metavar=f"{lr / 10:g}"),
    )


def _tested(
    test: Sequence[Sentence] | None,
    settings: SelfAttnSettings,
    positions: str | None,
    params: dict[str, np.ndarray],
    heads: int | None,
    divisor: float | None,
) -> list[TestLink]:
    """Each wanted link of the test sentences: the key the trained layer's row picks."""
    if not test:
        return []
    from attncli.core.training import evaluate, link_is_largest

    examples = [_example(sentence, settings, positions) for sentence in test]
    found = evaluate(examples, params, heads, divisor, gradients=False)
    links = []
    for sentence, run in zip(test, found.runs, strict=True):
        grid = run.weights if run.weights.ndim == 3 else run.weights[None]
        for row, column in sentence.wanted:
            picked = int(np.argmax(grid[0, row]))
            links.append(
                TestLink(
                    tokens=sentence.tokens,
                    query=row,
                    key=column,
                    picked=picked,
                    weight=float(grid[:, row, column].mean()),
                    hit=link_is_largest(run.weights, row, column),
                )
            )
    return links


def _example(sentence: Sentence, settings: SelfAttnSettings, positions: str | None) -> Example:
    from attncli.core.training import Example

    x, _queries, _keys, allowed = _layer(sentence, settings, positions)
    return Example(x, sentence.wanted, allowed)
