"""A committed tiny checkpoint run whole and held to the values transformers computed for it
(tests/references/*.json): every layer's attention weights, every hidden state and the last
token's logits, each within its own tolerance."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attncli.core.predict import head_logits
from attncli.core.transformer import forward
from attncli.reading.models.model import load_model


def run_model(folder: Path | str, sentence: str):
    """The model in `folder`, the sentence through its tokenizer, and the forward pass."""
    model = load_model(str(folder))
    encoded = model.tokenizer.encode(sentence)
    return model, encoded, forward(model.network, encoded.ids)


def held(
    run, model, reference: dict, attention: float, hidden: float, logits: float,
    layers: int | None = None,
) -> None:  # fmt: skip
    """The run equals the reference's attentions, hidden states and last logits to these
    absolute tolerances (and has `layers` layers, where given)."""
    assert len(run.layers) == len(reference["attentions"])
    if layers is not None:
        assert len(run.layers) == layers
    for layer, expected in zip(run.layers, reference["attentions"], strict=True):
        np.testing.assert_allclose(layer.attention.weights, expected, rtol=0, atol=attention)
    for state, expected in zip(run.hidden, reference["hidden_states"], strict=True):
        np.testing.assert_allclose(state, expected, rtol=0, atol=hidden)
    last = head_logits(model.network, run.last[-1:], normed=True)[0]
    np.testing.assert_allclose(last, reference["logits"], rtol=0, atol=logits)
