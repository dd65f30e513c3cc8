"""Llama 3's rotary frequencies in a GGUF file: llama.cpp's converter writes no rope-scaling
metadata for Llama 3.1 and 3.2 but a tensor, rope_freqs.weight, of head_dim ÷ 2 numbers: the
llama3 scaling's divisors (1 for a pair whose wavelength is under original ÷
high_freq_factor, factor for one over original ÷ low_freq_factor, 1 ÷ ((1 − smooth) ÷ factor
+ smooth) between). llama.cpp divides each pair's θ_i by its number; so does attn (core/
rotary.py's rope_type "factors", which gguf_file puts in the config it makes)."""

from __future__ import annotations

import numpy as np

from attncli.messages import Message, _
from attncli.reading.models.checkpoint import expect_shape
from attncli.reading.models.config_fields import IN_TENSOR, held, positive

ROPE_FREQS = "rope_freqs.weight"
# why the tensor is of its shape (values.WRONG's {expected}), and what each of its numbers is
PAIRS = _("{expected}, one divisor per pair of a head (head_dim {head_dim} ÷ 2)")
PAIR = _("tensor {name}, pair {pair}")
DIVISOR = positive(Message(_("a finite positive number, the divisor of its pair's θ_i")))


def rope_freqs(path: str, numbers: np.ndarray, head_dim: int) -> list[float]:
    """The rotary frequencies' divisors a Llama 3 file keeps in rope_freqs.weight (its
    dequantized `numbers`), one a pair (llama.cpp's converter writes there the llama3
    scaling's: 1, its factor, or a blend); a tensor of another length is refused as any
    tensor's shape is, a divisor not finite and positive as any field's value is."""
    values = np.asarray(numbers, dtype=np.float64).reshape(-1)
    where = Message(IN_TENSOR, path=path, name=ROPE_FREQS)
    expect_shape(values, (head_dim // 2,), where, PAIRS, head_dim=head_dim)
    return [float(held(float(value), path, Message(PAIR, name=ROPE_FREQS, pair=pair), DIVISOR))
            for pair, value in enumerate(values)]  # fmt: skip
