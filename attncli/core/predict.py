"""The next token of a causal language model: the last row's logits and what sampling does.

GPT-2's head is its word embeddings transposed (tied, Radford et al., 2019): logits =
LayerNorm_f(h_T) W_eᵀ. The Llama family's is RMSNorm_f(h_T) W_headᵀ, with a head of its own
(lm_head, untied) unless the config ties it to the word embeddings (Qwen2's small ones).
Sampling reshapes the softmax of those logits as transformers' logits processors do:
temperature divides the logits, top-k keeps the k largest, top-p keeps the fewest largest
whose probabilities reach p (Holtzman et al., 2020), the rest set to −∞ and the others
renormalised. The logit lens (nostalgebraist, 2020) reads every
layer's residual through the same final norm and head.
"""

from __future__ import annotations

import numpy as np

from attncli.core.attention import softcap, softmax
from attncli.core.transformer import Network
from attncli.core.transformer import normed as model_norm


def head_logits(network: Network, hidden: np.ndarray, normed: bool = False) -> np.ndarray:
    """The unembedding of hidden rows: through the final norm (unless already `normed`)
    and the head: an untied one (network.head), else the tied word embeddings; Gemma 2's
    logits softcapped, cap · tanh(logit ÷ cap) (final_logit_softcapping)."""
    # [T, d] -> [T, V]
    cap = network.architecture.final_softcap
    logits = unembedded(network, hidden, normed)
    if cap is None:
        return logits
    return softcap(logits, cap)


def unembedded(network: Network, hidden: np.ndarray, normed: bool = False) -> np.ndarray:
    """hidden rows through the final norm (unless already `normed`) and the head."""
    # [T, d] -> [T, V]
    if not normed and network.final_norm is not None:
        hidden = model_norm(network.architecture, hidden, network.final_norm)
    word = network.word if network.head is None else network.head
    table = word if isinstance(word, np.ndarray) else word[np.arange(word.shape[0])]
    if table.dtype == hidden.dtype:
        return hidden @ table.T
    # one dtype on both sides (numpy's product of float64 by float32 leaves BLAS and takes
    # twenty times as long), a block of rows at a time: a float64 copy of a whole vocabulary
    # would take more time to write than the product takes to compute
    rows = 4096
    return np.concatenate(
        [hidden @ np.asarray(table[i : i + rows], dtype=hidden.dtype).T
         for i in range(0, table.shape[0], rows)],
        axis=-1,
    )  # fmt: skip


def filtered(
    logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None
) -> np.ndarray:
    """(logits − their largest) ÷ T, with the tokens top-k and top-p leave out set to −∞ (at
    least one kept). The shift changes no probability, and keeps a tiny T (1e-320) from
    sending the largest logits to +∞, where the softmax would give NaN: they go to 0, the
    others to −∞, the limit T → 0 (the largest logit taken)."""
    # [V] -> [V]
    with np.errstate(over="ignore"):
        scaled = (logits - logits.max()) / temperature
    if top_k is not None and top_k < scaled.size:
        threshold = np.sort(scaled)[-top_k]
        scaled = np.where(scaled < threshold, -np.inf, scaled)
    if top_p is not None and top_p < 1.0:
        order = np.argsort(-scaled, kind="stable")
        probabilities = softmax(scaled)[order]
        before = np.cumsum(probabilities) - probabilities  # mass of the larger ones
        dropped = order[before >= top_p]
        scaled = scaled.copy()
        scaled[dropped] = -np.inf
    return scaled


def sampling_probabilities(
    logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None
) -> np.ndarray:
    """The distribution the next token is drawn from."""
    # [V] -> [V]
    return softmax(filtered(logits, temperature, top_k, top_p))
