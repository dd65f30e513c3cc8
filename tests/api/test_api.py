"""The Python API: the same numbers, checks and messages as the CLI, results as data."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

import attncli as attn
from attncli.core.exercise import MAX_DIM
from attncli.present.format import Format
from attncli.present.views import view_of
from tests.conftest import SAMPLES
from tests.meaning import ABOVE, TRY, told

TREN = {
    "query": [1, 0],
    "keys": [[2, 1], [0, 2], [1, 1]],
    "values": [[10, 0], [0, 10], [5, 5]],
    "tokens": ["tren", "va", "lleno"],
}


def _text(renderable, width=80) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines()).strip("\n")


def test_the_chain_from_python():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import attncli as a; print(a.mix(a.softmax(a.score(query=[1,0], "
            "keys=[[2,1],[0,2],[1,1]])), values=[[10,0],[0,10],[5,5]]).output.round(3))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "[7.876 2.124]"


def test_importing_attncli_imports_neither_typer_nor_rich():
    code = (
        "import sys, attncli as a; r = a.mix(a.softmax([2, 0, 1]), values=[[1], [2], [3]]); "
        "a.selfattn('el tren va lleno'); "
        "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_api_matches_the_cli_document(run_json):
    s = attn.score(**TREN)
    w = attn.softmax(s)
    m = attn.mix(w)
    scored = run_json("score", "-i", str(SAMPLES / "tren.json"))
    cli = run_json("mix", input=json.dumps(run_json("softmax", input=json.dumps(scored))))
    np.testing.assert_allclose(m.output, cli["output"], rtol=1e-15)
    np.testing.assert_allclose(w.weights, [0.6652409557748218, 0.0900305731703805, 0.24472847])
    assert m.to_document()["tokens"] == TREN["tokens"]
    assert json.loads(json.dumps(m.to_document(), default=lambda a: a.tolist()))["output"] == (
        m.output.tolist()
    )


def test_results_are_frozen_and_hold_arrays():
    s = attn.score(**TREN)
    assert isinstance(s.scores, np.ndarray) and s.scores.tolist() == [2, 0, 1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.method = "general"  # type: ignore[misc]
    grid = attn.score(queries=[[1, 0], [1, 1]], keys=TREN["keys"])
    assert grid.scores.shape == (2, 3) and grid.grid.shape == (2, 3)


def test_softmax_takes_plain_lists_and_masks():
    w = attn.softmax([2, None, 1], temperature=2.0)
    assert w.weights[1] == 0.0
    np.testing.assert_allclose(w.weights.sum(), 1.0)
    np.testing.assert_allclose(w.weights[0] / w.weights[2], np.exp(0.5))


def test_api_errors_are_the_cli_errors(run):
    with pytest.raises(attn.ShapeError) as raised:
        attn.score(query=[1, 0, 3], keys=[[2, 1], [0, 2]])
    cli = run("score", "--query", "1,0,3", "--keys", "[[2,1],[0,2]]")
    assert raised.value.message("en", "cli") in cli.stderr  # one error, each surface its words
    with pytest.raises(attn.ShapeError) as caught:
        attn.softmax([[1, 2], [3]])
    told(caught.value, attn.ShapeError,
         "{field}: row {index} has {row}, row 1 has {rows} (every row must have the same length)",
         field="scores", index=2, row=("{count} number", {"count": 1}), rows=2)  # fmt: skip
    with pytest.raises(attn.OptionError) as caught:
        attn.softmax([1, 2], temperature=0)
    told(
        caught.value,
        attn.OptionError,
        TRY,
        refusal=(ABOVE, {"setting": "--temperature 0", "above": "0"}),
        example="--temperature 1",
    )
    with pytest.raises(attn.OptionError) as caught:
        attn.score(query=[1], keys=[[1]], method="euclidean")
    told(caught.value, attn.OptionError, "{setting}: give one of {choices}", "python",
         setting="method='euclidean'",
         choices="dot, scaled, general, additive, cosine")  # fmt: skip
    assert issubclass(attn.ShapeError, attn.AttnError)


def test_steps_are_the_data_the_cli_renders(run):
    m = attn.mix(attn.softmax(attn.score(**TREN)))
    (steps,) = m.steps()
    assert [row.token for row in steps.rows] == TREN["tokens"]
    np.testing.assert_allclose(steps.output, m.output)
    grid = attn.softmax([[1, 2], [3, 4]], tokens=["a", "b"])
    assert grid.steps(token="a")[0].row_label == "a"
    with pytest.raises(attn.OptionError) as caught:
        grid.steps(row=3)
    told(
        caught.value,
        attn.OptionError,
        "{option} is out of range: {there} (1 to {total})",
        "python",
        option="row=3",
        there=("there are {total} rows", {"total": 2}),
        total=2,
    )


def test_a_token_named_query_keeps_its_heading(run):
    result = run(
        "softmax", "--scores", "1; 2 | 3; 4", "--tokens", "query,b", "--steps", "--token", "query",
        "--lang", "es",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Softmax de query")
    single = run("softmax", "1", "2", "--steps", "--lang", "es")
    assert single.stdout.startswith("Softmax\n")


GOLDEN_SCORE = """\
Scores

  Token   Score
 ━━━━━━━━━━━━━━━
  tren    2
  va      0
  lleno   1

