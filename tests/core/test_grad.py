"""The backward pass: against hand-derived values, finite differences and the identities."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.core import gradients
from attncli.errors import InputError, OptionError, ShapeError
from tests.conftest import SAMPLES
from tests.meaning import ABOVE, BOTH, MISSING, TRY, told

NOT_THE_OUTPUT = (
    "{name} is {shown} but the output is {wanted} (give one number per number of the output)"
)

TREN = {
    "query": [1, 0],
    "keys": [[2, 1], [0, 2], [1, 1]],
    "values": [[10, 0], [0, 10], [5, 5]],
    "tokens": ["tren", "va", "lleno"],
}
METHODS = ("dot", "scaled", "general", "additive")


def test_hand_worked_tren_with_target():
    """c ≈ (7.876, 2.124), ∇_c ℓ = c − (8, 2), then α_j gᵀ(v_j − c) by hand."""
    g = attn.grad(**TREN, target=[8, 2])
    alpha = np.exp([2, 0, 1]) / np.exp([2, 0, 1]).sum()
    c = alpha @ np.array(TREN["values"])
    np.testing.assert_allclose(g.output, c, rtol=1e-15)
    np.testing.assert_allclose(g.grad_output, c - [8, 2], rtol=1e-13)
    np.testing.assert_allclose(g.grad_output, [-0.12394809, 0.12394809], rtol=1e-7)
    assert g.loss == pytest.approx(0.5 * ((c[0] - 8) ** 2 + (c[1] - 2) ** 2), rel=1e-15)
    upstream = c - [8, 2]
    by_hand = [alpha[j] * upstream @ (np.array(TREN["values"][j]) - c) for j in range(3)]
    np.testing.assert_allclose(g.grad_scores, by_hand, atol=1e-15)
    # dot: ∂ℓ/∂q = Σ_j ∂ℓ/∂e_j k_j, ∂ℓ/∂k_j = ∂ℓ/∂e_j q
    np.testing.assert_allclose(g.grad_queries, np.array(by_hand) @ TREN["keys"], atol=1e-15)
    np.testing.assert_allclose(g.grad_keys, np.outer(by_hand, TREN["query"]), atol=1e-15)
    np.testing.assert_allclose(g.grad_values, np.outer(alpha, upstream), atol=1e-15)


def _loop_general(query, keys, w_a, grad_scores):
    """The lesson's three derivatives, one pair at a time."""
    grad_q = sum(gs * (w_a @ k) for gs, k in zip(grad_scores, keys, strict=True))
    grad_k = [gs * (w_a.T @ query) for gs in grad_scores]
    grad_w = sum(gs * np.outer(query, k) for gs, k in zip(grad_scores, keys, strict=True))
    return grad_q, np.array(grad_k), grad_w


def test_general_matches_the_lessons_derivatives():
    g = attn.grad(**TREN, target=[8, 2], method="general", seed=4)
    q, k = np.array(TREN["query"], float), np.array(TREN["keys"], float)
    grad_q, grad_k, grad_w = _loop_general(q, k, g.parameters["w_a"], g.grad_scores)
    np.testing.assert_allclose(g.grad_queries, grad_q, atol=1e-13)
    np.testing.assert_allclose(g.grad_keys, grad_k, atol=1e-13)
    np.testing.assert_allclose(g.grad_parameters["grad_w_a"], grad_w, atol=1e-13)


def test_additive_carries_one_minus_tanh_squared():
    g = attn.grad(**TREN, target=[8, 2], method="additive", seed=2)
    p = g.parameters
    q, keys = np.array(TREN["query"], float), np.array(TREN["keys"], float)
    grad_q = np.zeros(2)
    grad_v = np.zeros_like(p["v_a"])
    for j, k in enumerate(keys):
        hidden = np.tanh(p["w_1"] @ q + p["w_2"] @ k)
        delta = g.grad_scores[j] * (1 - hidden**2) * p["v_a"]
        grad_q += p["w_1"].T @ delta
        grad_v += g.grad_scores[j] * hidden
        np.testing.assert_allclose(g.grad_keys[j], p["w_2"].T @ delta, atol=1e-13)
    np.testing.assert_allclose(g.grad_queries, grad_q, atol=1e-13)
    np.testing.assert_allclose(g.grad_parameters["grad_v_a"], grad_v, atol=1e-13)


