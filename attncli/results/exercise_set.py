"""A teacher's class set: several exercises, each numbered with its seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.results.base import Result
from attncli.results.calculator import ExerciseResult


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ExerciseSet(Result):
    """Sheets of seeds seed, seed + 1, …; `key_only` when the answer keys alone were asked
    for (printed apart from the sheets, each key numbered as its sheet)."""

    sheets: tuple[ExerciseResult, ...]
    key_only: bool = False

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        """A problem per sheet (with its seed), with its results when `answers` or the keys
        alone were asked for."""
        with_answers = answers or self.key_only
        return {
            "sheets": [
                {"sheet": number, "seed": sheet.seed, **sheet.to_document(answers=with_answers)}
                for number, sheet in enumerate(self.sheets, 1)
            ]
        }

    def __repr__(self) -> str:
        seeds = [sheet.seed for sheet in self.sheets]
        return f"ExerciseSet(sheets={len(seeds)}, seeds={seeds[0]}..{seeds[-1]})"
