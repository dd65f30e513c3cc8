"""The backward pass on a batch: each sequence's gradients, the inputs' with the batch axis
first and the parameters' summed over the batch (ℓ is the sum of the sequences' losses);
against the sequences one by one and finite differences (torch's autograd gave the same
numbers to 1e-15 where this was written)."""

from __future__ import annotations

import json

import numpy as np

import attncli as attn
from tests.meaning import told


def _batch():
    rng = np.random.default_rng(11)
    return rng.normal(size=(3, 4, 4)), rng.normal(size=(3, 4, 4))


def test_a_batch_is_its_sequences_one_by_one():
    x, target = _batch()
    whole = attn.selfattn(x=x, heads=2, causal=True, target=target)
    assert whole.grads["grad_x"].shape == (3, 4, 4) and whole.grads["grad_w_q"].shape == (4, 4)
    parts = [attn.selfattn(x=x[b], heads=2, causal=True, target=target[b]) for b in range(3)]
    assert abs(whole.loss - sum(part.loss for part in parts)) < 1e-12
    for name, gradient in whole.grads.items():
        if name.startswith("grad_w_"):
            assert np.allclose(gradient, sum(part.grads[name] for part in parts), atol=1e-13)
        else:
            assert np.allclose(gradient, np.stack([part.grads[name] for part in parts]))


def test_against_finite_differences():
    x, target = _batch()
    grads = attn.selfattn(x=x, heads=2, target=target).grads
    step = 1e-6

    def loss(changed):
        return attn.selfattn(x=changed, heads=2, target=target).loss

    for index in [(0, 1, 2), (2, 3, 0), (1, 0, 3)]:
        up, down = x.copy(), x.copy()
        up[index] += step
        down[index] -= step
        numeric = (loss(up) - loss(down)) / (2 * step)
        assert abs(grads["grad_x"][index] - numeric) < 1e-7


def test_on_the_command_line(run_json):
    x, target = _batch()
    document = json.dumps({"x": x.tolist(), "target": target.tolist()})
    out = run_json("selfattn", "--heads", "2", "--json", input=document)
    assert np.asarray(out["grad_x"]).shape == (3, 4, 4)
    expected = attn.selfattn(x=x, heads=2, target=target).grads["grad_w_v"]
    assert np.allclose(out["grad_w_v"], expected, atol=1e-15)


def test_the_screen_of_one_sequence_shows_its_own_gradients(run):
    x, target = _batch()
    document = json.dumps({"x": x.tolist(), "target": target.tolist()})
    screen = run("selfattn", "--heads", "2", "--item", "2", "--format", "table", input=document)
    assert screen.exit_code == 0, screen.stderr
    lines = screen.stdout.splitlines()
    assert lines[0] == "sequence 2 of 3" and "ℓ, ∂ℓ/∂W, ∂ℓ/∂b: the whole batch's" in lines
    shown = attn.selfattn(x=x, heads=2, target=target).item(2)
    assert np.array_equal(
        shown.grads["grad_x"], attn.selfattn(x=x, heads=2, target=target).grads["grad_x"][1]
    )


def test_cross_attention_sequences_may_be_batches_too(run):
    import pytest

    from attncli.errors import ShapeError

    rng = np.random.default_rng(12)
    x_q, x_kv, target = (
        rng.normal(size=(2, 3, 4)),
        rng.normal(size=(2, 5, 4)),
        rng.normal(size=(2, 3, 4)),
    )
    whole = attn.selfattn(x_q=x_q, x_kv=x_kv, heads=2, target=target)
    for b in range(2):
        one = attn.selfattn(x_q=x_q[b], x_kv=x_kv[b], heads=2, target=target[b])
        assert np.allclose(whole.output[b], one.output, atol=1e-15)
        assert np.allclose(whole.grads["grad_x_kv"][b], one.grads["grad_x_kv"], atol=1e-15)
    x_k, x_v = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 6))
    own = attn.selfattn(x_q=x_q, x_k=x_k, x_v=x_v, heads=2)
    assert own.output.shape == (2, 3, 4) and own.item(2).x_v.shape == (5, 6)
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x_q=x_q, x_kv=x_kv[0])
    told(caught.value, ShapeError,
         "{shapes}: give every one as one sequence (T × d) or every one as a batch of the same B "
         "(B × T × d)", shapes="x_q 2 × 3 × 4, x_kv 5 × 4")  # fmt: skip
    document = json.dumps({"x_q": x_q.tolist(), "x_kv": x_kv.tolist()})
    screen = run("selfattn", "--format", "table", "--item", "2", input=document)
    assert screen.exit_code == 0 and screen.stdout.startswith("sequence 2 of 2"), screen.stderr


def test_queries_keys_and_values_given_directly_may_be_a_batch(run):
    rng = np.random.default_rng(15)
    queries, keys, values = (rng.normal(size=(2, t, d)) for t, d in ((3, 4), (5, 4), (5, 6)))
    target = rng.normal(size=(2, 3, 6))
    whole = attn.selfattn(queries=queries, keys=keys, values=values, heads=2, target=target)
    assert whole.batch == 2 and whole.grads["grad_keys"].shape == (2, 5, 4)
    for b in range(2):
        one = attn.selfattn(queries=queries[b], keys=keys[b], values=values[b], heads=2,
                            target=target[b])  # fmt: skip
        assert np.allclose(whole.output[b], one.output, atol=1e-15)
        assert np.allclose(whole.grads["grad_values"][b], one.grads["grad_values"], atol=1e-15)
    document = {"queries": queries.tolist(), "keys": keys.tolist(), "values": values.tolist()}
    screen = run("selfattn", "--format", "table", "--item", "2", input=json.dumps(document))
    assert screen.exit_code == 0 and screen.stdout.startswith("sequence 2 of 2"), screen.stderr
    # a result of several heads read back holds queries of h × T × d: not taken for a batch
    heads = run("selfattn", "a b c", "--heads", "2", "--json").stdout
    again = run("selfattn", "--heads", "2", "--json", input=heads)
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["queries"] == json.loads(heads)["queries"]
    assert np.array(json.loads(again.stdout)["output"]).shape == (3, 8)  # one sequence
