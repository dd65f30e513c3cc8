"""The cosine score, q·k ÷ (‖q‖ ‖k‖), added as one object of the methods' registry: its
scores by hand, its gradients as torch's autograd gives them (tests/references/cosine.json,
made by tests/references/make_cosine.py), its hand-worked tables in both languages, its
worksheet, attn check's marking of it and its answer file."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError
from tests.conftest import SAMPLES
from tests.meaning import told

REFERENCE = json.loads((Path(__file__).resolve().parent.parent / "references" / "cosine.json")
                       .read_text("utf-8"))  # fmt: skip
ZERO_ROW = (
    "{field}: row {row} is all zeros, which has no direction: the cosine score divides by its "
    "length, 0; give it a number that is not 0, or score with {dot}"
)


def _cosine(query: list[float], key: list[float]) -> float:
    """q·k ÷ (‖q‖ ‖k‖), one number at a time."""
    dot = sum(a * b for a, b in zip(query, key, strict=True))
    return dot / (math.sqrt(sum(a * a for a in query)) * math.sqrt(sum(b * b for b in key)))


def test_attn_score_of_tren_is_each_key_s_cosine_with_the_query(run_json):
    result = run_json("score", "-i", str(SAMPLES / "tren.json"), "--method", "cosine")
    tren = json.loads((SAMPLES / "tren.json").read_text("utf-8"))
    expected = [_cosine(tren["query"], key) for key in tren["keys"]]
    np.testing.assert_allclose(result["scores"], expected, rtol=1e-15)
    np.testing.assert_allclose(result["scores"], [2 / math.sqrt(5), 0, 1 / math.sqrt(2)])
    assert result["method"] == "cosine"


def test_a_long_or_a_tiny_vector_keeps_its_cosine():
    """Lengths past float64's square (1e200) or below its smallest (1e-200) neither overflow
    nor vanish: the cosine depends on the direction alone."""
    for scale in (1e200, 1e-200, 1.0):
        scores = attn.score(query=[scale, 0], keys=[[2 * scale, scale], [0, scale]],
                            method="cosine").scores  # fmt: skip
        np.testing.assert_allclose(scores, [2 / math.sqrt(5), 0], rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda case: case["name"])
def test_every_gradient_is_torch_autograd_s(case):
    given = case["given"]
    upstream = {"target": given["target"]} if "target" in given else {
        "grad_output": given["grad_output"]}  # fmt: skip
    g = attn.grad(queries=given["queries"], keys=given["keys"], values=given["values"],
                  method="cosine", temperature=given["temperature"], **upstream)  # fmt: skip
    for name in ("scores", "weights", "output"):
        np.testing.assert_allclose(getattr(g, name), case[name], rtol=1e-12, atol=1e-14)
    for name in ("grad_scores", "grad_queries", "grad_keys", "grad_values"):
        np.testing.assert_allclose(getattr(g, name), case[name], rtol=1e-10, atol=1e-13,
                                   err_msg=name)  # fmt: skip
    np.testing.assert_allclose(g.gradients.grad_weights, case["grad_weights"], rtol=1e-12,
                               atol=1e-14)  # fmt: skip
    if "loss" in case:
        assert g.loss == pytest.approx(case["loss"], rel=1e-12)
    assert g.grad_parameters == {}


def test_attn_grad_on_the_command_line_gives_torch_s_gradients(run_json):
    case = REFERENCE["cases"][0]
    result = run_json("grad", "-i", str(SAMPLES / "tren.json"), "--method", "cosine",
                      "--target", "8,2", "--json")  # fmt: skip
    np.testing.assert_allclose(result["grad_query"], case["grad_queries"][0], atol=1e-13)
    np.testing.assert_allclose(result["grad_keys"], case["grad_keys"], atol=1e-13)


@pytest.mark.parametrize(
    ("fields", "field", "row"),
    [({"query": [0, 0]}, "query", 1), ({"queries": [[1, 0], [0, 0]]}, "queries", 2),
     ({"query": [1, 0], "keys": [[1, 1], [0, 0]]}, "keys", 2)],
)  # fmt: skip
def test_a_zero_vector_has_no_cosine_and_is_refused(run, fields, field, row):
    document = {"keys": [[2, 1], [0, 2]], **fields}
    result = run("score", "--method", "cosine", input=json.dumps(document))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, ZERO_ROW, field=field, row=row, dot="--method dot")
    with pytest.raises(InputError) as raised:
        attn.grad(**document, values=[[1], [2]], target=[0], method="cosine")
    told(raised.value, InputError, ZERO_ROW, surface="python", field=field, dot="method='dot'")


def test_the_steps_say_the_lengths_in_both_languages(run):
    english = run("score", "-i", str(SAMPLES / "tren.json"), "--method", "cosine", "--steps",
                  "-f", "table").stdout  # fmt: skip
    assert "Cosine scores: query (1, 0) · each key ÷ (‖q‖ ‖k‖)" in english
    assert "1 × 2.24 = 2.24" in english and "0.89" in english
    spanish = run("score", "-i", str(SAMPLES / "tren.json"), "--method", "cosine", "--steps",
                  "-f", "table", "--lang", "es").stdout  # fmt: skip
    assert "Puntuaciones coseno: consulta (1; 0)" in spanish
    assert "1 × 2,24 = 2,24" in spanish and "0,89" in spanish
    backward = run("grad", "-i", str(SAMPLES / "tren.json"), "--method", "cosine",
                   "--target", "8; 2", "--steps", "-f", "table", "--lang", "es").stdout  # fmt: skip
    assert "Hacia atrás por la puntuación coseno" in backward
    assert "∂ℓ/∂q = Σ de la columna anterior = (0; 2,571)" in backward


def test_the_steps_json_gives_each_key_s_lengths(run_json):
    steps = run_json("score", "-i", str(SAMPLES / "tren.json"), "--method", "cosine", "--steps",
                     "--json")["steps"]  # fmt: skip
    rows = steps[0]["rows"]
    lengths = [[1, math.sqrt(5)], [1, 2], [1, math.sqrt(2)]]
    np.testing.assert_allclose([row["lengths"] for row in rows], lengths, rtol=1e-15)
    assert [row["total"] for row in rows] == [2, 0, 1]


@pytest.mark.parametrize("seed", range(12))
def test_a_worksheet_has_no_zero_key_and_its_key_is_the_chain_s(run_json, seed):
    sheet = run_json("exercise", "--seed", str(seed), "--method", "cosine", "--json")
    assert sheet["method"] == "cosine"
    assert all(any(number != 0 for number in key) for key in sheet["keys"])
    scored = run_json("score", input=json.dumps(sheet))
    expected = [_cosine(sheet["query"], key) for key in sheet["keys"]]
    np.testing.assert_allclose(scored["scores"], expected, rtol=1e-14)
    assert max(expected) - min(expected) > 1e-9  # the scores spread


def test_attn_check_marks_the_sheet_s_own_answers_right_and_names_the_mistakes():
    sheet = attn.exercise(seed=5, method="cosine")
    query, keys = sheet.query, sheet.keys
    products = keys @ query
    lengths = np.linalg.norm(query) * np.linalg.norm(keys, axis=1)
    right = [*products, *lengths, *(products / lengths)]
    marked = attn.check(5, method="cosine", answers=[f"{x:.3f}" for x in right])
    assert [v.kind for v in marked.verdicts] == ["right"] * 9
    squared = float(query @ query * keys[1] @ keys[1])
    # va's lengths squared, then va's score left undivided (its q · k, 1, for 0.447)
    wrong = [*map(str, products), "1", str(squared), "2", "1", str(products[1])]
    marked = attn.check(5, method="cosine", answers=wrong)
    assert marked.verdicts[4].mistakes == (("lengths_squared", {}),)
    assert marked.verdicts[7].kind == "wrong"
    assert ("lengths_forgotten", {}) in marked.verdicts[7].mistakes


def test_the_answer_file_of_a_cosine_sheet_is_checked(run, tmp_path):
    path = tmp_path / "respuestas.csv"
    assert run("exercise", "--seed", "5", "--method", "cosine", "--answer-sheet",
               str(path), "--json").exit_code == 0  # fmt: skip
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert [row["step"] for row in rows[:9]] == ["product"] * 3 + ["lengths"] * 3 + ["score"] * 3
    assert rows[0]["sheet"] == "cosine"
    sheet = attn.exercise(seed=5, method="cosine")
    rows[0]["answer"] = f"{float(sheet.keys[0] @ sheet.query):g}"
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = run("check", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    student = json.loads(result.stdout)["students"][0]
    assert (student["method"], student["answered"], student["right"]) == ("cosine", 1, 1)
    assert [v["step"] for v in student["verdicts"][3:6]] == ["lengths"] * 3