@pytest.mark.parametrize("method", METHODS)
def test_every_gradient_matches_finite_differences(method):
    rng = np.random.default_rng(3)
    g = attn.grad(
        queries=rng.normal(size=(3, 4)),
        keys=rng.normal(size=(5, 4)),
        values=rng.normal(size=(5, 2)),
        grad_output=rng.normal(size=(3, 2)),
        method=method,
        temperature=0.7,
    )
    checks = g.check()
    assert set(checks) >= {"grad_queries", "grad_keys", "grad_values"}
    assert max(checks.values()) < 1e-6, checks


def test_finite_differences_notice_a_wrong_gradient():
    """The check can fail: a gradient off by 1% is reported."""
    analytic = np.array([1.0, 2.0])
    assert gradients.relative_difference(analytic, analytic * 1.01) > 1e-3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 5), min_size=2, max_size=6),
    st.floats(-50, 50),
    st.floats(0.2, 5),
)
def test_grad_scores_rows_sum_to_zero_and_ignore_a_shift(scores, shift, temperature):
    rng = np.random.default_rng(len(scores))
    weights = attn.softmax(scores, temperature=temperature).weights
    shifted = attn.softmax([s + shift for s in scores], temperature=temperature).weights
    upstream = rng.normal(size=len(scores))
    grad = gradients.softmax_backward(weights, upstream, temperature)
    assert abs(grad.sum()) < 1e-12
    np.testing.assert_allclose(
        gradients.softmax_backward(shifted, upstream, temperature), grad, atol=1e-12
    )


def test_masked_cells_get_exactly_zero(run_json):
    document = {**TREN, "queries": [[1, 0], [0, 1]], "scores": [[2, None, 1], [None, 2, 1]]}
    document.pop("query")
    out = run_json("grad", "--grad-output", "1,1;1,1", input=json.dumps(document))
    assert out["weights"][0][1] == 0.0 and out["grad_scores"][0][1] == 0.0
    assert out["grad_scores"][1][0] == 0.0 and out["grad_weights"][0][1] != 0.0
    assert out["scores"][0][1] is None


def test_the_lessons_chain_backward_through_the_pipe(run, run_json):
    chained = run_json(
        "mix",
        input=json.dumps(
            run_json(
                "softmax", input=json.dumps(run_json("score", "-i", str(SAMPLES / "tren.json")))
            )
        ),
    )
    out = run_json("grad", "--target", "8,2", input=json.dumps(chained))
    direct = run_json("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2")
    for field in ("grad_output", "grad_weights", "grad_scores", "grad_values", "grad_query",
                  "grad_keys", "loss"):  # fmt: skip
        np.testing.assert_allclose(out[field], direct[field], rtol=1e-15)
    steps = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--steps")
    assert steps.exit_code == 0, steps.stderr
    text = steps.stdout
    assert "-0.124, 0.124" in text and "0.0154" in text
    assert "(-0.124)×10 + 0.124×0" in text and "= -1.239" in text
    assert "-0.3503" in text and "∂ℓ/∂q = Σ of the column before = (-0.526, 0.176)" in text


def test_grad_steps_in_spanish_and_as_a_worksheet(run):
    spanish = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8; 2", "--steps",
                  "--lang", "es").stdout  # fmt: skip
    assert "Gradiente en la salida" in spanish and "-0,124; 0,124" in spanish
    sheet = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--blank",
                "--answers").stdout  # fmt: skip
    worksheet, answers = sheet.split("ANSWERS")
    assert "____" in worksheet and "-0.3503" not in worksheet and "-0.3503" in answers


