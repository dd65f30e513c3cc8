"""What attn check found: the worksheet, its blanks and the verdict on each answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.explain.checking import Blank, Verdict
from attncli.results.base import Result
from attncli.results.exercise import ExerciseResult


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class CheckResult(Result):
    """A corrected sheet: every blank, and a verdict for each one answered."""

    sheet: ExerciseResult
    blanks: tuple[Blank, ...]
    verdicts: tuple[Verdict, ...]

    @property
    def right(self) -> int:
        return sum(verdict.right for verdict in self.verdicts)

    def to_document(self) -> dict[str, Any]:
        tokens = self.sheet.tokens
        return {
            "seed": self.sheet.seed,
            "method": self.sheet.method,
            "blanks": len(self.blanks),
            "answered": len(self.verdicts),
            "right": self.right,
            "verdicts": [
                {
                    "step": verdict.blank.step,
                    "token": None if verdict.blank.key is None else tokens[verdict.blank.key],
                    "answer": verdict.answer,
                    "kind": verdict.kind,
                    "expected": verdict.expected,
                    "mistakes": [
                        {"mistake": key, **_named(fields, tokens)}
                        for key, fields in verdict.mistakes
                    ],
                }
                for verdict in self.verdicts
            ],
        }

    def __repr__(self) -> str:
        return f"CheckResult(seed={self.sheet.seed}, right={self.right} of {len(self.verdicts)})"


def _named(fields: dict[str, object], tokens: tuple[str, ...]) -> dict[str, object]:
    """A mistake's fields with the other key named by its token."""
    return {
        name: tokens[value] if name == "other" and isinstance(value, int) else value
        for name, value in fields.items()
    }
