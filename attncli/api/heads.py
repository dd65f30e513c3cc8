"""Every head of a model, or of the seeded layer, ranked by one weight (attn heads): the
weight from one token to another with its controls, a pattern's score (attn's rows, or
TransformerLens' mul and abs), the mean over several sentences, and every head's weights
for the model view. No I/O beyond reading the model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import MODEL, OWN_READER, SEED, SHOWN, Hinted, OneOf, keywords
from attncli.api.model import (
    MISSING_TOKEN,
    MISSING_WORD,
    SOURCE,
    TARGET,
    _forward,
    _position,
    example_for,
    model_sentence,
    seeded_settings,
    split_words,
)
from attncli.core.head_patterns import EXCLUSIONS, METRICS, PATTERN_NAMES
from attncli.errors import InputError, OptionError, ShapeError, shown
from attncli.messages import Message, OnSurface, Setting, _
from attncli.settings import Whole

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings
    from attncli.reading.models.model import Model
    from attncli.reading.models.tokens import Encoded
    from attncli.results.model import HeadsResult, HeadWeight


# a pattern given as a matrix: --pattern-file F on the command line, pattern_cells= in Python
CELLS = Setting("pattern_cells", option="--pattern-file")

# A head that puts at least this much weight, on average over its rows, on the token before,
# the first token ([CLS], <s>) or the last ([SEP], </s>) mostly does that, whatever is asked.
HABIT = 0.5


def _habit_means(weights: np.ndarray) -> dict[str, np.ndarray]:
    """Each head's mean weight over rows on the token before, the first and the last."""
    from attncli.core.transformer import head_pattern

    last = weights[..., :, -1].mean(axis=-1)  # [L, h]
    return {"previous": head_pattern(weights, "previous"),
            "first": head_pattern(weights, "first"), "last": last}  # fmt: skip


def _habits(means: dict[str, np.ndarray]) -> list[list[str]]:
    """Each head's habit: "previous", "first" or "last" when its mean weight there over the
    rows is at least HABIT (the strongest of them), else ""."""
    layers, count = next(iter(means.values())).shape
    habits = []
    for layer in range(layers):
        row = []
        for head in range(count):
            name, mean = max(((n, float(m[layer, head])) for n, m in means.items()),
                             key=lambda item: item[1])  # fmt: skip
            row.append(name if mean >= HABIT else "")
        habits.append(row)
    return habits


def _controls(grid: np.ndarray, start: int | None, end: int | None) -> dict[str, Any]:
    """For one head's T × T grid and a --from/--to cell: the strongest other key in the row,
    its weight, and the head's mean weight on the target's column over every row."""
    if start is None or end is None:
        return {}
    row = grid[start].copy()
    row[end] = -1.0
    rival = int(np.argmax(row))
    return {"rival": rival, "rival_weight": float(grid[start, rival]),
            "column_mean": float(grid[:, end].mean())}  # fmt: skip


def _texts(sentence: str | None, sentences: Sequence[str] | None, model: str | None) -> list[str]:
    """The sentences to rank over: the one given, or every one of `sentences`; none is
    refused with attn heads' own example, on the model named or the seeded layer."""
    if model is not None:
        example = example_for("heads", model)
    else:
        from attncli.reading.parse.samples import LESSON as lesson

        example = OnSurface(
            f'attn heads "{lesson}" --heads 4', f'attncli.heads("{lesson}", heads=4)'
        )
    if sentences is None:
        return [model_sentence(sentence, example)]
    from attncli.api.refusals import refuse_beside

    listed = OnSurface(Setting("sentences", metavar="FILE"), Setting("sentences", metavar="[…]"))
    refuse_beside({listed: sentence is not None},
                  OnSurface(Message(_("SENTENCE")), Setting("sentence", sentence)),
                  _("heads are ranked over one sentence or over a file of them; leave out "
                    "{option} or the sentence"))  # fmt: skip
    texts = [model_sentence(text, example) for text in sentences]
    if not texts:
        raise InputError(
            _("{sentences} has no sentences; {fix}"),
            sentences=Setting("sentences"),
            fix=OnSurface(Message(_("write one per line")), Message(_("give one or more"))),
        )
    return texts


