"""attn check: a worksheet corrected blank by blank against the sheet attn exercise makes,
from the student's own earlier numbers, naming the known mistake a wrong number matches."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attncli as attn
from attncli.api.checking import corrector, read_answer
from attncli.errors import OptionError
from attncli.explain.checking import Blank
from tests.meaning import SELFATTN_SHEET, told

KINDS = ("dot", "scaled", "general", "additive", "selfattn")


def _right_answers(seed=3, method="dot", lang="en"):
    """The sheet's own answers, written as a student would (the sheet's digits)."""
    selfattn = method == "selfattn"
    sheet, marking = corrector(seed, method="dot" if selfattn else method, selfattn=selfattn)
    texts = []
    for blank in marking.blanks:
        value = np.atleast_1d(marking.exact(blank))
        written = [f"{v:.{blank.digits}f}" for v in value]
        if lang == "es":
            written = [w.replace(".", ",") for w in written]
        texts.append(("; " if lang == "es" else ", ").join(written))
    return sheet, marking, texts


@pytest.mark.parametrize("method", KINDS)
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("seed", [3, 11])
def test_the_sheets_own_answers_at_its_rounding_are_all_right(method, lang, seed):
    _sheet, marking, texts = _right_answers(seed=seed, method=method, lang=lang)
    selfattn = method == "selfattn"
    result = attn.check(seed=seed, method="dot" if selfattn else method, answers=texts,
                        lang=lang, selfattn=selfattn)  # fmt: skip
    assert [v.kind for v in result.verdicts] == ["right"] * len(marking.blanks)
    assert result.right == len(marking.blanks)


@pytest.mark.parametrize("method", KINDS)
def test_the_corrector_computes_the_sheets_own_key(method):
    """Its chain, step by step, ends at the scores, weights and output attn exercise's key
    has (computed by the core's score, softmax and mix, or by the layer)."""
    selfattn = method == "selfattn"
    for seed in range(10):
        sheet, marking = corrector(seed, method="dot" if selfattn else method, selfattn=selfattn)
        if selfattn:
            layer = sheet.layer
            key = layer.scores[-1], layer.weights[-1], layer.output[-1]
        else:
            key = sheet.scores, sheet.weights, sheet.output
        by_step = {"score": [], "weight": [], "output": []}
        for blank in marking.blanks:
            if blank.step in by_step:
                by_step[blank.step].append(marking.exact(blank))
        np.testing.assert_allclose(by_step["score"], key[0], atol=1e-12)
        np.testing.assert_allclose(by_step["weight"], key[1], atol=1e-12)
        np.testing.assert_allclose(by_step["output"][0], key[2], atol=1e-12)


def _mark(method, answers, lang="en"):
    return attn.check(seed=3, method=method, answers=answers, lang=lang).verdicts


def test_a_forgotten_or_doubled_root_is_named():
    sheet, marking = corrector(3, method="scaled")
    products = sheet.keys @ sheet.query
    root = math.sqrt(sheet.keys.shape[1])
    right_products = [str(int(p)) for p in products]
    forgotten = _mark("scaled", [*right_products, str(int(products[0]))])[-1]
    assert forgotten.kind == "wrong" and ("root_forgotten", {}) in forgotten.mistakes
    twice = _mark("scaled", [*right_products, f"{products[0] / root**2:.2f}"])[-1]
    assert ("root_twice", {}) in twice.mistakes


def test_skipping_e_to_the_x_is_named_at_the_power_the_total_and_the_weight():
    sheet, _marking = corrector(3)
    scores = sheet.keys @ sheet.query  # dot: 1, 2, 2
    answers = [str(int(s)) for s in scores]
    skipped = _mark("dot", [*answers, str(int(scores[0]))])[-1]
    assert ("exp_skipped", {}) in skipped.mistakes
    powers = np.exp(scores)
    total = _mark("dot", [*answers, *(f"{p:.2f}" for p in powers), str(int(scores.sum()))])
    assert ("exp_skipped", {}) in total[-1].mistakes


def test_a_term_left_out_of_the_total_and_the_wrong_value_row_are_named():
    sheet, _marking = corrector(3)
    scores = sheet.keys @ sheet.query
    powers = np.exp(scores)
    answers = [str(int(s)) for s in scores] + [f"{p:.2f}" for p in powers]
    short = _mark("dot", [*answers, f"{powers.sum() - powers[0]:.2f}"])[-1]
    assert ("term_left_out", {"other": 0}) in short.mistakes
    weights = powers / powers.sum()
    answers += [f"{powers.sum():.2f}", *(f"{w:.3f}" for w in weights)]
    wrong_row = weights[0] * sheet.values[1]
    marked = _mark("dot", [*answers, ", ".join(f"{v:.2f}" for v in wrong_row)])[-1]
    assert ("wrong_value_row", {"other": 1}) in marked.mistakes


def test_a_step_done_right_from_a_wrong_number_is_right_from_it():
    sheet, _marking = corrector(3)
    scores = sheet.keys @ sheet.query
    wrong = scores[0] + 1  # a wrong first score, then its own e^score
    verdicts = _mark("dot", [str(int(wrong)), *(str(int(s)) for s in scores[1:]),
                             f"{math.exp(wrong):.2f}"])  # fmt: skip
    assert verdicts[0].kind == "wrong" and verdicts[-1].kind == "carried"


def test_a_value_rounded_more_than_the_sheet_is_right_and_said_so():
    sheet, _marking = corrector(3)
    scores = sheet.keys @ sheet.query
    verdicts = _mark("dot", [*(str(int(s)) for s in scores), f"{math.exp(scores[0]):.1f}"])
    assert verdicts[-1].kind == "rounded"


@pytest.mark.parametrize(
    ("text", "lang", "read"),
    [("0,665", "es", 0.665), ("0.665", "en", 0.665), ("2/3", "en", 2 / 3), ("2/3", "es", 2 / 3)],
)
def test_an_answer_is_read_as_the_student_writes_it(text, lang, read):
    assert float(read_answer(text, Blank("weight", 0), lang)) == pytest.approx(read)
    vector = read_answer("6,65; 0", Blank("weighted", 0), "es")
    assert vector.tolist() == [6.65, 0]


def test_the_command_talks_a_student_through_and_writes_the_verdicts_as_json(run, run_json):
    _sheet, marking, texts = _right_answers(lang="es")
    wrong = list(texts)
    wrong[3] = wrong[0]  # e^score of the first token: its score again, e^x skipped
    talked = run("check", "--seed", "3", "--lang", "es", "--format", "table",
                 input="\n".join(wrong) + "\n").stdout  # fmt: skip
    assert "saltarse e^x" in talked and "bien" in talked
    assert f"de {len(marking.blanks)} respuestas bien" in talked
    english = _right_answers(lang="en")[2]
    document = run_json("check", "--seed", "3", input="\n".join(english[:4]) + "\n")
    assert document["answered"] == 4 and document["right"] == 4
    assert [v["kind"] for v in document["verdicts"]] == ["right"] * 4


@pytest.mark.parametrize("method", ["general", "dot"])
def test_a_method_beside_selfattn_is_one_line(run, method):
    # --method dot too, given: attn exercise --selfattn refuses it by the same check
    result = run("check", "--selfattn", "--method", method, input="1\n")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{option} with {beside}: {why}",
         option=f"--method {method}", beside="--selfattn",
         why=(SELFATTN_SHEET, {"option": f"--method {method}"}))  # fmt: skip


