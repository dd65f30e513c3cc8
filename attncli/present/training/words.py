"""The phrases of attn train, in English and Spanish (joined into language.PHRASES).

The course's words: pérdida (loss), paso (step, lr), iteración, pesos pedidos (the wanted
weights), consulta, clave.
"""

from __future__ import annotations

TRAIN_PHRASES: dict[str, tuple[str, str]] = {
    "train_title": (
        "Training W^Q and W^K on «{sentence}»",
        "Entrenando W^Q y W^K con «{sentence}»",
    ),
    "train_title_corpus": (
        "Training W^Q and W^K on {count} sentences (the first is shown: «{sentence}»)",
        "Entrenando W^Q y W^K con {count} frases (se muestra la primera: «{sentence}»)",
    ),
    "train_run": (
        "{optimizer}, lr {lr} · {done} iterations",
        "{optimizer}, lr {lr} · {done} iteraciones",
    ),
    "train_run_of": (
        "{optimizer}, lr {lr} · {done} of {total} iterations (stopped)",
        "{optimizer}, lr {lr} · {done} de {total} iteraciones (parado)",
    ),
    "train_positions": ("sinusoidal positions added to X", "posiciones sinusoidales sumadas a X"),
    "train_loss_one": (
        "ℓ = −log α({asker}, {answer}): the cross-entropy of the wanted cell",
        "ℓ = −log α({asker}, {answer}): la entropía cruzada de la casilla pedida",
    ),
    "train_loss_many": (
        "ℓ = −Σ log α(query, key) over the {count} wanted cells",
        "ℓ = −Σ log α(consulta, clave) sobre las {count} casillas pedidas",
    ),
    "train_loss_heads": (" (summed over the {heads} heads)", " (sumada sobre las {heads} cabezas)"),
    "train_loss_corpus": (", averaged over the sentences", ", promediada sobre las frases"),
    "train_learns": (
        "Learned: W^Q and W^K ({formula} = {count} numbers), which make the scores.",
        "Se aprenden: W^Q y W^K ({formula} = {count} números), que hacen las puntuaciones.",
    ),
    "train_fixed": (
        "{fixed} no gradient from a loss on the weights: {stays}.",
        "{fixed} ningún gradiente de una pérdida sobre los pesos: {stays}.",
    ),
    "train_fixed_v": ("W^V gets", "W^V no recibe"),
    "train_fixed_vo": ("W^V and W^O get", "W^V y W^O no reciben"),
    "train_stays_v": ("it stays as drawn", "se queda como salió de la semilla"),
    "train_stays_vo": ("they stay as drawn", "se quedan como salieron de la semilla"),
    "train_wanted": ("Wanted weights, before → after", "Pesos pedidos, antes → después"),
    "train_wanted_first": (
        "Wanted weights of the first sentence, before → after",
        "Pesos pedidos de la primera frase, antes → después",
    ),
    "train_cell": ("Query → key", "Consulta → clave"),
    "train_before": ("Before", "Antes"),
    "train_after": ("After", "Después"),
    "train_heads_mean": ("(the heads' mean)", "(media de las cabezas)"),
    "train_curve": (
        "Loss {first} → {last} over {done} iterations{scale}:",
        "Pérdida {first} → {last} en {done} iteraciones{scale}:",
    ),
    "train_log_scale": (" (log scale)", " (escala logarítmica)"),
    "train_grid_before": ("Weights before (seeded)", "Pesos antes (sembrados)"),
    "train_grid_after": ("Weights after training", "Pesos tras entrenar"),
    "train_accuracy": (
        "Trained on {sentences} sentences: the wanted key has its row's largest weight in "
        "{hits} of {links} links ({share})",
        "Entrenada con {sentences} frases: la clave pedida tiene el mayor peso de su fila en "
        "{hits} de {links} enlaces ({share})",
    ),
    "train_test": (
        "Test, sentences not trained on: {hits} of {links} links right ({share})",
        "Prueba, frases no entrenadas: {hits} de {links} enlaces acertados ({share})",
    ),
    "train_sentence": ("Sentence", "Frase"),
    "train_want": ("Wanted", "Pedido"),
    "train_picked": ("Largest", "Mayor"),
    "train_more_links": (
        "… {count} more links (the misses come first); --json has them all",
        "… {count} enlaces más (los fallos van primero); --json los tiene todos",
    ),
    "train_no_order": (
        "Without positions the layer sees a sentence as a set of words: it can learn that "
        "«están» looks for a plural noun, not which of two plural nouns comes first. "
        "--positions sinusoidal gives it the order.",
        "Sin posiciones la capa ve una frase como un conjunto de palabras: puede aprender que "
        "«están» busca un sustantivo en plural, no cuál de dos sustantivos en plural va "
        "primero. --positions sinusoidal le da el orden.",
    ),
    "train_with_order": (
        "With sinusoidal positions in X the layer also knows where each word stands.",
        "Con posiciones sinusoidales en X la capa sabe además dónde está cada palabra.",
    ),
    "train_pipe_hint": (
        "Piped, this is a JSON document: attn train … > trained.json, then "
        "attn selfattn -i trained.json{options} shows the trained grid.",
        "Por tubería es un documento JSON: attn train … > entrenada.json, y "
        "attn selfattn -i entrenada.json{options} muestra la rejilla entrenada.",
    ),
    "train_progress": ("training", "entrenando"),
    "train_progress_loss": ("loss {loss}", "pérdida {loss}"),
    "train_interrupted": (
        "stopped by Ctrl-C after {done} of {total} iterations; add --save FILE to keep the "
        "state so far",
        "parado con Ctrl-C tras {done} de {total} iteraciones; añade --save FICHERO para "
        "guardar el estado hasta entonces",
    ),
    "train_interrupted_kept": (
        "stopped by Ctrl-C after {done} of {total} iterations; the state so far is in {path}",
        "parado con Ctrl-C tras {done} de {total} iteraciones; el estado hasta entonces está "
        "en {path}",
    ),
    "plot_iteration": ("iteration", "iteración"),
    "plot_loss": ("loss ℓ", "pérdida ℓ"),
    "plot_loss_title": ("The loss", "La pérdida"),
    "plot_wanted_title": ("The wanted weights", "Los pesos pedidos"),
    "plot_wanted_first": (
        "The wanted weights of the first sentence",
        "Los pesos pedidos de la primera frase",
    ),
    # --steps: one iteration by hand
    "train_steps_title": (
        "Iteration {iteration} by hand ({optimizer}, lr {lr})",
        "La iteración {iteration} a mano ({optimizer}, lr {lr})",
    ),
    "train_steps_loss": ("Loss: {terms} = {loss}", "Pérdida: {terms} = {loss}"),
    "train_steps_softmax": (
        "Through the softmax, row «{query}»: ∂ℓ/∂α = −wanted ÷ α, ∂ℓ/∂e = α − wanted",
        "Por el softmax, fila «{query}»: ∂ℓ/∂α = −pedido ÷ α, ∂ℓ/∂e = α − pedido",
    ),
    "train_steps_wanted": ("Wanted", "Pedido"),
    "train_steps_key_column": ("k[{column}]", "k[{column}]"),
    "train_steps_to_query": ("∂ℓ/∂e × k[{column}]", "∂ℓ/∂e × k[{column}]"),
    "train_steps_query_sum": (
        "∂ℓ/∂Q[{query}, {column}] = Σ ∂ℓ/∂e × k[{column}] ÷ {divisor} = {value}",
        "∂ℓ/∂Q[{query}, {column}] = Σ ∂ℓ/∂e × k[{column}] ÷ {divisor} = {value}",
    ),
    "train_steps_shapes": (
        "Through the score and into the projections (shapes):",
        "Por la puntuación hasta las proyecciones (formas):",
    ),
    "train_steps_entry": (
        "One entry of ∂ℓ/∂{matrix} worked: ∂ℓ/∂{matrix}[{row}, {column}] = Σ_t x_t[{row}] × "
        "∂ℓ/∂{part}[t, {column}]",
        "Una entrada de ∂ℓ/∂{matrix} a mano: ∂ℓ/∂{matrix}[{row}, {column}] = Σ_t x_t[{row}] × "
        "∂ℓ/∂{part}[t, {column}]",
    ),
    "train_steps_key_grad": (
        "Only «{asker}» asks, so ∂ℓ/∂K[t, {column}] = ∂ℓ/∂e[{asker}, t] × Q[{asker}, {column}] "
        "÷ {divisor}, with Q[{asker}, {column}] = {query}",
        "Solo pregunta «{asker}», así que ∂ℓ/∂K[t, {column}] = ∂ℓ/∂e[{asker}, t] × "
        "Q[{asker}, {column}] ÷ {divisor}, con Q[{asker}, {column}] = {query}",
    ),
    "train_steps_x": ("x[{row}]", "x[{row}]"),
    "train_steps_product": ("Product", "Producto"),
    "train_steps_sum": ("Σ = {value}", "Σ = {value}"),
    "train_steps_update_sgd": (
        "Update: {matrix}[{row}, {column}] ← {before} − {lr} × {gradient} = {after}",
        "Actualización: {matrix}[{row}, {column}] ← {before} − {lr} × {gradient} = {after}",
    ),
    "train_steps_update_adam": (
        "Update (Adam): {matrix}[{row}, {column}] ← {before} − {lr} · m̂ ÷ (√v̂ + ε) = "
        "{before} − {step} = {after}",
        "Actualización (Adam): {matrix}[{row}, {column}] ← {before} − {lr} · m̂ ÷ (√v̂ + ε) = "
        "{before} − {step} = {after}",
    ),
    "train_steps_untouched": (
        "W^V: ∂ℓ/∂output = 0, so ∂ℓ/∂W^V = 0 — the loss reads only the weights.",
        "W^V: ∂ℓ/∂salida = 0, así que ∂ℓ/∂W^V = 0: la pérdida solo lee los pesos.",
    ),
    "train_steps_after": (
        "After the update: ℓ = {loss}, wanted weight {before} → {after}",
        "Tras la actualización: ℓ = {loss}, peso pedido {before} → {after}",
    ),
}
