"""attn check's words: the question for each blank, the verdict on an answer (with the
mistake it matches, in a sentence) and the count at the end."""

from __future__ import annotations

import numpy as np
from rich.console import RenderableType

from attncli.explain.checking import Blank, Verdict
from attncli.present import render
from attncli.present.format import Format
from attncli.results.checking import CheckResult
from attncli.results.exercise import ExerciseResult


def question(blank: Blank, sheet: ExerciseResult, fmt: Format) -> str:
    """What the blank asks: «the score of «come»», as the sheet's tables name it."""
    token = "" if blank.key is None else sheet.tokens[blank.key]
    return fmt.say(f"check.ask.{blank.step}", token=token, root=int(sheet.keys.shape[1]))


def _written(value: np.ndarray, fmt: Format, digits: int) -> str:
    if np.ndim(value) == 0:
        return fmt.number(float(value), digits, whole_bare=True)
    return fmt.joined(fmt.number(float(v), digits, whole_bare=True) for v in value)


def verdict_lines(verdict: Verdict, sheet: ExerciseResult, fmt: Format) -> list[str]:
    """The verdict on one answer, and the mistakes its number is what they give."""
    digits = verdict.blank.digits
    expected = _written(verdict.expected, fmt, digits)
    if verdict.kind == "right":
        return [fmt.say("check.right")]
    if verdict.kind == "carried":
        return [fmt.say("check.carried", expected=expected)]
    if verdict.kind == "rounded":
        return [fmt.say("check.rounded", digits=digits)]
    if verdict.kind == "close":
        return [fmt.say("check.close", expected=expected)]
    step = fmt.say(f"check.step.{verdict.blank.step}")
    lines = [fmt.say("check.wrong", expected=expected, step=step)]
    for key, fields in verdict.mistakes:
        named = {
            name: sheet.tokens[value] if name == "other" and isinstance(value, int) else value
            for name, value in fields.items()
        }
        lines.append(fmt.say(f"check.mistake.{key}", **named))
    if len(verdict.mistakes) > 1:
        lines.append(fmt.say("check.either"))
    return lines


def summary(result: CheckResult, fmt: Format) -> str:
    return fmt.say(
        "check.summary",
        right=result.right,
        answered=len(result.verdicts),
        blanks=len(result.blanks),
    )


def check_view(result: CheckResult, fmt: Format) -> list[RenderableType]:
    """Every answer with its verdict, then the count (as the notebook shows a result)."""
    lines = []
    for verdict in result.verdicts:
        answer = _written(verdict.answer, fmt, verdict.blank.digits + 1)
        said = verdict_lines(verdict, result.sheet, fmt)
        lines.append(f"{question(verdict.blank, result.sheet, fmt)}: {answer} — {said[0]}")
        lines += [f"  {line}" for line in said[1:]]
    return [render.lines(*lines, "", summary(result, fmt))]
