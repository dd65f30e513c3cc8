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
    "weights_from": (
        "weights from {source} ({kind}'s names)",
        "pesos de {source} (con los nombres de {kind})",
    ),
}
