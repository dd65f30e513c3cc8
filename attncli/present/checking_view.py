"""attn check's words: the question for each blank, the verdict on an answer (with the
mistake it matches, in a sentence) and the count at the end."""

from __future__ import annotations

import numpy as np
from rich.console import RenderableType

from attncli.explain.checking import Blank, Verdict
from attncli.present import render
from attncli.present.format import Format
from attncli.results.checking import CheckResult, ClassCheck, sheet_d_k
from attncli.results.exercise import Sheet


def question(blank: Blank, sheet: Sheet, fmt: Format) -> str:
    """What the blank asks: «the score of «come»», as the sheet's tables name it."""
    token = "" if blank.key is None else sheet.tokens[blank.key]
    return fmt.say(f"check.ask.{blank.step}", token=token, root=sheet_d_k(sheet))


def _written(value: np.ndarray, fmt: Format, digits: int) -> str:
    if np.ndim(value) == 0:
        return fmt.number(float(value), digits, whole_bare=True)
    return fmt.joined(fmt.number(float(v), digits, whole_bare=True) for v in value)


def _as_typed(value: np.ndarray, fmt: Format) -> str:
    """A student's answer as they wrote it: each number at the shortest decimals that give
    it back (2,72, not 2,720), at most 6 (a fraction typed, 2/3, is 0,666667), with the
    language's marks."""

    def one(number: float) -> str:
        return fmt.decimal(np.format_float_positional(number, precision=6, trim="-"))

    if np.ndim(value) == 0:
        return one(float(value))
    return fmt.joined(one(float(v)) for v in np.ravel(value))


def verdict_lines(verdict: Verdict, sheet: Sheet, fmt: Format) -> list[str]:
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
    if verdict.kind == "blank":
        return [fmt.say("check.blank", expected=expected, step=step)]
    wrong = "check.wrong" if verdict.from_own else "check.wrong_sheet"
    lines = [fmt.say(wrong, expected=expected, step=step)]
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
        answered=result.answered,
        blanks=len(result.blanks),
    )


def check_view(result: CheckResult, fmt: Format) -> list[RenderableType]:
    """Every answer with its verdict, then the count (as the notebook shows a result)."""
    lines = []
    for verdict in result.verdicts:
        answer = _as_typed(verdict.answer, fmt)
        said = verdict_lines(verdict, result.sheet, fmt)
        lines.append(f"{question(verdict.blank, result.sheet, fmt)}: {answer} — {said[0]}")
        lines += [f"  {line}" for line in said[1:]]
    return [render.lines(*lines, "", summary(result, fmt))]


def class_view(result: ClassCheck, fmt: Format) -> list[RenderableType]:
    """A row per student: the sheet, the count right, then a column per step (✓ all right,
    ✗ and how many right, — left blank); under it the class's most common mistake and how
    many made it."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    steps = result.asked_steps
    table = Table(box=box.SIMPLE_HEAVY, collapse_padding=True, pad_edge=False)
    names = [len(student.student) for student in result.students]
    table.add_column(fmt.say("check.class.student"), overflow="fold", min_width=min(max(names), 10))
    table.add_column(fmt.say("check.class.sheet"), justify="right", no_wrap=True)
    table.add_column(fmt.say("check.class.right"), justify="right", no_wrap=True)
    for step in steps:
        table.add_column(fmt.say(f"check.class.column.{step}"), justify="center")
    for student in result.students:
        counts = student.by_step()
        cells = [_step_cell(counts.get(step)) for step in steps]
        marked = student.check
        right = f"{marked.right}/{len(marked.blanks)}"
        table.add_row(render.safe_label(student.student), str(marked.sheet.seed), right, *cells)
    common = result.most_common()
    if common is None:
        under = fmt.say("check.class.none")
    else:
        mistake, step, count = common
        named = fmt.say(f"check.mistake_name.{mistake}")
        where = fmt.say("check.class.common_step", step=fmt.say(f"check.step.{step}"))
        under = fmt.say(
            "check.class.common",
            mistake=f"{named} {where}",
            count=count,
            students=len(result.students),
        )
    title = Text(fmt.say("check.class.title"), style="bold")
    return [render.lines(title), table, render.lines(fmt.say("check.class.key"), "", under)]


def _step_cell(counts: tuple[int, int, int] | None) -> str:
    if counts is None:  # this student's sheet has no such step
        return ""
    right, answered, blanks = counts
    if answered == 0:
        return "—"
    if right == blanks:
        return "✓"
    return f"✗ {right}/{blanks}"
