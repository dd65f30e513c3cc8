"""The words of the backward pass (attn grad, selfattn's gradients and their steps), in
English and Spanish; present/language.py joins them to its table."""

GRAD_PHRASES: dict[str, tuple[str, str]] = {
    "grad_upstream": ("Gradient at the output of {row}", "Gradiente en la salida de {row}"),
    "target": ("target", "objetivo"),
    "value_short": ("v", "v"),
    "key_short": ("k", "k"),
    "grad_minus_mean": ("− mean ({mean})", "− media ({mean})"),
    "mean_is": ("mean {mean}", "media {mean}"),
    "grad_softmax": (
        "Back through the mix and the softmax: {row}",
        "Hacia atrás por la mezcla y el softmax: {row}",
    ),
    "grad_softmax_note": (
        "∂ℓ/∂e = α (g · v − mean) and α gᵀ(v − c) are the same number; the ∂ℓ/∂e of a row add "
        "up to 0.",
        "∂ℓ/∂e = α (g · v − media) y α gᵀ(v − c) son el mismo número; las ∂ℓ/∂e de una fila "
        "suman 0.",
    ),
    "grad_key_row": ("∂ℓ/∂k from this row", "∂ℓ/∂k desde esta fila"),
    "grad_query_sum": ("Σ of the column before", "Σ de la columna anterior"),
    "grad_query_additive": ("W_1ᵀ Σ δ", "W_1ᵀ Σ δ"),
    "grad_parameter_row": ("∂ℓ/∂{name} from this row", "∂ℓ/∂{name} desde esta fila"),
    "grad_score.dot": (
        "Back through the score q · k: {row}",
        "Hacia atrás por la puntuación q · k: {row}",
    ),
    "grad_score.scaled": (
        "Back through the score q · k ÷ √d_k: {row}",
        "Hacia atrás por la puntuación q · k ÷ √d_k: {row}",
    ),
    "grad_score.general": (
        "Back through the general score qᵀ W_a k: {row}",
        "Hacia atrás por la puntuación general qᵀ W_a k: {row}",
    ),
    "grad_score.additive": (
        "Back through the additive score v_aᵀ tanh(W_1 q + W_2 k): {row}",
        "Hacia atrás por la puntuación aditiva v_aᵀ tanh(W_1 q + W_2 k): {row}",
    ),
    "grad_score_note.dot": (
        "∂e/∂q = k and ∂e/∂k = q: no 1 − tanh² factor.",
        "∂e/∂q = k y ∂e/∂k = q: sin factor 1 − tanh².",
    ),
    "grad_score_note.scaled": (
        "∂e/∂q = k ÷ √d_k and ∂e/∂k = q ÷ √d_k: no 1 − tanh² factor.",
        "∂e/∂q = k ÷ √d_k y ∂e/∂k = q ÷ √d_k: sin factor 1 − tanh².",
    ),
    "grad_score_note.general": (
        "∂e/∂q = W_a k, ∂e/∂k = W_aᵀ q, ∂e/∂W_a = q kᵀ: no 1 − tanh² factor.",
        "∂e/∂q = W_a k, ∂e/∂k = W_aᵀ q, ∂e/∂W_a = q kᵀ: sin factor 1 − tanh².",
    ),
    "grad_score_note.additive": (
        "Every derivative passes through tanh and carries its factor 1 − tanh²; "
        "∂ℓ/∂k = W_2ᵀ δ, ∂ℓ/∂v_a = Σ ∂ℓ/∂e tanh(…).",
        "Toda derivada pasa por tanh y lleva su factor 1 − tanh²; "
        "∂ℓ/∂k = W_2ᵀ δ, ∂ℓ/∂v_a = Σ ∂ℓ/∂e tanh(…).",
    ),
    "gradients": ("Gradients", "Gradientes"),
    "gradient_of": ("∂ℓ/∂ of", "∂ℓ/∂ de"),
    "largest_entry": ("Largest |entry|", "Mayor |elemento|"),
    "loss": ("loss ℓ = ½‖c − target‖² = {loss}", "pérdida ℓ = ½‖c − objetivo‖² = {loss}"),
    "check_line": (
        "{name}: against central finite differences, largest relative difference "
        "{difference} ({verdict})",
        "{name}: contra diferencias finitas centradas, mayor diferencia relativa "
        "{difference} ({verdict})",
    ),
    "agree": ("agree", "coinciden"),
    "disagree": ("DIFFER", "DIFIEREN"),
}