@dataclass
class _Scored:
    """One sentence's run: its tokens, each head's score [L, h] and what the view needs."""

    encoded: Encoded | None  # the model's tokenizer's reading; None for the seeded layer
    tokens: tuple[str, ...]
    table: np.ndarray  # [L, h]
    habits: dict[str, np.ndarray]  # name -> [L, h]
    start: int | None = None
    end: int | None = None
    controls: list[list[dict[str, Any]]] = field(default_factory=list)
    weights: np.ndarray | None = None  # [L, h, T, T]
    sinks: np.ndarray | None = None  # [L, h]: each head's sink rate (None: one token)
    # why no head can look from start to end in any layer, when none can (_unseen)
    unseen: str | None = None


@dataclass(frozen=True)
class _Asked:
    """What attn heads ranks by: a cell (--from, --to) or a pattern and how it is scored."""

    source: str | None
    target: str | None
    pattern: str | None
    cells: Any  # a pattern given as a T × T matrix, else None
    metric: str
    exclude: tuple[str, ...]


def _scored(loaded: Model, text: str, asked: _Asked) -> _Scored:
    """One sentence through a model: every layer's heads scored as asked."""
    encoded = loaded.tokenizer.encode(text)
    # the weights stacked into one [L, h, T, T] array and each pattern's grids over them:
    # a peak of about 5 grids a head and layer (7.6 GB for 2 layers of 4 heads at T = 4,797,
    # 14.8 GB with 8 heads), not the forward pass's 2
    run = _forward(loaded, encoded, None, per_head=5, per_layer=1)
    weights = np.stack([layer.attention.weights for layer in run.layers])  # [L, h, T, T]
    scored = _scored_weights(
        text,
        tuple(encoded.tokens),
        encoded.ids,
        weights,
        loaded.architecture.causal,
        asked,
        encoded,
    )
    architecture = loaded.architecture
    masks = [architecture.allowed(layer, len(scored.tokens)) for layer in range(len(weights))]
    scored.unseen = _unseen(scored, masks, architecture.causal, any(architecture.windows))
    return scored


# settings of the seeded layer a ranking of its heads cannot take: another sentence's keys
# (context), a key and value of zeros beside the sentence's (add_zero_attn), and W given in
# a file (draw_missing draws the W a file left out)
NOT_RANKED = ("context", "add_zero_attn", "draw_missing")


def _seeded_ranks(options: SelfAttnSettings) -> None:
    """Refuse a seeded setting whose heads cannot be ranked over the sentence's tokens."""
    from attncli.api.refusals import refuse_beside

    given = {Setting(name): getattr(options, name) for name in NOT_RANKED}
    refuse_beside(given, OnSurface("attn heads", "heads()"),
                  _("the seeded layer's heads are ranked from the sentence's tokens to the "
                    "same tokens; leave out {option}"))  # fmt: skip


def _seeded_scored(text: str, options: SelfAttnSettings, asked: _Asked) -> _Scored:
    """One sentence through the seeded layer (attn selfattn's, with these settings): its
    heads scored as asked, as one layer; a token's id is the word itself."""
    from attncli.api.selfattn import selfattn_inputs
    from attncli.reading.parse.layer_inputs import LayerInputs

    result = selfattn_inputs(LayerInputs(), text, options)
    weights = np.asarray(result.weights, dtype=np.float64)
    weights = weights.reshape(1, -1, *weights.shape[-2:])  # [1, h, T, T]
    tokens = tuple(result.tokens)
    ids = np.array([tokens.index(token) for token in tokens])  # the same word, the same id
    causal = bool(result.causal)
    scored = _scored_weights(text, tokens, ids, weights, causal, asked, None)
    scored.unseen = _unseen(scored, [result.allowed], causal, options.window is not None)
    return scored