These are plain dot products: real models divide each score by √d_k (here √2)
before the softmax, a step this example skips; the scaled method takes it."""

GOLDEN_SOFTMAX = """\
Weights

  Token   Score   Weight
 ━━━━━━━━━━━━━━━━━━━━━━━━
  tren        2    0.665
  va          0    0.090
  lleno       1    0.245"""

GOLDEN_MIX = """\
Output

  Token   Σ weight × value
 ━━━━━━━━━━━━━━━━━━━━━━━━━━
  query   7.88, 2.12"""

GOLDEN_GENERAL = """\
Scores

  Token   Score
 ━━━━━━━━━━━━━━━
  k1      2.02
  k2      2.15

W_a (drawn from seed 0)
  0.47   1.08
  0.74   0.26"""


def test_each_result_kind_renders_in_rich():
    s = attn.score(**TREN)
    assert _text(s) == GOLDEN_SCORE
    assert _text(attn.softmax(s)) == GOLDEN_SOFTMAX
    assert _text(attn.mix(attn.softmax(s))) == GOLDEN_MIX
    assert _text(attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], method="general")) == (
        GOLDEN_GENERAL
    )
    spanish = _text(view_of(attn.softmax(s), Format(lang="es"))[0])
    assert "Peso" in spanish and "0,665" in spanish
    selfattn = _text(attn.selfattn("en las llaves del coche"), width=120)
    assert "T = 5 tokens" in selfattn and "Weights (row = who asks" in selfattn
    exercise = _text(attn.exercise(seed=7))
    assert "WORKSHEET" in exercise and "ANSWERS" in exercise and "≈" in exercise
    comparison = _text(attn.compare_scores(tx=4, ty=3, d_h=4, d_a=4, repeat=1, d_ks=[4]), 120)
    assert "tanh evaluations" in comparison and "48" in comparison


def test_html_for_notebooks_escapes_tokens():
    html = attn.softmax([1, 2], tokens=["<b>x</b>", "y"])._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "0.731" in html and html.startswith("<pre")
    assert "Weights (row = who asks" in attn.selfattn("el tren va lleno")._repr_html_()
    assert "additive" in attn.compare_scores(tx=2, ty=2, d_h=2, d_a=2, repeat=1)._repr_html_()


def test_selfattn_from_python_equals_the_cli(run_json):
    a = attn.selfattn("en las llaves del coche", heads=2, causal=True, seed=3)
    cli = run_json("selfattn", "en las llaves del coche", "--heads", "2", "--causal", "--seed", "3")
    np.testing.assert_array_equal(a.output, cli["output"])
    assert a.params == cli["params"] == 4 * 8 * 8
    x = np.eye(3)
    plain = attn.selfattn(x=x, projections=False, scale=False)
    np.testing.assert_allclose(plain.weights.diagonal(), np.e / (np.e + 2))


def test_exercise_from_python():
    e = attn.exercise(seed=7)
    assert e.to_document()["query"] == [1, 0]
    assert set(e.to_document(answers=True)) >= {"scores", "weights", "output"}
    with pytest.raises(attn.OptionError) as caught:
        attn.exercise(size=0)
    told(
        caught.value,
        attn.OptionError,
        "{size}: give 1 to {most} tokens (the course uses 3)",
        "python",
        size="size=0",
        most=8,
    )
    with pytest.raises(attn.OptionError) as caught:
        attn.exercise(dim=9)
    told(
        caught.value,
        attn.OptionError,
        "{dim}: give 1 to {most} numbers per vector (the course uses 2)",
        "python",
        dim="dim=9",
        most=MAX_DIM,
    )


@settings(max_examples=50, deadline=None)
@given(
    rows=st.integers(1, 7),
    columns=st.integers(1, 5),
    chunk=st.integers(1, 12),
    masked=st.booleans(),
)
def test_json_in_pieces_is_the_same_bytes_as_the_whole(rows, columns, chunk, masked):
    import orjson

    from attncli.present.output import json_pieces

    grid = np.random.default_rng(rows * 10 + columns).standard_normal((rows, columns))
    if masked:
        grid[0, 0] = -np.inf
    document = {"tokens": ["a"] * rows, "grid": grid, "heads": np.stack([grid, grid]),
                "vector": grid[0], "n": 3}  # fmt: skip
    whole = orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY)
    assert b"".join(json_pieces(document, chunk=chunk)) == whole


def test_dir_lists_the_public_api_and_nothing_imported_for_the_package_itself():
    import attncli

    listed = [name for name in dir(attncli) if not name.startswith("__")]
    assert listed == sorted(attncli.__all__)
    assert "__name__" in dir(attncli) and "Any" not in dir(attncli)
