"""A student's answer file read field by field: each refusal in the shared words of a value
that is not what its place takes, or of rows that disagree, naming the line."""

from __future__ import annotations

import json

import pytest

from attncli.errors import InputError
from attncli.reading.parse import opening
from attncli.reading.parse.answer_sheets import read_answer_file
from tests.meaning import WRONG, told

SHEET = {"attn_answer_sheet": 1, "seed": 3, "sheet": "dot", "size": 3, "dim": 2, "lang": "en"}
DISAGREE = (
    "{line}: {field} is {value}, the rows above say {first}; a file holds one student's "
    "answers to one sheet"
)
NOT_GIVEN = "{where}: {field} is not given; the answer sheet attn exercise wrote has it"
NOT_REGULAR = "{path}: not a regular file (a pipe, a device or a folder); {instead}"
HEADER = "student,seed,sheet,size,dim,lang,step,token,question,answer\n"


def _json(tmp_path, **changes):
    path = tmp_path / "pia.json"
    answers = [{"step": "score", "token": "el", "answer": 1}]
    path.write_text(json.dumps({**SHEET, "answers": answers, **changes}), encoding="utf-8")
    return str(path)


def test_a_json_file_s_values_are_refused_where_they_stand(tmp_path):
    path = _json(tmp_path, answers=[{"step": "score", "token": "el", "answer": True}])
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, WRONG, where=f"{path}: answers[1]: answer",
         kind=("{value} (a boolean)", {"value": "true"}),
         expected=("an answer: a number, a list of numbers or text", {}))  # fmt: skip
    path = _json(tmp_path, answers=[{"step": "score", "token": 3, "answer": 1}])
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, WRONG, where=f"{path}: answers[1]: token",
         expected=("a word, in quotes", {}))  # fmt: skip
    path = _json(tmp_path, student=["Pia"])
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, WRONG, where=f"{path}: student", kind=("a list", {}))
    path = _json(tmp_path, sheet="euclidean")
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, WRONG, where=f"{path}: sheet", kind="euclidean")
    assert caught.value.fields["expected"].msgid == "one of {kinds}"
    assert read_answer_file(_json(tmp_path, student="Pia")).student == "Pia"


@pytest.mark.parametrize(
    ("second", "field", "value", "first"),
    [("Leo,3,dot", "student", "Leo", "Pia"), ("Pia,4,dot", "seed", "4", "3"),
     (",3,general", "sheet", "general", "dot")],
)  # fmt: skip
def test_rows_that_disagree_on_the_student_or_the_sheet_are_refused(
    tmp_path, second, field, value, first
):
    path = tmp_path / "pia.csv"
    rows = ["Pia,3,dot,3,2,en,score,el,,1", f"{second},3,2,en,score,tren,,2"]
    path.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_answer_file(str(path))
    told(caught.value, InputError, DISAGREE, line=f"{path}:3", field=field, value=value,
         first=first)  # fmt: skip


def test_a_field_the_file_must_give_is_refused_when_left_out_in_a_row_or_the_sheet(tmp_path):
    path = _json(tmp_path, answers=[{"step": " ", "token": "el", "answer": 1}])
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, NOT_GIVEN, where=f"{path}: answers[1]", field="step")
    path = tmp_path / "pia.csv"
    path.write_text(HEADER + "Pia,3,dot,,2,en,score,el,,1\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_answer_file(str(path))
    told(caught.value, InputError, NOT_GIVEN, where=f"{path}:2", field="size")


def test_a_json_number_where_a_name_goes_is_refused_and_a_blank_left_is_empty(tmp_path):
    path = _json(tmp_path, answers=[{"step": 2, "token": "el", "answer": None}])
    with pytest.raises(InputError) as caught:
        read_answer_file(path)
    told(caught.value, InputError, WRONG, where=f"{path}: answers[1]: step",
         kind=("{value}", {"value": "2"}), expected=("a step's name, in quotes", {}))  # fmt: skip
    for answers in ("1, 2", [1, 2]):
        path = _json(tmp_path, answers=answers)
        with pytest.raises(InputError) as caught:
            read_answer_file(path)
        told(caught.value, InputError, WRONG, where=f"{path}: answers",
             expected=("a list of blanks, each with its step, token and answer", {}))  # fmt: skip
    path = _json(tmp_path, answers=[{"step": "score", "answer": None}])
    assert read_answer_file(path).rows[0].answer == read_answer_file(path).rows[0].token == ""


def test_an_answer_file_that_is_not_a_regular_file_is_refused_as_a_model_s_file_is(tmp_path):
    folder = tmp_path / "pia.csv"
    folder.mkdir()
    with pytest.raises(InputError) as caught:
        read_answer_file(str(folder))
    told(caught.value, InputError, NOT_REGULAR, path=str(folder),
         instead=("name the answer files the students filled", {}))  # fmt: skip
    with pytest.raises(InputError) as caught:
        opening.check_regular(str(folder))
    told(caught.value, InputError, NOT_REGULAR, path=str(folder),
         instead=("put the file there", {}))  # fmt: skip
    missing = tmp_path / "leo.csv"
    with pytest.raises(InputError) as caught:
        read_answer_file(str(missing))
    told(
        caught.value,
        InputError,
        "cannot read '{path}': no such file ({hint})",
        path=str(missing),
        hint=("name the answer files the students filled", {}),
    )
