"""--export FILE.xlsx: a worksheet whose cells compute, for every kind of sheet attn exercise
makes. The file is recalculated by a formula engine (the formulas package, in the test
extra), independently of attn, and every number on the sheet, given or computed, is held
to what the same exercise's JSON gives, to 1e-9: the steps the JSON leaves out (q · k,
e^score, weight × value, cos θ and sin θ, tanh(W_1 q + W_2 k), e^(s − m)) worked here
with numpy from the JSON's own numbers. --blank leaves the student's cells empty and puts
the formulas in a key."""

from __future__ import annotations

import importlib.util
import math
import re

import numpy as np
import pytest

openpyxl = pytest.importorskip("openpyxl")
formulas = pytest.importorskip("formulas")

pytestmark = pytest.mark.slow  # a formula engine per case

KINDS = {
    "dot": ("--seed", "1"),
    "dot-7": ("--seed", "7", "--size", "4"),
    "scaled": ("--seed", "3", "--method", "scaled"),
    "general": ("--seed", "3", "--method", "general"),
    "additive": ("--seed", "5", "--method", "additive"),
    "cosine": ("--seed", "5", "--method", "cosine"),
    "cosine-es": ("--seed", "6", "--method", "cosine", "--size", "4", "--lang", "es"),
    "rope": ("--seed", "3", "--positions", "rope"),
    "selfattn": ("--seed", "3", "--selfattn"),
    "online": ("--seed", "2", "--online", "--size", "5"),
}


def _recalculated(path, sheet: str) -> dict[str, float]:
    """Every cell of `sheet` as the formula engine computes it: {"K6": 1.5, ...}."""
    model = formulas.ExcelModel().loads(str(path)).finish()
    solution = model.calculate()
    prefix = f"'[{path.name}]{sheet}'!".upper()
    cells = {}
    for name, value in solution.items():
        if name.upper().startswith(prefix) and ":" not in name:
            number = np.asarray(value.value).ravel()[0]
            if isinstance(number, (int, float, np.number)):
                cells[name[len(prefix) :].upper()] = float(number)
    return cells


def _named(sheet) -> dict[str, list[list[str]]]:
    """The worksheet's defined names, each as the grid of its cells' coordinates."""
    from openpyxl.utils import get_column_letter as letter
    from openpyxl.utils.cell import range_boundaries

    named = {}
    for name, defined in sheet.defined_names.items():
        ((_, where),) = list(defined.destinations)
        left, top, right, bottom = range_boundaries(where.replace("$", ""))
        named[name] = [[f"{letter(c)}{r}" for c in range(left, right + 1)]
                       for r in range(top, bottom + 1)]  # fmt: skip
    return named


def _chain(doc: dict, query, keys, values) -> dict[str, np.ndarray]:
    """Softmax and mix from a chain's JSON, and its scores."""
    scores, weights = np.array(doc["scores"], float), np.array(doc["weights"], float)
    if scores.ndim == 2:  # self-attention: the last token's row
        scores, weights = scores[-1], weights[-1]
    values = np.array(values, float)
    return {
        "scores": scores,
        "powers": np.exp(scores),
        "weights": weights,
        "power_total": np.exp(scores).sum(),
        "weight_total": np.array(1.0),
        "mixed": weights[:, None] * values,
        "output": np.array(doc["output"], float)[-1 if doc.get("x") else slice(None)],
        "values": values,
    }


