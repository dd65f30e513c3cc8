"""Correcting a student's worksheet, blank by blank, as a teacher marks it.

Each blank of a dot or scaled sheet (the products, the scores, e^score, the total, each
weight, each weight × value, the output) is held against two values: the sheet's own,
and the one the student's earlier answers give (carried forward, so that a step done right
from a wrong earlier number is right). A wrong number is recomputed under each known
mistake of the step; when it is what a mistake gives, the mistake is named.

No I/O and no words: a Verdict says what was found by keys that present/ words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# The decimals a sheet prints for each kind of blank (present/format's weight and other).
WEIGHT_DIGITS, OTHER_DIGITS = 3, 2
# An answer this close to a value, relative, is off only by an earlier rounding.
ROUNDING_SLACK = 0.02


@dataclass(frozen=True)
class Blank:
    """One blank of the sheet: its step (product, score, power, total, weight, weighted,
    output), the key it is about (None for the total and the output) and whether the
    answer is a vector (weight × value, the output)."""

    step: str
    key: int | None
    vector: bool = False

    @property
    def digits(self) -> int:
        return WEIGHT_DIGITS if self.step == "weight" else OTHER_DIGITS


@dataclass(frozen=True)
class Verdict:
    """What one answer is: right; carried (right from the student's own wrong earlier
    number); rounded (right to fewer decimals than the sheet); close (off only by the
    rounding of an earlier step); or wrong, with the value the student's earlier numbers
    give and the known mistakes whose value it is (each a key and its fields)."""

    blank: Blank
    answer: np.ndarray
    kind: str  # "right", "carried", "rounded", "close" or "wrong"
    expected: np.ndarray
    mistakes: tuple[tuple[str, dict[str, object]], ...] = ()

    @property
    def right(self) -> bool:
        return self.kind != "wrong"


@dataclass
class Corrector:
    """A sheet being corrected: its blanks in the sheet's order, and the answers so far.

    query [d], keys [T, d], values [T, d_v]; `scaled` divides the scores by √d.
    """

    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scaled: bool = False
    given: dict[tuple[str, int | None], np.ndarray] = field(default_factory=dict)

    @property
    def blanks(self) -> list[Blank]:
        count = len(self.keys)
        steps = ["product", "score"] if self.scaled else ["score"]
        blanks = [Blank(step, j) for step in steps for j in range(count)]
        blanks += [Blank("power", j) for j in range(count)] + [Blank("total", None)]
        blanks += [Blank("weight", j) for j in range(count)]
        blanks += [Blank("weighted", j, vector=True) for j in range(count)]
        return [*blanks, Blank("output", None, vector=True)]

    @property
    def root(self) -> float:
        return math.sqrt(self.keys.shape[1])

    def exact(self, blank: Blank) -> np.ndarray:
        """The sheet's own value of a blank."""
        products = self.keys @ self.query
        scores = products / self.root if self.scaled else products
        powers = np.exp(scores)
        weights = powers / powers.sum()
        weighted = weights[:, None] * self.values
        by_step = {"product": products, "score": scores, "power": powers, "weight": weights,
                   "weighted": weighted}  # fmt: skip
        if blank.step == "total":
            return np.array(powers.sum())
        if blank.step == "output":
            return weighted.sum(axis=0)
        return np.asarray(by_step[blank.step][blank.key])

    def _carried(self, step: str, key: int | None) -> np.ndarray:
        """The student's answer to an earlier blank, or the sheet's where none was given."""
        return self.given.get((step, key), self.exact(Blank(step, key)))

    def _count(self) -> int:
        return len(self.keys)

    def carried(self, blank: Blank) -> np.ndarray:
        """The blank's value from the student's own earlier answers."""
        j, count = blank.key, self._count()
        if blank.step == "product":
            return self.exact(blank)
        if blank.step == "score":
            source = self._carried("product", j) if self.scaled else self.exact(blank)
            return source / self.root if self.scaled else source
        if blank.step == "power":
            return np.exp(self._carried("score", j))
        if blank.step == "total":
            return np.sum([self._carried("power", i) for i in range(count)])
        if blank.step == "weight":
            return self._carried("power", j) / self._carried("total", None)
        if blank.step == "weighted":
            return self._carried("weight", j) * self.values[j]
        return np.sum([self._carried("weighted", i) for i in range(count)], axis=0)

    def mistakes(self, blank: Blank) -> list[tuple[str, dict[str, object], np.ndarray]]:
        """What each known mistake of the step gives for this blank: (key, fields, value)."""
        j, count = blank.key, self._count()
        products = self.keys @ self.query
        found: list[tuple[str, dict[str, object], np.ndarray]] = []
        others = [i for i in range(count) if i != j]
        if blank.step in ("product", "score") and j is not None:
            divisor = self.root if self.scaled and blank.step == "score" else 1.0
            for i in others:  # q · k paired with another key (Kᵀ not transposed)
                found.append(("wrong_key", {"other": i}, np.array(products[i] / divisor)))
        if blank.step == "score" and self.scaled and j is not None:
            found.append(("root_forgotten", {}, np.array(products[j])))
            found.append(("root_twice", {}, np.array(products[j] / self.root**2)))
        if blank.step == "power" and j is not None:
            found.append(("exp_skipped", {}, self._carried("score", j)))
            if self.scaled:
                found.append(("root_forgotten", {}, np.exp(products[j])))
        if blank.step == "total":
            scores = [self._carried("score", i) for i in range(count)]
            found.append(("exp_skipped", {}, np.sum(scores)))
            powers = [self._carried("power", i) for i in range(count)]
            for i in range(count):  # a term left out of the sum
                found.append(("term_left_out", {"other": i}, np.sum(powers) - powers[i]))
        if blank.step == "weight" and j is not None:
            row = np.array([self._carried("score", i) for i in range(count)])
            if row.sum() != 0:
                found.append(("exp_skipped", {}, row[j] / row.sum()))
            found.append(("not_divided", {}, self._carried("power", j)))
        if blank.step == "weighted" and j is not None:
            for i in others:  # the weight times another token's value
                found.append(
                    ("wrong_value_row", {"other": i}, self._carried("weight", j) * self.values[i])
                )
        return found

    def mark(self, blank: Blank, answer: np.ndarray) -> Verdict:
        """Judge one answer, keep it for the blanks after it, and say what it is."""
        answer = np.asarray(answer, dtype=np.float64)
        exact, carried = self.exact(blank), self.carried(blank)
        if answer.shape != exact.shape:  # not carried forward: the steps after use the sheet's
            return Verdict(blank, answer, "wrong", exact)
        self.given[(blank.step, blank.key)] = answer
        tolerance = 0.5 * 10.0**-blank.digits + 1e-9
        if _within(answer, exact, tolerance):
            return Verdict(blank, answer, "right", exact)
        if _within(answer, carried, tolerance):  # right from a wrong earlier number
            return Verdict(blank, answer, "carried", exact)
        typed = _decimals(answer)
        if typed < blank.digits and any(
            _within(answer, target, 0.5 * 10.0**-typed + 1e-9) for target in (carried, exact)
        ):
            return Verdict(blank, answer, "rounded", exact)
        matched = tuple(
            (key, fields)
            for key, fields, value in self.mistakes(blank)
            if np.shape(value) == answer.shape and _within(answer, value, tolerance)
        )
        if not matched and any(_relative(answer, target) for target in (carried, exact)):
            return Verdict(blank, answer, "close", exact)
        return Verdict(blank, answer, "wrong", carried, matched)


def _within(answer: np.ndarray, target: np.ndarray, tolerance: float) -> bool:
    return bool(np.all(np.abs(answer - np.asarray(target)) <= tolerance))


def _relative(answer: np.ndarray, target: np.ndarray) -> bool:
    scale = np.maximum(np.abs(np.asarray(target)), 1e-12)
    return bool(np.all(np.abs(answer - target) <= ROUNDING_SLACK * scale))


def _decimals(answer: np.ndarray) -> int:
    """How many decimals the student wrote, read from the numbers themselves (0.7 → 1)."""
    most = 0
    for value in np.atleast_1d(answer):
        text = f"{float(value):.12f}".rstrip("0")
        most = max(most, len(text.split(".")[1]) if "." in text else 0)
    return most
