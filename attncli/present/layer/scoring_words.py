"""The words of what this year's layers add to the seeded layer (--qk-norm, --rope-scaling,
--softcap, --sinks, --latent-rank) on its screen and in its steps, in English and Spanish
(merged into attncli.present.language.PHRASES)."""

from attncli.messages import _

SCORING_PHRASES: dict[str, str] = {
    "scores_who_capped": _(
        "Scores {cap} · tanh(Q K^T / {divisor} ÷ {cap}) (row = who asks, column = who answers)"
    ),
    "scores_who_capped_unscaled": _(
        "Scores {cap} · tanh(Q K^T ÷ {cap}) (row = who asks, column = who answers)"
    ),
    # the score table's heading when the divisor is not √d_k (--scale S, Gemma's
    # √query_pre_attn_scalar)
    "scores.scaled_by": _("Scaled scores: {query} ({vector}) · each key ÷ {divisor}"),
    "layer_qk_norm": _("QK-norm: each head's q and k RMSNormed (weights of ones) before the turn"),
    "layer_rope_scaling": _("the rotary frequencies scaled: {kind}, factor {factor}"),
    "layer_rope_factor": _("q and k × {factor} after the turn (every score × {squared})"),
    "layer_softcap": _("scores softcapped: {cap} · tanh(score ÷ {cap}) before the softmax"),
    "layer_softcap_none": _(
        "a softcap of {cap} caps nothing: cap · tanh(score ÷ cap) is the score itself as the "
        "cap grows"
    ),
    "layer_sinks": _(
        "sinks {sinks}: one more softmax column a head, dropped after it; the rows sum to "
        "{least} to {most} over the keys"
    ),
    "layer_sink": _(
        "sink {sinks}: one more softmax column, dropped after it; the rows sum to {least} to "
        "{most} over the keys"
    ),
    "sink_dropped": _(
        "The {sink} column takes {weight} of the weight and is dropped: «{row}»'s weights over "
        "the keys sum to {kept}, not 1."
    ),
    "qk_norm_heading": _(
        "QK-norm: «{row}»'s query and each key divided by its root mean square, √(mean(x²) + {eps})"
    ),
    "qk_norm_vector": _("vector"),
    "qk_norm_before": _("before"),
    "qk_norm_mean_square": _("mean(x²)"),
    "qk_norm_after": _("after"),
    "qk_norm_note": _(
        "Every normed vector has a root mean square of about 1, so a score q · k ÷ √d_k stays "
        "within ±√d_k whatever the projections make of x (Qwen3, OLMo 2, Gemma 3)."
    ),
    "layer_latent": _(
        "latent attention (MLA): keys and values read from c_KV; the cache keeps {rank} "
        "numbers a token, not h · (d_k + d_v) = {heads}"
    ),
    "layer_latent_rotary": _(
        "latent attention (MLA): keys and values read from c_KV beside one rotary key k^R of "
        "{rope} numbers; the cache keeps {rank} + {rope} numbers a token, not h · (d_k + "
        "d_rope + d_v) = {heads}"
    ),
    "latent_row": _("RMSNorm(X W^DKV), what the cache keeps a token"),
    "rotary_key_row": _("RoPE(X W^KR), every head's; the cache keeps it too"),
    "layer_rope_factor_latent": _(
        "q^R and k^R × {factor} after the turn (every score's rotary part × {squared})"
    ),
    "latent_heading": _(
        "Latent attention, head {head}: «{row}» pressed into c_KV = RMSNorm(x W^DKV) of "
        "{rank} numbers, its key and value read back from it"
    ),
    "latent_numbers": _("numbers"),
    "latent_c": _("c_KV ({rank} numbers)"),
    "latent_k": _("k = c_KV W^UK_{head}"),
    "latent_v": _("v = c_KV W^UV_{head}"),
    "latent_q": _("q W^UK_{head}ᵀ (absorbed)"),
    "latent_k_content": _("k^C = c_KV W^UK_{head}"),
    "latent_q_content": _("q^C W^UK_{head}ᵀ (absorbed)"),
    "latent_q_rotary": _("q^R = RoPE(x W^QR_{head})"),
    "latent_k_rotary": _("k^R = RoPE(x W^KR), every head's"),
    "latent_scores_heading": _(
        "«{row}»'s scores in head {head}, from the keys and from c_KV with W^UK absorbed "
        "into the query"
    ),
    "latent_difference": _("difference"),
    "latent_cache_rotary": _(
        "The cache keeps c_KV and k^R, {rank} + {rope} numbers a token, instead of every "
        "head's key and value, h · (d_k + d_rope + d_v) = {heads}; the absorbed scores need "
        "no key expanded."
    ),
    "latent_cache": _(
        "The cache keeps c_KV, {rank} numbers a token, instead of every head's key and "
        "value, h · (d_k + d_v) = {heads}; the absorbed scores need no key expanded."
    ),
}
