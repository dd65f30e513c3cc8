"""A pretrained model's attention as operations: a sentence and a model → the model's own
tokenizer and forward pass (reading/model, core/transformer) → a result. No I/O beyond
reading the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.errors import InputError, OptionError, shown
from attncli.messages import Message, OnSurface, Setting, _, typed

if TYPE_CHECKING:
    from attncli.core.transformer import ForwardRun
    from attncli.reading.models.model import Model
    from attncli.reading.models.tokens import Encoded
    from attncli.results.model import HeadsResult, ModelAttnResult


def _sentence(sentence: str | None, example: OnSurface | None = None) -> str:
    """The sentence a model reads: a byte that was not UTF-8 (from a Latin-1 terminal) is
    U+FFFD, as for the seeded layer; none, or only spaces, control or zero-width characters
    (which the tokenizer drops, leaving [CLS] [SEP]), is refused with `example` (the
    command's own, else selfattn's)."""
    import unicodedata

    from attncli.reading.parse.json_text import valid_text

    if sentence is not None:
        sentence = valid_text(sentence)
    # a letter, digit, mark, punctuation or symbol: a category outside C (control, format) and Z
    if sentence is None or all(unicodedata.category(char)[0] in "CZ" for char in sentence):
        raise InputError(_("give a sentence, e.g. {example}"), example=example or EXAMPLE)
    return sentence


EXAMPLE = OnSurface(
    'attn selfattn "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2',
    "attncli.selfattn(\"the keys to the cabinet are on the table\", model='all-MiniLM-L6-v2')",
)


def example_for(command: str, model: str) -> OnSurface:
    """A sentence given to `command` (predict, rollout) with the model the user named: what
    the refusal of an empty sentence shows (selfattn's MiniLM is an encoder predict refuses)."""
    import shlex

    # a causal model predicts the word the sentence lacks
    sentence = "the keys to the cabinet are on the" + ("" if command == "predict" else " table")
    return OnSurface(
        f'attn {command} "{sentence}" --model {shlex.quote(model)}',
        f'attncli.{command}("{sentence}", model={model!r})',
    )


# the token a ranking is read from and to: --from and --to, source= and target=
SOURCE = Setting("source", option="--from")
TARGET = Setting("target", option="--to")


def _in_range(value: int | None, total: int, name: str, what: Message) -> None:
    """`value` (the setting `name`, 1-based) within the model's `total`: --layer 9 on the
    command line, layer=9 in Python."""
    if value is not None and not 1 <= value <= total:
        raise OptionError(
            _("{option} is out of range: the model has {total} {what} (1 to {total})"),
            option=Setting(name, value),
            value=value,
            total=total,
            what=what,
        )


# the special tokens a model's tokenizer adds: BERT's, RoBERTa's, Llama 2's and Mistral's,
# GPT-2's and Qwen2's, Llama 3's, Gemma's
SPECIAL = ("[CLS]", "[SEP]", "<s>", "</s>", "<|endoftext|>", "<|begin_of_text|>", "<bos>")


def split_words(encoded: Encoded) -> tuple[tuple[str, ...], int]:
    """The words the model's vocabulary lacks (split into two pieces or more), and how many
    words the sentence has, its special tokens left out."""
    words = [(word, group) for word, group in zip(encoded.words, encoded.groups, strict=True)
             if word not in SPECIAL]  # fmt: skip
    return tuple(word for word, group in words if len(group) > 1), len(words)


def _load(sentence: str | None, model: str, command: str | None = None) -> tuple[Model, Encoded]:
    """The model and the sentence through its tokenizer; `command` (predict, rollout) names
    the command whose example an empty sentence is refused with."""
    from attncli.reading.models.model import load_model

    text = _sentence(sentence, None if command is None else example_for(command, model))
    loaded = load_model(model)
    return loaded, loaded.tokenizer.encode(text)


def _forward(loaded: Model, encoded: Encoded, layers: int | None) -> ForwardRun:
    from threadpoolctl import threadpool_limits

    from attncli.core.transformer import forward

    _in_range(layers, loaded.architecture.layers, "layer", Message(_("layers")))
    # The layers' products are small (T × d by d × d): one BLAS thread is quicker than
    # several waiting on one another, above all on a busy machine.
    with np.errstate(all="ignore"), threadpool_limits(1, user_api="blas"):
        run = forward(loaded.network, encoded.ids, layers)
    for number, layer in enumerate(run.layers, start=1):
        if not np.isfinite(layer.output).all():
            raise InputError(
                _(
                    "layer {number} of {model} gave a number too large to hold (inf or NaN); "
                    "the weights may be corrupt"
                ),
                number=number,
                model=loaded.name,
            )
    return run


def model_selfattn(
    sentence: str | None,
    model: str,
    *,
    layer: int | None = None,
    head: int | None = None,
    words: bool = False,
) -> ModelAttnResult:
    """The attention of a pretrained model's layer `layer` (1-based; default the last) on a
    sentence, through the model's own tokenizer: every head, or head `head` (1-based) alone.
    With `words`, the word pieces are also merged into words (a word's row is the mean of its
    pieces' rows, its column the sum of its pieces' columns)."""
    from attncli.core.selfattn import Attention
    from attncli.core.transformer import merge_words
    from attncli.results.model import ModelAttnResult, ModelSource

    loaded, encoded = _load(sentence, model)
    chosen = loaded.architecture.layers if layer is None else layer
    run = _forward(loaded, encoded, chosen)
    total = loaded.architecture.heads
    _in_range(head, total, "head", Message(_("heads per layer")))
    layer_run = run.layers[chosen - 1]
    attention = layer_run.attention
    params = dict(loaded.network.blocks[chosen - 1].attention)
    if head is not None:
        index = head - 1
        size = attention.queries.shape[-1]
        columns = slice(index * size, (index + 1) * size)
        # grouped-query heads: query head `index` reads key/value head index // group
        group = total // (loaded.architecture.kv_heads or total)
        shared = slice(index // group * size, (index // group + 1) * size)
        params = {
            name: (value[part] if value.ndim == 1 else value[:, part])
            for name, value in params.items()
            if name != "w_o" and name != "b_o"
            for part in [columns if name.endswith("q") else shared]
        }
        weights = attention.weights[index]
        attention = Attention(
            attention.queries[index],
            attention.keys[index],
            attention.values[index],
            attention.scores[index],
            weights,
            weights @ attention.values[index],
            divisor=attention.divisor,
        )
    groups = [list(group) for group in encoded.groups]
    merged = merge_words(attention.weights, groups) if words else None
    allowed = loaded.architecture.allowed(chosen - 1, len(encoded.ids))
    theta = loaded.architecture.rope_frequencies()
    source = ModelSource(
        name=model,
        folder=loaded.folder,
        model_type=loaded.model_type,
        layer=chosen,
        layers=loaded.architecture.layers,
        heads=total,
        head=head,
        ids=tuple(int(i) for i in encoded.ids),
        rope=_rope(loaded),
        theta=None if theta is None else tuple(float(f) for f in theta),
    )
    split, word_count = split_words(encoded)
    return ModelAttnResult(
        split_words=split,
        word_count=word_count,
        query_labels=encoded.tokens,
        tokens=encoded.tokens,
        x=layer_run.attended,
        projections=params,
        drawn=(),
        attention=attention,
        heads=None if head is not None else total,
        scale=True,
        divisor=attention.divisor,
        causal=loaded.architecture.causal,
        norm=None,
        seed=0,
        allowed=allowed,
        source=source,
        words=encoded.words if words else None,
        word_groups=encoded.groups if words else None,
        word_weights=merged,
        window=loaded.architecture.window(chosen - 1),
        kv_heads=loaded.architecture.kv_heads if head is None else None,
    )


def _rope(loaded: Model) -> tuple[float, str, float] | None:
    """The rotary settings a Llama-family model turns q and k by, for its header."""
    arch = loaded.architecture
    if not arch.rms:
        return None
    from attncli.core.rotary import BASE

    scaling = arch.rope_scaling
    base = BASE if arch.rope_base is None else arch.rope_base
    return (base, "default", 1.0) if scaling is None else (base, scaling.kind, scaling.factor)


def _position(tokens: tuple[str, ...], token: str, option: Setting | str) -> int:
    """The position of `token`: its first exact occurrence, else the one token that matches
    without case or accents. The setting that gave it is named as the surface writes it
    (`--from 'kyes'`, `source='kyes'`); an option given as text is said as it is."""
    import unicodedata

    def folded(text: str) -> str:
        decomposed = unicodedata.normalize("NFD", text.casefold())
        return "".join(char for char in decomposed if not unicodedata.combining(char))

    exact = unicodedata.normalize("NFC", token)
    normal = [unicodedata.normalize("NFC", t) for t in tokens]
    if exact in normal:
        return normal.index(exact)
    loose = [i for i, t in enumerate(tokens) if folded(t) == folded(token)]
    if loose:
        return loose[0]
    known = shown(", ".join(tokens), 200)
    quoted = shown(repr(token))
    raise InputError(
        _("{option} is not one of the model's tokens here: {known}"),
        option=f"{option} {quoted}" if isinstance(option, str) else typed(option, quoted),
        token=token,
        known=known,
    )


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


def _texts(sentence: str | None, sentences: Sequence[str] | None) -> list[str]:
    """The sentences to rank over: the one given, or every one of `sentences`."""
    if sentences is None:
        return [_sentence(sentence)]
    if sentence is not None:
        raise OptionError(
            _("give a sentence or {sentences}, not both: the ranking is over one of them"),
            sentences=OnSurface(
                Setting("sentences", metavar="FILE"), Setting("sentences", metavar="[…]")
            ),
        )
    texts = [_sentence(text) for text in sentences]
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

    encoded: Encoded
    table: np.ndarray  # [L, h]
    habits: dict[str, np.ndarray]  # name -> [L, h]
    start: int | None = None
    end: int | None = None
    controls: list[list[dict[str, Any]]] = field(default_factory=list)
    weights: np.ndarray | None = None  # [L, h, T, T]


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
    from attncli.core.head_patterns import pattern_cells, pattern_score, scored_rows

    encoded = loaded.tokenizer.encode(text)
    run = _forward(loaded, encoded, None)
    weights = np.stack([layer.attention.weights for layer in run.layers])  # [L, h, T, T]
    tokens = encoded.tokens
    if asked.pattern is not None or asked.cells is not None:
        if asked.cells is not None:
            from attncli.reading.check.head_pattern import checked_pattern

            cells = checked_pattern(asked.cells, tokens, loaded.architecture.causal,
                                    "--pattern-file")  # fmt: skip
        else:
            assert asked.pattern is not None
            cells = pattern_cells(asked.pattern, encoded.ids)
        if not scored_rows(cells, asked.exclude).any():
            exclude = OnSurface(Setting("exclude"), Setting("exclude", list(asked.exclude)))
            raise InputError(
                _(
                    "{pattern} has no cell in «{sentence}» ({tokens}){left}: duplicate and "
                    "induction need a token that appears twice; {random} draws N tokens and "
                    "repeats them"
                ),
                pattern=CELLS if asked.pattern is None else Setting("pattern", asked.pattern),
                sentence=shown(text, 80),
                tokens=shown(" ".join(tokens), 120),
                left=Message(_(" once {exclude} is applied"), exclude=exclude)
                if asked.exclude
                else "",
                random=OnSurface(
                    Setting("random", metavar="N"), "attncli.repeated_random(model, N)"
                ),
            )
        table = pattern_score(weights, cells, asked.metric, asked.exclude)
        return _Scored(encoded, table, _habit_means(weights), weights=weights)
    if asked.source is None or asked.target is None:  # the model view alone
        return _Scored(encoded, np.zeros(weights.shape[:2]), _habit_means(weights),
                       weights=weights)  # fmt: skip
    start = _position(tokens, asked.source, SOURCE)
    end = _position(tokens, asked.target, TARGET)
    controls = [[_controls(weights[lay, h], start, end) for h in range(weights.shape[1])]
                for lay in range(weights.shape[0])]  # fmt: skip
    return _Scored(encoded, weights[:, :, start, end], _habit_means(weights), start, end,
                   controls, weights)  # fmt: skip


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
    """What to rank, checked: a cell or a pattern, a known metric and exclusions."""
    from attncli.core.head_patterns import EXCLUSIONS, METRICS, PATTERN_NAMES

    by_pattern = pattern is not None or cells is not None
    if pattern is not None and cells is not None:
        raise OptionError(
            _("{pattern} and {cells} each give a pattern; give one of them"),
            pattern=Setting("pattern"),
            cells=CELLS,
        )
    if by_pattern and (source is not None or target is not None):
        raise OptionError(
            _("{pattern} and {source}/{target} each choose what to rank; give one of them"),
            pattern=Setting("pattern"),
            source=SOURCE,
            target=TARGET,
        )
    if grid and not by_pattern and source is None and target is None:
        pass  # the model view alone: every head drawn, none ranked
    elif not by_pattern and (source is None or target is None):
        raise OptionError(
            _("say what to rank: {cell} (e.g. {example}), {pattern} or {cells}"),
            cell=OnSurface("--from TOKEN --to TOKEN", "source=TOKEN, target=TOKEN"),
            example=OnSurface("--from are --to keys", "source='are', target='keys'"),
            pattern=Setting("pattern", metavar="|".join(PATTERN_NAMES)),
            cells=OnSurface(
                Setting("pattern_cells", option="--pattern-file", metavar="F"),
                Setting("pattern_cells", metavar="[[…]]"),
            ),
        )
    if pattern is not None and pattern not in PATTERN_NAMES:
        raise OptionError(
            _("{pattern} is not known; one of {known}"),
            pattern=typed(Setting("pattern"), shown(repr(pattern))),
            known=", ".join(PATTERN_NAMES),
        )
    if metric not in METRICS:
        raise OptionError(
            _("{metric} is not known; one of {known}"),
            metric=typed(Setting("metric"), shown(repr(metric))),
            known=", ".join(METRICS),
        )
    unknown = [name for name in exclude if name not in EXCLUSIONS]
    if unknown:
        raise OptionError(
            _("{name} is not known; first, self or both ({both})"),
            name=OnSurface(
                f"--exclude {shown(repr(unknown[0]))}", f"exclude=[{shown(repr(unknown[0]))}]"
            ),  # fmt: skip
            both=OnSurface("first,self", "['first', 'self']"),
            unknown=unknown[0],
        )
    if not by_pattern and (metric != "rows" or exclude):  # a cell, or nothing, is asked
        raise OptionError(
            _("{option} scores a pattern; with {source}/{target} the score is the one cell's "
              "weight"),
            option=Setting("metric") if metric != "rows" else Setting("exclude"),
            source=SOURCE,
            target=TARGET,
        )  # fmt: skip
    ordered = tuple(name for name in EXCLUSIONS if name in exclude)
    return _Asked(source, target, pattern, cells, metric, ordered)


def heads(
    sentence: str | None,
    model: str,
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
) -> HeadsResult:
    """Every (layer, head) of a model ranked, highest first, by the weight from the token
    `source` to the token `target` (their first occurrences), or by how much it agrees with
    a pattern: "previous" (the token just before), "first" (the first token), "self" (the
    token itself), "duplicate" (earlier occurrences of the same token), "induction" (the
    token after an earlier occurrence), or `pattern_cells`, a T × T matrix of your own.

    A pattern is scored by `metric`: "rows" (attn's: the mean over the rows that have a
    cell of the row's weight on its cells), "mul" or "abs" (TransformerLens's detect_head),
    leaving out the first column and/or the diagonal with `exclude` ("first", "self").
    With `sentences` (instead of `sentence`), by the mean of that score over every sentence,
    each head's lowest beside it. With `grid`, every head's weights are kept for the model
    view (the first sentence's), and nothing need be ranked.

    >>> r = heads("the keys to the cabinet are on the table", "all-MiniLM-L6-v2",
    ...           source="are", target="keys")
    >>> [(h.layer, h.head, round(h.weight, 3)) for h in r.ranking[:2]]
    [(4, 2, 0.807), (6, 8, 0.385)]
    """
    from attncli.reading.models.model import load_model
    from attncli.results.model import HeadsResult, HeadWeight

    asked = _asked(source, target, pattern, pattern_cells, metric, exclude, grid)
    texts = _texts(sentence, sentences)
    loaded = load_model(model)
    runs = [_scored(loaded, text, asked) for text in texts]
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
    ranked = asked.pattern is not None or asked.cells is not None or asked.source is not None
    ranking = () if not ranked else tuple(
        HeadWeight(lay + 1, h + 1, float(table[lay, h]), habit=habits[lay][h] or None,
                   lowest=float(lowest[lay, h]) if several else None,
                   each=tuple(float(v) for v in tables[:, lay, h]) if several else None,
                   **_mean_controls(runs, lay, h))
        for lay, h in order
    )  # fmt: skip
    first = runs[0]
    split, word_count = split_words(first.encoded) if not several else ((), 0)
    return HeadsResult(
        split_words=split,
        word_count=word_count,
        model=model,
        model_type=loaded.model_type,
        sentence=texts[0],
        tokens=first.encoded.tokens,
        ranking=ranking,
        source=first.start,
        target=first.end,
        pattern=pattern if pattern_cells is None else "given",
        metric=asked.metric if ranked and asked.source is None else None,
        habits=tuple(tuple(row) for row in habits),
        grid=runs[0].weights if grid else None,
        exclude=asked.exclude,
        causal=loaded.architecture.causal,
        shown=shown_count,
        asked_from=source,
        asked_to=target,
        sentences=tuple(texts) if several or sentences is not None else None,
        sentence_tokens=tuple(run.encoded.tokens for run in runs),
    )


def repeated_random(model: str, count: int, seed: int = 0) -> str:
    """A sentence of `count` tokens drawn at random (seeded) from the model's vocabulary,
    then the same tokens again: the input on which an induction head shows itself (the
    second half can only be foreseen by looking back at the first). Only whole words that
    the tokenizer reads back as one token each are drawn."""
    from attncli.reading.models.model import load_model

    if not 2 <= count <= 200:
        raise OptionError(
            _("{random}: draw 2 to 200 tokens"), random=Setting("count", count, "--random")
        )
    tokenizer = load_model(model).tokenizer
    bytes_level = tokenizer.pieces == "bytes"
    vocabulary = sorted(tokenizer.tokenizer.get_vocab().items(), key=lambda item: item[1])
    words = []
    for token, _id in vocabulary:
        word = token[1:] if bytes_level and token.startswith("Ġ") else token
        if (not bytes_level or token.startswith("Ġ")) and len(word) > 1 and word.isascii() \
                and word.isalpha() and word.islower():  # fmt: skip
            words.append(word)
    drawn: list[str] = []
    for index in np.random.default_rng(seed).permutation(len(words)):
        word = words[index]
        pieces = tokenizer.tokenizer.encode(word, add_special_tokens=False).ids
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
    sentence = f"{half} {half}"
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