def _expected(doc: dict) -> dict[str, np.ndarray]:
    """Every named group of cells as the JSON gives it, or numpy from the JSON's numbers."""
    if "blocks" in doc:  # the online softmax
        scores, blocks = np.array(doc["scores"], float), doc["blocks"]
        expected = {name: np.array([b[key] for b in blocks]) for name, key in
                    (("block_max", "block_max"), ("running_max", "m"), ("factor", "factor"),
                     ("block_sum", "block_sum"), ("running_sum", "l"))}  # fmt: skip
        shifted = np.exp((scores - blocks[-1]["m"]) / doc["temperature"])
        expected.update(scores=scores, weights=np.array(doc["weights"]), shifted=shifted)
        if doc["temperature"] != 1.0:
            expected["temperature"] = np.array(doc["temperature"])
        return expected
    if "x" in doc:  # self-attention
        queries, keys = np.array(doc["queries"]), np.array(doc["keys"])
        expected = _chain(doc, queries[-1], keys, doc["values"])
        x = np.array(doc["x"], float)
        for name in ("w_q", "w_k", "w_v"):
            expected[name] = np.array(doc[name], float)
        # each a row of X times W, summed here by loops
        for name, weight in (("queries", "w_q"), ("keys", "w_k"), ("values", "w_v")):
            w = np.array(doc[weight], float)
            loop = [[sum(x[t, i] * w[i, j] for i in range(len(w))) for j in range(w.shape[1])]
                    for t in range(len(x))]  # fmt: skip
            np.testing.assert_allclose(loop, doc[name], atol=1e-12)  # the JSON's own q, k, v
            expected[name] = np.array(loop)
        expected["x"] = x
        expected["dots"] = np.array(doc["raw_scores"], float)[-1]
        return expected
    query, keys = np.array(doc["query"], float), np.array(doc["keys"], float)
    expected = _chain(doc, query, keys, doc["values"])
    expected.update(query=query, keys=keys)
    method = doc.get("method", "dot")
    if method == "general":
        w_a = np.array(doc["w_a"], float)
        expected.update(w_a=w_a, w_a_keys=keys @ w_a.T, dots=(keys @ w_a.T) @ query)
    elif method == "additive":
        w_1, w_2, v_a = (np.array(doc[name], float) for name in ("w_1", "w_2", "v_a"))
        hidden = np.tanh(w_1 @ query + keys @ w_2.T)
        expected.update(w_1=w_1, w_2=w_2, v_a=v_a, hidden=hidden, dots=hidden @ v_a)
    elif method == "cosine":  # ‖q‖ ‖k‖ by loops over the numbers, then q · k
        lengths = [math.sqrt(sum(q * q for q in query)) * math.sqrt(sum(k * k for k in key))
                   for key in keys]  # fmt: skip
        expected.update(lengths=np.array(lengths), dots=keys @ query)
        np.testing.assert_allclose(expected["scores"], keys @ query / lengths, rtol=1e-12)
    else:
        expected["dots"] = keys @ query
    if doc.get("positions") == "rope":
        position = doc["query_position"]
        at = np.arange(len(keys))
        expected.update(
            given_query=np.array(doc["given_query"], float),
            given_keys=np.array(doc["given_keys"], float),
            query_position=np.array([position, 90 * position]),
            key_positions=np.stack([at, 90 * at], axis=1),
            query_cos_sin=np.array(
                [math.cos(math.pi * position / 2), math.sin(math.pi * position / 2)]
            ),  # fmt: skip
            key_cos_sin=np.stack([np.cos(np.pi * at / 2), np.sin(np.pi * at / 2)], axis=1),
        )
    return expected


def _held_to_the_json(path, sheet, doc: dict) -> None:
    """Every named group recalculates to the JSON's; every number and formula on the sheet
    is in one of them."""
    cells = _recalculated(path, sheet.title)
    named, expected = _named(sheet), _expected(doc)
    assert set(named) == set(expected)
    covered = set()
    for name, grid in named.items():
        got = np.array([[cells[c] for c in row] for row in grid])
        want = np.asarray(expected[name], float)
        np.testing.assert_allclose(got.ravel(), want.ravel(), atol=1e-9, rtol=0, err_msg=name)
        covered.update(c for row in grid for c in row)
    for row in sheet.iter_rows():
        for written in row:
            if isinstance(written.value, (int, float)) or str(written.value).startswith("="):
                assert written.coordinate in covered, written.coordinate


@pytest.mark.parametrize("kind", KINDS)
def test_every_cell_recalculates_to_the_exercise_s_numbers(run, run_json, tmp_path, kind):
    path = tmp_path / "hoja.xlsx"
    args = ("exercise", *KINDS[kind])
    result = run(*args, "--export", str(path))
    assert result.exit_code == 0, result.stderr
    book = openpyxl.load_workbook(path)
    assert len(book.worksheets) == 1
    _held_to_the_json(path, book.worksheets[0], run_json(*args, "--answers", "--json"))


@pytest.mark.parametrize("kind", KINDS)
def test_blank_leaves_the_student_s_cells_empty_and_keys_them_apart(run, run_json, tmp_path,
                                                                    kind):  # fmt: skip
    path = tmp_path / "hoja.xlsx"
    args = ("exercise", *KINDS[kind])
    result = run(*args, "--blank", "--lang", "es", "--export", str(path))
    assert result.exit_code == 0, result.stderr
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Hoja de ejercicios", "Soluciones"]
    sheet, key = book.worksheets
    _held_to_the_json(path, key, run_json(*args, "--answers", "--json"))
    formulas_seen = 0
    for row in key.iter_rows():
        for written in row:
            student = sheet[written.coordinate].value
            if str(written.value).startswith("="):
                formulas_seen += 1
                assert student is None, written.coordinate  # the student's to fill
            else:
                assert student == written.value, written.coordinate  # the givens, the words
    assert formulas_seen >= 10


def test_answers_is_blank_too(run, tmp_path):
    """--answers, a sheet followed by its key, is the same workbook as --blank."""
    blank, answers = tmp_path / "b.xlsx", tmp_path / "a.xlsx"
    assert run("exercise", "--seed", "4", "--blank", "--export", str(blank)).exit_code == 0
    assert run("exercise", "--seed", "4", "--answers", "--export", str(answers)).exit_code == 0
    one, other = openpyxl.load_workbook(blank), openpyxl.load_workbook(answers)
    assert one.sheetnames == other.sheetnames == ["Worksheet", "Answers"]
    for a, b in zip(one.worksheets, other.worksheets, strict=True):
        assert [[c.value for c in r] for r in a.iter_rows()] == [
            [c.value for c in r] for r in b.iter_rows()
        ]


