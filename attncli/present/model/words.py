"""The phrases of a pretrained model's screens (attn selfattn --model, attn heads), English
and Spanish; present/language.py adds them to its table."""

from __future__ import annotations

from attncli.messages import _

MODEL_PHRASES: dict[str, str] = {
    "more_terms": _("… stands for {count} products left out; each sum is over all {total}"),
    "model_layer": _("{model} ({kind}) · layer {layer} of {layers} · {heads}"),
    "model_head": _("head {head} of {heads}"),
    "model_heads": _("all {heads} heads"),
    "model_input": _("X is the hidden state that layer {layer}'s attention reads{after}"),
    "model_trained": _("W^Q, W^K, W^V are the model's own, trained: this is what the model does"),
    "model_after_norm": _(" (after its LayerNorm)"),
    "model_causal": _("causal: each token sees itself and the ones before"),
    "model_hint": _("--head H shows one head alone; attn heads finds the head you look for"),
    "model_head_hint": _("--steps --token T explains a row; --show q,k,v adds Q, K and V"),
    "model_words": _(
        "Words: a word's row is the mean of its pieces' rows (it still sums to 1), its "
        "column the sum of its pieces' columns"
    ),
    "model_word_weights": _("Weights between words (row = who asks, column = who answers)"),
    "heads_title": _("Heads of {model} ranked by {asked}"),
    "heads_from_to": _("the weight from «{source}» (token {start}) to «{target}» (token {end})"),
    "heads_from_to_words": _("the weight from «{source}» to «{target}» (their first occurrences)"),
    "heads_over": _("the mean over {count} sentences, as the model reads them:"),
    "heads_mean": _("Mean"),
    "heads_lowest": _("Lowest"),
    "heads_lowest_means": _(
        "Mean: over every sentence. Lowest: the head's score in the sentence where it is "
        "lowest (a high mean with a low lowest is a head that does it in some sentences only)."
    ),
    "heads_controls_over": _(
        "Row's next: the weight of the strongest other key in the same row, and Column mean: "
        "the head's weight on the target averaged over every row, each the mean over the "
        "sentences. Mostly: what the head does in most rows anyway (half its weight or more)."
    ),
    "heads_pattern.previous": _("the mean weight on the previous token"),
    "heads_pattern.first": _("the mean weight on the first token"),
    "heads_pattern.self": _("the mean weight on the token itself"),
    "heads_rank": _("Rank"),
    "heads_layer": _("Layer"),
    "heads_head": _("Head"),
    "heads_weight": _("Weight"),
    "heads_rival": _("Row's next"),
    "heads_column": _("Column mean"),
    "heads_habit": _("Mostly"),
    "heads_habit.previous": _("previous token"),
    "heads_habit.first": _("first token"),
    "heads_habit.last": _("last token"),
    "heads_controls": _(
        "Row's next: the strongest other key in the same row. Column mean: the head's weight "
        "on the target averaged over every row (high: it looks there from everywhere, not from "
        "this token). Mostly: what the head does in most rows anyway (half its weight or more)."
    ),
    "heads_more": _("… {more} more of {total}; --all shows them all, --json has them all"),
    "heads_tokens": _("tokens: {tokens}"),
    "heads_next": _(
        "explain the first: attn selfattn {sentence} --model {model} --layer {layer} --head "
        "{head} --steps --token {token}"
    ),
}
