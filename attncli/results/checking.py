"""What attn check found: the worksheet, its blanks and the verdict on each answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.explain.checking import Blank, Verdict
from attncli.results.base import Result
from attncli.results.exercise import SelfAttnExercise, Sheet


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class CheckResult(Result):
    """A corrected sheet: every blank, and a verdict for each one answered."""

    sheet: Sheet
    blanks: tuple[Blank, ...]
    verdicts: tuple[Verdict, ...]

    @property
    def right(self) -> int:
        return sum(verdict.right for verdict in self.verdicts)

    @property
    def answered(self) -> int:
        """The blanks the student wrote something in (a blank left empty is not)."""
        return sum(verdict.kind != "blank" for verdict in self.verdicts)

    def to_document(self) -> dict[str, Any]:
        tokens = self.sheet.tokens
        return {
            "seed": self.sheet.seed,
            "method": sheet_kind(self.sheet),
            "blanks": len(self.blanks),
            "answered": self.answered,
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


def sheet_kind(sheet: Sheet) -> str:
    """A score method's name or selfattn: the kind of sheet, as attn check asks it."""
    return "selfattn" if isinstance(sheet, SelfAttnExercise) else sheet.method


def sheet_d_k(sheet: Sheet) -> int:
    """The numbers in each key of the sheet: √d_k's d_k."""
    keys = sheet.layer.keys if isinstance(sheet, SelfAttnExercise) else sheet.keys
    return int(keys.shape[1])


def _named(fields: dict[str, object], tokens: tuple[str, ...]) -> dict[str, object]:
    """A mistake's fields with the other key named by its token."""
    return {
        name: tokens[value] if name == "other" and isinstance(value, int) else value
        for name, value in fields.items()
    }


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class StudentCheck:
    """One student's answer file, corrected: whose, from which file, and the sheet's marks."""

    student: str
    path: str
    check: CheckResult

    def by_step(self) -> dict[str, tuple[int, int, int]]:
        """For each step of the sheet, in its order: (right, answered, blanks)."""
        counts: dict[str, list[int]] = {}
        for blank in self.check.blanks:
            counts.setdefault(blank.step, [0, 0, 0])[2] += 1
        for verdict in self.check.verdicts:
            tally = counts[verdict.blank.step]
            tally[0] += verdict.right
            tally[1] += verdict.kind != "blank"
        return {step: (right, answered, total) for step, (right, answered, total) in counts.items()}

    def mistakes(self) -> set[tuple[str, str]]:
        """The known mistakes this student made: (mistake, step) each once."""
        return {
            (key, verdict.blank.step)
            for verdict in self.check.verdicts
            for key, _fields in verdict.mistakes
        }


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class ClassCheck(Result):
    """A class's answer files corrected: a student each, in the order given, and the
    mistake most of them made (at the step they made it) with how many made it."""

    students: tuple[StudentCheck, ...]

    @property
    def asked_steps(self) -> tuple[str, ...]:
        """Every step any student's sheet asks, in the order the sheets ask them."""
        from attncli.explain.checking import STEPS

        asked = {step for student in self.students for step in student.by_step()}
        return tuple(step for step in STEPS if step in asked)

    def most_common(self) -> tuple[str, str, int] | None:
        """(mistake, step, students who made it) of the mistake most students made; a tie
        goes to the earlier step, then to the mistake's order in MISTAKES."""
        from collections import Counter

        from attncli.explain.checking import MISTAKES, STEPS

        counted = Counter(pair for student in self.students for pair in student.mistakes())
        if not counted:
            return None
        (key, step), count = min(
            counted.items(),
            key=lambda item: (-item[1], STEPS.index(item[0][1]), MISTAKES.index(item[0][0])),
        )
        return key, step, count

    def to_document(self) -> dict[str, Any]:
        common = self.most_common()
        return {
            "students": [
                {
                    "student": student.student,
                    "file": student.path,
                    **student.check.to_document(),
                    "steps": {
                        step: {"right": right, "answered": answered, "blanks": blanks}
                        for step, (right, answered, blanks) in student.by_step().items()
                    },
                }
                for student in self.students
            ],
            "most_common_mistake": None
            if common is None
            else {"mistake": common[0], "step": common[1], "students": common[2]},
        }

    def __repr__(self) -> str:
        return f"ClassCheck(students={len(self.students)})"
