"""attn check names each known mistake: for every one, the wrong number is made here by
that mistake, by hand from the sheet's own givens (never from the corrector's list), typed
after the sheet's right answers to the blanks before it, and the verdict must name it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import attncli as attn
from attncli.api.checking import corrector
from attncli.explain.checking import MISTAKES, Blank

KINDS = ("dot", "scaled", "general", "additive", "selfattn")


def _sheet(kind, seed=3, size=3, dim=None):
    return corrector(seed, size, dim, "dot" if kind == "selfattn" else kind, kind == "selfattn")


def _givens(sheet, marking):
    """q (the query), K, V and the scores' matrix by hand, from what the sheet gives."""
    if marking.kind == "selfattn":
        x, p = sheet.layer.x, sheet.layer.projections
        q_all, k_all, v_all = x @ p["w_q"], x @ p["w_k"], x @ p["w_v"]
        return q_all[-1], k_all, v_all, q_all
    return sheet.query, sheet.keys, sheet.values, None


def _scores(marking, q, keys):
    p = marking.parameters
    if marking.kind == "general":
        return np.array([q @ p["w_a"] @ k for k in keys])
    if marking.kind == "additive":
        return np.array([p["v_a"] @ np.tanh(p["w_1"] @ q + p["w_2"] @ k) for k in keys])
    divisor = math.sqrt(keys.shape[1]) if marking.kind in ("scaled", "selfattn") else 1.0
    return keys @ q / divisor


def _mark_after(marking, target: Blank, wrong):
    """The sheet's own answers up to `target`, then `wrong` at it: the verdict there."""
    for blank in marking.blanks:
        if blank == target:
            return marking.mark(blank, np.asarray(wrong, dtype=float))
        marking.mark(blank, marking.exact(blank))
    raise AssertionError(f"no blank {target}")


def _named(kind, target, wrong, mistake, fields=None, seed=3, size=3, dim=None):
    _sheet_, marking = _sheet(kind, seed, size, dim)
    right = marking.exact(target)
    assert not np.allclose(right, wrong, atol=0.01), "the mistake must give another number"
    verdict = _mark_after(marking, target, wrong)
    assert verdict.kind == "wrong"
    keys = [key for key, _fields in verdict.mistakes]
    assert mistake in keys, (mistake, verdict.mistakes)
    if fields is not None:
        assert (mistake, fields) in verdict.mistakes
    return verdict


def _first_seed(kind, works, size=3, dim=None):
    """The first seed whose sheet lets the mistake show (its number differs from the
    right one): a search over seeds, so that the test holds for the sheets attn makes."""
    for seed in range(200):
        sheet, marking = _sheet(kind, seed, size, dim)
        if works(sheet, marking):
            return seed
    raise AssertionError("no sheet shows the mistake")


@pytest.mark.parametrize("kind", ["dot", "scaled", "selfattn"])
def test_the_query_with_another_tokens_key(kind):
    def differs(sheet, marking):
        q, keys, _v, _ = _givens(sheet, marking)
        return abs(q @ keys[0] - q @ keys[1]) > 0.5

    seed = _first_seed(kind, differs)
    sheet, marking = _sheet(kind, seed)
    q, keys, _v, _ = _givens(sheet, marking)
    step = "score" if kind == "dot" else "product"
    _named(kind, Blank(step, 0), q @ keys[1], "wrong_key", {"other": 1}, seed=seed)


@pytest.mark.parametrize("kind", ["general", "additive"])
def test_a_learned_score_with_another_tokens_key(kind):
    def differs(sheet, marking):
        q, keys, _v, _ = _givens(sheet, marking)
        scores = _scores(marking, q, keys)
        return abs(scores[0] - scores[1]) > 0.05

    seed = _first_seed(kind, differs)
    sheet, marking = _sheet(kind, seed)
    q, keys, _v, _ = _givens(sheet, marking)
    wrong = _scores(marking, q, keys)[1]
    _named(kind, Blank("score", 0), wrong, "wrong_key", {"other": 1}, seed=seed)


