"""The phrases of attention at inference's screens (attn softmax --online, attn selfattn
--tiles and --kv-cache), English and Spanish; present/language.py adds them to its table."""

from __future__ import annotations

from attncli.messages import _, _n

# The online softmax's title counts the scores a block reads: "1 score", "3 scores".
BLOCK_SCORES = _n("{count} score", "{count} scores")
# attn predict's title counts the tokens read: "after 1 token", "after 5 tokens".
PROMPT_TOKENS = _n("{count} token", "{count} tokens")

INFERENCE_PHRASES: dict[str, str] = {
    # attn softmax --online
    "online_title": _("Online softmax, {block} at a time"),
    "online_title_of": _("Online softmax of {row}, {block} at a time"),
    "online_block": _("Block"),
    "online_tokens": _("Tokens"),
    "online_scores": _("Scores"),
    "online_block_max": _("Block max"),
    "online_m": _("m"),
    "online_factor": _("e^(m_old − m)"),
    "online_factor_t": _("e^((m_old − m) ÷ T)"),
    "online_block_sum": _("Σ e^(s − m)"),
    "online_block_sum_t": _("Σ e^((s − m) ÷ T)"),
    "online_l": _("ℓ"),
    "online_rule": _("m = max(m_old, block max); ℓ = ℓ_old × e^(m_old − m) + Σ e^(s − m)"),
    "online_rule_t": _(
        "m = max(m_old, block max); ℓ = ℓ_old × e^((m_old − m) ÷ T) + Σ e^((s − m) ÷ T)"
    ),
    "online_start": _("Start: m = −∞, ℓ = 0. Each block may raise m; ℓ so far is then rescaled."),
    "online_weights": _("Weights = e^(s − m) ÷ ℓ, with the last m = {m} and ℓ = {l}"),
    "online_weights_t": _("Weights = e^((s − m) ÷ T) ÷ ℓ, with the last m = {m} and ℓ = {l}"),
    "online_power": _("e^(s − m)"),
    "online_power_t": _("e^((s − m) ÷ T)"),
    "online_plain": _("Plain softmax"),
    "online_equal": _(
        "The same weights as the plain softmax, which holds the whole row at once: they differ "
        "by at most {ulps} units in the last place of the row's largest weight."
    ),
    "online_identical": _(
        "The same weights as the plain softmax, which holds the whole row at once, to the last "
        "digit."
    ),
    "online_masked_row": _("Every score is masked: m stays −∞, ℓ stays 0 and every weight is 0."),
    "online_hint": _("--steps shows the blocks one by one."),
    "online_exercise_intro": _(
        "Scores {scores}, read {block} at a time. After each block write m, e^(m_old − m), the "
        "block's Σ e^(s − m) and ℓ; then the weights e^(s − m) ÷ ℓ with the last m and ℓ."
    ),
    # attn selfattn --tiles
    "tiles_title": _("«{token}» through the keys in blocks of {block}{head}"),
    "tiles_head": _(", head {head}"),
    "tiles_keys": _("Keys in the block"),
    "tiles_accumulator": _("acc"),
    "tiles_rule": _(
        "m = max(m_old, block max); ℓ = ℓ_old × e^(m_old − m) + Σ e^(s − m); "
        "acc = acc_old × e^(m_old − m) + Σ e^(s − m) v"
    ),
    "tiles_output": _("Output = acc ÷ ℓ = {vector}"),
    "tiles_plain": _(
        "The layer's own output row, its weights × V: {vector} (the largest difference {diff})"
    ),
    "tiles_memory": _(
        "Held at once with tiles of {tile_q} × {tile_k}: {tile} scores, {running} of m and ℓ and "
        "{accumulator} of the accumulators, {tiled} numbers ({tiled_bytes} bytes); the plain "
        "computation holds the {length_q} × {length_k} grid, {grid} numbers ({grid_bytes} bytes)."
    ),
    # attn selfattn --kv-cache
    "cache_title": _("The KV cache, token by token{head}: what each token computes"),
    "cache_step": _("Step"),
    "cache_vector": _("Row"),
    "cache_numbers": _("Numbers (k and v written into the cache)"),
    "cache_numbers_latent": _("Numbers (c_KV and k^R written into the cache)"),
    "cache_out": _("out"),
    "cache_rows": _("Cache"),
    "cache_rows_of": _("{count} k, {count} v"),
    "cache_row": _("The new row: s = q · k{divided} against the cached keys, α = softmax(s)"),
    "cache_rows_title": _("Each step's one row of scores and weights"),
    "cache_bit": _(
        "Every step's weights and output row are row t of the whole causal grid, bit for bit."
    ),
    "cache_not_bit": _("A step's row differs from the whole causal grid's (a fault: report it)."),
    "cache_layer": _(
        "The layer's own output (its products summed by BLAS, in another order) differs by at "
        "most {diff}."
    ),
    "cache_multiplications": _(
        "Multiplications for the {count} tokens: {cached} with the cache (each step projects its "
        "own token and scores one row), {recomputed} without (each step projects the whole prefix "
        "again and computes its t × t grid): {times} times as many."
    ),
    "cache_multiplications_layers": _(
        "Multiplications in the attention of the {layers} layers for the {count} tokens: "
        "{cached} with the cache (each step projects its own token and scores one row), "
        "{recomputed} without (each step projects the whole prefix again and computes its "
        "t × t grid): {times} times as many. The feed-forward blocks cost the same either way."
    ),
    "cache_at": _(
        "The cache at step {step} («{token}»): its K and V, {rows}, the last appended by this "
        "token, and the weights of its one row of scores over them"
    ),
    "cache_at_latent": _(
        "The cache at step {step} («{token}»): its c_KV and k^R, {rows}, the last appended by "
        "this token, and the weights of its one row of scores over the keys read back from them"
    ),
    "cache_position": _("Position"),
    "cache_k": _("k"),
    "cache_v": _("v"),
    "cache_weight": _("α"),
    "cache_new": _("← new"),
    "cache_size": _(
        "The cache: 2 · layers {layers} · kv-heads {kv_heads} · d_k {d_k} · T {count} = {numbers} "
        "numbers, {bytes} bytes in float64 ({half} in float16 or bfloat16, as models keep it)."
    ),
    "cache_size_dv": _(
        "The cache: layers {layers} · kv-heads {kv_heads} · (d_k {d_k} + d_v {d_v}) · T {count} = "
        "{numbers} numbers, {bytes} bytes in float64 ({half} in float16 or bfloat16, as models "
        "keep it)."
    ),
    "cache_size_windows": _(
        "The cache: kv-heads {kv_heads} · (d_k {d_k} + d_v {d_v}) numbers a token and layer; "
        "a full layer keeps all {count} tokens, a sliding one the last W − 1 (W {windows}), as "
        "transformers' sliding-window cache does; full layers {full}, sliding layers "
        "{sliding}: {numbers} numbers, {bytes} bytes in float64 ({half} in float16 or "
        "bfloat16, as models keep it). With every layer keeping every token: {all}."
    ),
    "cache_multiplications_latent": _(
        "The multiplications of a latent attention are not counted here: attn cost MODEL "
        "counts its FLOPs."
    ),
    "cache_size_latent": _(
        "The cache: a latent attention keeps each token's c_KV and its rotary key k^R, shared "
        "by the {heads} heads: layers {layers} · (r {rank} + d_rope {rope}) · T {count} = "
        "{numbers} numbers, {bytes} bytes in float64 ({half} in float16 or bfloat16, as models "
        "keep it). Each step reads every head's keys and values back from it; keeping them "
        "instead, layers {layers} · heads {heads} · (d_k {d_k} + d_v {d_v}) · T {count}, would "
        "take {multi} numbers, {times} times as many."
    ),
    "cache_window": _(
        "This layer slides a window of {window}: after each step its cache keeps the last "
        "{kept} tokens and drops the older ones; a step reads those and its own, {window} keys "
        "at most."
    ),
    "cache_replayed": _("The replay makes q, k, v and the weights as the model's layer does:"),
    "cache_replayed.qk_norm": _(
        "  QK-norm: q and k RMSNormed by the layer's own weights before their turn"
    ),
    "cache_replayed.rope_attention_factor": _(
        "  q and k multiplied by the rotary scaling's attention factor after their turn"
    ),
    "cache_replayed.attn_logit_softcapping": _(
        "  s softcapped, cap · tanh(s ÷ cap), before the softmax (attn_logit_softcapping)"
    ),
    "cache_replayed.sinks": _(
        "  α over the keys and the head's learned sink, whose column is dropped: a row sums to "
        "less than 1"
    ),
    "cache_head_kv": _(", head {head} (kv head {kv})"),
    "cache_grouped": _(
        "Grouped-query attention: the {heads} query heads share {kv_heads} key/value heads "
        "({group} each), so the cache keeps {kv_heads} heads' keys and values, not {heads}: "
        "with a key and a value for every query head it would hold {multi} numbers "
        "({multi_bytes} bytes in float64), {group} times as many."
    ),
    # attn predict
    "predict_title": _("The next token after {tokens}, by {model}"),
    "predict_logit": _("Logit"),
    "predict_probability": _("Probability"),
    "predict_sampled": _("Drawn from"),
    "predict_kept": _("The next token is drawn from {kept} of the {total} tokens: {how}."),
    "predict_temperature": _("temperature {t}"),
    "predict_top_k": _("the {k} likeliest (top-k)"),
    "predict_top_p": _("the fewest whose probabilities reach {p} (top-p)"),
    "predict_steps_hint": _("--steps lays the softmax out."),
    "predict_layer": _("Layer"),
    "predict_lens_top": _("Its likeliest next tokens"),
    "predict_lens": _("The logit lens: each layer's last hidden state through the final norm"),
    "predict_embeddings": _("embeddings"),
}