def _scored_weights(
    text: str,
    tokens: tuple[str, ...],
    ids: np.ndarray,
    weights: np.ndarray,
    causal: bool,
    asked: _Asked,
    encoded: Encoded | None,
) -> _Scored:
    """Every head of `weights` [L, h, T, T] scored as asked: a pattern's score, or the
    weight from one token to another with its controls, or nothing (the model view)."""
    from attncli.core.head_patterns import pattern_cells, pattern_score, scored_rows, sink_rates

    sinks = sink_rates(weights) if len(tokens) > 1 else None
    if asked.pattern is not None or asked.cells is not None:
        if asked.cells is not None:
            from attncli.reading.check.head_pattern import checked_pattern

            cells = checked_pattern(asked.cells, tokens, causal, "--pattern-file")
        else:
            assert asked.pattern is not None
            cells = pattern_cells(asked.pattern, ids)
        if not scored_rows(cells, asked.exclude).any():
            raise _no_cell(asked, text, tokens, seeded=encoded is None)
        table = pattern_score(weights, cells, asked.metric, asked.exclude)
        return _Scored(encoded, tokens, table, _habit_means(weights), weights=weights,
                       sinks=sinks)  # fmt: skip
    if asked.source is None or asked.target is None:  # the model view alone
        return _Scored(encoded, tokens, np.zeros(weights.shape[:2]), _habit_means(weights),
                       weights=weights, sinks=sinks)  # fmt: skip
    start = _position(tokens, asked.source, SOURCE, seeded=encoded is None)
    end = _position(tokens, asked.target, TARGET, seeded=encoded is None)
    controls = [[_controls(weights[lay, h], start, end) for h in range(weights.shape[1])]
                for lay in range(weights.shape[0])]  # fmt: skip
    return _Scored(encoded, tokens, weights[:, :, start, end], _habit_means(weights), start,
                   end, controls, weights, sinks)  # fmt: skip


def _unseen(
    run: _Scored, masks: Sequence[np.ndarray | None], causal: bool, windowed: bool
) -> str | None:
    """Why no head can look from --from to --to in any layer, when the layers' masks
    [T, T] (None: every key seen) all leave the cell out: "causal" (the target comes after
    the source), "window" (a sliding window leaves it out) or "masked" (the layer's mask,
    --valid-len); else None."""
    if run.start is None or run.end is None:
        return None
    if any(mask is None or mask[..., run.start, run.end].any() for mask in masks):
        return None
    if causal and run.end > run.start:
        return "causal"
    return "window" if windowed else "masked"


def _no_cell(asked: _Asked, text: str, tokens: tuple[str, ...], seeded: bool) -> InputError:
    """The refusal of a pattern with no cell to score in a sentence, saying why: duplicate
    and induction need a repeated token, --exclude took every cell, a pattern file marks
    none, or the sentence is too short for the pattern (previous in one token)."""
    exclude = OnSurface(Setting("exclude"), Setting("exclude", list(asked.exclude)))
    if asked.pattern in ("duplicate", "induction"):
        if seeded:  # the seeded layer has no vocabulary to draw from
            fix = Message(
                _("repeat a word, e.g. «{example}»"), example="el tren va lleno el tren va lleno"
            )
        else:
            fix = Message(
                _("{random} draws N tokens and repeats them"),
                random=OnSurface(
                    Setting("random", metavar="N"), "attncli.repeated_random(model, N)"
                ),
            )
        why = Message(_("duplicate and induction need a token that appears twice; {fix}"), fix=fix)
    elif asked.exclude:
        why = Message(_("it leaves nothing to score; exclude less"))
    elif asked.cells is not None:
        why = Message(_("the file marks none of its cells; give some a number above 0"))
    else:
        why = Message(_("the sentence is too short for it; give a longer one"))
    return InputError(
        _("{pattern} has no cell in «{sentence}» ({tokens}){left}: {why}"),
        pattern=CELLS if asked.pattern is None else Setting("pattern", asked.pattern),
        sentence=shown(text, 80),
        tokens=shown(" ".join(tokens), 120),
        left=Message(_(" once {exclude} is applied"), exclude=exclude) if asked.exclude else "",
        why=why,
    )


