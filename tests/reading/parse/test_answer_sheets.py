"""A student's answer file read field by field: each refusal in the shared words of a value
that is not what its place takes, or of rows that disagree, naming the line."""

from __future__ import annotations

import json

import pytest

from attncli.errors import InputError
from attncli.reading.parse.answer_sheets import read_answer_file
from tests.meaning import WRONG, told

SHEET = {"attn_answer_sheet": 1, "seed": 3, "sheet": "dot", "size": 3, "dim": 2, "lang": "en"}
DISAGREE = (
    "{line}: {field} is {value}, the rows above say {first}; a file holds one student's "
    "answers to one sheet"
)
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
    told(caught.value, InputError, WRONG, where=f"{path}: answers[1]",
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