@pytest.mark.parametrize("kind", ["dot", "selfattn"])
def test_k_not_transposed_a_column_of_k_taken_for_a_key(kind):
    """With K square (two tokens of two numbers) a column of K reads as a key."""

    def differs(sheet, marking):
        q, keys, _v, _ = _givens(sheet, marking)
        return abs(q @ keys[:, 0] - q @ keys[0]) > 0.5 and abs(q @ keys[:, 0] - q @ keys[1]) > 0.5

    seed = _first_seed(kind, differs, size=2, dim=2)
    sheet, marking = _sheet(kind, seed, 2, 2)
    q, keys, _v, _ = _givens(sheet, marking)
    step = "score" if kind == "dot" else "product"
    _named(kind, Blank(step, 0), q @ keys[:, 0], "not_transposed", {}, seed, 2, 2)


@pytest.mark.parametrize("kind", ["scaled", "selfattn"])
def test_root_forgotten_at_the_score_and_at_e_to_the_score(kind):
    seed = _first_seed(kind, lambda s, m: abs(_givens(s, m)[1][0] @ _givens(s, m)[0]) > 0.5)
    sheet, marking = _sheet(kind, seed)
    q, keys, _v, _ = _givens(sheet, marking)
    product = q @ keys[0]
    _named(kind, Blank("score", 0), product, "root_forgotten", {}, seed=seed)
    _named(kind, Blank("power", 0), math.exp(product), "root_forgotten", {}, seed=seed)


@pytest.mark.parametrize("kind", ["scaled", "selfattn"])
def test_root_applied_twice(kind):
    seed = _first_seed(kind, lambda s, m: abs(_givens(s, m)[1][0] @ _givens(s, m)[0]) > 0.5)
    sheet, marking = _sheet(kind, seed)
    q, keys, _v, _ = _givens(sheet, marking)
    twice = q @ keys[0] / keys.shape[1]  # ÷ √d_k ÷ √d_k = ÷ d_k
    _named(kind, Blank("score", 0), twice, "root_twice", {}, seed=seed)


@pytest.mark.parametrize("kind", KINDS)
def test_e_to_the_x_skipped_at_the_power_the_total_and_the_weight(kind):
    def usable(sheet, marking):
        q, keys, _v, _ = _givens(sheet, marking)
        scores = _scores(marking, q, keys)
        return abs(scores.sum()) > 0.5 and abs(scores[0] - math.exp(scores[0])) > 0.5

    seed = _first_seed(kind, usable)
    sheet, marking = _sheet(kind, seed)
    q, keys, _v, _ = _givens(sheet, marking)
    scores = _scores(marking, q, keys)
    _named(kind, Blank("power", 0), scores[0], "exp_skipped", seed=seed)
    _named(kind, Blank("total", None), scores.sum(), "exp_skipped", seed=seed)
    weight = scores[0] / scores.sum()
    if abs(weight - np.exp(scores[0]) / np.exp(scores).sum()) > 0.01:
        _named(kind, Blank("weight", 0), weight, "exp_skipped", seed=seed)


@pytest.mark.parametrize("kind", KINDS)
def test_a_term_left_out_of_the_total_and_e_to_the_score_not_divided(kind):
    sheet, marking = _sheet(kind)
    q, keys, _v, _ = _givens(sheet, marking)
    powers = np.exp(_scores(marking, q, keys))
    _named(kind, Blank("total", None), powers.sum() - powers[2], "term_left_out", {"other": 2})
    _named(kind, Blank("weight", 1), powers[1], "not_divided", {})


def test_the_total_of_the_wrong_row():
    sheet, marking = _sheet("selfattn")
    _q, keys, _v, q_all = _givens(sheet, marking)
    rows = np.exp(q_all @ keys.T / math.sqrt(keys.shape[1]))  # every query's e^score
    _named("selfattn", Blank("total", None), rows[0].sum(), "wrong_row", {"other": 0})


def test_softmax_over_a_column_instead_of_the_row():
    def differs(sheet, marking):
        _q, keys, _v, q_all = _givens(sheet, marking)
        powers = np.exp(q_all @ keys.T / math.sqrt(keys.shape[1]))
        return abs(powers[-1, 0] / powers[:, 0].sum() - powers[-1, 0] / powers[-1].sum()) > 0.01

    seed = _first_seed("selfattn", differs)
    sheet, marking = _sheet("selfattn", seed)
    _q, keys, _v, q_all = _givens(sheet, marking)
    powers = np.exp(q_all @ keys.T / math.sqrt(keys.shape[1]))
    column = powers[-1, 0] / powers[:, 0].sum()
    _named("selfattn", Blank("weight", 0), column, "column_softmax", {}, seed=seed)