@pytest.mark.parametrize("method", ("general", "additive"))
def test_method_steps_show_their_own_derivatives(run, method):
    out = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--steps",
              "--method", method).stdout  # fmt: skip
    if method == "general":
        assert "W_aᵀ q = (" in out and "∂ℓ/∂W_a from this row" in out
    else:
        assert "1 − tanh²" in out and "∂ℓ/∂v_a from this row" in out


def test_check_option_reports_agreement(run, run_json):
    out = run_json("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--check",
                   "--json", "--method", "additive")  # fmt: skip
    assert set(out["check"]) == {"grad_query", "grad_keys", "grad_values", "grad_w_1",
                                 "grad_w_2", "grad_v_a"}  # fmt: skip
    assert max(out["check"].values()) < 1e-6
    table = run("grad", "-i", str(SAMPLES / "tren.json"), "--target", "8,2", "--check",
                "--format", "table").stdout  # fmt: skip
    assert "against central finite differences" in table and "(agree)" in table


@pytest.mark.parametrize(
    ("args", "kind", "msgid", "fields"),
    [
        (("--grad-output", "1,0,3"), ShapeError, NOT_THE_OUTPUT,
         {"name": "--grad-output", "shown": "3", "wanted": "2"}),
        (("--target", "1;2"), ShapeError, NOT_THE_OUTPUT,
         {"name": "--target", "shown": "2 × 1", "wanted": "2"}),
        ((), InputError, MISSING, {"field": "target"}),
        (("--target", "8,2", "--temperature", "0"), OptionError, TRY,
         {"refusal": (ABOVE, {"setting": "--temperature 0.0", "above": "0"}),
          "example": "--temperature 1"}),
    ],
)  # fmt: skip
def test_grad_errors_are_one_line(run, args, kind, msgid, fields):
    result = run("grad", "-i", str(SAMPLES / "tren.json"), *args)
    assert result.exit_code == 2 and result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_both_upstream_fields_in_a_document_are_refused(run):
    document = {**TREN, "target": [8, 2], "grad_output": [1, 0]}
    result = run("grad", input=json.dumps(document))
    assert result.exit_code == 2
    told(result.error, InputError, BOTH, first="target", second="grad_output")


def test_both_upstream_options_are_refused_and_one_replaces_the_input_s_other(run):
    line = ("grad", "--query", "1,0", "--keys", "1,0;0,1", "--values", "1,0;0,1")
    both = run(*line, "-g", "1,0", "--target", "1,0")
    assert both.exit_code == 2 and both.stdout == ""
    told(
        both.error,
        InputError,
        BOTH,
        first="--grad-output",
        second="--target",
    )  # the options, as given
    piped = json.dumps({**TREN, "target": [8, 2]})
    replaced = json.loads(run("grad", "-g", "1,0", input=piped).stdout)
    assert replaced["grad_output"] == [1.0, 0.0] and "target" not in replaced


SELFATTN_CASES = {
    "one head": {},
    "two heads, causal": {"heads": 2, "causal": True},
    "unscaled": {"scale": False},
    "no projections": {"projections": False},
}


@pytest.mark.parametrize("case", SELFATTN_CASES)
def test_selfattn_gradients_match_finite_differences(case):
    options = SELFATTN_CASES[case]
    rng = np.random.default_rng(5)
    inputs = {"x": rng.normal(size=(4, 4))}
    if options.get("projections", True):
        inputs.update({name: rng.normal(size=(4, 4)) / 2 for name in ("w_q", "w_k", "w_v")})
    if "heads" in options:
        inputs["w_o"] = rng.normal(size=(4, 4)) / 2
    target = rng.normal(size=(4, 4))
    result = attn.selfattn(**inputs, **options, target=target)

    def loss() -> float:
        return attn.selfattn(**inputs, **options, target=target).loss

    for name, array in inputs.items():
        numeric = gradients.central_differences(loss, array)
        difference = gradients.relative_difference(result.grads[f"grad_{name}"], numeric)
        assert difference < 1e-6, (name, difference)


