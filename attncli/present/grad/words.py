"""The words of the backward pass (attn grad, selfattn's gradients and their steps), in
English and Spanish; present/language.py joins them to its table."""

from attncli.messages import _

GRAD_PHRASES: dict[str, str] = {
    "grad_upstream": _("Gradient at the output of {row}"),
    "grad_saturated": _(
        "This softmax row is saturated (largest weight {weight}, {rule} or more): it passes "
        "almost nothing back to its scores, max α(1 − α) = {passed} where an even row passes "
        "up to 0.25, so ∂ℓ/∂e and ∂ℓ/∂q are small; dividing the scores by √d_k keeps rows "
        "from saturating (attn scaling)"
    ),
    "target": _("target"),
    "value_short": _("v"),
    "key_short": _("k"),
    "grad_minus_mean": _("− mean ({mean})"),
    "mean_is": _("mean {mean}"),
    "grad_softmax": _("Back through the mix and the softmax: {row}"),
    "grad_softmax_note": _(
        "∂ℓ/∂e = α (g · v − mean) and α gᵀ(v − c) are the same number; the ∂ℓ/∂e of a row "
        "add up to 0."
    ),
    "grad_key_row": _("∂ℓ/∂k from this row"),
    "grad_query_sum": _("Σ of the column before"),
    "grad_query_additive": _("W_1ᵀ Σ δ"),
    "grad_parameter_row": _("∂ℓ/∂{name} from this row"),
    "gradients": _("Gradients"),
    "gradient_of": _("∂ℓ/∂ of"),
    "largest_entry": _("Largest |entry|"),
    "loss": _("loss ℓ = ½‖c − target‖² = {loss}"),
    "check_line": _(
        "{name}: against central finite differences, largest relative difference "
        "{difference} ({verdict})"
    ),
    "agree": _("agree"),
    "disagree": _("DIFFER"),
}
