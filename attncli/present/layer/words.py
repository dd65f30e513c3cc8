"""The words of the self-attention layer's screen about where its weights came from, its
masks, batches, extra keys and progress, in English and Spanish (merged into
attncli.present.language.PHRASES)."""

from attncli.messages import _

LAYER_PHRASES: dict[str, str] = {
    "some_drawn": _("{drawn} drawn from seed {seed} ({draw}), not trained; {given} from the input"),
    "sequence_of": _("sequence {number} of {batch}"),
    "batch_item": _("--item N shows sequence N instead"),
    "bias_added": _("attn_mask added to the scores"),
    "extra_keys": _("+ keys {names} (torch's {origins})"),
    "layer_progress": _("queries attended"),
    "batch_grads": _("ℓ, ∂ℓ/∂W, ∂ℓ/∂b: the whole batch's"),
    "heads_unchecked": _(
        "{heads} is taken as given: the weights do not hold the number of heads, so "
        "attn cannot check it; {where} says how many"
    ),
    "heads_where_config": _("the checkpoint's config.json ({field})"),
    "heads_where_module": _("the module's num_heads"),
    "weights_from": _("weights from {source} ({kind}'s names)"),
    "positions_added": _("sinusoidal positions added to X"),
    "positions_held": _("sinusoidal positions in X, as the input says"),
    "trained_by": _(
        "W^Q and W^K were learned, not drawn (W^V as drawn at the seed), by: {command}"
    ),
}