def test_attention_over_given_qkv_has_their_gradients():
    rng = np.random.default_rng(6)
    inputs = {name: rng.normal(size=(3, 2)) for name in ("queries", "keys", "values")}
    upstream = rng.normal(size=(3, 2))
    result = attn.selfattn(**inputs, grad_output=upstream)

    def loss() -> float:
        return float(np.sum(attn.selfattn(**inputs).output * upstream))

    for name, array in inputs.items():
        numeric = gradients.central_differences(loss, array)
        assert gradients.relative_difference(result.grads[f"grad_{name}"], numeric) < 1e-6


def test_selfattn_cli_writes_the_gradients(run, run_json):
    out = run_json("selfattn", "el tren va lleno", "--d-model", "2", "--grad-output",
                   "1,0;0,1;1,1;0,0")  # fmt: skip
    assert {"grad_x", "grad_w_q", "grad_w_k", "grad_w_v"} <= set(out)
    assert np.array(out["grad_x"]).shape == (4, 2)
    bad = run("selfattn", "el tren va lleno", "--target", "1,0")
    assert bad.exit_code == 2 and bad.stdout == ""
    told(bad.error, ShapeError, NOT_THE_OUTPUT, name="target", shown="2", wanted="4 × 8")


def test_additive_biases_match_the_loop_and_their_gradients_finite_differences():
    import attncli
    from tests import naive

    rng = np.random.default_rng(8)
    query, keys = rng.standard_normal(3), rng.standard_normal((4, 2))
    w_1, w_2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    v_a, b_1, b_2 = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(5)
    result = attncli.score(query=query, keys=keys, method="additive", w_1=w_1, w_2=w_2,
                           v_a=v_a, b_1=b_1, b_2=b_2)  # fmt: skip
    import math

    def projected(weight, vector, bias):
        return [naive.dot(row, vector.tolist()) + b for row, b in zip(weight.tolist(), bias,
                                                                     strict=True)]  # fmt: skip

    projected_query = projected(w_1, query, b_1)
    for j, key in enumerate(keys):
        projected_key = projected(w_2, key, b_2)
        hidden = [math.tanh(a + b) for a, b in zip(projected_query, projected_key, strict=True)]
        assert result.scores[j] == pytest.approx(naive.dot(v_a.tolist(), hidden), rel=1e-12)
    graded = attncli.grad(query=query, keys=keys, values=rng.standard_normal((4, 2)),
                          method="additive", w_1=w_1, w_2=w_2, v_a=v_a, b_1=b_1, b_2=b_2,
                          target=[1.0, -1.0])  # fmt: skip
    checks = graded.check()
    assert checks["grad_b_1"] < 1e-6 and checks["grad_b_2"] < 1e-6


def test_a_saturated_row_says_it_passes_almost_nothing_back(run):
    line = ("grad", "--keys", "2,1;0,2;1,1", "--values", "10,0;0,10;5,5", "--target", "8,2",
            "--format", "table")  # fmt: skip
    saturated = run(*line, "--query", "10,0").stdout
    assert "is saturated" in saturated and "attn scaling" in saturated
    assert "is saturated" not in run(*line, "--query", "1,0").stdout
    assert "max α(1 − α) = 4.54e-05" in saturated
    spanish = run(
        "grad",
        "--keys",
        "2; 1 | 0; 2 | 1; 1",
        "--values",
        "10; 0 | 0; 10 | 5; 5",
        "--target",
        "8; 2",
        "--query",
        "10; 0",
        "--format",
        "table",
        "--lang",
        "es",
    )
    assert "está saturada" in spanish.stdout and "4,54e-05" in spanish.stdout
