"""Llama 3's rotary frequencies in a GGUF file: llama.cpp's converter writes no rope-scaling
metadata for Llama 3.1 and 3.2 but a tensor, rope_freqs.weight, of head_dim ÷ 2 numbers: the
llama3 scaling's divisors (1 for a pair whose wavelength is under original ÷
high_freq_factor, factor for one over original ÷ low_freq_factor, 1 ÷ ((1 − smooth) ÷ factor
+ smooth) between). llama.cpp divides each pair's θ_i by its number; so does attn (core/
rotary.py's rope_type "factors", which gguf_file puts in the config it makes)."""

from __future__ import annotations

import numpy as np

from attncli.errors import InputError
from attncli.messages import Message, _

ROPE_FREQS = "rope_freqs.weight"
BAD_ROPE_FREQS = _(
    "{path}: tensor rope_freqs.weight holds {found}; expected {pairs} finite positive "
    "numbers, one divisor per pair of a head (head_dim {head_dim} ÷ 2)"
)


def rope_freqs(path: str, numbers: np.ndarray, head_dim: int) -> list[float]:
    """The rotary frequencies' divisors a Llama 3 file keeps in rope_freqs.weight (its
    dequantized `numbers`), one a pair (llama.cpp's converter writes there the llama3
    scaling's: 1, its factor, or a blend); a tensor of another length, or a divisor not
    finite and positive, is refused."""
    pairs = head_dim // 2
    values = np.asarray(numbers, dtype=np.float64).reshape(-1)
    found: Message | None = None
    if values.size != pairs:
        found = Message(_("{count} numbers"), count=int(values.size))
    else:
        bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
        if bad.size:
            found = Message(_("{value} at pair {pair}"), value=repr(float(values[bad[0]])),
                            pair=int(bad[0]))  # fmt: skip
    if found is not None:
        raise InputError(BAD_ROPE_FREQS, path=path, found=found, pairs=pairs, head_dim=head_dim)
    return [float(v) for v in values]
