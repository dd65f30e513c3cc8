"""attn cost: what attention costs in a model, and its options, made from their one
declaration (api/cost.CostInputs): an option per field that takes a value, a flag per value
a flag sets; the model as the argument and --plot beside them."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from attncli.api.cost import DEFAULT_TOKENS, CostInputs
from attncli.cli.commands import command
from attncli.cli.declare import Argument, Option, chosen, declared_options
from attncli.layer import OPPOSITE
from attncli.messages import _
from attncli.present.output import Output

ModelArgument = Annotated[
    str | None,
    Argument(
        metavar=_("MODEL"),
        help=_(
            "A config.json, a model folder, a .gguf file, a model found by name on this "
            "machine, or one attn knows (llama-3.1-8b, llama-3.1-70b, llama-3.1-405b, "
            "mistral-7b-v0.1, gemma-2-9b, gemma-2-27b, gemma-3-27b, qwen2.5-7b, deepseek-v3, "
            "gpt-oss-120b); left out, the sizes are given as options."
        ),
        show_default=False,
    ),
]
CostPlotOption = Annotated[
    str | None,
    Option(
        "--plot",
        metavar=_("FILE"),
        writes=True,
        help=_(
            "Also draw the KV cache against the length, a line per design, to FILE (.png, "
            ".svg or .pdf); needs attncli[plot]."
        ),
    ),
]
# A field's type and default on the command line, where they are not the field's own: a
# text to read.
COMMAND_LINE_TYPES: dict[str, tuple[Any, Any]] = {
    "tokens": (str, DEFAULT_TOKENS),
    "designs": (str | None, None),
}
COST_OPTIONS = declared_options(CostInputs, COMMAND_LINE_TYPES)


def _parameters() -> list[inspect.Parameter]:
    """The command's parameters: the model, then a parameter per option of CostInputs (a
    flag's named for its flag), then --plot and the output options."""
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    made = [inspect.Parameter("model", keyword, default=None, annotation=ModelArgument)]
    made += [inspect.Parameter(name, keyword, default=option.default,
                               annotation=option.annotation)
             for name, option in COST_OPTIONS.items()]  # fmt: skip
    made.append(inspect.Parameter("plot", keyword, default=None, annotation=CostPlotOption))
    made.append(inspect.Parameter("output", inspect.Parameter.KEYWORD_ONLY))
    return made


@command("cost", outputs=("steps",))
def cost(*, output: Output, model: str | None = None, plot: str | None = None,
         **given: Any) -> None:  # fmt: skip
    """What attention costs in a model: the KV cache, the parameters and the FLOPs.

    For each length (--tokens 1k,8k,128k) and a batch of B sequences: the KV cache in
    numbers and in bytes at the cache's dtype, attention's parameters, and the FLOPs of a
    prefill and of one more token, the projections apart from Q Kᵀ and the weights × V.
    Multi-head, multi-query, grouped and latent attention (MLA), sliding windows per layer
    and learned sinks; --as gives the same model under other designs, --steps each formula
    with the model's numbers.

    Example: attn cost llama-3.1-70b --tokens 128k --cache-dtype bf16 --as mha,mla:512
    """
    from dataclasses import replace

    from attncli.api.cost import cost_of
    from attncli.present.output import emit

    inputs = CostInputs(**chosen(COST_OPTIONS, given, OPPOSITE))
    if plot is not None:
        from attncli.present.plot import check_plot_path

        check_plot_path(plot)
    result = cost_of(model, inputs)
    if plot is not None:
        from attncli.present.cost.plot import plot_cost

        plot_cost(plot, result, output.format())
    document = None
    if output.steps:  # the formulas: in the document with --json, else on the screen
        from attncli.present.cost.view import steps_document

        document = {**result.to_document(), "steps": steps_document(result)}
        shown = "json" if output.format_name == "json" else "table"
        output = replace(output, steps=False, format_name=shown,
                         show=output.show | {"steps"})  # fmt: skip
    emit(result, output, document=document)


cost.__signature__ = inspect.Signature(_parameters())  # type: ignore[attr-defined]
