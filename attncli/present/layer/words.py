"""The words of the self-attention layer's screen about where its weights came from, its
masks, batches, extra keys and progress, in English and Spanish (merged into
attncli.present.language.PHRASES)."""

LAYER_PHRASES: dict[str, tuple[str, str]] = {
    "some_drawn": (
        "{drawn} drawn from seed {seed} (--draw-missing), not trained; {given} from the input",
        "{drawn} sacadas de la semilla {seed} (--draw-missing), no entrenadas; {given} de la "
        "entrada",
    ),
    "sequence_of": ("sequence {number} of {batch}", "secuencia {number} de {batch}"),
    "batch_item": ("--item N shows sequence N instead", "--item N muestra la secuencia N"),
    "bias_added": ("attn_mask added to the scores", "attn_mask sumado a las puntuaciones"),
    "extra_keys": (
        "+ keys {names} (torch's {origins})",
        "+ claves {names} ({origins} de torch)",
    ),
    "layer_progress": ("queries attended", "consultas atendidas"),
    "batch_grads": ("ℓ, ∂ℓ/∂W, ∂ℓ/∂b: the whole batch's", "ℓ, ∂ℓ/∂W, ∂ℓ/∂b: los del lote entero"),
    "heads_unchecked": (
        "--heads {heads} is taken as given: the weights do not hold the number of heads, so "
        "attn cannot check it; {where} says how many",
        "--heads {heads} se toma tal cual: los pesos no guardan el número de cabezas, así "
        "que attn no puede comprobarlo; {where} dice cuántas",
    ),
    "heads_where_config": (
        "the checkpoint's config.json ({field})",
        "el config.json del checkpoint ({field})",
    ),
    "heads_where_module": ("the module's num_heads", "el num_heads del módulo"),
    "weights_from": (
        "weights from {source} ({kind}'s names)",
        "pesos de {source} (con los nombres de {kind})",
    ),
}
