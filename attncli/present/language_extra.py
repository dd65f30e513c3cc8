"""Phrases few screens need (compare-scores' progress, the plot's axes, attn samples, a
grid's note on tiny numbers or on its cursor, worksheets' extras), English and Spanish;
present/language.py joins them to its table."""

from attncli.messages import _

EXTRA_PHRASES: dict[str, str] = {
    # compare-scores progress, on stderr
    "progress_timing": _("timing {method}"),
    "progress_loop": _("scoring {method} pair by pair"),
    "progress_sweep": _("scaling sweep"),
    # plot
    "plot_columns": _("who answers (key)"),
    "plot_rows": _("who asks (query)"),
    # a grid with a cursor (attn explore)
    "elided_cursor": _(
        "{mark} showing {rows} of {all_rows} rows and {columns} of {all_columns} columns; "
        "the cursor brings the others into sight"
    ),
    "sample_name": _("Sample"),
    "sample_holds": _("What it holds"),
    "sample_try": _("Try"),
    "samples_where": _("Installed in {folder}; -i NAME reads one from any folder"),
    "legend_flat": _("one shade: every weight is {weight} to the digits shown"),
    "scientific": _(
        "every number here rounds to 0 at {digits} decimals, so they are written as {example}"
    ),
    "sheet": _("Sheet {number} of {count} · seed {seed}"),
    # attn exercise --method, --selfattn
    "exercise_given": _("Given:"),
    "selfattn_exercise_intro": _(
        "Self-attention over {count} tokens, each with its x. Work out every token's q, k "
        "and v, then the scores (÷ √d_k), weights and output of «{token}»."
    ),
    "projections_given": _("W^Q, W^K and W^V, a row for each number of x"),
    "projection_steps": _("Queries, keys and values: each row of X times W^Q, W^K and W^V"),
    "times_general": _("× general"),
    "peak_mean": _("Largest weight of a row at init"),
    "peak_range": _("  rows' range; uniform {uniform}"),
    "draw_unscaled": _("one row, unscaled"),
    "draw_scaled": _("one row, ÷ √d_k"),
    "draw_note": _(
        "The average over many rows is what ÷√d_k guarantees (flat); one seeded row, as one "
        "run of the lesson draws, wanders around it."
    ),
}
