"""Multi-head latent attention on screen (--steps with --latent-rank): the row's token
pressed into c_KV, its key and value read back, and the row's scores from the keys and in
the absorbed form, side by side with their difference."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from attncli.present.render import _table, _titled, safe_label

if TYPE_CHECKING:
    from attncli.explain.latent import LatentSteps
    from attncli.present.format import Format


def latent_table(steps: LatentSteps, fmt: Format) -> RenderableType:
    """The token's c_KV, k and v, the absorbed query, then per key: q · k ÷ divisor,
    (q W^UKᵀ) · c_KV ÷ divisor and the difference; the cache a token below."""
    row, head = safe_label(steps.query_label), steps.head
    divisor = fmt.number(steps.divisor, 2)
    vectors = _table()
    vectors.add_column("")
    vectors.add_column(fmt.say("latent_numbers"))
    for name, values in (
        (fmt.say("latent_c", rank=steps.rank), steps.latent),
        (fmt.say("latent_k", head=head), steps.key),
        (fmt.say("latent_v", head=head), steps.value),
        (fmt.say("latent_q", head=head), steps.absorbed_query),
    ):
        vectors.add_row(name, fmt.computed(fmt.vector(values)))
    scores = _table()
    scores.add_column(fmt.say("token"))
    scores.add_column(f"q · k ÷ {divisor}", justify="right")
    scores.add_column(f"(q W^UKᵀ) · c_KV ÷ {divisor}", justify="right")
    scores.add_column(fmt.say("latent_difference"), justify="right")
    for one in steps.rows:
        masked = one.plain == float("-inf")
        scores.add_row(
            safe_label(one.token),
            fmt.number(one.plain),
            fmt.computed(fmt.number(one.absorbed)),
            "" if masked else fmt.computed(fmt.scientific(one.difference)),
        )
    cache = fmt.say("latent_cache", rank=steps.rank, heads=steps.cache_heads)
    return Group(
        _titled(fmt.say("latent_heading", row=row, head=head, rank=steps.rank), vectors),
        _titled(fmt.say("latent_scores_heading", row=row, head=head), scores, [cache]),
        Text(""),
    )
