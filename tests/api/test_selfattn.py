"""attn selfattn against an independent implementation, and each of its switches."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from attncli.errors import InputError, OptionError, ShapeError
from attncli.reading.parse.sentence import tokenize
from tests import naive
from tests.conftest import SAMPLES
from tests.meaning import DISAGREE, FINITE, PICKLED_ARRAY, WRONG, told

SENTENCE = "las llaves del coche están ahí"
LLAVES = str(SAMPLES / "llaves.json")


def reference(x, w_q, w_k, w_v, scale=True, causal=False, heads=None, w_o=None):
    """Self-attention with loops (one head) or a loop over heads on column blocks."""
    x, w_q, w_k, w_v = (np.asarray(m) for m in (x, w_q, w_k, w_v))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if heads is None:
        grid, weights, out = naive.attention(q.tolist(), k.tolist(), v.tolist(), scale, causal)
        return np.array(grid), np.array(weights), np.array(out)
    width = q.shape[1] // heads
    grids, weights, outs = [], [], []
    for h in range(heads):
        block = slice(h * width, (h + 1) * width)
        grid, weight, out = naive.attention(
            q[:, block].tolist(), k[:, block].tolist(), v[:, block].tolist(), scale, causal
        )
        grids.append(grid)
        weights.append(weight)
        outs.append(out)
    concat = np.concatenate([np.array(out) for out in outs], axis=1)
    return np.array(grids), np.array(weights), concat @ np.asarray(w_o)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("heads", [None, 1, 2, 4])
def test_matches_independent_implementation(run_json, heads, causal, scale):
    args = ["selfattn", SENTENCE, "--json"]
    args += ["--heads", str(heads)] if heads else []
    args += ["--causal"] if causal else []
    args += [] if scale else ["--no-scale"]
    document = run_json(*args)
    grid, weights, output = reference(
        document["x"],
        document["w_q"],
        document["w_k"],
        document["w_v"],
        scale=scale,
        causal=causal,
        heads=heads,
        w_o=document.get("w_o"),
    )
    scores = np.array(document["scores"], dtype=float)  # null (masked) reads as nan
    np.testing.assert_array_equal(np.isnan(scores), np.isneginf(grid))
    live = ~np.isnan(scores)
    np.testing.assert_allclose(scores[live], grid[live], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(document["weights"], weights, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(document["output"], output, rtol=1e-12, atol=1e-12)


def test_parameter_count_independent_of_length_and_heads(run_json):
    short = run_json("selfattn", "a b", "--json", "--d-k", "4", "--d-v", "6")
    long = run_json("selfattn", "a b c d e f g h i", "--json", "--d-k", "4", "--d-v", "6")
    assert short["params"] == long["params"] == 2 * 8 * 4 + 8 * 6
    counts = {
        run_json("selfattn", SENTENCE, "--heads", str(h), "--json")["params"] for h in (1, 2, 4, 8)
    }
    assert counts == {4 * 8 * 8}


def test_parameter_count_is_printed(run):
    result = run("selfattn", SENTENCE, "--format", "table")
    assert result.exit_code == 0, result.output
    assert "2·8·8 + 8·8 = 192, the same for any T" in result.stdout
    heads = run("selfattn", SENTENCE, "--heads", "2", "--format", "table").stdout
    assert "2·8·8 + 8·8 + 8·8 = 256" in heads and "Head 2" in heads


def test_embeddings_are_seeded_normed_and_per_token(run_json):
    document = run_json("selfattn", "el tren y el coche", "--json", "--norm", "3")
    x = np.array(document["x"])
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 3.0, rtol=1e-12)
    np.testing.assert_array_equal(x[0], x[3])  # «el» twice, one vector
    assert document["norm"] == 3.0 and document["seed"] == 0
    other = run_json("selfattn", "el tren y el coche", "--json", "--norm", "3", "--seed", "1")
    assert not np.allclose(other["x"], x)
    default = run_json("selfattn", "el tren", "--json", "--d-model", "16")
    np.testing.assert_allclose(np.linalg.norm(default["x"], axis=1), 4.0, rtol=1e-12)


def test_accents_are_kept_and_one_word_however_it_is_encoded(run_json):
    composed, decomposed = "est\u00e1n", "esta\u0301n"
    document = run_json("selfattn", f"{composed} {decomposed}", "--json")
    assert document["tokens"] == [composed, decomposed]  # shown as typed
    assert document["x"][0] == document["x"][1]  # but the same word


@pytest.mark.slow  # a process of its own for each hash seed
def test_same_numbers_in_every_process():
    code = (
        "import sys, json; sys.argv = ['attn', 'selfattn', 'hola mundo', '--json'];"
        "from attncli.cli.entry import main; main()"
    )
    outputs = set()
    for hash_seed in ("1", "2", "random"):
        environment = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=environment,
            check=True,
        )
        outputs.add(json.dumps(json.loads(result.stdout)["x"]))
    assert len(outputs) == 1


def test_pinned_embedding_value(run_json):
    # Pinned so a change of seeding (and so of every example) cannot go unnoticed.
    x = run_json("selfattn", "llaves", "--json", "--d-model", "2", "--norm", "1")["x"]
    assert np.linalg.norm(x[0]) == pytest.approx(1.0)
    again = run_json("selfattn", "las llaves", "--json", "--d-model", "2", "--norm", "1")["x"]
    assert again[1] == x[0]


@pytest.mark.parametrize(
    ("sentence", "tokens"),
    [
        ("en las llaves del coche", ["en", "las", "llaves", "del", "coche"]),
        ("¿dónde están?", ["¿", "dónde", "están", "?"]),
        ("l'eau, claro.", ["l'eau", ",", "claro", "."]),
        ("  niño   año  ", ["niño", "año"]),
        ("日本語 テスト", ["日本語", "テスト"]),
    ],
)
def test_tokenize(sentence, tokens):
    assert tokenize(sentence) == tokens


def test_no_proj_puts_every_maximum_on_the_diagonal_and_norm_sets_how_much(run_json):
    def diagonal(norm, *extra):
        document = run_json("selfattn", SENTENCE, "--no-proj", "--norm", norm, "--json", *extra)
        weights = np.array(document["weights"])
        assert document["params"] == 0
        assert np.all(weights.argmax(axis=1) == np.arange(len(weights)))
        return weights.diagonal()

    spread, peaked = diagonal("1"), diagonal("3")
    assert spread.max() < 0.25  # nearly even over 6 tokens (1/6 = 0.17)
    assert peaked.mean() > 0.6 and np.all(peaked > spread)
    # Without the ÷√d_k the lesson's x_i·x_j: at length 3 the diagonal takes nearly all.
    assert diagonal("3", "--no-scale").mean() > 0.9


def test_causal_masks_are_shown_as_masked(run, run_json):
    document = run_json("selfattn", "a b c", "--causal", "--json")
    assert document["scores"][0][1] is None and document["weights"][0][1] == 0.0
    table = run("selfattn", "a b c", "--causal", "--format", "table").stdout
    grid = table[table.index("Weights") :]
    assert "—" in grid and "— masked" in grid


def test_given_queries_keys_values_with_different_counts(run_json, tmp_path):
    path = tmp_path / "qkv.json"
    path.write_text(
        json.dumps(
            {
                "queries": [[1, 0], [0, 1]],
                "keys": [[2, 1], [0, 2], [1, 1]],
                "values": [[10, 0], [0, 10], [5, 5]],
                "tokens": ["tren", "va", "lleno"],
            }
        )
    )
    document = run_json("selfattn", "-i", str(path), "--no-scale")
    assert np.array(document["weights"]).shape == (2, 3)
    np.testing.assert_allclose(
        document["weights"][0], [0.6652409557748219, 0.0900305731703805, 0.2447284710547976]
    )
    assert document["params"] == 0


def test_npz_and_npy_inputs(run_json, tmp_path):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(5, 4)), rng.normal(size=(4, 4))
    np.savez(tmp_path / "m.npz", x=x, w_q=w, w_k=w, w_v=w)
    document = run_json("selfattn", "-i", str(tmp_path / "m.npz"))
    grid, weights, output = reference(x, w, w, w)
    np.testing.assert_allclose(document["output"], output, rtol=1e-12)
    np.save(tmp_path / "x.npy", x)
    only_x = run_json("selfattn", "-i", str(tmp_path / "x.npy"))
    assert only_x["tokens"] == ["t1", "t2", "t3", "t4", "t5"]
    assert only_x["seed"] == 0 and np.array(only_x["w_q"]).shape == (4, 4)


def test_steps_for_a_token(run):
    result = run("selfattn", "-i", LLAVES, "--steps", "--token", "están")
    assert result.exit_code == 0, result.output
    out = result.stdout
    # q = x W^Q = (0, 2, 0, 0) W^Q = (3, 0, 0, 0): «están» asks along llaves' direction.
    assert "Scaled scores: están (3, 0, 0, 0)" in out
    assert "3×2 + 0×0 + 0×0 + 0×0 = 6" in out
    assert "Softmax of están" in out and "Mix for están" in out
    llaves = next(line for line in out.splitlines() if line.split()[:2] == ["llaves", "3"])
    assert "20.09" in llaves and "0.642" in llaves


def test_steps_with_causal_mask_show_masked_scores(run):
    out = run("selfattn", "a b c", "--causal", "--steps", "--row", "1").stdout
    softmax = out[out.index("Softmax") :]
    assert softmax.count("—") == 2 and "1.000" in softmax


def test_long_inputs_are_elided_on_terminal_but_complete_in_json(run, run_json, tmp_path):
    sentence = " ".join(f"w{i}" for i in range(300))
    table = run("selfattn", sentence, "--format", "table").stdout
    assert "showing 16 of 300 rows and 8 of 300 columns" in table
    assert "w299" in table and "w150" not in table
    document = run_json("selfattn", sentence, "--json")
    assert np.array(document["weights"]).shape == (300, 300)


def test_heads_show_a_grid_each_and_the_joined_heads(run):
    out = run("selfattn", "a b c", "--heads", "2", "--format", "table").stdout
    assert "Head 1: Weights" in out and "Head 2: Weights" in out
    assert "Head 1: Scores Q K^T / √4" in out and "Heads joined" not in out
    shown = run("selfattn", "a b c", "--heads", "2", "--format", "table", "--show", "v").stdout
    assert "Heads joined (2 × 4 = 8 columns), before W^O" in shown


def test_help_has_example_and_tokenization_rule(run):
    result = run("selfattn", "--help")
    assert "Example: attn selfattn" in result.stdout and "punctuation" in result.stdout


def _fails(result, kind, msgid, /, **fields):
    """One line, nothing on stdout, and the line is that error said."""
    assert result.exit_code != 0 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


EMPTY = "the sentence is empty; give some words, e.g. {example}"
LESSON_EXAMPLE = 'attn selfattn "las llaves del coche están ahí"'
MISSING = "missing field '{field}': {hint}"


@pytest.mark.parametrize(
    ("args", "kind", "msgid", "fields"),
    [
        (["selfattn", "   "], InputError, EMPTY, {}),
        (["selfattn", ""], InputError, EMPTY, {"example": LESSON_EXAMPLE}),
        (["selfattn"], InputError,
         "nothing to attend over: give a sentence ({example}) or {arrays}",
         {"example": LESSON_EXAMPLE,
          "arrays": ("-i FILE with x, with x_q and x_kv, or with queries, keys and values", {})}),
        (["selfattn", "a b", "--heads", "3"], InputError,
         "{heads} does not divide d_model = {d_model}; each head gets d_model / h columns, so h "
         "must be one of {divisors} (or give {d_k} and {d_v}, the sizes per head)",
         {"heads": "--heads 3", "d_model": 8, "divisors": "[1, 2, 4, 8]"}),
        (["selfattn", "a b", "--heads", "2", "--no-scale", "--scale", "2"], OptionError,
         "{first} and {second} ask for opposite things; give one",
         {"first": "--scale", "second": "--no-scale"}),
        (["selfattn", "a b", "--scale", "0"], OptionError,
         "{setting}: it must be a number above {above}",
         {"setting": "--scale 0.0", "above": "0"}),
        (["selfattn", "a b", "--valid-len", "3"], InputError,
         "{valid_len} is out of range: there are {t_k} keys (1 to {t_k})",
         {"valid_len": "--valid-len 3", "t_k": 2}),
        (["selfattn", "a b", "--heads", "2", "--no-proj"], InputError,
         "{setting} goes with the projections; drop {no_proj} or {setting}",
         {"setting": "--heads", "no_proj": "--no-proj"}),
        (["selfattn", "a b", "--norm", "-1"], OptionError,
         "{setting}: it must be a number above {above}",
         {"setting": "--norm -1.0", "above": "0"}),
        (["selfattn", "a b", "--heads", "2", "--steps", "--head", "3"], OptionError,
         "{option} is out of range: {there} (1 to {total})",
         {"option": "--head 3", "there": ("there are {total} heads", {"total": 2})}),
        (["selfattn", "a b", "--steps", "--token", "c"], InputError,
         "{token} is not a row here; the rows are: {rows}",
         {"token": "--token 'c'", "rows": "a, b"}),
        (["selfattn", "a b", "-i", LLAVES], InputError, "give a sentence or {arrays}, not both",
         {"arrays": ("-i FILE", {})}),
        (["selfattn", "-i", LLAVES, "--d-model", "8"], ShapeError,
         DISAGREE, {"field": "x", "other": "--d-model 8", "dimension": "d_model"}),
    ],
)  # fmt: skip
def test_bad_options(run, args, kind, msgid, fields):
    _fails(run(*args), kind, msgid, **fields)


@pytest.mark.parametrize(
    ("document", "kind", "msgid", "fields"),
    [
        ({"x": [[1, 0], [0, 1]], "w_q": [[1, 0, 0]]}, ShapeError,
         DISAGREE, {"field": "w_q", "found": ("{count} row", {"count": 1}), "other": "x",
                    "dimension": "d_model"}),
        ({"x": [[1, 0], [0, 1]], "tokens": ["a"]}, ShapeError,
         DISAGREE,
         {"found": ("{count} name", {"count": 1}), "bound": ("{count} row", {"count": 2})}),
        ({"queries": [[1, 0]], "keys": [[1, 0, 0]], "values": [[1]]}, ShapeError,
         DISAGREE, {"field": "keys", "other": "queries", "dimension": "d_k"}),
        ({"queries": [[1, 0]], "keys": [[1, 0]], "values": [[1], [2]]}, ShapeError,
         DISAGREE, {"field": "values", "found": ("{count} row", {"count": 2}), "other": "keys",
                    "bound": ("{count} row", {"count": 1}), "dimension": "T_k"}),
        ({"queries": [[1, 0]], "keys": [[1, 0]]}, InputError, MISSING, {"field": "values"}),
        ({"x": [[1, 0], [0]]}, ShapeError,
         "{field}: row {index} has {row}, row 1 has {rows} (every row must have the same length)",
         {"field": "x", "index": 2, "row": ("{count} number", {"count": 1}), "rows": 2}),
        ({"tokens": ["a"]}, InputError, MISSING, {"field": "x"}),
        ({"x": [[1, 0], [0, 1]], "w_o": [[1, 0], [0, 1]]}, InputError,
         "w_o joins the heads of {heads} through W^O; give {option} (without {no_out_proj}), or "
         "leave w_o out",
         {"heads": "--heads h", "option": "--heads", "no_out_proj": "--no-out-proj"}),
    ],
)  # fmt: skip
def test_bad_documents(run, tmp_path, document, kind, msgid, fields):
    path = tmp_path / "in.json"
    path.write_text(json.dumps(document))
    _fails(run("selfattn", "-i", str(path)), kind, msgid, **fields)


def test_pickled_npy_is_refused(run, tmp_path):
    path = tmp_path / "evil.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    _fails(run("selfattn", "-i", str(path)), InputError, PICKLED_ARRAY, where=str(path))
    archive = tmp_path / "evil.npz"  # one array of an archive, read from its header
    np.savez(archive, x=np.eye(2), tokens=np.array(["a", {"b": 1}], dtype=object))
    _fails(run("selfattn", "-i", str(archive)), InputError, PICKLED_ARRAY,
           where=f"{archive}: tokens.npy")  # fmt: skip
    text = tmp_path / "text.npy"
    text.write_text("hello")
    _fails(
        run("selfattn", "-i", str(text)),
        InputError,
        "{path}: not a .npy or .npz file (save arrays with numpy.save/savez)",
        path=str(text),
    )
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.array([[1.0, np.nan]]))
    result = run("selfattn", "-i", str(bad))
    _fails(result, InputError, WRONG,
           where=("{field}: the number at {cell}", {"field": "x", "cell": "(1, 2)"}),
           expected=FINITE)  # fmt: skip
    assert np.isnan(result.error.fields["kind"])