def _each(texts: list[str], score: Callable[[str], _Scored]) -> list[_Scored]:
    """Each sentence scored; of several, a refusal about the sentence itself (a word it
    lacks, its length, its size against a pattern) names the sentence."""
    from attncli.reading.check.head_pattern import PATTERN_SIZE
    from attncli.reading.models.tokens import NO_TOKENS, TOO_LONG

    about_a_sentence = {MISSING_WORD, MISSING_TOKEN, NO_TOKENS, TOO_LONG, PATTERN_SIZE}
    runs = []
    for number, text in enumerate(texts, 1):
        try:
            runs.append(score(text))
        except (InputError, ShapeError, OptionError) as error:
            if len(texts) == 1 or error.msgid not in about_a_sentence:
                raise
            raise type(error)(
                _("sentence {number} of {count} ({sentence}): {reason}"),
                number=number,
                count=len(texts),
                sentence=shown(text),
                reason=error.said,
            ) from None
    return runs


def _mean_controls(runs: list[_Scored], layer: int, head: int) -> dict[str, Any]:
    """A head's controls over several sentences: the strongest other key's weight and the
    target column's mean, each the mean over sentences (the key itself differs)."""
    if runs[0].start is None:
        return {}
    if len(runs) == 1:
        return runs[0].controls[layer][head]
    each = [run.controls[layer][head] for run in runs]
    return {"rival_weight": float(np.mean([c["rival_weight"] for c in each])),
            "column_mean": float(np.mean([c["column_mean"] for c in each]))}  # fmt: skip


def _asked(source: str | None, target: str | None, pattern: str | None, cells: Any,
           metric: str, exclude: Sequence[str], grid: bool = False) -> _Asked:  # fmt: skip
    """What to rank, checked: a cell or a pattern, never both, and a pattern's score only
    with a pattern (its name, the metric and the exclusions are known: heads' keywords)."""
    by_pattern = pattern is not None or cells is not None
    cell = source is not None or target is not None
    view_alone = grid and not by_pattern and not cell  # every head drawn, none ranked
    refused = (
        (pattern is not None and cells is not None,
         Message(_("{pattern} and {cells} each give a pattern; give one of them"),
                 pattern=Setting("pattern"), cells=CELLS)),
        (by_pattern and cell,
         Message(_("{pattern} and {source}/{target} each choose what to rank; give one of them"),
                 pattern=Setting("pattern"), source=SOURCE, target=TARGET)),
        (not view_alone and not by_pattern and (source is None or target is None),
         Message(_("say what to rank: {cell} (e.g. {example}), {pattern} or {cells}"),
                 cell=OnSurface("--from TOKEN --to TOKEN", "source=TOKEN, target=TOKEN"),
                 example=OnSurface("--from are --to keys", "source='are', target='keys'"),
                 pattern=Setting("pattern", metavar="|".join(PATTERN_NAMES)),
                 cells=OnSurface(Setting("pattern_cells", option="--pattern-file", metavar="F"),
                                 Setting("pattern_cells", metavar="[[…]]")))),
        (not by_pattern and (metric != "rows" or bool(exclude)),  # a cell, or nothing, asked
         Message(_("{option} scores a pattern; with {source}/{target} the score is the one "
                   "cell's weight"),
                 option=Setting("metric") if metric != "rows" else Setting("exclude"),
                 source=SOURCE, target=TARGET)),
    )  # fmt: skip
    for failed, message in refused:
        if failed:
            raise OptionError(message.msgid, **message.fields)
    ordered = tuple(name for name in EXCLUSIONS if name in exclude)
    return _Asked(source, target, pattern, cells, metric, ordered)


@keywords(sentence=OWN_READER, model=MODEL, shown_count=SHOWN, pattern=OneOf(PATTERN_NAMES),
          metric=OneOf(METRICS), exclude=OneOf(EXCLUSIONS))  # fmt: skip
