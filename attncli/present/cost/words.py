"""The phrases of attn cost's screen, English and Spanish; present/language.py adds them to
its table."""

from __future__ import annotations

from attncli.messages import _

COST_PHRASES: dict[str, str] = {
    "cost.title": _("What attention costs in {model}: batch {batch}, cache in {dtype}"),
    "cost.shape": _("{layers} layers of width {d_model}; {design}. Read from {source}"),
    "cost.shape_options": _("{layers} layers of width {d_model}; {design}. Sizes given as options"),
    "cost.mha": _("multi-head: {heads} heads of {d_k}"),
    "cost.mqa": _("multi-query: {heads} query heads of {d_k} share one key/value head"),
    "cost.gqa": _("grouped-query: {heads} query heads of {d_k} share {kv_heads} key/value heads"),
    "cost.mla": _(
        "latent (MLA): {heads} heads of {d_k}, keys and values made from a latent of {rank} "
        "and a rotary key of {rope}"
    ),
    "cost.windows": _("{count} of the layers see a window of {window} keys"),
    "cost.sinks": _("learned sinks (a logit per head)"),
    "cost.cache_heading": _("The KV cache after T tokens (a column per T)"),
    "cost.per_token": _("a token"),
    "cost.prefill_heading": _("FLOPs of a prefill of T tokens"),
    "cost.decode_heading": _("FLOPs of the next token, T + 1 (reading the T cached)"),
    "cost.design": _("Design"),
    "cost.projections": _("x W"),
    "cost.scores": _("Q Kᵀ"),
    "cost.mix": _("α V"),
    "cost.total": _("Total"),
    "cost.parameters_heading": _("Attention's parameters"),
    "cost.per_layer": _("A layer"),
    "cost.all_layers": _("All layers"),
    "cost.cache_per_token": _("Cache a token"),
    "cost.latent_note": _(
        "{design}: the cache keeps the latent and the rotary key, {per} numbers a token and "
        "layer; the keys and values made for every head would take {expanded} ({times} times "
        "as many)."
    ),
    "cost.window_note": _(
        "A layer with a window of W keeps its last W − 1 tokens (the next token reads them and "
        "itself), as transformers' cache does."
    ),
    "cost.flops_note": _(
        "A FLOP is half a multiply-add: 2 × the multiplications of x W (the projections), "
        "Q Kᵀ and α V; the softmax, norms and rotary turns are not counted. Q Kᵀ and α V of "
        "a prefill count the pairs a causal mask keeps. {mla}"
    ),
    "cost.mla_flops": _(
        "MLA's next token works on the latent (W^UK absorbed into the query, W^UV into the "
        "output), its prefill on the keys and values made for every head."
    ),
    "cost.steps_hint": _("--steps writes each formula with the model's numbers."),
    "cost.steps_heading": _("{design} at T = {tokens}"),
    # what each formula counts
    "cost.f.cache": _("Cache of the layers without a window (numbers)"),
    "cost.f.cache_window": _("Cache of the layers with a window of {window} (numbers)"),
    "cost.f.cache_bytes": _("Cache in bytes"),
    "cost.f.parameters_w_q": _("W^Q"),
    "cost.f.parameters_w_k": _("W^K"),
    "cost.f.parameters_w_v": _("W^V"),
    "cost.f.parameters_w_o": _("W^O"),
    "cost.f.parameters_w_dq": _("W^DQ (the queries' latent)"),
    "cost.f.parameters_w_uq": _("W^UQ"),
    "cost.f.parameters_w_dkv": _("W^DKV and W^KR (the latent and the rotary key)"),
    "cost.f.parameters_w_ukv": _("W^UK and W^UV"),
    "cost.f.parameters_biases": _("Biases"),
    "cost.f.parameters_norms": _("Norms' weights"),
    "cost.f.parameters_sinks": _("Sinks"),
    "cost.f.parameters": _("Parameters, every layer"),
    "cost.f.pairs": _("Query-key pairs of the prefill, every layer"),
    "cost.f.keys": _("Keys the next token reads, every layer"),
    "cost.f.prefill_projections": _("Prefill, projections (P_w: a layer's weights)"),
    "cost.f.prefill_scores": _("Prefill, Q Kᵀ (pairs: the query-key pairs of every layer)"),
    "cost.f.prefill_mix": _("Prefill, α V"),
    "cost.f.decode_projections": _("Next token, projections"),
    "cost.f.decode_projections_latent": _(
        "Next token, projections (P_own: the token's own; W^UK and W^UV absorbed)"
    ),
    "cost.f.decode_scores": _("Next token, Q Kᵀ (keys: those it reads in every layer)"),
    "cost.f.decode_mix": _("Next token, α V"),
    "cost.f.decode_scores_latent": _("Next token, q against the latent keys"),
    "cost.f.decode_mix_latent": _("Next token, α against the latents"),
    # --plot
    "cost.plot_title": _("The KV cache of {model} ({dtype}, batch {batch})"),
    "cost.plot_tokens": _("tokens T"),
    "cost.plot_bytes": _("bytes"),
}
