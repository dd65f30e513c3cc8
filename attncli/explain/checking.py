"""Correcting a student's worksheet, blank by blank, as a teacher marks it.

Every kind of sheet attn exercise makes: each score method's of one query (its own steps
and mistakes are the method's, core.methods), and the self-attention layer (each token's
q, k and v, then the last token's row). Each blank is held against two values: the sheet's
own, and the one the student's earlier answers give (carried forward, so that a step done
right from a wrong earlier number is right). Both come from one chain of steps,
`Corrector.step_value`, fed either the sheet's numbers or the student's. A wrong number is
recomputed under each known mistake of its step; when it is what a mistake gives, the
mistake is named.

No I/O and no words: a Verdict says what was found by keys that present/ words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from attncli.core.methods import METHODS, NAMES, ScoreMethod, SheetView

# The decimals a sheet prints for each kind of blank (present/format's weight and other).
WEIGHT_DIGITS, OTHER_DIGITS = 3, 2
# An answer this close to a value, relative, is off only by an earlier rounding.
ROUNDING_SLACK = 0.02
# The steps whose answer is a vector: a token's q, k, v; W_a · k; tanh(W_1 q + W_2 k);
# weight × value; the output.
VECTOR_STEPS = frozenset({"q", "k", "v", "mapped", "hidden", "weighted", "output"})
# Every step a sheet may ask, in the order sheets ask them.
STEPS = ("q", "k", "v", "mapped", "hidden", "product", "lengths", "score", "power", "total",
         "weight", "weighted", "output")  # fmt: skip
KINDS = (*NAMES, "selfattn")
# The steps of each kind of sheet before the softmax, as its first table has them: a
# method's own (core.methods), the self-attention sheet's projections then the scaled score.
FIRST_STEPS = {
    **{name: scoring.sheet_steps for name, scoring in METHODS.items()},
    "selfattn": ("q", "k", "v", *METHODS["scaled"].sheet_steps),
}
# The mistakes attn recognises, each the key of a sentence in present/checking_words.py.
MISTAKES = (
    "wrong_key", "not_transposed", "root_forgotten", "root_twice", "exp_skipped",
    "term_left_out", "wrong_row", "column_softmax", "not_divided", "wrong_value_row",
    "matrix_transposed", "wrong_matrix", "tanh_skipped", "lengths_squared", "lengths_forgotten",
)  # fmt: skip

Getter = Callable[[str, "int | None"], np.ndarray]


@dataclass(frozen=True)
class Blank:
    """One blank of the sheet: its step (one of STEPS), the token it is about (None for
    the total and the output) and whether the answer is a vector."""

    step: str
    key: int | None

    @property
    def vector(self) -> bool:
        return self.step in VECTOR_STEPS

    @property
    def digits(self) -> int:
        return WEIGHT_DIGITS if self.step == "weight" else OTHER_DIGITS


@dataclass(frozen=True)
class Verdict:
    """What one answer is: right; carried (right from the student's own wrong earlier
    number); rounded (right to fewer decimals than the sheet); close (off only by the
    rounding of an earlier step); wrong, with the value the student's earlier numbers
    give and the known mistakes whose value it is (each a key and its fields); or blank
    (not answered)."""

    blank: Blank
    answer: np.ndarray
    kind: str  # "right", "carried", "rounded", "close", "wrong" or "blank"
    expected: np.ndarray
    mistakes: tuple[tuple[str, dict[str, object]], ...] = ()
    # expected is worked from the student's own earlier numbers, not the sheet's alone
    from_own: bool = False

    @property
    def right(self) -> bool:
        return self.kind not in ("wrong", "blank")


@dataclass
class Corrector:
    """A sheet being corrected: its blanks in the sheet's order, and the answers so far.

    kind: a score method's name, or selfattn. query [d], keys [T, d], values
    [T, d_v]; parameters: w_a [d, d] (general), w_1, w_2 [d_a, d] and v_a [d_a]
    (additive); a self-attention sheet gives x [T, d] and w_q, w_k, w_v [d, d_k] instead,
    and works the row of parameters["row"] (a 0-d array), the last token's when absent.
    """

    kind: str
    query: np.ndarray | None = None
    keys: np.ndarray | None = None
    values: np.ndarray | None = None
    parameters: dict[str, np.ndarray] = field(default_factory=dict)
    given: dict[tuple[str, int | None], np.ndarray] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """How many tokens (keys, and rows of x)."""
        source = self.parameters["x"] if self.kind == "selfattn" else self.keys
        assert source is not None
        return len(source)

    @property
    def last(self) -> int:
        """The self-attention sheet's query row: the last token's, unless the sheet names
        another (a row of a lesson's grid)."""
        if "row" in self.parameters:
            return int(self.parameters["row"])
        return self.count - 1

    @property
    def d_k(self) -> int:
        if self.kind == "selfattn":
            return int(self.parameters["w_k"].shape[1])
        assert self.keys is not None
        return int(self.keys.shape[1])

    @property
    def root(self) -> float:
        return math.sqrt(self.d_k)

    @property
    def scoring(self) -> ScoreMethod:
        """The sheet's score: its method's; the self-attention sheet's, scaled."""
        return METHODS["scaled" if self.kind == "selfattn" else self.kind]

    def view(self, get: Getter) -> SheetView:
        """The sheet's numbers as its score's steps read them, earlier steps from `get`."""
        return SheetView(
            self._query(get), lambda j: self._key(j, get), get, self.count, self.parameters
        )

    @property
    def blanks(self) -> list[Blank]:
        tokens = range(self.count)
        blanks = [Blank(step, j) for step in FIRST_STEPS[self.kind] for j in tokens]
        blanks += [Blank("power", j) for j in tokens] + [Blank("total", None)]
        blanks += [Blank(step, j) for step in ("weight", "weighted") for j in tokens]
        return [*blanks, Blank("output", None)]

    # The chain: each step from the ones before it, as `get` gives them.

    def step_value(self, step: str, j: int | None, get: Getter) -> np.ndarray:
        """A blank's value from the earlier steps' values as `get` gives them (the sheet's,
        or the student's where they answered)."""
        count, p = self.count, self.parameters
        if step in ("q", "k", "v"):
            assert j is not None
            return p["x"][j] @ p[f"w_{step}"]
        if step in self.scoring.sheet_steps:
            assert j is not None
            return self.scoring.sheet_value(step, j, self.view(get))
        if step == "power":
            return np.exp(get("score", j))
        if step == "total":
            return np.asarray(sum(get("power", i) for i in range(count)))
        if step == "weight":
            return get("power", j) / get("total", None)
        if step == "weighted":
            return get("weight", j) * self._value(j, get)
        return np.sum([get("weighted", i) for i in range(count)], axis=0)

    def _query(self, get: Getter) -> np.ndarray:
        if self.kind == "selfattn":
            return get("q", self.last)
        assert self.query is not None
        return self.query

    def _key(self, j: int | None, get: Getter) -> np.ndarray:
        assert j is not None
        if self.kind == "selfattn":
            return get("k", j)
        assert self.keys is not None
        return self.keys[j]

    def _value(self, j: int | None, get: Getter) -> np.ndarray:
        assert j is not None
        if self.kind == "selfattn":
            return get("v", j)
        assert self.values is not None
        return self.values[j]

    def exact(self, blank: Blank) -> np.ndarray:
        """The sheet's own value of a blank."""
        return self._exact(blank.step, blank.key)

    def _exact(self, step: str, j: int | None) -> np.ndarray:
        return np.asarray(self.step_value(step, j, self._exact))

    def _carried(self, step: str, key: int | None) -> np.ndarray:
        """The student's answer to an earlier blank, or the sheet's where none was given."""
        if (step, key) in self.given:
            return self.given[(step, key)]
        return self._exact(step, key)

    def carried(self, blank: Blank) -> np.ndarray:
        """The blank's value from the student's own earlier answers; the sheet's where those
        take it past float64 (a score answered as 1e5 has no e^score), since an answer
        cannot be measured against infinity."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            value = np.asarray(self.step_value(blank.step, blank.key, self._carried))
        return value if np.all(np.isfinite(value)) else self.exact(blank)

    # The known mistakes, each recomputed from the student's own earlier numbers.

    def mistakes(self, blank: Blank) -> list[tuple[str, dict[str, object], np.ndarray]]:
        """What each known mistake of the step gives for this blank: (key, fields, value)."""
        step, j, get = blank.step, blank.key, self._carried
        found: list[tuple[str, dict[str, object], np.ndarray]] = []
        others = [i for i in range(self.count) if i != j]
        if step in ("q", "k", "v") and j is not None:
            found += self._projection_mistakes(step, j)
        if step in self.scoring.sheet_steps and j is not None:
            found += self.scoring.sheet_mistakes(step, j, others, self.view(get))
        if step == "power" and j is not None:
            found.append(("exp_skipped", {}, get("score", j)))
            found += self.scoring.sheet_mistakes(step, j, others, self.view(get))
        if step == "total":
            found += self._total_mistakes()
        if step == "weight" and j is not None:
            found += self._weight_mistakes(j)
        if step == "weighted" and j is not None:
            for i in others:  # the weight times another token's value
                found.append(
                    ("wrong_value_row", {"other": i}, get("weight", j) * self._value(i, get))
                )
        return found

    def _projection_mistakes(self, step: str, j: int) -> list:
        """x W with another of the three matrices, or with the matrix transposed."""
        p = self.parameters
        found: list = [
            ("wrong_matrix", {"matrix": f"W^{other.upper()}"}, p["x"][j] @ p[f"w_{other}"])
            for other in ("q", "k", "v")
            if other != step
        ]
        own = p[f"w_{step}"]
        if own.shape[0] == own.shape[1]:
            found.append(("matrix_transposed", {"matrix": f"W^{step.upper()}"},
                          p["x"][j] @ own.T))  # fmt: skip
        return found

    def _total_mistakes(self) -> list:
        get, count = self._carried, self.count
        scores = [get("score", i) for i in range(count)]
        powers = [get("power", i) for i in range(count)]
        found: list = [("exp_skipped", {}, np.asarray(np.sum(scores)))]
        for i in range(count):  # a term left out of the sum
            found.append(("term_left_out", {"other": i}, np.asarray(np.sum(powers) - powers[i])))
        if self.kind == "selfattn":  # another query's row summed
            matrix = np.exp(self.score_matrix())
            for i in (i for i in range(count) if i != self.last):
                found.append(("wrong_row", {"other": i}, np.asarray(matrix[i].sum())))
        return found

    def _weight_mistakes(self, j: int) -> list:
        get, count = self._carried, self.count
        row = np.array([get("score", i) for i in range(count)])
        found: list = []
        if row.sum() != 0:
            found.append(("exp_skipped", {}, np.asarray(row[j] / row.sum())))
        found.append(("not_divided", {}, get("power", j)))
        if self.kind == "selfattn" and count > 1:  # e^score ÷ its column's sum
            column = np.exp(self.score_matrix()[:, j])
            power = get("power", j)
            others = column.sum() - column[self.last]  # the column's other rows, and this one
            found.append(("column_softmax", {}, power / (others + power)))
        return found

    def score_matrix(self) -> np.ndarray:
        """Every query's scores against every key, the sheet's (self-attention): [T, T]."""
        p = self.parameters
        queries, keys = p["x"] @ p["w_q"], p["x"] @ p["w_k"]
        return queries @ keys.T / self.root

    # Marking.

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
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            mistakes = self.mistakes(blank)  # from the student's numbers: e^1e5 is no mistake
        matched = tuple(
            (key, fields)
            for key, fields, value in mistakes
            if np.shape(value) == answer.shape and _within(answer, value, tolerance)
        )
        if matched:  # a known mistake's number, to the sheet's digits, is named first
            own = not _within(carried, exact, tolerance)
            return Verdict(blank, answer, "wrong", carried, matched, own)
        # One decimal fewer than the sheet is rounding; a whole 1 for 0.71 is not.
        typed = _decimals(answer)
        if blank.digits - 1 <= typed < blank.digits and any(
            _within(answer, target, 0.5 * 10.0**-typed + 1e-9) for target in (carried, exact)
        ):
            return Verdict(blank, answer, "rounded", exact)
        if any(_relative(answer, target) for target in (carried, exact)):
            return Verdict(blank, answer, "close", exact)
        own = not _within(carried, exact, tolerance)  # earlier numbers moved it, not rounding
        return Verdict(blank, answer, "wrong", carried, from_own=own)

    def unanswered(self, blank: Blank) -> Verdict:
        """A blank left empty: not right, and the steps after it use the sheet's number."""
        return Verdict(blank, np.array(np.nan), "blank", self.carried(blank))


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