def heads(
    sentence: str | None,
    model: str | None = None,
    *,
    source: str | None = None,
    target: str | None = None,
    pattern: str | None = None,
    pattern_cells: Any = None,
    metric: str = "rows",
    exclude: Sequence[str] = (),
    sentences: Sequence[str] | None = None,
    shown_count: int | None = 10,
    grid: bool = False,
    **layer_settings: Any,
) -> HeadsResult:
    """Every (layer, head) of a model ranked, highest first, by the weight from the token
    `source` to the token `target` (their first occurrences), or by how much it agrees with
    a pattern: "previous" (the token just before), "first" (the first token), "self" (the
    token itself), "duplicate" (earlier occurrences of the same token), "induction" (the
    token after an earlier occurrence), or `pattern_cells`, a T × T matrix of your own.

    A pattern is scored by `metric`: "rows" (attn's: the mean over the rows that have a
    cell of the row's weight on its cells), "mul" or "abs" (TransformerLens's detect_head),
    leaving out the first column and/or the diagonal with `exclude` ("first", "self").
    Without `model`, the heads of attncli.selfattn's seeded layer, its settings given as
    keywords as to selfattn (heads=4, seed=…, causal=True, …), as one layer.
    With `sentences` (instead of `sentence`), by the mean of that score over every sentence,
    each head's lowest beside it. With `grid`, every head's weights are kept for the model
    view (the first sentence's), and nothing need be ranked. Every head's sink rate, its
    mean weight on the first token over the rows after the first, is in `sink_rates`.

    >>> r = heads("the keys to the cabinet are on the table", "all-MiniLM-L6-v2",
    ...           source="are", target="keys")
    >>> [(h.layer, h.head, round(h.weight, 3)) for h in r.ranking[:2]]
    [(4, 2, 0.807), (6, 8, 0.385)]
    """
    from attncli.results.model import HeadsResult

    options = seeded_settings(heads, model, {}, **layer_settings)
    asked = _asked(source, target, pattern, pattern_cells, metric, exclude, grid)
    texts = _texts(sentence, sentences, model)
    runs, model_type, causal, windows, learned = _sentences_scored(texts, model, options, asked)
    ranking, habits, sinks = _ranked(runs, asked)
    ranked = asked.pattern is not None or asked.cells is not None or asked.source is not None
    first, several = runs[0], len(runs) > 1
    encoded = first.encoded if not several else None
    split, word_count = split_words(encoded) if encoded is not None else ((), 0)
    return HeadsResult(
        split_words=split,
        word_count=word_count,
        model="seeded" if model is None else model,
        model_type=model_type,
        sentence=texts[0],
        tokens=first.tokens,
        ranking=ranking,
        source=first.start,
        target=first.end,
        pattern=pattern if pattern_cells is None else "given",
        metric=asked.metric if ranked and asked.source is None else None,
        habits=habits,
        grid=first.weights if grid else None,
        exclude=asked.exclude,
        causal=causal,
        shown=shown_count,
        asked_from=source,
        asked_to=target,
        sentences=tuple(texts) if several or sentences is not None else None,
        sentence_tokens=tuple(run.tokens for run in runs),
        unseen=first.unseen,
        seeded_line=() if model is not None else tuple(options.command_line()),
        seeded=None if model is not None else tuple(options.given().items()),
        layer_windows=windows,
        sink_rates=sinks,
        learned_sinks=learned,
    )


def _sink_rates(runs: list[_Scored]) -> np.ndarray | None:
    """Each head's sink rate [L, h], the mean over the sentences; None when a sentence is
    one token long (no row after the first)."""
    rates = [run.sinks for run in runs if run.sinks is not None]
    return np.mean(rates, axis=0) if len(rates) == len(runs) else None


def _sentences_scored(
    texts: list[str], model: str | None, options: SelfAttnSettings, asked: _Asked
) -> tuple[list[_Scored], str, bool, tuple[int | None, ...], bool]:
    """Every head scored as asked on each sentence, through the model or, without one, the
    seeded layer's heads as one layer; with the model's type, whether it is causal, for
    a model whose layers see different windows (local and global layers) each layer's, and
    whether its softmax has learned sinks (gpt-oss)."""
    if model is None:  # the seeded layer's heads, as one layer
        _seeded_ranks(options)
        runs = _each(texts, lambda text: _seeded_scored(text, options, asked))
        return runs, "seeded", bool(options.causal), (), False
    from attncli.reading.models.model import load_model

    loaded = load_model(model)
    runs = _each(texts, lambda text: _scored(loaded, text, asked))
    architecture = loaded.architecture
    windows = tuple(architecture.window(layer) for layer in range(architecture.layers))
    mixed = windows if len(set(windows)) > 1 else ()
    return runs, loaded.model_type, architecture.causal, mixed, architecture.sinks


