"""How numbers and words are written: decimals, the language's decimal mark, blank cells.

Numbers are written as a hand-worked table writes them: whole numbers bare (2, 10),
other scores, powers and products to 2 decimals, weights to 3, with a decimal comma in
Spanish. Knows nothing of rich, so JSON, HTML and rich output all share it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from attncli.messages import component_mark, for_surface, in_decimals, row_mark, thousands_mark
from attncli.present.language import PHRASES, say

MASKED = "—"
ROW_MAX_MARK = "*"
SATURATED_MARK = "!"  # instead of *, in a saturated row (core.saturation.SATURATED)
ELLIPSIS = "…"
BLANK = "____"
CARRIED = "↑"  # on attn check's sheet: the student's own answer from a table above


class Blank(str):
    """A worksheet's empty cell: written BLANK on a screen, and knowing the answer it
    expects, so that a printed sheet leaves room enough to write it (present/printed)."""

    answer: str

    def __new__(cls, answer: str) -> Blank:
        blank = super().__new__(cls, BLANK)
        blank.answer = answer
        return blank


VECTOR_ITEMS = 8  # a longer vector is written as its first and last numbers around "…"
SCIENTIFIC_DIGITS = 2  # 1.23e-05: the digits after the point of a tiny number


def vanishes(value: float, digits: int) -> bool:
    """True for a number that is not zero but would be written as zero at `digits`
    decimals (0.004 as 0.00): the one rule by which a grid, or a number in a sentence,
    is written in scientific notation instead."""
    return math.isfinite(value) and value != 0 and float(f"{abs(value):.{digits}f}") == 0


@dataclass(frozen=True)
class Format:
    """How numbers and words are written: decimals, language, and blank cells for worksheets.

    Weights get more decimals because they are the numbers the course compares.
    """

    weight: int = 3
    other: int = 2
    lang: str = "en"
    blank: bool = False
    # A worksheet of the whole chain: the scores in the softmax table and the weights in
    # the mix table are the student's own results from the step before, so empty too.
    chain: bool = False
    answers: bool = False  # a worksheet followed by its filled key
    # Who reads it: "cli", a terminal or a file of attn's; "python", a notebook or
    # rich.print, where a setting is a keyword (draw_missing=True) and a phrase that names
    # an option has its Python words (PHRASES' "KEY.python") when it has any.
    surface: str = "cli"
    # attn check's sheet: a blank is a cell it asks for. A cell that repeats an answer
    # given above shows CARRIED, and one that only works out the next cell of its row
    # (q · k beside a dot score, ÷ √d_k beside the scaled score, the weights' total) is left
    # out, so that the sheet shows as many blanks as the check asks.
    asked: bool = False

    @classmethod
    def chosen(
        cls, digits: int | None, lang: str = "en", blank: bool = False, answers: bool = False
    ) -> Format:
        """--digits N sets every kind of number to N decimals; None keeps the defaults."""
        if digits is None:
            return cls(lang=lang, blank=blank, answers=answers)
        return cls(digits, digits, lang, blank, answers=answers)

    def for_chain(self, steps: int) -> Format:
        """Several steps in a row are a chain: each step's givens are the last results."""
        return replace(self, chain=steps > 1)

    def filled(self) -> Format:
        """The same format with every cell filled in: the answer key of a worksheet."""
        return replace(self, blank=False)

    def say(self, key: str, **fields: object) -> str:
        if self.surface != "cli" and f"{key}.{self.surface}" in PHRASES:
            key = f"{key}.{self.surface}"
        return say(self.lang, key, **{n: for_surface(v, self.surface) for n, v in fields.items()})

    def number(self, value: float, digits: int | None = None, whole_bare: bool = True) -> str:
        """2 not 2.00 for whole numbers, else fixed decimals; -inf is masked."""
        if math.isinf(value):
            return MASKED if value < 0 else "∞"
        if math.isnan(value):  # never from a checked result; shown rather than crashing
            return "NaN"
        if whole_bare and value == round(value) and abs(value) < 1e15:
            text = str(int(round(value)))
        else:
            text = f"{value:.{self.other if digits is None else digits}f}"
            # -0.00 reads as a sign error to a student checking by hand.
            if text.startswith("-") and float(text) == 0:
                text = text[1:]
        return self.decimal(text)

    def stated(self, value: float, digits: int | None = None, whole_bare: bool = True) -> str:
        """A number standing alone in a line (a header's length or divisor, a loss): as
        number() writes it, but in scientific notation when it would read as zero and is not
        (every embedding has length 1.00e-04, not 0.00)."""
        if vanishes(value, self.other if digits is None else digits):
            return self.scientific(value)
        return self.number(value, digits, whole_bare)

    def scientific(self, value: float) -> str:
        """A number in scientific notation, with the language's decimal mark: 1,62e-05."""
        return self.decimal(f"{value:.{SCIENTIFIC_DIGITS}e}")

    def decimal(self, text: str) -> str:
        """A formatted number with the language's decimal mark: 0.665, or 0,665 in Spanish."""
        return in_decimals(text, self.lang)

    def weight_number(self, value: float) -> str:
        return self.number(value, self.weight, whole_bare=False)

    def vector(self, values: Sequence[float]) -> str:
        """A vector as the course writes it: '10, 0' (and '6,65; 0' in Spanish, where the
        comma is the decimal mark); a long one as '1, 2, 3, 4, …, 510, 511, 512'."""
        return self.joined(
            ELLIPSIS if index is None else self.number(values[index])
            for index in shown_indices(len(values), VECTOR_ITEMS)
        )

    def matrix_rows(self, rows: Sequence[Sequence[float]]) -> str:
        """A matrix on one line, its rows kept apart (the brackets around it are the
        caller's): '1, 2; 3, 4', or '1; 2 | 3; 4' in Spanish, where ';' separates a row's
        numbers, as an option takes it."""
        mark = row_mark(self.lang)
        between = "; " if mark == ";" else f" {mark} "
        return between.join(self.vector(row) for row in rows)

    def joined(self, numbers: Iterable[str]) -> str:
        """Numbers already written, side by side as a vector's: '1, 2' ('1; 2' in Spanish)."""
        return (component_mark(self.lang) + " ").join(numbers)

    def count(self, amount: int) -> str:
        """A whole count with thousands marked: 921,600 (921 600 in Spanish)."""
        text = f"{amount:,}"
        mark = thousands_mark(self.lang)
        return text if mark == "," else text.replace(",", mark)

    def computed(self, text: str) -> str:
        """A cell the student works out: empty on a worksheet."""
        return Blank(text) if self.blank else text

    def carried(self, text: str) -> str:
        """A cell the student worked out in the step before: empty on a chain worksheet
        (on attn check's, CARRIED: the answer given above)."""
        if self.blank and self.chain:
            return CARRIED if self.asked else Blank(text)
        return text

    @property
    def working(self) -> bool:
        """Whether the cells that only work out the next one of their row are shown: not on
        attn check's sheet, which asks for that next cell alone."""
        return not (self.blank and self.asked)


def shown_indices(count: int, limit: int) -> list[int | None]:
    """Indices to show of `count`: all when they fit, else the first and last with None between."""
    if count <= limit:
        return list(range(count))
    head = (limit + 1) // 2
    return [*range(head), None, *range(count - (limit - head), count)]
