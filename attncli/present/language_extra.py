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
    "at_init": _("A row at init"),
    "peak_mean": _("  largest weight, mean"),
    "peak_range": _("  range; uniform {uniform}"),
    "dot_unscaled": _(
        "These are plain dot products: real models divide each score by √d_k (here √{d_k}) "
        "before the softmax, a step this example skips; the scaled method takes it."
    ),
    "spread_at_init": _("  its scores' spread"),
    "projected_states": _("Projected states"),
    "held_factor": _(
        "Between the two grids the factor is d_a = {d_a}: additive holds {numbers} numbers, "
        "d_a per pair; general, one per pair, holds the {scores} scores and the {states} "
        "states it projected once ({projected} numbers)."
    ),
    "init_bounded": _(
        "At initialisation a row's scores spread {additive_spread} for additive and "
        "{general_spread} for general (their standard deviation). W_1, W_2 and v_a start as "
        "torch's nn.Linear starts them (uniform within ±1/√fan_in) and tanh bounds each of "
        "additive's d_a terms, so its spread stays small whatever d_h and d_a, while general's "
        "grows with √d_h: additive's rows start near the uniform {uniform}, at {additive_peak} "
        "on average, general's at {general_peak}, a peak that is the random direction W_a was "
        "drawn in, not an alignment."
    ),
    "init_plain": _(
        "At initialisation a row's scores spread {additive_spread} for additive and "
        "{general_spread} for general (their standard deviation); the rows' largest weight "
        "starts at {additive_peak} and {general_peak} on average (uniform {uniform})."
    ),
    "draw_unscaled": _("one row, unscaled"),
    "draw_scaled": _("one row, ÷ √d_k"),
    "draw_note": _(
        "Divided by √d_k, the average over many rows grows slowly and stays far from "
        "saturation; one seeded row, the same as attn scaling's, wanders around it."
    ),
    # attn scaling: why the scores are divided by √d_k
    "scaling.spread_heading": _("The spread of the raw scores q · k against √d_k"),
    "scaling.spread": _("spread of q · k"),
    "scaling.largest_heading": _("A row's largest weight: the mean over {rows} rows, and one row"),
    "scaling.one_row_column": _("one row"),
    "scaling.percent": _("{value}%"),
    "scaling.one_row_scaled": _("one row ÷ √d_k"),
    "scaling.saturated": _("saturated"),
    "scaling.saturated_scaled": _("saturated ÷ √d_k"),
    "scaling.gradient_heading": _(
        "Saturated rows, and what a row passes back to its scores: max α(1 − α), the mean over "
        "the rows (0.25 at most, near 0 in a saturated row)"
    ),
    "scaling.about": _(
        "Each row: a query against {keys} keys, every coordinate drawn from N(0, 1), seed "
        "{seed}; {rows} rows per d_k."
    ),
    "scaling.variance": _(
        "q · k adds d_k products of unit variance, so its variance is d_k and its spread √d_k: "
        "measured {first} at d_k = {d_first} and {last} at d_k = {d_last}."
    ),
    "scaling.saturates": _(
        "Unscaled, the scores drift apart as d_k grows and the row saturates: at d_k = {d_k} "
        "its largest weight is {weight} on average and {share} of the rows are saturated "
        "(largest weight {rule} or more). Such a row no longer mixes the values; it picks one."
    ),
    "scaling.vanishes": _(
        "A saturated row passes almost nothing back: max α(1 − α) falls from {first} to "
        "{last}, so the gradient that reaches the scores, and through them W^Q and W^K, "
        "vanishes; ÷√d_k it stays near {scaled}."
    ),
    "scaling.scaled": _(
        "Divided by √d_k, the scores keep a spread of about 1 at every d_k, and a row's "
        "largest weight stays between {least} and {most} on average: the divisor is computed "
        "from the variance, not tuned."
    ),
    "scaling.scaled_grows": _(
        "Divided by √d_k, the scores keep a spread of about 1 at every d_k, and a row's "
        "largest weight grows slowly, from {first} at d_k = {first_d_k} to {last} at d_k = "
        "{last_d_k} on average: the divisor is computed from the variance, not tuned."
    ),
    # A notebook's words where the command line's name an option (Format.say says "KEY.python"
    # for "KEY" from Python): what the result holds, and the call that shows it.
    "elided_rows.python": _(
        "{mark} showing {rows} of {all_rows} rows; the result's arrays hold them all"
    ),
    "elided.python": _(
        "{mark} showing {rows} of {all_rows} rows and {columns} of {all_columns} columns; the "
        "result's arrays hold them all"
    ),
    "batch_first.python": _(
        "a batch of {batch} sequences, computed together; shown: the first (result.item(n) is "
        "sequence n)"
    ),
    "online_hint.python": _('result.view(show=frozenset(["steps"])) shows the blocks one by one.'),
    "sample_file": _("File"),
    "untrained.python": _(
        "{names} are random (seed {seed}), not trained: which token looks at which means "
        "nothing yet; samples/llaves.json (attncli.samples() lists it) has weights set by hand "
        "so that «están» looks for «llaves»"
    ),
    "grid_too_wide.python": _(
        "Each thumbnail has a column per token, {tokens}, more than fit here: the first {drawn} "
        "keys of each row are drawn; result.grid holds every head whole."
    ),
    "heads_more.python": _("… {more} more of {total}; result.ranking holds them all"),
    "train_more_links.python": _(
        "… {count} more links (the misses come first); the result holds them all"
    ),
    "train_no_order.python": _(
        "Without positions the layer sees a sentence as a set of words: it can learn that "
        "«están» looks for a plural noun, not which of two plural nouns comes first. "
        "positions='sinusoidal' gives it the order."
    ),
    "train_one_hot.python": _(
        "The row of {rows} went one-hot: it no longer mixes the values, it picks one key, and "
        "cells nobody asked for moved with it. On one sentence the layer memorises; trained on "
        "a corpus (corpus=) and tested on sentences it has not seen (test=), it learns a rule."
    ),
    "scaling.one_row": _(
        "One row wanders: its largest weight depends on how far its largest of {keys} scores "
        "happens to stand from the others in that draw, so a single run can jump up or down "
        "where the mean moves little."
    ),
    # attn selfattn --heads N --heads-sum: several heads, one score
    "heads_sum_title": _(
        "{heads} heads of {d_k} columns against one head of all {width}, the same W^Q and W^K{seed}"
    ),
    "heads_sum_seed": _(" (seed {seed})"),
    "heads_sum_head": _("Head {head}: Q_{head} K_{head}ᵀ, columns {first} to {last}"),
    "heads_sum_sum": _("The heads added up: {terms}"),
    "heads_sum_one": _("One head: Q Kᵀ, all {width} columns"),
    "heads_sum_same": _(
        "The sum is the one-head grid: its largest difference is {difference}, {ulps} in the "
        "last place of float64 (the same products added in another order)."
    ),
    "heads_sum_ulps": _("{count} units"),
    "heads_sum_ulp": _("1 unit"),
    "heads_sum_none": _("no unit"),
    "heads_sum_weights": _(
        "Where they part, the softmax: the row of {token} (one head ÷ {one}, each head ÷ {each})"
    ),
    "heads_sum_one_row": _("one head"),
    "heads_sum_head_row": _("head {head}"),
    "heads_sum_why": _(
        "The scores add up; the weights do not. One head normalises the whole sum at once; "
        "each of the {heads} heads normalises its own part, so what one head's columns see "
        "is not outweighed by the others'."
    ),
}
