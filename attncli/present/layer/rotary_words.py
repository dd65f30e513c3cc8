"""The words of rotary positions (--positions rope) on the layer's screen and in its
steps, in English and Spanish (merged into attncli.present.language.PHRASES)."""

from attncli.messages import _

ROTARY_PHRASES: dict[str, str] = {
    "rope": _("rotary positions (base {base}): q and k turned by their positions"),
    "rope_latent": _(
        "rotary positions (base {base}): each head's q^R and the one k^R turned by their positions"
    ),
    "rope_relative": _(
        "rotary: q of «{query}» at {i} and k of «{answer}» at {j} score {score}; both moved "
        "{shift} on, to {i_shifted} and {j_shifted}: {shifted}. Only the distance {i} − {j} "
        "counts"
    ),
    "rope_relative_part": _(
        "rotary part: {q} of «{query}» at {i} and {k} of «{answer}» at {j} give {q} · {k} ÷ "
        "{divisor} = {score}; both moved {shift} on, to {i_shifted} and {j_shifted}: "
        "{shifted}. Only the distance {i} − {j} counts"
    ),
    "rope_heading": _(
        "{vector} of «{token}» at position {position} (from 0), turned pair by pair: "
        "θ = {position} · {base}^(−2i/{d})"
    ),
    "rope_heading_scaled": _(
        "{vector} of «{token}» at position {position} (from 0), turned pair by pair: "
        "θ = {position} · the scaled θ_i above"
    ),
    "rope_heading_factor": _(
        "{vector} of «{token}» at position {position} (from 0), turned pair by pair: "
        "θ = {position} · the scaled θ_i above, cos θ and sin θ × {factor}"
    ),
    "rope_pair": _("pair"),
    "rope_before": _("(x, y)"),
    "rope_angle": _("θ (radians)"),
    "rope_exercise": _(
        "Rotary positions, θ = 90° a position: first turn the query (position {position}) and "
        "each key (key j at position j, from 0) by its θ; then score the turned ones."
    ),
    "rope_turns": _(
        "Turn each vector by its position · 90°: (x′, y′) = (x cos θ − y sin θ, x sin θ + y cos θ)"
    ),
    "rope_vector": _("vector"),
    "rope_position": _("position"),
    "rope_cos_sin": _("cos θ, sin θ"),
}
