"""--positions rope on the seeded layer and on given weights: equal to transformers' Llama
apply_rotary_pos_emb and torch's scaled_dot_product_attention (tests/references/modern.json,
made by tests/references/make_modern.py), its steps, its JSON read back, and every refusal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import AttnError, OptionError
from tests import naive
from tests.meaning import told

REFERENCES = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "modern.json").read_text("utf-8")
)["rotary"]
LESSON = "las llaves del coche están ahí"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_equal_to_transformers_apply_rotary_pos_emb(name):
    case = REFERENCES[name]
    heads = case["heads"]
    result = attn.selfattn(
        x=case["x"],
        **{w: case[w] for w in ("w_q", "w_k", "w_v", "w_o")},
        heads=heads,
        positions="rope",
        rope_base=case["rope_base"],
        causal=case["causal"],
    )
    np.testing.assert_allclose(result.queries, case["queries"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.keys, case["keys"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.weights, case["weights"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.output, case["output"], rtol=0, atol=1e-12)


def test_the_base_and_pairing_are_llamas():
    # transformers' LlamaRotaryEmbedding computes inv_freq in float32 from rope_theta
    from attncli.core.rotary import frequencies

    for case in REFERENCES.values():
        d = np.array(case["x"]).shape[1] // case["heads"]
        ours = frequencies(d, case["rope_base"])
        np.testing.assert_allclose(ours, case["llama_inv_freq"], rtol=1e-6)


def test_the_seeded_layer_against_a_loop():
    result = attn.selfattn(LESSON, positions="rope", heads=2)
    unturned_q, unturned_k = result.attention.unrotated
    for head in range(2):
        for position in range(6):
            expected = naive.rotary(unturned_q[head, position].tolist(), position)
            np.testing.assert_allclose(result.queries[head, position], expected, atol=1e-13)
    # without rope the same layer scores otherwise: the positions are in the numbers
    plain = attn.selfattn(LESSON, heads=2)
    assert not np.allclose(plain.weights, result.weights)
    np.testing.assert_allclose(plain.queries, unturned_q, rtol=0, atol=0)


def test_no_projections_and_given_queries_are_turned_too():
    x = np.random.default_rng(3).standard_normal((5, 4))
    bare = attn.selfattn(x=x, projections=False, positions="rope")
    turned = np.array([naive.rotary(row.tolist(), i) for i, row in enumerate(x)])
    np.testing.assert_allclose(bare.queries, turned, atol=1e-13)
    direct = attn.selfattn(queries=x, keys=x, values=x, positions="rope")
    np.testing.assert_allclose(direct.weights, bare.weights, atol=1e-13)


def test_steps_show_each_pair_and_the_relative_property():
    result = attn.selfattn(LESSON, positions="rope")
    steps = result.steps(token="están")
    query_turn, key_turn = steps[0], steps[1]
    assert (query_turn.vector, query_turn.position, key_turn.vector) == ("q", 4, "k")
    assert [(r.first, r.second) for r in query_turn.rows] == [(1, 5), (2, 6), (3, 7), (4, 8)]
    unturned = result.attention.unrotated[0][4]
    for row in query_turn.rows:
        assert row.angle == 4 * 10000.0 ** (-2 * (row.first - 1) / 8)
        assert row.x == unturned[row.first - 1] and row.y == unturned[row.second - 1]
        assert row.turned_x == pytest.approx(row.x * row.cos - row.y * row.sin, abs=1e-14)
    np.testing.assert_allclose(
        [r.turned_x for r in query_turn.rows] + [r.turned_y for r in query_turn.rows],
        result.queries[4],
        atol=1e-14,
    )
    check = query_turn.relative
    strongest = int(np.argmax(result.weights[4]))
    assert check.score == pytest.approx(result.scores[4, strongest], abs=1e-12)
    assert check.shifted_score == pytest.approx(check.score, abs=1e-12)
    score_step = steps[2]
    assert score_step.query == pytest.approx(result.queries[4].tolist())


def test_the_json_reads_back_and_says_its_base():
    result = attn.selfattn(LESSON, positions="rope", rope_base=500.0, heads=2)
    document = result.to_document()
    assert document["rope_base"] == 500.0
    again = attn.selfattn(**_inputs(document), positions="rope", rope_base=500.0, heads=2)
    np.testing.assert_allclose(again.weights, result.weights, rtol=0, atol=0)


def _inputs(document):
    return {name: document[name] for name in ("x", "w_q", "w_k", "w_v", "w_o")}


ABOVE_1 = "{setting}: it must be a number above {above}"


# (the keywords, the msgid, its fields as Python writes them)
@pytest.mark.parametrize(
    ("keywords", "msgid", "fields"),
    [
        ({"d_k": 3}, "{width} is {size}, an odd number; rotary positions turn pairs of numbers, "
         "so give an even {option}", {"width": "d_k", "size": 3, "option": "d_k"}),
        ({"context": "el coche"}, "{option} counts the positions of one sequence, its queries' "
         "and keys' alike; with cross-attention the two sequences have no common positions",
         {"option": "positions='rope'"}),
        ({"add_zero_attn": True}, "{rope} with add_bias_kv's or {zero}'s extra keys: those keys "
         "have no position to be turned by; leave them out", {"zero": "add_zero_attn"}),
        ({"rope_base": 1.0}, ABOVE_1, {"setting": "rope_base=1.0", "above": "1"}),
        ({"rope_base": float("nan")}, ABOVE_1, {"setting": "rope_base=nan"}),
    ],
)  # fmt: skip
def test_refused_in_one_line(keywords, msgid, fields):
    with pytest.raises(AttnError) as caught:
        attn.selfattn(LESSON, positions="rope", **keywords)
    told(caught.value, OptionError, msgid, "python", **fields)


def test_a_backward_pass_is_refused():
    with pytest.raises(AttnError) as caught:
        attn.selfattn(LESSON, positions="rope", target=np.zeros((6, 8)))
    told(caught.value, OptionError,
         "{option} has no backward pass in attn yet; leave out the gradient ({upstream}, {target}) "
         "or {option}", "python", option="positions='rope'", target="target")  # fmt: skip


def test_training_with_rope_is_refused():
    with pytest.raises(AttnError) as caught:
        attn.train(LESSON, want="están=llaves", positions="rope")
    told(caught.value, OptionError, "{option} with {beside}: {why}", "python",
         option="positions='rope'", beside="train()",
         why=("it adds positions to X, and rotary positions turn q and k inside the score, "
              "which training does not follow yet; use {sinusoidal}",
              {"option": "positions='rope'", "sinusoidal": "positions='sinusoidal'"}))  # fmt: skip
