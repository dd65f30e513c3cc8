"""A pretrained model's attention as operations: a sentence and a model → the model's own
tokenizer and forward pass (reading/model, core/transformer) → a result. No I/O beyond
reading the model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.errors import InputError, OptionError, count, shown
from attncli.messages import Message, OnSurface, Setting, _, typed

if TYPE_CHECKING:
    from attncli.core.rotary import Scaling
    from attncli.core.selfattn import Attention
    from attncli.core.transformer import Architecture, ForwardRun
    from attncli.layer import SelfAttnSettings
    from attncli.reading.models.model import Model
    from attncli.reading.models.tokens import Encoded
    from attncli.results.model import ModelAttnResult, ModelSource


def model_sentence(sentence: str | None, example: OnSurface | None = None) -> str:
    """The sentence a model reads: a byte that was not UTF-8 (from a Latin-1 terminal) is
    U+FFFD, as for the seeded layer; none, or only spaces, control or zero-width characters
    (which the tokenizer drops, leaving [CLS] [SEP]), is refused with `example` (the
    command's own, else selfattn's)."""
    import unicodedata

    from attncli.reading.parse.sentence import sentence_text

    if sentence is not None:
        sentence = sentence_text(sentence, example=example or EXAMPLE)
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
    if value is not None:
        from attncli.results.rows import check_pick

        there = Message(_("the model has {total} {what}"), total=total, what=what)
        check_pick(Setting(name, value), value, total, there)


def seeded_settings(
    function: Callable[..., Any], model: str | None, picks: Mapping[str, Any], /, **given: Any
) -> SelfAttnSettings:
    """The seeded layer's settings, `given` as `function`'s keywords (their names checked);
    beside a pretrained `model`, which takes none of them, the first given is refused, and
    without one, `picks` given (what picks from a model: layer=, words=)."""
    from attncli.layer import settings_from_keywords

    refuse_model_mismatch(model, picks)
    settings = settings_from_keywords(function, **given)
    refuse_model_mismatch(model, {}, list(given))
    return settings


# what a pick from a model's layers needs, on the command line with an example
MODEL_NEEDED = OnSurface(Message(_("--model M (e.g. --model all-MiniLM-L6-v2)")),
                         Setting("model", metavar="M"))  # fmt: skip


def refuse_model_mismatch(
    model: object, picks: Mapping[str, Any], given: Sequence[Any] = ()
) -> None:
    """The one check of a pretrained model against the seeded layer, for every command and
    function that takes both: without a `model` (None), the first of `picks` given (layer=,
    head=, words=: what picks from a model's layers; --layer 2 on the command line) is
    refused; with one, which takes none of the seeded layer's inputs, settings or weights,
    the first of `given` (a keyword, or an option as the command line spelled it)."""
    if model is None:
        from attncli.api.refusals import refuse_without

        picked = {Setting(name, value): value for name, value in picks.items()}
        refuse_without(picked, MODEL_NEEDED, False, _("picks from a pretrained model's layers"))
    elif given:
        from attncli.layer import not_with_model

        raise not_with_model(given[0])


def check_head(head: int, heads: int) -> None:
    """`head` (1-based) one of a seeded or given layer's `heads` (1 for a layer without
    heads: head=2 of it is refused too, never ignored)."""
    from attncli.results.rows import check_pick

    there = Message(_("the layer has {heads}"), heads=count(heads, "head"))
    check_pick(Setting("head", head), head, heads, there)


# the special tokens a model's tokenizer adds: BERT's, RoBERTa's, Llama 2's and Mistral's,
# GPT-2's and Qwen2's, Llama 3's, Gemma's, gpt-oss', DeepSeek's
SPECIAL = ("[CLS]", "[SEP]", "<s>", "</s>", "<|endoftext|>", "<|begin_of_text|>", "<bos>",
           "<|startoftext|>", "<｜begin▁of▁sentence｜>")  # fmt: skip


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

    text = model_sentence(sentence, None if command is None else example_for(command, model))
    loaded = load_model(model)
    return loaded, loaded.tokenizer.encode(text)


def _forward(
    loaded: Model, encoded: Encoded, layers: int | None, per_head: int = 2, per_layer: int = 0
) -> ForwardRun:
    """The forward pass up to `layers`, refused first if it and what the command keeps after
    it (`per_head`, `per_layer`: check_forward_fits) would not fit in memory."""
    from threadpoolctl import threadpool_limits

    from attncli.core.transformer import forward

    _in_range(layers, loaded.architecture.layers, "layer", Message(_("layers")))
    check_forward_fits(loaded, len(encoded.ids), layers, per_head, per_layer)
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


def check_forward_fits(
    loaded: Model, tokens: int, layers: int | None, per_head: int = 2, per_layer: int = 0
) -> None:
    """Refuse a sentence whose forward pass would not fit in memory, before it starts: every
    layer run keeps `per_head` T × T grids a head (its scores and weights: 2) and
    `per_layer` more, and its T × d states (a model whose config allows 10^9 positions lets
    a 20,000-token sentence through to here). A command that works on the grids after the
    forward pass counts what it adds (attn heads, rollout: measured peaks below)."""
    from attncli.limits import check_fits

    arch = loaded.architecture
    count = arch.layers if layers is None else layers
    width = arch.d_model + arch.heads * arch.size_per_head

    def numbers(sizes: Mapping[str, int]) -> int:
        length = sizes["tokens"]
        grids = per_head * arch.heads + per_layer
        return count * (grids * length * length + 8 * length * width)

    try:
        check_fits(
            numbers,
            {"tokens": tokens},
            ("tokens",),
            Message(
                _("{model} on a sentence of {tokens} tokens"), model=loaded.name, tokens=tokens
            ),  # fmt: skip
            names={"tokens": Message(_("the number of tokens (a shorter sentence)"))},
        )
    except OptionError:
        # sizes from config.json (head_dim 10^9) that its weights do not have: the first
        # layer's own shapes say so, where a shorter sentence would not help
        if loaded.network.blocks:
            loaded.network.blocks[0]
        raise


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
    from attncli.core.transformer import merge_words
    from attncli.results.model import ModelAttnResult

    loaded, encoded = _load(sentence, model)
    chosen = loaded.architecture.layers if layer is None else layer
    run = _forward(loaded, encoded, chosen)
    total = loaded.architecture.heads
    _in_range(head, total, "head", Message(_("heads per layer")))
    layer_run = run.layers[chosen - 1]
    attention = layer_run.attention
    params = dict(loaded.network.blocks[chosen - 1].attention)
    if loaded.architecture.latent is not None:
        params = {}  # no W^K, W^V: the keys and values come from a latent (its header says)
    if head is not None:
        attention, params = _one_head(attention, params, head, total, loaded.architecture.kv_heads)
    groups = [list(group) for group in encoded.groups]
    merged = merge_words(attention.weights, groups) if words else None
    allowed = loaded.architecture.allowed(chosen - 1, len(encoded.ids))
    source = _source(model, loaded, encoded, chosen, head, attention, layer_run.attended, allowed)
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
        softcap=source.attn_softcap,  # its steps softcap and add sinks as the seeded layer's
        sinks=source.sinks,
    )


def _source(
    model: str,
    loaded: Model,
    encoded: Encoded,
    chosen: int,
    head: int | None,
    attention: Attention,
    attended: np.ndarray,
    allowed: np.ndarray | None,
) -> ModelSource:
    """What the layer `chosen` (1-based) of the model is, for its header, --steps and the
    replays: its place and sizes, its rotary angles on this sentence, and what its
    family's attention does besides (QK-norm, softcaps, sinks, a latent)."""
    from attncli.results.model import ModelSource

    arch = loaded.architecture
    # this sentence's: dynamic and longrope scale by its length
    theta = arch.rope_frequencies(len(encoded.ids), chosen - 1)
    return ModelSource(
        name=model,
        folder=loaded.folder,
        model_type=loaded.model_type,
        layer=chosen,
        layers=arch.layers,
        heads=arch.heads,
        head=head,
        ids=tuple(int(i) for i in encoded.ids),
        rope=_rope(loaded, chosen - 1),
        theta=None if theta is None else tuple(float(f) for f in theta),
        kv_heads=arch.kv_heads,
        head_dim=arch.size_per_head if arch.rms else None,
        attention_factor=arch.rope_attention_factor(chosen - 1) if arch.rms else 1.0,
        qk_norm=arch.qk_norm,
        attn_softcap=arch.attn_softcap,
        layer_types=_layer_types(arch),
        query_scalar=arch.query_scalar,
        sinks=_sinks(loaded, chosen - 1, head),
        latent=arch.latent,
        absorbed_gap=_absorbed_gap(loaded, attended, chosen - 1, allowed),
        other_rope=_other_rope(arch, chosen - 1),
        architecture=arch if arch.rms else None,
        block=loaded.network.blocks[chosen - 1] if arch.rms else None,
    )


