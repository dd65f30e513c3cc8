"""The lessons' questions: the bank (every point the brief of the lessons names, one right
choice in four, in attn's own words in both languages) and the marking of a student's
letters from Python."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import attncli as attn
from attncli.api.questions import QUESTIONS, read_choice
from attncli.errors import InputError, OptionTypeError
from attncli.messages import say
from tests.meaning import told

COURSE = Path("/work/shared/course")
TOPICS = {"no_projections", "three_matrices", "root", "grid_shape", "longer_sentence",
          "additive_cost", "decoder_limit"}  # fmt: skip


def test_the_bank_covers_the_lessons_points():
    keys = [question.key for question in QUESTIONS]
    assert len(set(keys)) == len(keys) and set(keys) >= TOPICS
    assert {question.lesson for question in QUESTIONS} == {"000", "001"}
    for question in QUESTIONS:
        assert len(question.choices) == 4 and len(set(question.choices)) == 4
        assert 0 <= question.right < 4 and question.explanation
    # the right answers are not all in one place, nor always the longest choice
    assert len({question.right for question in QUESTIONS}) >= 3
    longest = [max(range(4), key=lambda i, q=question: len(q.choices[i])) for question in QUESTIONS]
    assert sum(i == q.right for i, q in zip(longest, QUESTIONS, strict=True)) < len(QUESTIONS) / 2


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


@pytest.mark.skipif(not COURSE.exists(), reason="the course's lessons are not on this machine")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_sentence_is_the_lessons(lang):
    """No run of seven words of a question, a choice or an explanation, said in either
    language, is found in the lessons' text."""
    lessons = _words(" ".join(path.read_text() for path in COURSE.glob("00*.txt")))
    runs = {tuple(lessons[i : i + 7]) for i in range(len(lessons) - 6)}
    for question in QUESTIONS:
        for msgid in (question.text, *question.choices, question.explanation):
            words = _words(say(lang, msgid))
            copied = [words[i : i + 7] for i in range(len(words) - 6)
                      if tuple(words[i : i + 7]) in runs]  # fmt: skip
            assert not copied, (question.key, copied)


def test_every_question_is_said_in_spanish():
    for question in QUESTIONS:
        for msgid in (question.text, *question.choices, question.explanation):
            assert say("es", msgid) != msgid, msgid


def test_letters_are_marked():
    right = [question.letter for question in QUESTIONS]
    marked = attn.check_questions(right)
    assert marked.right == len(QUESTIONS) == len(marked.verdicts)
    wrong = ["a" if letter != "a" else "b" for letter in right]
    assert attn.check_questions(wrong).right == 0
    some = attn.check_questions(["C", "a)", "b"])  # any case, with or without its bracket
    assert [verdict.right for verdict in some.verdicts] == [True, True, False]
    assert some.to_document()["verdicts"][2] == {
        "number": 3, "key": "root", "answer": "b", "right": False, "expected": "d"
    }  # fmt: skip


def test_what_is_no_letter_is_refused():
    assert read_choice(" d) ") == 3
    with pytest.raises(InputError) as error:
        read_choice("e")
    told(error.value, InputError, "{text}: answer with the letter of one choice, {letters}",
         text="e", letters="a, b, c, d")  # fmt: skip
    with pytest.raises(InputError) as error:
        attn.check_questions(["c", "yes"])
    told(error.value, InputError, "answers[{index}]: {problem}", index=1)
    with pytest.raises(InputError) as error:
        attn.check_questions(["a"] * 10)
    assert error.value.fields["given"] == 10
    with pytest.raises(OptionTypeError) as error:
        attn.check_questions("cab")  # a string is not a list of letters
    told(error.value, OptionTypeError, "{given}: {name} takes {takes}", "python",
         given="answers='cab'", name="answers", takes=("a list of texts", {}))  # fmt: skip


def test_the_sheet_as_a_document():
    document = attn.questions().to_document()
    first = document["questions"][0]
    assert first["number"] == 1 and first["lesson"] == "000"
    assert set(first["choices"]) == set("abcd")
    assert "answer" not in first
    keyed = attn.questions().to_document(answers=True)["questions"]
    assert [q["answer"] for q in keyed] == [q.letter for q in QUESTIONS]
    assert attn.questions(key_only=True).to_document()["questions"][0]["answer"] == "c"
