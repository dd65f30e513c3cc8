"""The lessons' questions as rich renderables: the sheet (a name line on paper), its key
with each explanation on a page of its own, and attn check --questions' verdicts."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from attncli.messages import say
from attncli.present import render
from attncli.present.format import Format
from attncli.results.questions import LETTERS, Question, QuestionCheck, QuestionSheet


class Hanging:
    """A paragraph whose wrapped lines stand under its text, past its label ("3. ", "   b) "),
    on a terminal; a printed page gets the paragraph whole, to wrap as it does."""

    def __init__(self, label: str, text: str) -> None:
        self.label, self.text = label, text

    def __rich_console__(self, console: Any, options: Any) -> Any:
        room = max(options.max_width - len(self.label), 20)
        for number, line in enumerate(Text(self.text).wrap(console, room)):
            lead = self.label if number == 0 else " " * len(self.label)
            yield Text(lead + line.plain.rstrip())

    def blocks(self) -> list[Any]:
        return [render.Line(self.label + self.text)]


class Paragraphs:
    """Hung paragraphs kept together: on a terminal each as Hanging draws it; on a printed
    page one block, a line each, so that a question and its choices stay in one piece."""

    def __init__(self, *parts: Hanging) -> None:
        self.parts = parts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from self.parts
        yield Text("")

    def blocks(self) -> list[Any]:
        return [render.Line("\n".join(part.label.strip() + " " + part.text
                                       for part in self.parts))]  # fmt: skip


def _labelled(text: str, indent: str = "") -> Hanging:
    """A said line whose label is its first word ("3.", "b)"), hung at it."""
    label, _space, rest = text.partition(" ")
    return Hanging(f"{indent}{label} ", rest)


def _question(number: int, question: Question, fmt: Format) -> RenderableType:
    """A question and its four choices, a paragraph each."""
    asked = fmt.say("questions.number", number=number, question=say(fmt.lang, question.text),
                    lesson=question.lesson)  # fmt: skip
    choices = [
        _labelled(fmt.say("questions.choice", letter=letter, choice=say(fmt.lang, choice)), "   ")
        for letter, choice in zip(LETTERS, question.choices, strict=True)
    ]
    return Paragraphs(_labelled(asked), *choices)


def _answer(number: int, question: Question, fmt: Format) -> RenderableType:
    """A question's right choice and why."""
    right = say(fmt.lang, question.choices[question.right])
    said = fmt.say("questions.key", number=number, letter=question.letter, choice=right)
    return Paragraphs(_labelled(said), Hanging("   ", say(fmt.lang, question.explanation)))


def questions_sheet(sheet: QuestionSheet, fmt: Format) -> list[RenderableType]:
    """The questions under their heading and the student's name line."""
    view: list[RenderableType] = [
        render.heading(fmt.say("questions.heading")),
        render.NameLine(fmt.say("name_line")),
        render.lines(fmt.say("questions.intro"), ""),
    ]
    view += [_question(n, q, fmt) for n, q in enumerate(sheet.questions, 1)]
    return view


def questions_key(sheet: QuestionSheet, fmt: Format) -> list[RenderableType]:
    """Each question's right letter and its explanation."""
    view: list[RenderableType] = [render.heading(fmt.say("answers"))]
    view += [_answer(n, q, fmt) for n, q in enumerate(sheet.questions, 1)]
    return view


def questions_view(sheet: QuestionSheet, fmt: Format) -> list[RenderableType]:
    """The sheet; with --answers its key after it, on a page of its own; with
    --answers-only (`key_only`) the key alone. In a notebook, where nothing asked for a
    sheet alone, the key follows too."""
    if sheet.key_only:
        return questions_key(sheet, fmt)
    view = questions_sheet(sheet, fmt)
    if fmt.answers or not fmt.blank:
        view += [render.PageBreak(), *questions_key(sheet, fmt)]
    return view


def verdict_lines(number: int, question: Question, chosen: int | None, fmt: Format) -> list[str]:
    """Under a student's letter: right or not, the right choice, and why."""
    right = say(fmt.lang, question.choices[question.right])
    key = "questions.right" if chosen == question.right else "questions.wrong"
    return [fmt.say(key, letter=question.letter, choice=right), say(fmt.lang, question.explanation)]


def summary(result: QuestionCheck, fmt: Format) -> str:
    return fmt.say("questions.summary", right=result.right, answered=len(result.verdicts),
                   count=len(result.questions))  # fmt: skip


def question_check_view(result: QuestionCheck, fmt: Format) -> list[RenderableType]:
    """Every answered question, the letter given and the verdict, then the count."""
    view: list[RenderableType] = []
    for number, verdict in enumerate(result.verdicts, 1):
        question = verdict.question
        asked = fmt.say("questions.number", number=number, question=say(fmt.lang, question.text),
                        lesson=question.lesson)  # fmt: skip
        letter = "" if verdict.chosen is None else LETTERS[verdict.chosen]
        given = f"{fmt.say('questions.ask', number=number)}: {letter}"
        lines = verdict_lines(number, question, verdict.chosen, fmt)
        said = [Hanging("   ", line) for line in lines]
        view.append(Group(_labelled(asked), Text(given), *said, Text("")))
    view.append(render.lines(summary(result, fmt)))
    return view
