"""explain/checking: a student's answers marked against the sheet and against what their own
earlier numbers give."""

from __future__ import annotations

import warnings

import numpy as np

from attncli.api.checking import corrector


def test_earlier_answers_past_float64_leave_the_later_blanks_marked_against_the_sheet():
    _sheet, marking = corrector(3, method="dot")
    blanks = marking.blanks
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way
        for blank in (b for b in blanks if b.step == "score"):
            assert marking.mark(blank, np.array(1e5)).kind == "wrong"
        powers = [marking.mark(b, np.array(1.0)) for b in blanks if b.step == "power"]
    # e^100000 is no number a power can be close to: each 1 is wrong against e^score
    assert [verdict.kind for verdict in powers] == ["wrong"] * len(powers)
    assert all(np.isfinite(verdict.expected).all() for verdict in powers)
    for verdict, blank in zip(powers, (b for b in blanks if b.step == "power"), strict=True):
        assert verdict.expected == marking.exact(blank)


def test_a_wrong_score_is_carried_into_the_power_it_gives():
    _sheet, marking = corrector(3, method="dot")
    score = next(b for b in marking.blanks if b.step == "score")
    power = next(b for b in marking.blanks if b.step == "power" and b.key == score.key)
    marking.mark(score, np.array(2.0))
    assert marking.mark(power, np.array(round(np.exp(2.0), 2))).kind in ("carried", "right")
