"""The lessons' questions as results: the sheet, and a student's letters marked. Data only;
their looks are attncli.present.questions_view's, their words the catalog's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.results.base import Result

__all__ = ["LETTERS", "Question", "QuestionCheck", "QuestionSheet", "QuestionVerdict"]

LETTERS = "abcd"


class Question:
    """One question: its key, the lesson it belongs to, its text, its choices (a to d, in
    the order printed), the right one's index and the explanation the key gives."""

    __slots__ = ("key", "lesson", "text", "choices", "right", "explanation")

    def __init__(
        self,
        key: str,
        lesson: str,
        text: str,
        choices: tuple[str, str, str, str],
        right: int,
        explanation: str,
    ) -> None:
        self.key, self.lesson, self.text = key, lesson, text
        self.choices, self.right, self.explanation = choices, right, explanation

    @property
    def letter(self) -> str:
        return LETTERS[self.right]

    def __repr__(self) -> str:
        return f"Question({self.key!r}, lesson {self.lesson}, answer {self.letter})"


def _described(question: Question, answers: bool) -> dict[str, Any]:
    """A question as the JSON holds it: its key, lesson and English words (the document is
    the same in every language), and with `answers` its right letter and explanation."""
    described: dict[str, Any] = {
        "key": question.key,
        "lesson": question.lesson,
        "question": question.text,
        "choices": dict(zip(LETTERS, question.choices, strict=True)),
    }
    if answers:
        described.update(answer=question.letter, explanation=question.explanation)
    return described


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class QuestionSheet(Result):
    """The questions, in order; `answers` when their key is asked for too, `key_only` for
    the key alone."""

    questions: tuple[Question, ...]
    key_only: bool = False

    def to_document(self, answers: bool = False) -> dict[str, Any]:
        return {
            "questions": [
                {"number": number, **_described(question, answers or self.key_only)}
                for number, question in enumerate(self.questions, 1)
            ]
        }

    def __repr__(self) -> str:
        return f"QuestionSheet(questions={len(self.questions)})"


@dataclass(frozen=True)
class QuestionVerdict:
    """One question and the choice a student made (its index; None for an answer that
    named no choice, which is not right)."""

    question: Question
    chosen: int | None

    @property
    def right(self) -> bool:
        return self.chosen == self.question.right


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class QuestionCheck(Result):
    """The questions and a verdict on each one answered, in order."""

    questions: tuple[Question, ...]
    verdicts: tuple[QuestionVerdict, ...]

    @property
    def right(self) -> int:
        return sum(verdict.right for verdict in self.verdicts)

    def to_document(self) -> dict[str, Any]:
        return {
            "questions": len(self.questions),
            "answered": len(self.verdicts),
            "right": self.right,
            "verdicts": [
                {
                    "number": number,
                    "key": verdict.question.key,
                    "answer": None if verdict.chosen is None else LETTERS[verdict.chosen],
                    "right": verdict.right,
                    "expected": verdict.question.letter,
                }
                for number, verdict in enumerate(self.verdicts, 1)
            ],
        }

    def __repr__(self) -> str:
        return f"QuestionCheck(right={self.right} of {len(self.verdicts)})"
