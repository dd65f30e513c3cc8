"""`p` on a trained layer (attn train's document, or any result read back) switches the
projections off: the lesson's comparison, X attended over itself."""

from __future__ import annotations

import numpy as np

import attncli as attn
from attncli.explore.session import Source, compute
from attncli.explore.state import State


def test_p_on_a_trained_layer_attends_its_x_over_itself():
    trained = attn.train("las llaves del coche están ahí", want="están=llaves", iterations=20)
    document = trained.to_document()
    source = Source(document=document, path="trained.json")
    with_w = compute(source, State())
    assert np.allclose(with_w.weights, np.array(document["weights"]), atol=1e-12)
    without = compute(source, State(projections=False))
    plain = attn.selfattn(x=document["x"], tokens=document["tokens"], projections=False)
    np.testing.assert_array_equal(without.weights, plain.weights)
    assert not np.allclose(without.weights, with_w.weights)
    # Without projections the row's largest weight is its own diagonal (the lesson's point).
    assert (without.weights.argmax(axis=1) == np.arange(len(document["tokens"]))).all()
