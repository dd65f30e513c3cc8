"""Training W^Q and W^K (core.training): against the layer's backward pass, a loop
derivation, finite differences and hand values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.core import gradients, positions, training
from attncli.core.attention import causal_mask
from attncli.core.selfattn import attention_layer, embed, projections
from tests import naive

HEADLINE = ["las", "llaves", "del", "coche", "están", "ahí"]
ESTAN, LLAVES = HEADLINE.index("están"), HEADLINE.index("llaves")
DEFAULT_LR, DEFAULT_ITERATIONS = 0.1, 300


def _headline(d_model: int = 8, heads: int | None = None):
    x = embed(HEADLINE, d_model, math.sqrt(d_model), 0)
    return x, projections(0, d_model, d_model, d_model, with_output=heads is not None)


def _naive_loss(x, params, wanted, heads=1, divisor=None, allowed=None) -> float:
    """−Σ log α of the wanted cells, every head, the weights computed a cell at a time."""
    queries = naive.linear(x.tolist(), params["w_q"].tolist())
    keys = naive.linear(x.tolist(), params["w_k"].tolist())
    d_k = len(queries[0]) // heads
    total = 0.0
    for h in range(heads):
        q = [row[h * d_k : (h + 1) * d_k] for row in queries]
        k = [row[h * d_k : (h + 1) * d_k] for row in keys]
        scale = math.sqrt(d_k) if divisor is None else divisor
        for i, j in wanted:
            row = [
                naive.dot(q[i], key) / scale if allowed is None or allowed[i][m] else -math.inf
                for m, key in enumerate(k)
            ]
            total -= math.log(naive.softmax_row(row)[j])
    return total


def _loop_gradients(x, params, wanted, divisor):
    """One head, the lesson's chain a pair at a time: ∂ℓ/∂e_ij = α_ij Σ_k c_ik − c_ij, then
    ∂ℓ/∂W^Q = Σ_ij ∂ℓ/∂e_ij x_i k_jᵀ / s and ∂ℓ/∂W^K = Σ_ij ∂ℓ/∂e_ij x_j q_iᵀ / s."""
    q, k = x @ params["w_q"], x @ params["w_k"]
    length = x.shape[0]
    counts = np.zeros((length, length))
    for i, j in wanted:
        counts[i, j] += 1
    grad_q, grad_k = np.zeros_like(params["w_q"]), np.zeros_like(params["w_k"])
    for i in range(length):
        row = [float(q[i] @ k[j]) / divisor for j in range(length)]
        alpha = naive.softmax_row(row)
        for j in range(length):
            grad_e = alpha[j] * counts[i].sum() - counts[i, j]
            grad_q += grad_e * np.outer(x[i], k[j]) / divisor
            grad_k += grad_e * np.outer(x[j], q[i]) / divisor
    return grad_q, grad_k


def test_the_gradient_is_the_lessons_chain_a_pair_at_a_time():
    x, params = _headline()
    wanted = ((ESTAN, LLAVES), (1, 2), (ESTAN, 1))
    found = training.evaluate([training.Example(x, wanted)], params, None, None)
    grad_q, grad_k = _loop_gradients(x, params, wanted, math.sqrt(8))
    np.testing.assert_allclose(found.grads["grad_w_q"], grad_q, atol=1e-12)
    np.testing.assert_allclose(found.grads["grad_w_k"], grad_k, atol=1e-12)


def test_the_weights_route_equals_the_output_route_of_the_layers_backward_pass():
    """With X W^V = I, the output is α itself; ∂ℓ/∂α given as ∂ℓ/∂output (the route of
    selfattn --grad-output) must give the gradients the training's route gives."""
    x, params = _headline()
    x = x[:, :6] * 1.0  # 6 × 6, invertible: W^V = X⁻¹ makes V the identity
    params = {name: value[:6, :6] for name, value in params.items()}
    params["w_v"] = np.linalg.inv(x)
    wanted = ((ESTAN, LLAVES), (0, 3))
    example = training.Example(x, wanted)
    through_weights = training.evaluate([example], params, None, None).grads
    run = attention_layer(x, x, params)
    np.testing.assert_allclose(run.values, np.eye(6), atol=1e-12)
    counts = training.wanted_counts(6, wanted)
    upstream = training.loss_grad_weights(run.weights, counts)
    through_output = gradients.selfattn_backward(
        x, None, params, run.queries, run.keys, run.values, run.weights, None, upstream,
        run.divisor,
    )  # fmt: skip
    for name in ("grad_w_q", "grad_w_k"):
        np.testing.assert_allclose(through_weights[name], through_output[name], atol=1e-10)
    # ... and the loss, which never reads the output, gives W^V nothing.
    assert not through_weights["grad_w_v"].any()


