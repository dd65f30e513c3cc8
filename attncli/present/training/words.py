"""The phrases of attn train, in English and Spanish (joined into language.PHRASES).

The course's words: pérdida (loss), paso (step, lr), iteración, pesos pedidos (the wanted
weights), consulta, clave.
"""

from __future__ import annotations

from attncli.messages import _

TRAIN_PHRASES: dict[str, str] = {
    "train_title": _("Training W^Q and W^K on «{sentence}»"),
    "train_title_corpus": _(
        "Training W^Q and W^K on {count} sentences (the first is shown: «{sentence}»)"
    ),
    "train_run": _("{optimizer}, lr {lr} · {done} iterations"),
    "train_run_of": _("{optimizer}, lr {lr} · {done} of {total} iterations (stopped)"),
    "train_positions": _("sinusoidal positions added to X"),
    "train_loss_one": _("ℓ = −log α({asker}, {answer}): the cross-entropy of the wanted cell"),
    "train_loss_many": _("ℓ = −Σ log α(query, key) over the {count} wanted cells"),
    "train_loss_heads": _(" (summed over the {heads} heads)"),
    "train_loss_corpus": _(", averaged over the sentences"),
    "train_learns": _("Learned: W^Q and W^K ({formula} = {count} numbers), which make the scores."),
    "train_fixed": _("{fixed} no gradient from a loss on the weights: {stays}."),
    "train_fixed_v": _("W^V gets"),
    "train_fixed_vo": _("W^V and W^O get"),
    "train_stays_v": _("it stays as drawn"),
    "train_stays_vo": _("they stay as drawn"),
    "train_wanted": _("Wanted weights, before → after"),
    "train_wanted_first": _("Wanted weights of the first sentence, before → after"),
    "train_cell": _("Query → key"),
    "train_before": _("Before"),
    "train_after": _("After"),
    "train_heads_mean": _("(the heads' mean)"),
    "train_curve": _("Loss {first} → {last} over {done} iterations{scale}:"),
    "train_log_scale": _(" (log scale)"),
    "train_grid_before": _("Weights before (seeded)"),
    "train_grid_after": _("Weights after training"),
    "train_accuracy": _(
        "Trained on {sentences} sentences: the wanted key has its row's largest weight in "
        "{hits} of {links} links ({share})"
    ),
    "train_test": _("Test, sentences not trained on: {hits} of {links} links right ({share})"),
    "train_sentence": _("Sentence"),
    "train_want": _("Wanted"),
    "train_picked": _("Largest"),
    "train_more_links": _("… {count} more links (the misses come first); --json has them all"),
    "train_no_order": _(
        "Without positions the layer sees a sentence as a set of words: it can learn that "
        "«están» looks for a plural noun, not which of two plural nouns comes first. "
        "--positions sinusoidal gives it the order."
    ),
    "train_with_order": _(
        "With sinusoidal positions in X the layer also knows where each word stands."
    ),
    "train_moved": _("Besides the wanted cells, training moved these most"),
    "train_one_hot": _(
        "The row of {rows} went one-hot: it no longer mixes the values, it picks one key, and "
        "cells nobody asked for moved with it. On one sentence the layer memorises; trained on "
        "a corpus and tested on sentences it has not seen, it learns a rule: attn train "
        "--corpus concordancia-entreno --test concordancia-orden --d-model 32 --positions "
        "sinusoidal"
    ),
    "train_pipe_hint": _(
        "Piped, this is a JSON document: attn train … > trained.json, then attn selfattn -i "
        "trained.json{options} shows the trained grid."
    ),
    "train_progress": _("training"),
    "train_progress_loss": _("loss {loss}"),
    "train_interrupted": _(
        "stopped by Ctrl-C after {done} of {total} iterations; add --save FILE to keep the "
        "state so far"
    ),
    "train_interrupted_kept": _(
        "stopped by Ctrl-C after {done} of {total} iterations; the state so far is in {path}"
    ),
    "plot_iteration": _("iteration"),
    "plot_loss": _("loss ℓ"),
    "plot_loss_title": _("The loss"),
    "plot_wanted_title": _("The wanted weights"),
    "plot_wanted_first": _("The wanted weights of the first sentence"),
    # --steps: one iteration by hand
    "train_steps_title": _("Iteration {iteration} by hand ({optimizer}, lr {lr})"),
    "train_steps_loss": _("Loss: {terms} = {loss}"),
    "train_steps_softmax": _(
        "Through the softmax, row «{query}»: ∂ℓ/∂α = −wanted ÷ α, ∂ℓ/∂e = α − wanted"
    ),
    "train_steps_wanted": _("Wanted"),
    "train_steps_key_column": _("k[{column}]"),
    "train_steps_to_query": _("∂ℓ/∂e × k[{column}]"),
    "train_steps_query_sum": _(
        "∂ℓ/∂Q[{query}, {column}] = Σ ∂ℓ/∂e × k[{column}] ÷ {divisor} = {value}"
    ),
    "train_steps_shapes": _("Through the score and into the projections (shapes):"),
    "train_steps_entry": _(
        "One entry of ∂ℓ/∂{matrix} worked: ∂ℓ/∂{matrix}[{row}, {column}] = Σ_t x_t[{row}] × "
        "∂ℓ/∂{part}[t, {column}]"
    ),
    "train_steps_key_grad": _(
        "Only «{asker}» asks, so ∂ℓ/∂K[t, {column}] = ∂ℓ/∂e[{asker}, t] × Q[{asker}, "
        "{column}] ÷ {divisor}, with Q[{asker}, {column}] = {query}"
    ),
    "train_steps_x": _("x[{row}]"),
    "train_steps_product": _("Product"),
    "train_steps_sum": _("Σ = {value}"),
    "train_steps_update_sgd": _(
        "Update: {matrix}[{row}, {column}] ← {before} − {lr} × {gradient} = {after}"
    ),
    "train_steps_update_adam": _(
        "Update (Adam): {matrix}[{row}, {column}] ← {before} − {lr} · m̂ ÷ (√v̂ + ε) = "
        "{before} − {step} = {after}"
    ),
    "train_steps_untouched": _(
        "W^V: ∂ℓ/∂output = 0, so ∂ℓ/∂W^V = 0 — the loss reads only the weights."
    ),
    "train_steps_after": _("After the update: ℓ = {loss}, wanted weight {before} → {after}"),
}