@pytest.mark.parametrize("kind", KINDS)
def test_a_weight_times_the_wrong_value_row(kind):
    sheet, marking = _sheet(kind)
    q, keys, values, _ = _givens(sheet, marking)
    scores = _scores(marking, q, keys)
    weights = np.exp(scores) / np.exp(scores).sum()
    wrong = weights[0] * values[2]
    _named(kind, Blank("weighted", 0), wrong, "wrong_value_row", {"other": 2})


def test_a_projection_with_another_matrix_or_transposed():
    def square_and_apart(sheet, marking):
        x, p = sheet.layer.x, sheet.layer.projections
        return (
            abs(x[0] @ p["w_k"] - x[0] @ p["w_q"]).max() > 0.5
            and abs(x[0] @ p["w_q"].T - x[0] @ p["w_q"]).max() > 0.5
        )

    seed = _first_seed("selfattn", square_and_apart)
    sheet, _marking = _sheet("selfattn", seed)
    x, p = sheet.layer.x, sheet.layer.projections
    _named("selfattn", Blank("q", 0), x[0] @ p["w_k"], "wrong_matrix", {"matrix": "W^K"}, seed)
    _named("selfattn", Blank("q", 0), x[0] @ p["w_q"].T, "matrix_transposed",
           {"matrix": "W^Q"}, seed)  # fmt: skip


def test_general_w_a_transposed_and_additive_tanh_skipped():
    def transposed_apart(sheet, marking):
        w_a, k = sheet.parameters["w_a"], sheet.keys[0]
        return abs(w_a.T @ k - w_a @ k).max() > 0.5

    seed = _first_seed("general", transposed_apart)
    sheet, _marking = _sheet("general", seed)
    w_a, k = sheet.parameters["w_a"], sheet.keys[0]
    _named("general", Blank("mapped", 0), w_a.T @ k, "matrix_transposed", {"matrix": "W_a"}, seed)

    def tanh_apart(sheet, marking):
        p = sheet.parameters
        inner = p["w_1"] @ sheet.query + p["w_2"] @ sheet.keys[0]
        return abs(inner - np.tanh(inner)).max() > 0.05

    seed = _first_seed("additive", tanh_apart)
    sheet, _marking = _sheet("additive", seed)
    p = sheet.parameters
    inner = p["w_1"] @ sheet.query + p["w_2"] @ sheet.keys[0]
    _named("additive", Blank("hidden", 0), inner, "tanh_skipped", {}, seed=seed)


def test_cosine_lengths_squared_and_lengths_forgotten():
    """‖q‖ ‖k‖ without the square roots (‖q‖² ‖k‖²), and the score or its power before
    dividing by the lengths (q · k), each worked by hand from the sheet's query and keys."""

    def apart(sheet, marking):
        q, k = sheet.query, sheet.keys[0]
        squares = (q @ q) * (k @ k)
        return squares > 1.5 and abs(q @ k) > 0.1 and abs(squares - q @ k) > 0.5

    seed = _first_seed("cosine", apart)
    sheet, _marking = _sheet("cosine", seed)
    q, k = sheet.query, sheet.keys[0]
    squares = sum(a * a for a in q) * sum(b * b for b in k)
    product = sum(a * b for a, b in zip(q, k, strict=True))
    _named("cosine", Blank("lengths", 0), squares, "lengths_squared", {}, seed=seed)
    _named("cosine", Blank("score", 0), product, "lengths_forgotten", {}, seed=seed)
    _named("cosine", Blank("power", 0), math.exp(product), "lengths_forgotten", {}, seed=seed)