CASES = {
    "one head": {},
    "two heads": {"heads": 2},
    "causal, unscaled": {"causal": True, "divisor": 1.0},
    "positions, two sentences": {"positions": True},
}


@pytest.mark.parametrize("case", CASES)
def test_gradients_match_central_differences_of_a_loop_loss(case):
    options = CASES[case]
    heads = options.get("heads")
    x, params = _headline(heads=heads)
    allowed = causal_mask(6, 6) if options.get("causal") else None
    examples = [training.Example(x, ((ESTAN, LLAVES), (ESTAN, 1), (4, 2)), allowed)]
    if options.get("positions"):
        other = ["los", "coches", "de", "la", "casa", "están", "aquí"]
        second = embed(other, 8, math.sqrt(8), 0)
        examples = [
            training.Example(positions.with_positions(x, "sinusoidal"), ((ESTAN, LLAVES),)),
            training.Example(positions.with_positions(second, "sinusoidal"), ((5, 1),)),
        ]
    divisor = options.get("divisor")
    found = training.evaluate(examples, params, heads, divisor)

    def loss() -> float:
        listed = None if allowed is None else allowed.tolist()
        return sum(
            _naive_loss(e.x, params, e.wanted, heads or 1, divisor, listed) for e in examples
        ) / len(examples)

    assert found.loss == pytest.approx(loss(), rel=1e-12)
    for name in training.TRAINED:
        numeric = gradients.central_differences(loss, params[name])
        assert gradients.relative_difference(found.grads[f"grad_{name}"], numeric) < 1e-6, name
    for name in ("w_v", "w_o"):
        if name in params:
            assert not found.grads[f"grad_{name}"].any(), name


def test_finite_differences_notice_a_wrong_gradient():
    x, params = _headline()
    example = training.Example(x, ((ESTAN, LLAVES),))
    found = training.evaluate([example], params, None, None)
    numeric = gradients.central_differences(
        lambda: _naive_loss(x, params, example.wanted), params["w_q"]
    )
    wrong = found.grads["grad_w_q"].copy()
    wrong[3, 4] += 1e-3
    assert gradients.relative_difference(wrong, numeric) > 1e-4


def _headline_run(**options):
    x, params = _headline()
    optimizer = training.Optimizer(options.pop("kind", "sgd"), options.pop("lr", DEFAULT_LR))
    iterations = options.pop("iterations", DEFAULT_ITERATIONS)
    example = training.Example(x, ((ESTAN, LLAVES),))
    return training.train([example], params, iterations, optimizer, **options)


def test_the_headline_loss_falls_at_every_step_and_estan_finds_llaves():
    run = _headline_run()
    assert run.stopped is None and run.done == DEFAULT_ITERATIONS
    assert len(run.loss) == DEFAULT_ITERATIONS + 1
    assert np.all(np.diff(run.loss) <= 1e-12), np.diff(run.loss).max()
    assert run.loss[-1] < run.loss[0] / 100
    assert run.wanted[0, 0, 0] < 0.05  # before: the seeded matrices look elsewhere
    assert run.wanted[-1, 0, 0] >= 0.9
    assert run.wanted[-1, 0, 0] == pytest.approx(math.exp(-run.loss[-1]), rel=1e-12)


def test_the_same_seed_gives_the_same_numbers():
    first, second = _headline_run(), _headline_run()
    np.testing.assert_array_equal(first.loss, second.loss)
    for name in training.TRAINED:
        np.testing.assert_array_equal(first.params[name], second.params[name])
    # The numbers this run gave when it was written, to 1e-9 on any machine.
    assert first.loss[0] == pytest.approx(3.5389875272, abs=1e-9)
    assert first.loss[10] == pytest.approx(REFERENCE_LOSS_10, abs=1e-9)
    assert first.loss[-1] == pytest.approx(REFERENCE_LOSS_LAST, abs=1e-9)


REFERENCE_LOSS_10, REFERENCE_LOSS_LAST = 0.0876708391, 0.0012267042