@pytest.mark.parametrize("method", KINDS)
def test_every_kind_of_sheet_is_corrected_through_a_pipe(run, run_json, method):
    """The right answers piped one a line are all right; the first score typed as e^score
    (e^x skipped one step on) is named by its key in the JSON."""
    _sheet, marking, texts = _right_answers(method=method)
    selfattn = method == "selfattn"
    options = ["--selfattn"] if selfattn else ["--method", method]
    talked = run("check", "--seed", "3", *options, "--format", "table",
                 input="\n".join(texts) + "\n")  # fmt: skip
    assert talked.exit_code == 0, talked.stderr
    total = len(marking.blanks)
    assert f"{total} of {total} answers right" in talked.stdout
    power = next(i for i, blank in enumerate(marking.blanks) if blank.step == "power")
    score = next(i for i, blank in enumerate(marking.blanks) if blank.step == "score")
    wrong = [*texts[:power], texts[score]]
    if float(texts[score]) == pytest.approx(float(texts[power]), abs=0.01):
        pytest.fail("the sheet's first score is its own e^score")
    document = run_json("check", "--seed", "3", *options, input="\n".join(wrong) + "\n")
    last = document["verdicts"][-1]
    assert last["kind"] == "wrong" and last["step"] == "power"
    assert "exp_skipped" in [m["mistake"] for m in last["mistakes"]]


@pytest.mark.parametrize("answers", ["1 2", 3])
def test_answers_that_are_no_list_are_refused_by_the_keywords(answers):
    from attncli.errors import OptionTypeError

    with pytest.raises(OptionTypeError) as caught:
        attn.check(3, answers=answers)
    told(caught.value, OptionTypeError, "{given}: {name} takes {takes}", "python",
         given=f"answers={answers!r}", name="answers",
         takes=('a list of answers, one a blank: ["1", "2", …]', {}))  # fmt: skip
