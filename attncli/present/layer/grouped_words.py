"""The words of grouped-query heads (--kv-heads G) on the layer's screen, in English and
Spanish (merged into attncli.present.language.PHRASES)."""

from attncli.messages import _

GROUPED_PHRASES: dict[str, str] = {
    "kv_heads_of": _("{kv} key/value heads, each read by {group} query heads"),
    "kv_head_of": _("1 key/value head, read by all {group} query heads (multi-query)"),
    "kv_head": _("Head {head} (kv head {kv}): {title}"),
    "window_causal": _(
        "sliding window {window}: each query sees itself and the {before} before it"
    ),
    "window_both": _("sliding window {window}: each query sees the keys up to {before} away"),
    "alibi_added": _("ALiBi: −m·|i − j| added to the scores, m = {slopes} by head"),
    "grouped_saving": _(
        "grouped: W^K and W^V of {kv} heads, not {heads}: {params} parameters (multi-head: "
        "{mha}); its KV cache per layer is {kv} · ({d_k} + {d_v}) · T = {cache} numbers for "
        "these {count} tokens (multi-head: {mha_cache})"
    ),
}
