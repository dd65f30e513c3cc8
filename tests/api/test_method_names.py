"""A score method named in Python is one of the registry's names, held by every door that
takes one (the keywords and the documents alike), before anything is read or drawn."""

from __future__ import annotations

import pytest

from attncli.api.calculator import score, score_document
from attncli.api.exercise import exercise, exercise_set
from attncli.api.grad import grad, grad_document
from attncli.errors import OptionError
from tests.meaning import told

PROBLEM = {"query": [1, 0], "keys": [[2, 1], [0, 2]], "values": [[10, 0], [0, 10]]}
KNOWN = "dot, scaled, general, additive, cosine"


@pytest.mark.parametrize(
    "call",
    [
        lambda: score(PROBLEM["query"], PROBLEM["keys"], method="luong"),
        lambda: score_document(dict(PROBLEM), "luong"),
        lambda: grad(**PROBLEM, target=[8, 2], method="luong"),
        lambda: grad_document({**PROBLEM, "target": [8, 2]}, "luong"),
        lambda: exercise(seed=7, method="luong"),
        lambda: exercise_set(seed=7, count=2, method="luong"),
    ],
    ids=["score", "score_document", "grad", "grad_document", "exercise", "exercise_set"],
)
def test_a_method_no_registry_names_is_refused_by_every_door(call):
    with pytest.raises(OptionError) as caught:
        call()
    told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
         setting="method='luong'", choices=KNOWN)  # fmt: skip


def test_a_known_method_passes_every_door():
    assert score_document(dict(PROBLEM), "scaled").method == "scaled"
    assert grad_document({**PROBLEM, "target": [8, 2]}, "general").method == "general"