@pytest.mark.parametrize("kind", [(), ("--selfattn",)])
def test_a_class_set_is_a_worksheet_per_sheet_and_its_keys_after(run, run_json, tmp_path,
                                                                  kind):  # fmt: skip
    path = tmp_path / "clase.xlsx"
    args = ("exercise", "--seed", "5", "--count", "2", *kind)
    assert run(*args, "--blank", "--export", str(path)).exit_code == 0
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Worksheet 1", "Worksheet 2", "Answers 1", "Answers 2"]
    documents = run_json(*args, "--answers", "--json")["sheets"]
    for number, doc in enumerate(documents):
        assert doc["seed"] == 5 + number
        _held_to_the_json(path, book.worksheets[2 + number], doc)
        assert book.worksheets[number]["A1"].value == book.worksheets[2 + number]["A1"].value
    keys_only = tmp_path / "claves.xlsx"
    assert run(*args, "--answers-only", "--export", str(keys_only)).exit_code == 0
    assert openpyxl.load_workbook(keys_only).sheetnames == ["Answers 1", "Answers 2"]


@pytest.mark.parametrize(
    "kind", ["dot", "general", "additive", "cosine", "rope", "selfattn", "online"]
)
def test_a_changed_given_moves_the_chain(tmp_path, run, kind):
    """What the spreadsheet is for: the student edits a given and every step follows."""
    path = tmp_path / "hoja.xlsx"
    assert run("exercise", *KINDS[kind], "--export", str(path)).exit_code == 0
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[0]
    named = _named(sheet)
    before = _recalculated(path, sheet.title)
    given = {"rope": "given_keys", "selfattn": "x", "online": "scores"}.get(kind, "keys")
    for coordinate in named[given][0]:  # the first key, x or score: one more in each number
        sheet[coordinate] = sheet[coordinate].value + 1
    book.save(path)
    after = _recalculated(path, sheet.title)
    weights = [c for row in named["weights"] for c in row]
    assert any(after[c] != pytest.approx(before[c], abs=1e-6) for c in weights)
    assert sum(after[c] for c in weights) == pytest.approx(1.0, abs=1e-12)


def test_every_step_is_a_formula_of_cells_not_a_number_written_down(run, tmp_path):
    path = tmp_path / "hoja.xlsx"
    assert (
        run("exercise", "--seed", "3", "--method", "scaled", "--export", str(path)).exit_code == 0
    )
    sheet = openpyxl.load_workbook(path).worksheets[0]
    named = _named(sheet)
    (score,) = named["scores"][0]
    (dot,) = named["dots"][0]
    assert sheet[score].value == f"={dot}/SQRT(4)"
    (power,) = named["powers"][0]
    assert sheet[power].value == f"=EXP({score})"
    weight = sheet[named["weights"][0][0]].value
    column = re.sub(r"\d", "", power)
    last = re.sub(r"\D", "", named["powers"][-1][0])
    assert weight == f"={power}/SUM({column}$6:{column}${last})"


UNHELD = "--export {path}: {why}; name a .tex, .html, .svg, .png, .md or .txt file instead"
ONLINE_ROW = "the spreadsheet of an online softmax works one row of finite"


@pytest.mark.parametrize(
    ("args", "given", "said"),
    [
        (("selfattn", "el tren"), None, "a spreadsheet holds an exercise"),
        (("softmax", "--online"), '{"scores": [[1, 2], [3, 4]]}', ONLINE_ROW),  # a grid
        (("softmax", "--online"), '{"scores": [1, null, 3]}', ONLINE_ROW),  # a masked score
        (("exercise", "-i", "llaves", "--token", "están"), None,
         "a spreadsheet works the last token's row of a layer"),  # another row of the grid
        (("exercise", "--questions"), None, "a spreadsheet's cells compute an exercise's"),
    ],
)  # fmt: skip
def test_what_a_spreadsheet_does_not_hold_is_refused_in_one_line(run, tmp_path, args, given, said):
    path = tmp_path / "x.xlsx"
    result = run(*args, "--export", str(path), input=given)
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert result.error.msgid == UNHELD and result.error.fields["why"].msgid.startswith(said)
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("temperature", ["1", "0.5", "2"])
def test_the_online_softmax_at_a_temperature_recalculates_to_its_json(
    run, run_json, tmp_path, temperature
):
    """Every exponent ÷ T, T in a cell of its own (a student may change it)."""
    path = tmp_path / "online.xlsx"
    args = ("softmax", "2", "0", "1", "3", "--online", "--block", "2", "--temperature", temperature)
    assert run(*args, "--export", str(path)).exit_code == 0
    sheet = openpyxl.load_workbook(path).worksheets[0]
    _held_to_the_json(path, sheet, run_json(*args, "--json"))
    labels = {str(c.value) for row in sheet.iter_rows() for c in row if c.value is not None}
    assert ("e^((s − m) ÷ T)" in labels) == (temperature != "1")


def test_without_openpyxl_a_spreadsheet_is_refused_in_one_line(run, tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openpyxl" else real(name)
    )
    path = tmp_path / "hoja.xlsx"
    result = run("exercise", "--export", str(path))
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert result.stderr.count("\n") == 1
    assert result.error.msgid.startswith("{option} {path} needs {package}, which is not installed")
    assert result.error.fields["package"] == "openpyxl"
