"""attn rollout: a pretrained model's attention rolled out over its layers, and its options."""

from typing import Annotated

from attncli.cli.commands import command
from attncli.cli.commands.heads import ModelOption, SentenceArgument
from attncli.cli.declare import Option
from attncli.messages import Message, _
from attncli.present.output import Output

LayerOption = Annotated[
    int | None,
    Option(
        "--layer",
        metavar="L",
        help=_("Roll out the layers 1 to L. [default: the last]"),
        show_default=False,
    ),
]
ToOption = Annotated[
    str | None,
    Option(
        "--to",
        metavar="TOKEN",
        help=_("With --steps: the cell's column, this token's. [default: the row's largest]"),
        show_default=False,
    ),
]


@command(outputs=("steps", "row", "token", "digits"))
def rollout(
    sentence: SentenceArgument = None,
    model: ModelOption = None,
    layer: LayerOption = None,
    to: ToOption = None,
    *,
    output: Output,
) -> None:
    """Attention rollout: how much each token draws on each input token across the layers.

    Abnar & Zuidema (2020): each layer's weights are averaged over its heads, the residual
    connection is added as 0.5 A + 0.5 I (each row renormalised), and the layers are
    multiplied from the first up, so each row of the result still sums to 1. --steps
    writes out one cell of the last two layers' product (--token or --row picks the row,
    --to the column). As JSON: the rollout, each layer's mixed weights and every product.

    Example: attn rollout "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2

    Example: attn rollout "the keys to the cabinet are on the table" --model all-MiniLM-L6-v2
    --steps --token are --to keys
    """
    from dataclasses import replace

    from attncli.api.rollout import rollout as rolled
    from attncli.cli.commands.model_runs import need_model, sentence_given
    from attncli.present.output import emit

    model = need_model(model, "rollout",
                       _("combines a model's layers, and the seeded layer is one"),
                       Message(_("--model M (e.g. --model all-MiniLM-L6-v2)")))  # fmt: skip
    from attncli.cli.options import refuse_unexplained_row

    refuse_unexplained_row(output)
    result = rolled(
        sentence_given(sentence),
        model,
        layer=layer,
        cell=output.steps,
        row=output.row,
        token=output.token,
        to=to,
    )
    # the cell is part of the result: its screen shows it, its JSON holds it
    emit(result, replace(output, steps=False))
