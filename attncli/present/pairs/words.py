"""The phrases of two sentences compared (attn selfattn --compare, attn heads --compare),
English and Spanish; present/language.py adds them to its table."""

from __future__ import annotations

from attncli.messages import _

PAIR_PHRASES: dict[str, str] = {
    "pair_title": _("Two sentences compared, the same layer on each: «{first}» and «{second}»"),
    "pair_seeded": _(
        "The seeded layer: seed {seed}, d_model = {d_model}{heads}; the same W^Q, W^K, W^V "
        "for both, each word's embedding its own"
    ),
    "pair_heads": _(", {heads} heads"),
    "pair_aligned": _("Aligned word by word ({count} tokens): {pairs}"),
    "pair_all_aligned": _("Every token is aligned."),
    "pair_unaligned_pieces": _(
        "Not aligned: «{word}» and «{facing}», read as {pieces} and {facing_pieces} pieces: "
        "a word read as another number of pieces has no cell-to-cell counterpart{hint}"
    ),
    "pair_words_hint": _("; --words merges the pieces into words"),
    "pair_unaligned_first": _("Not aligned: «{word}», only in the first sentence"),
    "pair_unaligned_second": _("Not aligned: «{word}», only in the second sentence"),
    "pair_left_out": _(
        "The difference leaves out the tokens not aligned: its rows need not sum to 0."
    ),
    "pair_weights": _("Weights of «{sentence}» (row = who asks, column = who answers)"),
    "pair_difference": _("Difference, second − first, on the aligned tokens"),
    "pair_marked": _(
        "{mark}: the {count} largest changes. A difference row sums to 0 when every token is "
        "aligned (each sentence's row sums to 1)."
    ),
    "pair_largest": _("Largest changes:"),
    "pair_change": _("«{source}» → «{target}»: {before} → {after} ({change})"),
    "pair_head_shown": _(
        "Head {head} of {heads} shown; --head H shows another, the JSON holds every head."
    ),
    "pair_head": _("head {head}"),
    "pair_equal": _("No weight changed on the aligned tokens."),
    "pair_heads_title": _("Heads of {model} ranked by how much their weights change"),
    "pair_heads_cell": _("Heads of {model} ranked by the change of «{source}» → «{target}»"),
    "pair_heads_from": _("first:  {tokens}"),
    "pair_heads_to": _("second: {tokens}"),
    "pair_heads_change": _("Change"),
    "pair_heads_where": _("Cell"),
    "pair_heads_before": _("First"),
    "pair_heads_after": _("Second"),
    "pair_heads_mean": _("Mean |Δ|"),
    "pair_heads_rule": _(
        "Change: second − first, the head's weight in the cell where it changes most (or "
        "in the cell asked with --from/--to), on the aligned tokens; Mean |Δ|: the mean "
        "change over every aligned cell."
    ),
    "pair_grid_title": _(
        "Every head of {model}: |second − first| on the {count} aligned tokens, {layers} "
        "layers × {heads} heads"
    ),
    "pair_grid_legend": _(
        "Each thumbnail: one head's |change| (row = who asks, column = who answers), 0 to 1 "
        "on one scale: dark is no change; #1 to #{shown}: the table's first heads."
    ),
}
