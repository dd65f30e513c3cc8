"""The words of the lessons' questions' screens: the sheet's heading and line, the key's,
and attn check --questions' prompt and verdicts (joined in present/language.py; the
questions' own words are attncli.api.questions')."""

from __future__ import annotations

from attncli.messages import _

QUESTION_PHRASES = {
    "questions.heading": _("Questions"),
    "questions.intro": _(
        "Lessons 000 (self-attention) and 001 (multiplicative and additive scores). Write the "
        "letter of one choice for each question."
    ),
    "questions.number": _("{number}. {question} (lesson {lesson})"),
    "questions.choice": _("{letter}) {choice}"),
    "questions.key": _("{number}. {letter}) {choice}"),
    "questions.ask": _("question {number}"),
    "questions.check_intro": _(
        "Type the letter of your choice for each question, in order (Enter after each, Ctrl-D "
        "to stop)."
    ),
    "questions.right": _("right: {letter}) {choice}"),
    "questions.wrong": _("not right: the answer is {letter}) {choice}"),
    "questions.summary": _("{right} of {answered} answers right ({count} questions)."),
}