def _ranked(
    runs: list[_Scored], asked: _Asked
) -> tuple[tuple[HeadWeight, ...], tuple[tuple[str, ...], ...], np.ndarray | None]:
    """Every (layer, head) by its score, the mean over the sentences, highest first (none
    when nothing is asked to rank, as for the model view alone), each with its habit, its
    sink rate, its lowest and each sentence's score of several, and its controls; every
    head's habit and every head's sink rate [L, h]."""
    from attncli.results.model import HeadWeight

    tables = np.stack([run.table for run in runs])  # [S, L, h]
    table = tables.mean(axis=0)
    lowest = tables.min(axis=0)
    order = sorted(
        ((layer, head) for layer in range(table.shape[0]) for head in range(table.shape[1])),
        key=lambda lh: (-table[lh], lh),
    )
    means = {name: np.mean([run.habits[name] for run in runs], axis=0) for name in runs[0].habits}
    habits = _habits(means)  # [L, h]: what each head mostly does, or ""
    several = len(runs) > 1
    sinks = _sink_rates(runs)
    ranked = asked.pattern is not None or asked.cells is not None or asked.source is not None
    ranking = () if not ranked else tuple(
        HeadWeight(lay + 1, h + 1, float(table[lay, h]), habit=habits[lay][h] or None,
                   lowest=float(lowest[lay, h]) if several else None,
                   each=tuple(float(v) for v in tables[:, lay, h]) if several else None,
                   sink_rate=None if sinks is None else float(sinks[lay, h]),
                   **_mean_controls(runs, lay, h))
        for lay, h in order
    )  # fmt: skip
    return ranking, tuple(tuple(row) for row in habits), sinks


@keywords(model=MODEL, seed=SEED, count=Hinted(Whole(2, 200), option="--random"))
def repeated_random(model: str, count: int, seed: int = 0) -> str:
    """A sentence of `count` tokens drawn at random (seeded) from the model's vocabulary,
    then the same tokens again: the input on which an induction head shows itself (the
    second half can only be foreseen by looking back at the first). Only whole words that
    the tokenizer reads back as one token each are drawn."""
    from attncli.reading.models.model import load_model

    tokenizer = load_model(model).tokenizer
    bytes_level = tokenizer.pieces == "bytes"
    vocabulary = sorted(tokenizer.tokenizer.get_vocab().items(), key=lambda item: item[1])
    words = []
    for token, _id in vocabulary:
        word = token[1:] if bytes_level and token.startswith("Ġ") else token
        if (not bytes_level or token.startswith("Ġ")) and len(word) > 1 and word.isascii() \
                and word.isalpha() and word.islower():  # fmt: skip
            words.append(word)
    # a byte-level vocabulary reads a word after a space as another token than the word
    # alone (Ġword, word): every word is drawn, and read, after a space, so that the second
    # half repeats the first token for token
    space = " " if bytes_level else ""
    drawn: list[str] = []
    for index in np.random.default_rng(seed).permutation(len(words)):
        word = words[index]
        pieces = tokenizer.tokenizer.encode(space + word, add_special_tokens=False).ids
        if len(pieces) == 1:
            drawn.append(word)
            if len(drawn) == count:
                break
    if len(drawn) < count:
        raise InputError(
            _("{model}'s vocabulary has only {found} whole words to draw; ask {random}"),
            model=model,
            found=len(drawn),
            random=Setting("count", len(drawn), "--random"),
        )
    half = " ".join(drawn)
    sentence = f"{space}{half} {half}"
    positions = tokenizer.positions
    if 2 * count + 2 > positions:
        raise OptionError(
            _("{random} makes {total} tokens; {model} reads at most {positions}"),
            random=Setting("count", count, "--random"),
            total=2 * count + 2,
            model=model,
            positions=positions,
        )
    return sentence
