"""--compare "other sentence": attn selfattn's and attn heads' runs on two sentences, the
second beside the first, their difference on the tokens that line up (api/pairs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

from attncli.api.refusals import given_names, refuse_beside
from attncli.cli.declare import Option
from attncli.messages import _
from attncli.present.output import Output

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings

CompareOption = Annotated[
    str | None,
    Option(
        "--compare",
        metavar=_("SENTENCE"),
        help=_(
            "A second sentence run through the same layer: both grids, aligned word by word "
            "where the words line up, and their difference (second − first) with its "
            "largest changes marked. E.g. --compare 'las llaves del coche están ahí'"
        ),
    ),
]


def _refuse(given: list[str]) -> None:
    """The first of `given` (the options that show or explain one run) refused."""
    refuse_beside(dict.fromkeys(given, True), "--compare",
                  _("it runs the layer on two sentences and shows both grids and their "
                    "difference; drop {option}"))  # fmt: skip


def compare_selfattn(
    sentence: str | None,
    other: str,
    layer_settings: SelfAttnSettings,
    model: str | None,
    layer: int | None,
    head: int | None,
    words: bool,
    given: Mapping[str, object],
    seeded: list[str],
    output: Output,
) -> None:
    """attn selfattn SENTENCE --compare OTHER: the seeded layer with its settings, or the
    model's layer; the options that show or explain one run are refused."""
    from attncli.api.pairs import sentence_pair
    from attncli.cli.commands.model_runs import refuse_model_picks, refuse_seeded, sentence_given
    from attncli.present.output import emit

    refused = given_names(given)
    if output.steps:
        refused.append("--steps")
    if output.show:
        refused.append("--show")
    refused += [name for name, value in (("--row", output.row), ("--token", output.token))
                if value is not None]  # fmt: skip
    _refuse(refused)
    if model is not None:
        refuse_seeded(seeded)
        result = sentence_pair(sentence_given(sentence), other, None, model=model, layer=layer,
                               head=head, words=words)  # fmt: skip
        from attncli.cli.commands.model_runs import warn_if_foreign

        warn_if_foreign(result.first, output.lang)  # type: ignore[arg-type]
    else:
        refuse_model_picks(layer, words)
        result = sentence_pair(sentence_given(sentence), other, layer_settings, head=head)
    emit(result, output)


def compare_heads(
    sentence: str | None,
    other: str,
    model: str,
    source: str | None,
    target: str | None,
    given: Mapping[str, object],
    shown_count: int | None,
    grid: bool,
    output: Output,
) -> None:
    """attn heads SENTENCE --compare OTHER --model M: every head ranked by its change."""
    from attncli.api.pairs import compare_heads as ranked
    from attncli.cli.commands.model_runs import sentence_given
    from attncli.present.output import emit

    _refuse([name for name in given_names(given) if given[name] != "rows"])
    result = ranked(sentence_given(sentence), other, model, source=source, target=target,
                    shown_count=shown_count, grid=grid)  # fmt: skip
    if grid:
        from attncli.cli.commands.model_runs import drawn_for_print
        from attncli.present.pairs.view import drawn_change_export

        output = drawn_for_print(result, output, drawn_change_export)
    emit(result, output)
