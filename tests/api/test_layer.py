"""Self-attention as real models write it (torch's nn.MultiheadAttention): biases, heads of
any size, no W^O, masks, padding and a chosen divisor, each against the loop reference in
tests/naive.py to 1e-10, and their gradients against finite differences."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli
from attncli.core import gradients
from attncli.errors import InputError, OptionError, ShapeError
from tests import naive
from tests.meaning import DISAGREE, UNKNOWN_NAMES, WRONG, told

D_MODEL, T = 6, 5


def _layer(heads, d_k, d_v, out_proj=True, biases=True, seed=0):
    rng = np.random.default_rng(seed)
    params = {
        "w_q": rng.standard_normal((D_MODEL, heads * d_k)),
        "w_k": rng.standard_normal((D_MODEL, heads * d_k)),
        "w_v": rng.standard_normal((D_MODEL, heads * d_v)),
    }
    if out_proj:
        params["w_o"] = rng.standard_normal((heads * d_v, D_MODEL))
    if biases:
        params.update(b_q=rng.standard_normal(heads * d_k), b_k=rng.standard_normal(heads * d_k),
                      b_v=rng.standard_normal(heads * d_v))  # fmt: skip
        if out_proj:
            params["b_o"] = rng.standard_normal(D_MODEL)
    return rng.standard_normal((T, D_MODEL)), params


def _lists(params):
    return {name: value.tolist() for name, value in params.items()}


@pytest.mark.parametrize("heads", [1, 2, 3])
@pytest.mark.parametrize(("d_k", "d_v"), [(2, 2), (3, 1), (4, 5)])
@pytest.mark.parametrize("out_proj", [True, False])
def test_heads_biases_and_out_projection_match_the_loop_reference(heads, d_k, d_v, out_proj):
    x, params = _layer(heads, d_k, d_v, out_proj)
    result = attncli.selfattn(x=x, heads=heads, d_k=d_k, d_v=d_v, out_proj=out_proj, **params)
    expected = naive.multihead(x.tolist(), x.tolist(), _lists(params), heads)
    np.testing.assert_allclose(result.output, expected, rtol=1e-10, atol=1e-10)
    assert result.params == sum(value.size for value in params.values())


def test_a_mask_padding_and_a_divisor_match_the_loop_reference():
    x, params = _layer(2, 3, 3)
    mask = np.random.default_rng(1).random((T, T)) > 0.4
    mask[:, 0] = True  # every query may look at something
    result = attncli.selfattn(x=x, heads=2, d_k=3, d_v=3, mask=mask.astype(int).tolist(),
                              valid_len=4, scale_by=2.5, **params)  # fmt: skip
    allowed = mask.copy()
    allowed[:, 4:] = False
    expected = naive.multihead(x.tolist(), x.tolist(), _lists(params), 2, 2.5, allowed.tolist())
    np.testing.assert_allclose(result.output, expected, rtol=1e-10, atol=1e-10)
    assert (result.weights[:, ~allowed] == 0).all()
    np.testing.assert_allclose(result.raw_scores[:, allowed] / 2.5, result.scores[:, allowed])


def test_a_boolean_mask_and_the_causal_mask_combine():
    x, params = _layer(1, 2, 2, out_proj=False, biases=False)
    everything = [[True] * T for _ in range(T)]
    result = attncli.selfattn(x=x, mask=everything, causal=True, **params)
    assert np.allclose(np.triu(result.weights, 1), 0) and np.allclose(result.weights.sum(1), 1)


@pytest.mark.parametrize("out_proj", [True, False])
def test_bias_and_weight_gradients_match_finite_differences(out_proj):
    x, params = _layer(2, 2, 3, out_proj)
    target = np.random.default_rng(5).standard_normal((T, D_MODEL if out_proj else 6))
    result = attncli.selfattn(x=x, heads=2, d_k=2, d_v=3, out_proj=out_proj, target=target,
                              valid_len=4, **params)  # fmt: skip

    def loss() -> float:
        run = attncli.selfattn(x=x, heads=2, d_k=2, d_v=3, out_proj=out_proj, target=target,
                               valid_len=4, **params)  # fmt: skip
        assert run.loss is not None
        return run.loss

    for name in params:
        numeric = gradients.central_differences(loss, params[name])
        assert gradients.relative_difference(result.grads[f"grad_{name}"], numeric) < 1e-6, name
    numeric_x = gradients.central_differences(loss, x)
    assert gradients.relative_difference(result.grads["grad_x"], numeric_x) < 1e-6


def test_the_command_line_takes_the_same_layer(run_json, tmp_path):
    x, params = _layer(2, 2, 2)
    path = tmp_path / "layer.npz"
    np.savez(path, x=x, **params)
    document = run_json("selfattn", "-i", str(path), "--heads", "2", "--valid-len", "3")
    allowed = np.ones((T, T), dtype=bool)
    allowed[:, 3:] = False
    expected = naive.multihead(x.tolist(), x.tolist(), _lists(params), 2, None, allowed.tolist())
    np.testing.assert_allclose(document["output"], expected, rtol=1e-10, atol=1e-10)
    assert document["d_k"] == 2 and document["params"] == sum(v.size for v in params.values())
    assert "raw_scores" in document and document["divisor"] == pytest.approx(np.sqrt(2))


@pytest.mark.parametrize("heads", [1, 2, 3])
def test_cross_attention_matches_the_loop_reference(heads):
    x_q, params = _layer(heads, 2, 2)
    x_kv = np.random.default_rng(9).standard_normal((7, D_MODEL))
    result = attncli.selfattn(x_q=x_q, x_kv=x_kv, heads=heads, d_k=2, d_v=2, **params)
    expected = naive.multihead(x_q.tolist(), x_kv.tolist(), _lists(params), heads)
    np.testing.assert_allclose(result.output, expected, rtol=1e-10, atol=1e-10)
    assert result.weights.shape == (heads, T, 7)


def test_cross_attention_gradients_split_between_the_two_sequences():
    x_q, params = _layer(2, 2, 2)
    x_kv = np.random.default_rng(9).standard_normal((7, D_MODEL))
    target = np.zeros((T, D_MODEL))

    def run():
        return attncli.selfattn(x_q=x_q, x_kv=x_kv, heads=2, d_k=2, d_v=2, target=target,
                                **params)  # fmt: skip

    grads = run().grads
    for name, array in (("grad_x_q", x_q), ("grad_x_kv", x_kv), ("grad_w_k", params["w_k"])):
        numeric = gradients.central_differences(lambda: run().loss, array)
        assert gradients.relative_difference(grads[name], numeric) < 1e-6, name


def test_context_sentence_gives_keys_and_values(run_json):
    document = run_json("selfattn", "the keys", "--context", "las llaves están", "--json")
    assert document["query_tokens"] == ["the", "keys"]
    assert document["tokens"] == ["las", "llaves", "están"]
    assert np.array(document["weights"]).shape == (2, 3)
    same = run_json("selfattn", "las llaves están", "--json")
    np.testing.assert_array_equal(document["x_kv"], same["x"])  # same token, same embedding


def test_cross_attention_inputs_are_checked(run):
    bad = run("selfattn", "-i", "-", input='{"x_q": [[1, 2]], "x_kv": [[1, 2, 3]]}')
    assert bad.exit_code == 2 and type(bad.error) is ShapeError
    told(bad.error, ShapeError, DISAGREE, field="x_kv", other="x_q", dimension="d_model",
         found=("{numbers} a row", {"numbers": ("{count} number", {"count": 3})}))  # fmt: skip
    alone = run("selfattn", "--context", "a b")
    assert alone.exit_code == 2 and type(alone.error) is InputError
    assert alone.error.msgid == (
        "{context} gives the keys and values for a sentence's queries; give the sentence too "
        "(or x_q and x_kv{where})"
    )
    assert alone.stderr.rstrip().endswith("give the sentence too (or x_q and x_kv in -i FILE)")
    with pytest.raises(InputError) as python:
        attncli.selfattn(context="a b")
    assert str(python.value).startswith("context gives") and str(python.value).endswith("x_kv)")


def test_heads_on_given_queries_keys_and_values():
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 6))
    result = attncli.selfattn(queries=q, keys=k, values=v, heads=2)
    expected = [[] for _ in range(3)]
    for h in range(2):  # each head on its own block of columns, then side by side
        _, _, out = naive.attention(q[:, 2 * h : 2 * h + 2].tolist(),
                                    k[:, 2 * h : 2 * h + 2].tolist(),
                                    v[:, 3 * h : 3 * h + 3].tolist())  # fmt: skip
        expected = [row + part for row, part in zip(expected, out, strict=True)]
    np.testing.assert_allclose(result.output, expected, rtol=1e-10, atol=1e-10)
    target = np.zeros((3, 6))
    grads = attncli.selfattn(queries=q, keys=k, values=v, heads=2, target=target).grads

    def loss():
        return attncli.selfattn(queries=q, keys=k, values=v, heads=2, target=target).loss

    for name, array in (("grad_queries", q), ("grad_keys", k), ("grad_values", v)):
        numeric = gradients.central_differences(loss, array)
        assert gradients.relative_difference(grads[name], numeric) < 1e-6, name


@pytest.mark.parametrize("heads", [None, 2])
def test_the_output_in_row_blocks_equals_the_full_computation(heads):
    from attncli.core import selfattn as core

    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((7, 4)), rng.standard_normal((9, 4)), rng.standard_normal((9, 6))
    masked = rng.random((7, 9)) > 0.7
    masked[:, 0] = False
    if heads:
        q, k, v = (core.split_heads(a, heads) for a in (q, k, v))
    full = core.attend(q, k, v, 1.7, masked).output
    np.testing.assert_allclose(core.blocked_output(q, k, v, 1.7, masked, rows=3), full,
                               rtol=1e-13, atol=1e-13)  # fmt: skip


def test_fields_output_computes_in_blocks_with_the_same_numbers(run_json, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(0).standard_normal((600, 8)))  # > one block of rows
    full = run_json("selfattn", "-i", str(path), "--heads", "2", "--causal", "--json")
    only = run_json("selfattn", "-i", str(path), "--heads", "2", "--causal", "--fields",
                    "output,params")  # fmt: skip
    assert list(only) == ["output", "params"] and only["params"] == full["params"]
    np.testing.assert_allclose(only["output"], full["output"], rtol=1e-12, atol=1e-13)


def test_fields_are_checked(run):
    unknown = run("softmax", "2", "0", "1", "--fields", "weights,nope")
    assert unknown.exit_code == 2
    told(unknown.error, OptionError, UNKNOWN_NAMES, option="--fields", text="'weights,nope'",
         unknown="nope", known="scores, temperature, weights")  # fmt: skip
    with_steps = run("softmax", "2", "0", "1", "--fields", "weights", "--steps")
    assert with_steps.exit_code == 2
    told(with_steps.error, OptionError, "{option} with {beside}: {why}", option="--fields",
         beside="--steps", why=("{option} picks fields of the JSON document, which a table does "
                                "not show; give one", {"option": "--fields"}))  # fmt: skip
    table = run("softmax", "2", "0", "1", "--fields", "weights", "--format", "table")
    told(table.error, OptionError, "{option} with {beside}: {why}", option="--fields",
         beside="--format table")  # fmt: skip
    weights = run("softmax", "2", "0", "1", "--fields", "weights")
    assert weights.exit_code == 0 and weights.stdout.startswith('{"weights":')


def test_a_grid_too_large_suggests_writing_only_the_output(run, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.zeros((40_000, 2)))
    refused = run("selfattn", "-i", str(path), "--json")
    assert refused.exit_code == 2 and type(refused.error) is OptionError
    assert refused.error.msgid == (
        "{what} would need about {need}, more than half of the {memory} available; "
        "lower {lower}{hint}"
    )
    assert refused.error.fields["what"].fields["tokens"] == 40_000
    assert refused.error.fields["hint"].msgid == (
        ", or write only the output ({only}): it is then computed in row blocks"
    )
    assert refused.error.fields["hint"].fields["only"].written("cli") == "--fields output"


@pytest.mark.parametrize("heads", [1, 2, 3])
def test_a_batch_is_computed_in_one_go_and_matches_each_sequence(heads):
    _, params = _layer(heads, 2, 2)
    x = np.random.default_rng(6).standard_normal((4, T, D_MODEL))  # B × T × d (batch_first)
    result = attncli.selfattn(x=x, heads=heads, d_k=2, d_v=2, valid_len=4, **params)
    allowed = np.ones((T, T), dtype=bool)
    allowed[:, 4:] = False
    assert result.batch == 4 and result.output.shape == (4, T, D_MODEL)
    for b in range(4):
        expected = naive.multihead(x[b].tolist(), x[b].tolist(), _lists(params), heads, None,
                                   allowed.tolist())  # fmt: skip
        np.testing.assert_allclose(result.output[b], expected, rtol=1e-10, atol=1e-10)
        one = attncli.selfattn(x=x[b], heads=heads, d_k=2, d_v=2, valid_len=4, **params)
        np.testing.assert_allclose(result.item(b + 1).weights, one.weights, rtol=1e-12)


def test_a_batch_from_the_command_line(run, run_json, tmp_path):
    x = np.random.default_rng(6).standard_normal((2, 3, 4))
    path = tmp_path / "batch.npy"
    np.save(path, x)
    document = run_json("selfattn", "-i", str(path), "--json")
    assert np.array(document["weights"]).shape == (2, 3, 3)
    as_json = run_json("selfattn", "-i", "-", "--json", input=json.dumps({"x": x.tolist()}))
    np.testing.assert_allclose(as_json["output"], document["output"], rtol=1e-12)
    blocked = run_json("selfattn", "-i", str(path), "--fields", "output")
    np.testing.assert_allclose(blocked["output"], document["output"], rtol=1e-12)
    table = run("selfattn", "-i", str(path), "--format", "table").stdout
    assert "a batch of 2 sequences, computed together; shown: the first" in table
    steps = run("selfattn", "-i", str(path), "--steps")
    assert steps.exit_code == 2 and steps.error.msgid == (
        "--steps explains one sequence and x is a batch of {batch}; pick one with --item N "
        "(1 to {batch}; in Python, result.item(N).steps())"
    )
    assert steps.error.fields == {"batch": 2}
    ragged = run("selfattn", "-i", "-", input='{"x": [[[1, 2]], [[1, 2], [3, 4]]]}')
    assert ragged.exit_code == 2 and type(ragged.error) is ShapeError
    told(ragged.error, ShapeError,
         "{field}[{index}] is {shape} but {field}[{first}] is {first_shape}; every part of "
         "{field} has one shape", field="x", index=2, shape="2 × 2", first=1,
         first_shape="1 × 2")  # fmt: skip


@pytest.mark.parametrize("heads", [1, 2])
def test_key_padding_mask_per_sequence_as_torch_reads_it(heads):
    _, params = _layer(heads, 2, 2)
    x = np.random.default_rng(7).standard_normal((3, T, D_MODEL))
    padding = np.zeros((3, T), dtype=bool)  # torch: True = a padding key, ignored
    padding[0, 3:], padding[2, 1:] = True, True
    result = attncli.selfattn(x=x, heads=heads, d_k=2, d_v=2, causal=True, **params,
                              key_padding_mask=padding.tolist())  # fmt: skip
    for b in range(3):
        allowed = np.tril(np.ones((T, T), dtype=bool)) & ~padding[b][None, :]
        expected = naive.multihead(x[b].tolist(), x[b].tolist(), _lists(params), heads, None,
                                   allowed.tolist())  # fmt: skip
        np.testing.assert_allclose(result.output[b], expected, rtol=1e-10, atol=1e-10)
    shared = attncli.selfattn(x=x[0], key_padding_mask=[0, 0, 0, 1, 1])
    assert np.allclose(shared.weights[:, 3:], 0)


def test_key_padding_mask_is_checked(run):
    document = {"x": [[1, 0], [0, 1]], "key_padding_mask": [[0, 1]]}
    bad = run("selfattn", "-i", "-", input=json.dumps(document))
    assert bad.exit_code == 2 and type(bad.error) is ShapeError
    assert bad.error.msgid == (
        "key_padding_mask is {shape} but must be {expected} (a number per key, a row per "
        "sequence of a batch)"
    )
    assert bad.error.fields == {"shape": "1 × 2", "expected": "2"}
    words = run("selfattn", "-i", "-", input='{"x": [[1, 0]], "key_padding_mask": ["x"]}')
    assert words.exit_code == 2 and type(words.error) is InputError
    told(
        words.error,
        InputError,
        WRONG,
        where=("{field}: the cell at {cell}", {"field": "key_padding_mask", "cell": "(1)"}),
        kind=("{value} (a string)", {"value": '"x"'}),
    )  # the string, quoted as JSON writes it


def test_item_picks_the_sequence_a_batch_shows(run, run_json, tmp_path):
    x = np.random.default_rng(6).standard_normal((2, 3, 4))
    path = tmp_path / "batch.npy"
    np.save(path, x)
    second = attncli.selfattn(x=x[1])
    steps = run("selfattn", "-i", str(path), "--item", "2", "--steps", "--digits", "6")
    assert steps.exit_code == 0, steps.stderr
    assert f"{second.weights[-1, 0]:.6f}" in steps.stdout
    whole = run_json("selfattn", "-i", str(path), "--json")
    assert run_json("selfattn", "-i", str(path), "--item", "2", "--json") == whole
    beyond = run("selfattn", "-i", str(path), "--item", "3")
    assert beyond.exit_code == 2
    told(beyond.error, OptionError, "{option} is out of range: {there} (1 to {total})",
         option=("sequence {number}", {"number": 3}),
         there=("the batch has {total}", {"total": 2}), total=2)  # fmt: skip