def test_two_mistakes_that_give_one_number_are_both_named():
    """A sheet where two mistakes give the same wrong number: both are named, and the
    verdict says either is the one to look for."""
    from attncli.present.checking_view import verdict_lines
    from attncli.present.format import Format

    for kind, seed in itertools.product(("scaled", "selfattn"), range(200)):
        sheet, marking = _sheet(kind, seed)
        q, keys, _v, _ = _givens(sheet, marking)
        product, root = q @ keys[0], math.sqrt(keys.shape[1])
        others = [q @ keys[i] / root for i in (1, 2)]
        # √d_k forgotten gives the product itself; another key's score can be the same
        if abs(product - q @ keys[0] / root) > 0.01 and any(
            abs(product - other) < 1e-9 for other in others
        ):
            break
    else:
        raise AssertionError("no sheet where two mistakes meet")
    verdict = _mark_after(marking, Blank("score", 0), product)
    named = {key for key, _fields in verdict.mistakes}
    assert {"root_forgotten", "wrong_key"} <= named
    lines = verdict_lines(verdict, sheet, Format())
    assert len(lines) == 1 + len(verdict.mistakes) + 1  # the verdict, each mistake, "either"


def test_every_mistake_attn_knows_is_made_by_a_test_here():
    """MISTAKES is what the corrector may name; each has its test above."""
    from pathlib import Path

    source = Path(__file__).read_text(encoding="utf-8")
    untested = [key for key in MISTAKES if f'"{key}"' not in source.split("MISTAKES is")[0]]
    assert untested == []


@pytest.mark.parametrize("kind", KINDS)
def test_rounding_too_early_is_said_as_not_a_mistake_of_method(kind):
    """A weight worked from e^score and the total rounded to one decimal, the sheet's own
    numbers typed at those blanks: off only by the earlier rounding."""
    for seed in range(200):
        sheet, marking = _sheet(kind, seed)
        q, keys, _v, _ = _givens(sheet, marking)
        powers = np.exp(_scores(marking, q, keys))
        early = round(powers[0], 1) / round(powers.sum(), 1)
        written = f"{early:.3f}"
        apart = abs(float(written) - powers[0] / powers.sum())
        if 0.001 < apart < 0.01 * powers[0] / powers.sum() and not written.endswith("0"):
            break
    verdict = _mark_after(marking, Blank("weight", 0), float(written))
    assert verdict.kind == "close" and verdict.right


@pytest.mark.parametrize("kind", KINDS)
def test_a_later_step_right_from_a_wrong_earlier_one_is_carried(kind):
    _sheet_, marking = _sheet(kind)
    blanks = marking.blanks
    power = next(b for b in blanks if b.step == "power" and b.key == 0)
    wrong = float(marking.exact(power)) + 3  # a wrong e^score of the first token
    verdicts = []
    for blank in blanks:
        if blank == power:
            verdicts.append(marking.mark(blank, np.asarray(wrong)))
        elif blank.step == "total":  # the total from the student's own wrong term
            own = wrong + sum(float(marking.exact(Blank("power", j))) for j in (1, 2))
            verdicts.append(marking.mark(blank, np.asarray(round(own, 2))))
            break
        else:
            verdicts.append(marking.mark(blank, marking.exact(blank)))
    assert verdicts[-2].kind != "right" or verdicts[-2].blank.step == "power"
    assert [v.kind for v in verdicts if v.blank == power] == ["wrong"]
    assert verdicts[-1].kind == "carried" and verdicts[-1].right


def test_a_wrong_number_says_it_is_worked_from_the_student_s_own_only_when_it_is():
    from attncli.present.checking_view import verdict_lines
    from attncli.present.format import Format

    checked = attn.check(3, answers=["2", "5"])  # both scores wrong, from the given q and k
    sheet, fmt = checked.sheet, Format()
    assert not checked.verdicts[1].from_own
    assert verdict_lines(checked.verdicts[1], sheet, fmt)[0] == "not right: 2 (the score)"
    carried = attn.check(3, answers=["1", "2", "2", "9", "7.39", "7.39", "30"])
    total = carried.verdicts[-1]  # the total of a wrong e^score: worked from it
    assert total.from_own and "from your own earlier numbers" in verdict_lines(total, sheet, fmt)[0]


def test_right_answers_rounded_as_the_sheet_rounds_carry_nothing_of_the_student_s_own():
    from attncli.present.checking_view import verdict_lines
    from attncli.present.format import Format

    checked = attn.check(3, answers=["1", "2", "2", "2.72", "7.39", "7.39", "20"])
    total = checked.verdicts[-1]
    assert not total.from_own
    assert verdict_lines(total, checked.sheet, Format())[0].startswith("not right: 17.50 (")
    assert "own" not in verdict_lines(total, checked.sheet, Format())[0]
