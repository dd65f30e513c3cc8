"""Two sentences compared as operations: the same layer (seeded, or a model's) run on each,
their tokens aligned word by word (core/alignment), and the difference of their weights on
the aligned tokens, second − first. Each run is the one attn selfattn (or attn heads) makes
of that sentence alone, so the difference is two separate runs' to the last bit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import MODEL, OWN_READER, SHOWN, keywords
from attncli.api.model import SOURCE, TARGET
from attncli.api.refusals import refuse_without
from attncli.errors import InputError, OptionError, shown
from attncli.messages import OnSurface, Setting, _, typed

if TYPE_CHECKING:
    from attncli.core.alignment import Alignment
    from attncli.layer import SelfAttnSettings
    from attncli.results.pairs import HeadsChange, SentencePair
    from attncli.results.selfattn import SelfAttnResult

LARGEST = 3  # the changes marked in a difference grid, per head


Pieces = list[tuple[int, ...]]


def _grid(run: SelfAttnResult, pieces: Pieces | None, words: bool) -> tuple[
    tuple[str, ...], Pieces, tuple[str, ...] | None, np.ndarray
]:  # fmt: skip
    """What a run compares: its tokens (or, with `words`, a model's words), each word's
    token positions, the words, and the weights."""
    if words:  # a model's run with --words: the grid between words
        merged = tuple(run.words)  # type: ignore[attr-defined]
        return merged, [(i,) for i in range(len(merged))], merged, run.word_weights  # type: ignore[attr-defined]
    if pieces is None:  # the seeded layer: a token is a word
        return tuple(run.tokens), [(i,) for i in range(len(run.tokens))], None, run.weights
    return tuple(run.tokens), pieces, None, run.weights


def largest_cells(difference: np.ndarray, count: int = LARGEST) -> list[tuple[int, int]]:
    """The `count` cells of one head's difference grid [n, n] that changed most (by |Δ|,
    ties in reading order), largest first; a cell that did not change is never one."""
    flat = np.abs(difference).ravel()
    order = sorted(range(flat.size), key=lambda k: (-flat[k], k))
    size = difference.shape[-1]
    return [(k // size, k % size) for k in order[:count] if flat[k] > 0]


def _aligned(runs: list[tuple[SelfAttnResult, Pieces | None, tuple[str, ...] | None]],
             words: bool, texts: tuple[str, str]) -> tuple[Alignment, np.ndarray]:  # fmt: skip
    """The two runs' alignment and the difference of their weights on it, [h?, n, n]."""
    from attncli.core.alignment import align

    (run_a, pieces_a, words_a), (run_b, pieces_b, words_b) = runs
    tokens_a, groups_a, merged_a, weights_a = _grid(run_a, pieces_a, words)
    tokens_b, groups_b, merged_b, weights_b = _grid(run_b, pieces_b, words)
    alignment = align(tokens_a, groups_a, tokens_b, groups_b, merged_a or words_a,
                      merged_b or words_b)  # fmt: skip
    return alignment, _difference(alignment, weights_a, weights_b, texts)


def _difference(
    alignment: Alignment, weights_a: np.ndarray, weights_b: np.ndarray, texts: tuple[str, str]
) -> np.ndarray:
    """The second sentence's weights less the first's on the aligned rows and columns
    ([..., n, n] of [..., T, T]); two sentences with no word aligned are refused."""
    if not alignment.pairs:
        raise InputError(
            _(
                "«{first}» and «{second}» have no word in the same place to compare; "
                "give two sentences that differ in a few words"
            ),
            first=shown(texts[0], 60),
            second=shown(texts[1], 60),
        )
    a, b = alignment.first, alignment.second
    return weights_b[..., b, :][..., b] - weights_a[..., a, :][..., a]


# The course's pair, as each surface asks for it.
_PAIR_EXAMPLE = OnSurface(
    'attn selfattn "la llave del coche está ahí" --compare "las llaves del coche están ahí"',
    'attncli.compare_sentences("la llave del coche está ahí", "las llaves del coche están ahí")',
)
COMPARE = Setting("second", option="--compare")


