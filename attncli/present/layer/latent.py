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
    """The token's c_KV, k and v (and k^R, q^R), the absorbed query, then per key: q · k ÷
    divisor, (q W^UKᵀ) · c_KV ÷ divisor (with a rotary key, its two parts before the
    division) and the difference; the cache a token below."""
    row, head, rope = safe_label(steps.query_label), steps.head, steps.rope
    divisor = fmt.number(steps.divisor, 2)
    vectors = _table()
    vectors.add_column("")
    vectors.add_column(fmt.say("latent_numbers"))
    named = [(fmt.say("latent_c", rank=steps.rank), steps.latent),
             (fmt.say("latent_k_content" if rope else "latent_k", head=head), steps.key),
             (fmt.say("latent_v", head=head), steps.value),
             (fmt.say("latent_q_content" if rope else "latent_q", head=head),
              steps.absorbed_query)]  # fmt: skip
    if steps.rotary_key is not None and steps.rotary_query is not None:
        named[2:2] = [(fmt.say("latent_k_rotary"), steps.rotary_key)]
        named.append((fmt.say("latent_q_rotary", head=head), steps.rotary_query))
    for name, values in named:
        vectors.add_row(name, fmt.computed(fmt.vector(values)))
    scores = _table()
    scores.add_column(fmt.say("token"))
    scores.add_column(f"q · k ÷ {divisor}", justify="right")
    if rope:
        scores.add_column("(q^C W^UKᵀ) · c_KV", justify="right")
        scores.add_column("q^R · k^R", justify="right")
        scores.add_column(f"(… + …) ÷ {divisor}", justify="right")
    else:
        scores.add_column(f"(q W^UKᵀ) · c_KV ÷ {divisor}", justify="right")
    scores.add_column(fmt.say("latent_difference"), justify="right")
    for one in steps.rows:
        masked = one.plain == float("-inf")
        parts = [] if not rope else [
            "" if part is None else fmt.computed(fmt.number(part))
            for part in (one.content, one.position)
        ]  # fmt: skip
        scores.add_row(
            safe_label(one.token),
            fmt.number(one.plain),
            *parts,
            fmt.computed(fmt.number(one.absorbed)),
            "" if masked else fmt.computed(fmt.scientific(one.difference)),
        )
    cache = (
        fmt.say("latent_cache_rotary", rank=steps.rank, rope=rope, heads=steps.cache_heads)
        if rope
        else fmt.say("latent_cache", rank=steps.rank, heads=steps.cache_heads)
    )
    return Group(
        _titled(fmt.say("latent_heading", row=row, head=head, rank=steps.rank), vectors),
        _titled(fmt.say("latent_scores_heading", row=row, head=head), scores, [cache]),
        Text(""),
    )
