"""attn exercise --method scaled|general|additive and --selfattn: problems in small whole
numbers for every score and for the self-attention layer, checked the way a student checks
them (piped through the commands) and against loop references."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from tests import naive
from tests.meaning import SELFATTN_SHEET, said_in_spanish, told

NOT_ITS_PARAMETER = (
    "field '{name}': a parameter of the {owner} score, which {method} does not use; give {fix}, "
    "or remove the field"
)

BLANK = "____"
METHODS = ("dot", "scaled", "general", "additive")


def _section(text: str, start: str, end: str | None = None) -> str:
    body = text.split(start, 1)[1]
    return body.split(end, 1)[0] if end else body


def _chain(run_json, problem: dict) -> dict:
    """score | softmax | mix, as a student pipes a problem."""
    scored = run_json("score", input=json.dumps(problem))
    return run_json("mix", input=json.dumps(run_json("softmax", input=json.dumps(scored))))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [0, 3, 7])
def test_every_method_answers_as_the_piped_chain_and_the_loops(run_json, method, seed):
    problem = run_json("exercise", "--seed", str(seed), "--method", method, "--json")
    keyed = run_json("exercise", "--seed", str(seed), "--method", method, "--answers", "--json")
    chained = _chain(run_json, problem)  # score reads the problem's own method
    assert chained["method"] == method
    np.testing.assert_allclose(chained["output"], keyed["output"], rtol=1e-15)
    parameters = {name: problem[name] for name in ("w_a", "w_1", "w_2", "v_a") if name in problem}
    scores = naive.scores([problem["query"]], problem["keys"], method, **parameters)[0]
    weights = naive.softmax_row(scores)
    np.testing.assert_allclose(keyed["scores"], scores, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(keyed["output"], naive.mix_row(weights, problem["values"]),
                               rtol=1e-13)  # fmt: skip


def test_the_parameters_are_small_whole_numbers_of_full_rank_and_the_scores_differ(run_json):
    for seed in range(12):
        general = run_json("exercise", "--seed", str(seed), "--method", "general", "--json")
        additive = run_json("exercise", "--seed", str(seed), "--method", "additive", "--json")
        assert general["method"] == "general" and additive["method"] == "additive"
        for matrix in (general["w_a"], additive["w_1"], additive["w_2"]):
            assert {v for row in matrix for v in row} <= {-1, 0, 1}
            assert np.linalg.matrix_rank(np.array(matrix)) == 2
        assert set(additive["v_a"]) <= {-1, 1}
        for problem in (general, additive):
            if np.ptp(np.array(problem["keys"]), axis=0).max() > 0:  # keys that differ
                keyed = run_json("score", input=json.dumps(problem))
                assert np.ptp(keyed["scores"]) > 1e-9, (seed, problem)


def test_one_seed_gives_the_same_problem_under_every_method_but_scaled(run_json):
    """The parameters are drawn after the problem: a class compares the scores on one
    problem. The scaled problem has 4 numbers per vector, so that √d_k = 2."""
    dot = run_json("exercise", "--seed", "5", "--json")
    for method in ("general", "additive"):
        other = run_json("exercise", "--seed", "5", "--method", method, "--json")
        assert {k: other[k] for k in dot} == dot
    scaled = run_json("exercise", "--seed", "5", "--method", "scaled", "--json")
    assert len(scaled["query"]) == 4 and set(scaled) == {*dot, "method"}
    assert len(run_json("exercise", "--method", "scaled", "--dim", "3", "--json")["query"]) == 3


def test_the_scaled_worksheet_divides_by_two(run):
    out = run("exercise", "--method", "scaled", "--answers", "--format", "table").stdout
    # the sheet asks q · k and the score; the key shows the division between them
    assert "each key ÷ √d_k" in _section(out, "WORKSHEET", "ANSWERS")
    assert "÷ √4 = 2" in _section(out, "ANSWERS")


def test_a_general_worksheet_gives_w_a_and_leaves_its_products_empty(run, run_json):
    problem = run_json("exercise", "--seed", "2", "--method", "general", "--json")
    out = run("exercise", "--seed", "2", "--method", "general", "--answers", "--format",
              "table").stdout  # fmt: skip
    worksheet, answers = _section(out, "WORKSHEET", "ANSWERS"), _section(out, "ANSWERS")
    title, *rows = _section(worksheet, "Fill in the empty cells.", "General scores").split()
    assert title.lower() == "w_a" and rows == [str(v) for row in problem["w_a"] for v in row]
    scores = _section(worksheet, "General scores", "Softmax")
    # the blanks attn check asks: W_a · key and the score (q · (W_a · key) is the score)
    assert scores.count(BLANK) == 3 * 2 and "W_a · key" in scores
    assert BLANK not in answers


def test_an_additive_worksheet_in_spanish(run, run_json):
    problem = run_json("exercise", "--seed", "4", "--method", "additive", "--json")
    out = run("exercise", "--seed", "4", "--method", "additive", "--lang", "es", "--format",
              "table").stdout  # fmt: skip
    assert "HOJA DE EJERCICIOS" in out and "tanh(W_1 q + W_2 k)" in out
    for name in ("W_1", "W_2", "v_a"):
        assert name in out
    assert " ".join(str(v) for v in problem["v_a"]) in " ".join(out.split())


def test_score_reads_the_method_of_its_input_and_an_explicit_one_wins(run_json):
    problem = run_json("exercise", "--seed", "1", "--method", "scaled", "--json")
    assert run_json("score", input=json.dumps(problem))["method"] == "scaled"
    assert run_json("score", "--method", "dot", input=json.dumps(problem))["method"] == "dot"
    bare = {"query": [1, 0], "keys": [[2, 1], [0, 2]]}
    assert run_json("score", input=json.dumps(bare))["method"] == "dot"


@pytest.mark.parametrize(
    ("extra", "method", "owner"),
    [
        ({"w_a": [[1, 0], [0, 1]]}, "dot", "general"),
        ({"w_a": [[1, 0], [0, 1]]}, "additive", "general"),
        ({"w_1": [[1, 0], [0, 1]]}, "general", "additive"),
        ({"v_a": [1, 1]}, "scaled", "additive"),
    ],
)
def test_a_parameter_the_method_would_not_use_is_refused(run, extra, method, owner):
    """Each line names the field, the score it belongs to and the --method given."""
    (name,) = extra
    document = {"query": [1, 0], "keys": [[2, 1], [0, 2]], "values": [[1], [2]], **extra}
    for command in ("score", "grad"):
        args = (command, "--method", method) + (("--target", "1") if command == "grad" else ())
        result = run(*args, input=json.dumps(document))
        assert result.exit_code == 2 and result.stdout == ""
        told(
            result.error,
            InputError,
            NOT_ITS_PARAMETER,
            name=name,
            owner=owner,
            method=f"--method {method}",
            fix=f"--method {owner}",
        )
        assert len(result.stderr.strip().splitlines()) == 1


def test_a_general_problem_scored_as_dot_is_refused_not_silently_dot(run):
    problem = run("exercise", "--method", "general", "--json").stdout
    result = run("score", "--method", "dot", input=problem)
    assert result.exit_code == 2 and result.stdout == ""
    told(
        result.error,
        InputError,
        NOT_ITS_PARAMETER,
        name="w_a",
        owner="general",
        method="--method dot",
        fix="--method general",
    )


@pytest.mark.parametrize("command", ["score", "grad"])
def test_a_method_field_that_is_no_method_is_refused(run, command):
    document = {"method": "luong", "query": [1, 0], "keys": [[2, 1]], "values": [[1]]}
    extra = ("--target", "1") if command == "grad" else ()
    result = run(command, *extra, input=json.dumps(document))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError,
         "field 'method': {shown} is not one of {join}; fix it, or give --method",
         shown='"luong"', join="dot, scaled, general, additive, cosine")  # fmt: skip
    spanish = run(command, *extra, "--lang", "es", input=json.dumps(document))
    assert spanish.error.msgid == result.error.msgid
    said_in_spanish(spanish.error)
    assert spanish.stderr == f"attn: error: {spanish.error.message('es')}\n"


# The self-attention problem


def test_a_self_attention_problem_pipes_into_attn_selfattn(run_json):
    for seed in (0, 7):
        problem = run_json("exercise", "--seed", str(seed), "--selfattn", "--json")
        assert set(problem) == {"tokens", "x", "w_q", "w_k", "w_v"}
        keyed = run_json("exercise", "--seed", str(seed), "--selfattn", "--answers", "--json")
        checked = run_json("selfattn", input=json.dumps(problem))
        np.testing.assert_allclose(checked["output"], keyed["output"], rtol=1e-15)
        # and the answers read back: attn selfattn computes them again, the same
        again = run_json("selfattn", input=json.dumps(keyed))
        np.testing.assert_allclose(again["output"], keyed["output"], rtol=1e-15)
        # against the loops: Q = X W^Q, …, softmax(Q K^T / √d_k) V
        x = problem["x"]
        q, k, v = (naive.linear(x, problem[name]) for name in ("w_q", "w_k", "w_v"))
        _, weights, output = naive.attention(q, k, v)
        np.testing.assert_allclose(keyed["weights"], weights, rtol=1e-13)
        np.testing.assert_allclose(keyed["output"], output, rtol=1e-13)


def test_a_self_attention_problem_is_small_whole_numbers(run_json):
    for seed in range(10):
        problem = run_json("exercise", "--seed", str(seed), "--selfattn", "--json")
        x = np.array(problem["x"])
        assert x.shape == (3, 2) and set(x.ravel()) <= {0, 1}
        assert x.any(axis=1).all() and len({tuple(row) for row in x}) == 3  # distinct rows
        for name in ("w_q", "w_k"):
            assert set(np.ravel(problem[name])) <= {-1, 0, 1}
        assert set(np.ravel(problem["w_v"])) <= {0, 5, 10}
        for name in ("w_q", "w_k", "w_v"):
            assert np.linalg.matrix_rank(np.array(problem[name])) == 2
    five = run_json("exercise", "--selfattn", "--size", "5", "--dim", "3", "--json")
    assert np.array(five["x"]).shape == (5, 3) and np.array(five["w_q"]).shape == (3, 3)


def test_a_self_attention_worksheet_leaves_what_the_student_works_out_empty(run, run_json):
    problem = run_json("exercise", "--seed", "7", "--selfattn", "--json")
    out = run("exercise", "--seed", "7", "--selfattn", "--answers", "--format", "table").stdout
    worksheet, answers = _section(out, "WORKSHEET", "ANSWERS"), _section(out, "ANSWERS")
    last = problem["tokens"][-1]
    assert f"«{last}»" in worksheet
    given = _section(worksheet, "a row for each number of x", "Queries, keys and values")
    rows = [line.split(maxsplit=1)[1].split("   ") for line in given.splitlines()[4:6]]
    for column, name in enumerate(("w_q", "w_k", "w_v")):
        written = [row[column].strip() for row in rows]
        assert written == [", ".join(map(str, r)) for r in problem[name]], (name, given)
    projections = _section(worksheet, "Queries, keys and values", "Scaled scores")
    assert projections.count(BLANK) == 3 * 3
    # The query and keys of the score table, and the values of the mix table, are the
    # student's own results of the projections: ↑, asked once above.
    assert f"Scaled scores: {last} (↑)" in worksheet
    scores = _section(worksheet, "Scaled scores", "Softmax")
    assert scores.count(BLANK) == 3 * 2 and scores.count("↑") == 1 + 3  # q · k and the score
    mix = _section(worksheet, "Mix for", "Output")
    assert mix.count(BLANK) == 3 and mix.count("↑") == 3 * 2
    # The key has every number: the projections as whole numbers, the output as the layer's.
    q = naive.linear(problem["x"], problem["w_q"])
    assert ", ".join(str(int(n)) for n in q[-1]) in _section(answers, "Queries", "Scaled")
    keyed = run_json("exercise", "--seed", "7", "--selfattn", "--answers", "--json")
    assert "≈ " + ", ".join(f"{n:.2f}" for n in keyed["output"][-1]) in answers
    assert BLANK not in answers


def test_a_self_attention_class_set_and_its_keys(run, run_json):
    sheets = run_json("exercise", "--selfattn", "--count", "3", "--json")["sheets"]
    assert [s["seed"] for s in sheets] == [0, 1, 2] and len(
        {json.dumps(s["x"]) for s in sheets}
    ) > 1
    alone = run_json("exercise", "--selfattn", "--seed", "1", "--json")
    assert {k: sheets[1][k] for k in alone} == alone
    keys = run("exercise", "--selfattn", "--count", "2", "--answers-only", "--format", "table")
    assert keys.stdout.count("ANSWERS · SHEET") == 2 and BLANK not in keys.stdout


def test_a_self_attention_worksheet_in_spanish_prints_to_tex(run, tmp_path):
    path = tmp_path / "hoja.tex"
    result = run("exercise", "--selfattn", "--lang", "es", "--answers", "--export", str(path))
    assert result.exit_code == 0
    tex = path.read_text()
    assert "\\begin{document}" in tex and "Auto-atención" in tex and "Consultas, claves" in tex


def test_the_self_attention_problem_refuses_another_score(run):
    for method in ("dot", "general"):
        result = run("exercise", "--selfattn", "--method", method)
        assert result.exit_code == 2 and result.stdout == ""
        told(result.error, OptionError, "{option} with {beside}: {why}",
             option=f"--method {method}", beside="--selfattn",
             why=(SELFATTN_SHEET, {"option": f"--method {method}"}))  # fmt: skip
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("given", [{"method": "general"}, {"positions": "rope"}])
def test_a_class_set_of_self_attention_sheets_refuses_what_it_would_ignore(given):
    from attncli.api.exercise import exercise_set

    with pytest.raises(OptionError) as caught:
        exercise_set(count=2, selfattn=True, **given)
    name, value = next(iter(given.items()))
    told(caught.value, OptionError, "{option} with {beside}: {why}", "python",
         option=f"{name}={value!r}", beside="selfattn=True",
         why=(SELFATTN_SHEET, {"option": f"{name}={value!r}"}))  # fmt: skip


def test_the_python_api_makes_every_kind(capsys):
    import attncli as attn

    general = attn.exercise(seed=7, method="general")
    assert general.method == "general" and general.parameters["w_a"].shape == (2, 2)
    assert math.isclose(general.weights.sum(), 1.0)
    with pytest.raises(attn.AttnError) as caught:
        attn.exercise(method="luong")
    told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
         setting="method='luong'", choices="dot, scaled, general, additive, cosine")  # fmt: skip
    from attncli.api.exercise import selfattn_exercise

    sheet = selfattn_exercise(seed=7)
    assert "Queries, keys and values" in sheet._repr_html_()