def _checked_texts(first: str | None, second: str | None) -> tuple[str, str]:
    """Both sentences, or a line saying which is missing or not a text: the first by the
    one check of a sentence (api/model.model_sentence), with the pair's example."""
    from attncli.api.model import model_sentence
    from attncli.reading.parse.sentence import sentence_text

    first = model_sentence(first, _PAIR_EXAMPLE)
    if second is not None:
        second = sentence_text(second, COMPARE, _PAIR_EXAMPLE)
    if second is None or not second.strip():
        raise OptionError(
            _("{compare} needs the other sentence, e.g. {example}"),
            compare=COMPARE,
            example=typed(COMPARE, '"las llaves del coche están ahí"'),
        )
    return first, second


@keywords(first=OWN_READER, second=OWN_READER, model=MODEL)
def compare_sentences(
    first: str,
    second: str,
    *,
    model: str | None = None,
    layer: int | None = None,
    head: int | None = None,
    words: bool = False,
    **layer_settings: Any,
) -> SentencePair:
    """The same layer on two sentences, side by side: the seeded layer (with
    `layer_settings`, the keywords of attncli.selfattn: seed, d_model, heads, causal, …) or
    a pretrained `model`'s `layer` (every head, or `head` alone; with `words`, the grids
    between words). On the seeded layer with several heads, `head` is the one a screen
    shows (every head is compared). The tokens are aligned word by word where the words
    line up; `difference` is second − first on the aligned tokens ([n, n], or [h, n, n]
    per head), and `largest` each head's cells that changed most.

    >>> pair = compare_sentences("la llave del coche está ahí", "las llaves del coche están ahí")
    >>> len(pair.alignment.pairs), pair.difference.shape
    (6, (6, 6))
    """
    from attncli.api.model import seeded_settings

    picks = {"layer": layer, "words": words}
    options = seeded_settings(compare_sentences, model, picks, **layer_settings)
    seeded = None if model is not None else options
    return sentence_pair(first, second, seeded, model=model, layer=layer, head=head,
                         words=words)  # fmt: skip


def sentence_pair(
    first: str | None,
    second: str | None,
    options: SelfAttnSettings | None,
    *,
    model: str | None = None,
    layer: int | None = None,
    head: int | None = None,
    words: bool = False,
) -> SentencePair:
    """compare_sentences() with the seeded layer's settings as one SelfAttnSettings (as
    attn selfattn --compare reads them), or `model`'s layer when options is None."""
    from attncli.results.pairs import SentencePair

    texts = _checked_texts(first, second)
    runs: list[tuple[SelfAttnResult, Pieces | None, tuple[str, ...] | None]] = []
    for text in texts:
        if model is not None:
            from dataclasses import replace

            from attncli.api.model import model_selfattn

            # the words and their pieces, to align by; the grids between words kept only
            # when asked for
            both = model_selfattn(text, model, layer=layer, head=head, words=True)
            assert both.words is not None and both.word_groups is not None
            pieces, said = [tuple(g) for g in both.word_groups], tuple(both.words)
            if not words:
                both = replace(both, words=None, word_groups=None, word_weights=None)
            runs.append((both, pieces, said))
        else:
            from attncli.api.selfattn import selfattn_inputs
            from attncli.layer import SelfAttnSettings
            from attncli.reading.parse.layer_inputs import LayerInputs

            seeded = selfattn_inputs(LayerInputs(), text, options or SelfAttnSettings())
            runs.append((seeded, None, None))
    for run, _pieces, _said in runs:
        if run.batch is not None or tuple(run.query_labels) != tuple(run.tokens):
            raise OptionError(
                _(
                    "{compare} compares one sentence's self-attention with another's; "
                    "leave out the context (cross-attention) and batches"
                ),
                compare=OnSurface("--compare", "compare_sentences()"),
            )
    alignment, difference = _aligned(runs, words, texts)
    heads = difference.reshape(-1, *difference.shape[-2:])
    largest = tuple(tuple(largest_cells(grid)) for grid in heads)
    shown_head = 0
    if model is None and head is not None:
        from attncli.api.model import check_head

        check_head(head, len(heads))
        shown_head = head - 1
    return SentencePair(first=runs[0][0], second=runs[1][0], sentences=texts, alignment=alignment,
                        difference=difference, largest=largest, words=words,
                        shown_head=shown_head)  # fmt: skip