def test_training_leaves_the_values_and_the_given_matrices_alone():
    x, params = _headline(heads=2)
    before = {name: value.copy() for name, value in params.items()}
    example = training.Example(x, ((ESTAN, LLAVES),))
    run = training.train([example], params, 5, training.Optimizer("sgd", 0.1), heads=2)
    for name, value in params.items():
        np.testing.assert_array_equal(value, before[name])
    for name in ("w_v", "w_o"):
        np.testing.assert_array_equal(run.params[name], before[name])
    assert not np.array_equal(run.params["w_q"], before["w_q"])


def test_adams_first_step_moves_every_entry_by_about_lr():
    x, params = _headline()
    example = training.Example(x, ((ESTAN, LLAVES),))
    grad = training.evaluate([example], params, None, None).grads
    run = training.train([example], params, 1, training.Optimizer("adam", 0.01))
    for name in training.TRAINED:
        g = grad[f"grad_{name}"]
        expected = params[name] - 0.01 * g / (np.abs(g) + training.ADAM_EPSILON)
        np.testing.assert_allclose(run.params[name], expected, atol=1e-15)


def test_sgd_is_w_minus_lr_times_the_gradient():
    x, params = _headline()
    example = training.Example(x, ((ESTAN, LLAVES),))
    grad = training.evaluate([example], params, None, None).grads
    run = training.train([example], params, 1, training.Optimizer("sgd", 0.25))
    for name in training.TRAINED:
        np.testing.assert_array_equal(run.params[name], params[name] - 0.25 * grad[f"grad_{name}"])


def test_a_huge_step_stops_as_diverged_with_the_last_good_parameters():
    run = _headline_run(lr=1000.0)
    assert run.stopped == "diverged" and run.done == 0
    assert np.isfinite(run.loss).all() and len(run.loss) == 1
    x, params = _headline()
    np.testing.assert_array_equal(run.params["w_q"], params["w_q"])
    assert run.diverged_loss is not None and not run.diverged_loss < 10 * run.loss[0]


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("heads", [1, 2])
def test_a_step_that_overflows_diverges_without_a_warning(kind, heads):
    # W − lr·∇W with lr = 1e308 overflows to inf: the run says diverged, numpy says nothing
    x, params = _headline()
    example = training.Example(x, ((ESTAN, LLAVES),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = training.train([example], params, 3, training.Optimizer(kind, 1e308), heads)
    assert run.stopped == "diverged" and run.done == 0
    np.testing.assert_array_equal(run.params["w_q"], params["w_q"])


def test_ctrl_c_keeps_the_last_whole_update():
    def interrupt(done: int, loss: float) -> None:
        if done == 5:
            raise KeyboardInterrupt

    stopped = _headline_run(on_step=interrupt)
    five = _headline_run(iterations=5)
    assert stopped.stopped == "interrupted" and stopped.done == 5
    np.testing.assert_array_equal(stopped.loss, five.loss)
    np.testing.assert_array_equal(stopped.wanted, five.wanted)
    for name in training.TRAINED:
        np.testing.assert_array_equal(stopped.params[name], five.params[name])


def test_a_wanted_cell_that_is_masked_has_an_infinite_loss():
    x, params = _headline()
    example = training.Example(x, ((0, LLAVES),), causal_mask(6, 6))  # «las» may not look ahead
    assert training.evaluate([example], params, None, None).loss == math.inf
    run = training.train([example], params, 3, training.Optimizer("sgd", 0.1))
    assert run.stopped == "diverged" and run.done == 0


def test_the_largest_link_is_strict_and_holds_in_every_head():
    grid = np.array([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])
    assert training.link_is_largest(grid, 0, 1)
    assert not training.link_is_largest(grid, 0, 2)
    assert not training.link_is_largest(grid, 1, 0)  # a tie is not a win
    heads = np.stack([grid, grid[:, ::-1]])
    assert not training.link_is_largest(heads, 0, 2)
    assert training.link_is_largest(heads, 2, 2) is False
    assert training.link_is_largest(np.stack([grid, grid]), 2, 2)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-20, 20), min_size=3, max_size=3),
    st.integers(0, 2),
)
def test_the_score_gradient_is_alpha_minus_the_one_hot(scores, column):
    """∂ℓ/∂e of −log α_j is α − e_j: every row of the gradient sums to 0."""
    weights = np.array([naive.softmax_row(scores)])
    counts = np.zeros((1, 3))
    counts[0, column] = 1.0
    grad_e = gradients.softmax_backward(weights, training.loss_grad_weights(weights, counts))
    one_hot = np.eye(3)[column]
    np.testing.assert_allclose(grad_e[0], weights[0] - one_hot, atol=1e-12)
