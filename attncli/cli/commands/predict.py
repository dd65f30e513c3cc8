"""attn predict: the next token of a causal language model, and its options."""

from typing import Annotated

from attncli.cli.commands import command
from attncli.cli.commands.heads import ModelOption, SentenceArgument
from attncli.cli.declare import Option
from attncli.messages import _
from attncli.present.output import Output

TopOption = Annotated[
    int,
    Option("--top", metavar="N", help=_("How many of the likeliest next tokens to show.")),
]
PredictTemperatureOption = Annotated[
    float,
    Option(
        "--temperature",
        "-t",
        help=_("Divide the logits by T before the softmax: T > 1 spreads, T < 1 sharpens."),
    ),
]
TopKOption = Annotated[
    int | None,
    Option(
        "--top-k",
        metavar="K",
        help=_("Keep only the K likeliest tokens, the others at −∞ (weight 0)."),
        show_default=False,
    ),
]
TopPOption = Annotated[
    float | None,
    Option(
        "--top-p",
        metavar="P",
        help=_("Keep the fewest likeliest tokens whose probabilities reach P (nucleus)."),
        show_default=False,
    ),
]
ByLayerOption = Annotated[
    bool,
    Option(
        "--by-layer",
        help=_(
            "The logit lens: each layer's last hidden state through the final LayerNorm and "
            "the head, its likeliest tokens."
        ),
    ),
]

ChatOption = Annotated[
    bool,
    Option(
        "--chat",
        help=_(
            "Put the sentence in the model's chat template as the user's turn, the "
            "assistant's turn opened: the prompt an instruct model answers."
        ),
    ),
]


@command(outputs=("steps", "digits"))
def predict(
    sentence: SentenceArgument = None,
    model: ModelOption = None,
    top: TopOption = 5,
    temperature: PredictTemperatureOption = 1.0,
    top_k: TopKOption = None,
    top_p: TopPOption = None,
    by_layer: ByLayerOption = False,
    chat: ChatOption = False,
    *,
    output: Output,
) -> None:
    """The next token: a causal language model's logits for it, and their softmax.

    The last token's hidden state through the final LayerNorm and the head (GPT-2's: its
    word embeddings transposed) gives a logit per token of the vocabulary; the softmax
    gives their probabilities. --temperature, --top-k and --top-p reshape the table a
    token is drawn from; --steps lays its softmax out as the lesson does.

    Example: attn predict "the keys of the car" --model gpt2 --top-k 3 --steps

    Example: attn predict "What is the capital of France?" --model SmolLM2-135M-Instruct --chat
    """
    from attncli.api.predict import predict as predicted
    from attncli.cli.commands.model_runs import need_model, sentence_given
    from attncli.present.output import emit

    model = need_model(model, "predict", _("asks a causal model such as GPT-2 for the next token"))
    result = predicted(sentence_given(sentence), model, top=top, temperature=temperature,
                       top_k=top_k, top_p=top_p, by_layer=by_layer, chat=chat)  # fmt: skip
    emit(result, output, result.steps() if output.steps else [])