@keywords(first=OWN_READER, second=OWN_READER, model=MODEL, shown_count=SHOWN)
def compare_heads(
    first: str | None,
    second: str | None,
    model: str,
    *,
    source: str | None = None,
    target: str | None = None,
    shown_count: int | None = 10,
    grid: bool = False,
) -> HeadsChange:
    """Every (layer, head) of `model` ranked by how much its weights change from the first
    sentence to the second, on the aligned tokens: by its largest change in any cell, or,
    with `source` and `target` (tokens of the first sentence), by the change of that cell
    (its aligned counterpart in the second). With `grid`, every head's |second − first|
    [L, h, n, n] is kept for the model view."""
    from attncli.api.model import _forward, _load
    from attncli.results.pairs import HeadChange, HeadsChange

    texts = _checked_texts(first, second)
    # the cell's row and column: the one given refused without the other
    other = TARGET if target is None else SOURCE
    refuse_without({Setting("source", source, "--from"): source,
                    Setting("target", target, "--to"): target}, other,
                   source is not None and target is not None,
                   _("and {other} name one cell together"), other=other)  # fmt: skip
    runs = []
    for text in texts:
        loaded, encoded = _load(text, model)
        forward = _forward(loaded, encoded, None)
        weights = np.stack([lay.attention.weights for lay in forward.layers])  # [L, h, T, T]
        runs.append((encoded, weights))
    (encoded_a, weights_a), (encoded_b, weights_b) = runs
    from attncli.core.alignment import align

    alignment = align(encoded_a.tokens, encoded_a.groups, encoded_b.tokens, encoded_b.groups,
                      encoded_a.words, encoded_b.words)  # fmt: skip
    difference = _difference(alignment, weights_a, weights_b, texts)  # [L, h, n, n]
    a, b = alignment.first, alignment.second
    cell = None
    if source is not None and target is not None:
        cell = (_counterpart(encoded_a.tokens, source, SOURCE, alignment),
                _counterpart(encoded_a.tokens, target, TARGET, alignment))  # fmt: skip
    changes = []
    layers, count = difference.shape[:2]
    for lay in range(layers):
        for h in range(count):
            grid_lh = difference[lay, h]
            if cell is not None:
                row, column = cell
            else:  # the cell that changed most (the first, when none changed)
                row, column = (largest_cells(grid_lh, 1) or [(0, 0)])[0]
            changes.append(HeadChange(
                layer=lay + 1, head=h + 1, change=float(grid_lh[row, column]), row=row,
                column=column, before=float(weights_a[lay, h, a[row], a[column]]),
                after=float(weights_b[lay, h, b[row], b[column]]),
                mean=float(np.abs(grid_lh).mean()),
            ))  # fmt: skip
    ranking = tuple(sorted(changes, key=lambda c: (-abs(c.change), c.layer, c.head)))
    return HeadsChange(
        model=model,
        model_type=loaded.model_type,
        sentences=texts,
        tokens=(tuple(encoded_a.tokens), tuple(encoded_b.tokens)),
        alignment=alignment,
        ranking=ranking,
        cell=cell,
        shown=shown_count,
        grid=np.abs(difference) if grid else None,
        difference=difference,
    )


def _counterpart(tokens: Sequence[str], token: str, option: Setting, alignment: Alignment) -> int:
    """The aligned index (a row of the difference) of the first sentence's `token`."""
    from attncli.api.model import _position

    position = _position(tuple(tokens), token, option)
    if position not in alignment.first:
        raise InputError(
            _(
                "{option} is not aligned with a token of the other sentence (its word is not "
                "in both, or has another number of pieces); name an aligned one"
            ),
            option=typed(option, shown(repr(token))),
            token=token,
        )
    return alignment.first.index(position)
