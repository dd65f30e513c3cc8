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
    "model_after_rms": _(" (after its RMSNorm)"),
    "model_rotary": _(
        "Q and K turned by rotary positions before the score (rope_theta {base}{scaling})"
    ),
    "model_rope_scaling": _(", {kind} scaling ×{factor}"),
    "model_rope_linear": _("linear"),  # the rope_type linear, named in the reader's words
    "model_rope_factor": _(
        "the scaling multiplies q and k by {factor} after the turn (every score by {squared})"
    ),
    "model_qk_norm.head": _(
        "QK-norm: each head's q and k RMSNormed (q_norm, k_norm) before the turn"
    ),
    "model_qk_norm.projection": _(
        "QK-norm: the whole q and k projections RMSNormed, all heads at once, before the heads "
        "are split"
    ),
    "model_no_norm_before": _(
        " (no norm before it: each sublayer's output is RMSNormed before it is added)"
    ),
    "softcap_heading": _(
        "Softcapped scores: «{row}»'s scores bent by {cap} · tanh(score ÷ {cap}) before the softmax"
    ),
    "softcap_note": _(
        "A score near 0 stays as it is; a large one is bent toward ±{cap} and never passes it "
        "(attn_logit_softcapping)."
    ),
    "model_softcap": _(
        "scores softcapped before the softmax: {cap} · tanh(score ÷ {cap}) (attn_logit_softcapping)"
    ),
    "model_norms_around": _(
        " (after its RMSNorm; the attention's output is RMSNormed again before it is added)"
    ),
    "model_query_scalar": _(
        "the scores are divided by √{scalar} (query_pre_attn_scalar), not by √{d}"
    ),
    "model_other_rope": _("the {kind} layers turn by rope_theta {base}{scaling} instead"),
    "model_latent": _(
        "latent attention: x pressed into c_KV of rank {rank}, each head's k ({nope} numbers) "
        "and v read back from it, beside one turned key of {rope} shared by the {heads} "
        "heads; a token's cache holds {cached} numbers a layer, not multi-head's {full}"
    ),
    "model_absorbed": _(
        "the same scores with W^UK absorbed into the query, from c_KV itself without "
        "expanding the keys: at most {gap} apart"
    ),
    "model_latent_divisor": _(
        "the scores are divided by √{d} ÷ {mscale}²: YaRN's mscale (mscale_all_dim) on every "
        "coordinate, as DeepSeek scales them"
    ),
    "model_trained_latent": _(
        "W^Q and the latent's projections are the model's own, trained: this is what the model does"
    ),
    "model_sinks": _(
        "learned sinks: each head's own logit is one more column of the softmax, dropped "
        "after it, so each row of weights sums to less than 1 over the real keys (here it "
        "gives the sink {least} to {most}; --steps shows it)"
    ),
    "model_layer_types": _(
        "layer_types: {sliding} sliding_attention and {full} full_attention layers; this "
        "one is {kind}"
    ),
    "rope_scaled_heading": _(
        "Rotary positions scaled ({kind}, factor {factor}, trained on {original} positions): "
        "each pair's θ_i = {base}^(−2i/{d}), and the θ_i this sentence's {tokens} tokens are "
        "turned by"
    ),
    "rope_factors_heading": _(
        "Rotary positions scaled (factors: each pair's θ_i divided by the number the model "
        "file gives it): each pair's θ_i = {base}^(−2i/{d}), and the θ_i this sentence's "
        "{tokens} tokens are turned by"
    ),
    "rope_wavelength": _("turn (tokens)"),
    "rope_scaled_theta": _("scaled θ_i"),
    "rope_scaled_wavelength": _("scaled turn"),
    "rope_factor": _(
        "turn: 2π/θ_i, the positions one whole turn takes. ÷: θ_i over the scaled θ_i (1: the "
        "pair is kept). Then cos and sin × {factor}, the attention factor: every score × "
        "{squared}."
    ),
    "rope_factor_one": _(
        "turn: 2π/θ_i, the positions one whole turn takes. ÷: θ_i over the scaled θ_i (1: the "
        "pair is kept). No attention factor (1)."
    ),
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
    "heads_pattern.duplicate": _("the weight on earlier copies of the same token"),
    "heads_pattern.induction": _("the weight on the token after an earlier copy of the token"),
    "heads_pattern.given": _("the pattern given (--pattern-file)"),
    "heads_metric.rows": _(
        "Score (rows, the default): in each row that has a cell of the pattern, the share of "
        "the row's weight on its cells, then the mean over those rows; a head that does it "
        "in every such row scores 1, however few they are. --metric mul gives "
        "TransformerLens' number."
    ),
    "heads_metric.mul": _(
        "Score (mul, TransformerLens'): the weight on the pattern's cells over all the "
        "weight; rows without a cell count against the head, so a perfect head scores less "
        "than 1 when few rows have one (--metric rows does not)."
    ),
    "heads_metric.abs": _(
        "Score (abs, TransformerLens'): 1 − Σ|A − P| ÷ T, from −1 to 1 (the pattern exactly); "
        "it asks for the pattern's weights, not only its cells (TransformerLens rounds it to "
        "3 decimals; attn does not)."
    ),
    "heads_excluded.first": _("Left out of the score: the weight on the first token."),
    "heads_excluded.self": _("Left out of the score: the weight on the token itself."),
    "heads_excluded.first,self": _(
        "Left out of the score: the weight on the first token and on the token itself."
    ),
    "heads_bidirectional.previous": _(
        "This model is bidirectional: a token also sees the ones after it, and weight on the "
        "next token counts against the previous-token pattern."
    ),
    "heads_bidirectional.duplicate": _(
        "This model is bidirectional: the pattern, TransformerLens', is causal and counts "
        "only earlier copies; a later copy, which this model sees too, counts against it."
    ),
    "heads_bidirectional.induction": _(
        "This model is bidirectional and predicts no next token: a head on the token after "
        "an earlier copy is not the copying circuit of a causal model, which can only look "
        "back; here the later copy is in sight as well."
    ),
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
    "heads_next_seeded": _(
        "explain the first: attn selfattn {sentence} {settings} --head {head} --steps --token "
        "{token}"
    ),
    "heads_unseen.causal": _(
        "No head can look from «{source}» to «{target}»: it comes later, and in a causal layer "
        "a token sees only itself and the tokens before it; every weight here is 0."
    ),
    "heads_unseen.masked": _(
        "No head can look from «{source}» to «{target}»: the layer's mask leaves it out; every "
        "weight here is 0."
    ),
    "heads_unseen.window": _(
        "No head can look from «{source}» to «{target}»: it lies outside every layer's "
        "sliding window; every weight here is 0."
    ),
    "heads_more": _("… {more} more of {total}; --all shows them all, --json has them all"),
    "heads_tokens": _("tokens: {tokens}"),
    "heads_next": _(
        "explain the first: attn selfattn {sentence} --model {model} --layer {layer} --head "
        "{head} --steps --token {token}"
    ),
    "rollout_title": _("{model} ({kind}) · attention rollout over layers 1 to {layer} of {layers}"),
    "rollout_rule": _(
        "Each layer: its heads' weights averaged, A, and the residual added, 0.5 A + 0.5 I "
        "(rows renormalised); then the layers multiplied, R_l = M_l · R_(l−1). Each row "
        "still sums to 1."
    ),
    "rollout_grid": _(
        "Rollout up to layer {layer} (row = the token, column = the input token it draws on)"
    ),
    "rollout_cell": _(
        "R{layer}[{source}, {target}] = Σ_k M{layer}[{source}, k] · R{before}[k, {target}]: "
        "what «{source}» draws on «{target}» through each token k"
    ),
    "rollout_through": _("through"),
    "rollout_sum": _("Sum"),
    "rollout_assumes": _(
        "Rollout assumes the information in a token mixes linearly and evenly through "
        "attention and the residual: heads averaged with equal weight, the feed-forward "
        "layers and value vectors ignored. It approximates how input tokens flow into a "
        "row, not a gradient: it does not say what changes the output."
    ),
    "grid_title": _("Every head of {model}: {layers} layers × {heads} heads, {count} tokens each"),
    "grid_title_seeded": _("Every head of {source}: {heads} heads, {count} tokens each"),
    "heads_seeded": _("the seeded layer (seed {seed})"),
    "grid_layer": _("L"),
    "grid_too_wide": _(
        "Each thumbnail has a column per token, {tokens}, more than fit here: the first {drawn} "
        "keys of each row are drawn; --export model.svg draws every head whole."
    ),
    "grid_legend": _(
        "Each thumbnail: one head's weights (row = who asks, column = who answers) on one "
        "scale for all, 0 to 1: in colour two rows a line, dark to light; without colour a "
        "row a line, blank to █. p, f, l: the head puts half its weight or more on the "
        "previous, first or last token."
    ),
    "grid_window": _("w{window}"),  # after L3: a sliding layer's window, short
    "grid_windows": _(
        "w{window}: a sliding_attention layer, each query sees itself and the {before} before "
        "it; the others are full_attention layers (layer_types)"
    ),
    "grid_ranked": _("#1 to #{shown}: the ranking's first heads, as the table below ranks them."),
    "heads_sink": _("Sink"),
    "heads_sinks": _(
        "Sink: the head's sink rate, its mean weight on the first token over the rows after "
        "the first (in a causal layer the first row can look nowhere else). {sinks} of {total} "
        "heads pass {threshold}, the ε of Gu et al. (2025), «When Attention Sink Emerges in "
        "Language Models»."
    ),
    "heads_sinks_over": _("Sink rates are the mean over the {count} sentences."),
    "heads_sinks_learned": _(
        "{model}'s softmax has learned sinks: a column of their own that takes weight in every "
        "row and is dropped; the sink rate is over the real keys, without that column."
    ),
    "grid_sinks_title": _("Sink rate of each head (row = layer, column = head)"),
    "grid_sink_mark": _("s{rate}"),  # under a drawn thumbnail: its sink rate, short
    "grid_sink_legend": _(
        "s: the head's sink rate, its mean weight on the first token over the rows after the "
        "first; {sinks} of {total} heads pass {threshold} (Gu et al., 2025)"
    ),
}