def _one_head(
    attention: Attention, params: dict[str, np.ndarray], head: int, total: int, kv_heads: int | None
) -> tuple[Attention, dict[str, np.ndarray]]:
    """Head `head` (1-based) of a layer's `total` alone: its own queries, keys, values and
    weights, and its own columns of W^Q, W^K, W^V and their biases (a grouped-query head's
    shared key/value head's), without W^O."""
    from attncli.core.selfattn import Attention

    index = head - 1
    size = attention.queries.shape[-1]
    columns = slice(index * size, (index + 1) * size)
    # grouped-query heads: query head `index` reads key/value head index // group
    group = total // (kv_heads or total)
    shared = slice(index // group * size, (index // group + 1) * size)
    own = {
        name: (value[part] if value.ndim == 1 else value[:, part])
        for name, value in params.items()
        if name != "w_o" and name != "b_o"
        for part in [columns if name.endswith("q") else shared]
    }
    weights = attention.weights[index]
    alone = Attention(
        attention.queries[index],
        attention.keys[index],
        attention.values[index],
        attention.scores[index],
        weights,
        weights @ attention.values[index],
        divisor=attention.divisor,
    )
    return alone, own


def _absorbed_gap(
    loaded: Model, attended: np.ndarray, layer: int, allowed: np.ndarray | None
) -> float | None:
    """For a latent attention: the largest difference between its scores and the same
    scores with W^UK absorbed into the query (computed from the latent, the keys never
    expanded); None for any other attention."""
    arch = loaded.architecture
    if arch.latent is None:
        return None
    from attncli.core.latent import absorbed_scores
    from attncli.core.transformer import latent_run

    block = loaded.network.blocks[layer]
    run = latent_run(arch, block, attended, layer, allowed)
    seen = np.isfinite(run.scores)
    gap = np.abs(absorbed_scores(run, block.attention["w_kv_b"], arch.latent) - run.scores)
    return float(gap[seen].max())


def _sinks(loaded: Model, layer: int, head: int | None) -> tuple[float, ...] | None:
    """gpt-oss' learned sink logits of layer `layer` (0-based): every head's, or head
    `head`'s (1-based) alone."""
    sinks = loaded.network.blocks[layer].sinks
    if sinks is None:
        return None
    chosen = sinks if head is None else sinks[head - 1 : head]
    return tuple(float(value) for value in chosen)


def _other_rope(arch: Architecture, layer: int) -> tuple[float, Scaling | None] | None:
    """Gemma 3's other rotary settings: the full layers' beside a sliding one, and the
    reverse; None where every layer turns alike."""
    if arch.local_rope is None or not arch.rms:
        return None
    others = [i for i in range(arch.layers) if arch.rope(i) != arch.rope(layer)]
    return arch.rope(others[0]) if others else None


def _layer_types(arch: Architecture) -> tuple[str, ...]:
    """Each layer's sliding_attention or full_attention, when the model's layers differ."""
    kinds = tuple(arch.layer_kind(i) for i in range(arch.layers))
    return kinds if len(set(kinds)) > 1 else ()


def _rope(loaded: Model, layer: int = 0) -> tuple[float, Scaling | None] | None:
    """The rotary settings a Llama-family model turns q and k by in layer `layer`
    (0-based): its base and scaling."""
    arch = loaded.architecture
    return arch.rope(layer) if arch.rms else None


MISSING_WORD = _("{option} is not one of the sentence's words here: {known}")
MISSING_TOKEN = _("{option} is not one of the model's tokens here: {known}")


def _position(
    tokens: tuple[str, ...], token: str, option: Setting | str, seeded: bool = False
) -> int:
    """The position of `token`: its first exact occurrence, else the one token that matches
    without case or accents. The setting that gave it is named as the surface writes it
    (`--from 'kyes'`, `source='kyes'`); an option given as text is said as it is. `seeded`:
    the tokens are the seeded layer's words, not a model's pieces."""
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
    missing = MISSING_WORD if seeded else MISSING_TOKEN
    raise InputError(
        missing,
        option=f"{option} {quoted}" if isinstance(option, str) else typed(option, quoted),
        token=token,
        known=known,
    )
