"""Two sentences compared refuse in Python's words from Python (second=, source=, head=,
attncli.compare_sentences(…)) and in the options' on the command line (--compare, --from,
--head), from the one error."""

from __future__ import annotations

import pytest

import attncli as attn
from attncli.errors import AttnError

DEMO = "all-MiniLM-L6-v2"
FIRST, SECOND = "la llave del coche está ahí", "las llaves del coche están ahí"


@pytest.mark.parametrize(
    ("call", "python", "line", "cli"),
    [
        (lambda: attn.compare_sentences("", SECOND), 'attncli.compare_sentences("la llave',
         ("selfattn", "", "--compare", SECOND),
         'attn selfattn "la llave del coche está ahí" --compare'),
        (lambda: attn.compare_sentences(FIRST, " "), "second=",
         ("selfattn", FIRST, "--compare", " "),
         '--compare needs the other sentence, e.g. --compare "las'),
        (lambda: attn.compare_sentences(FIRST, SECOND, heads=2, head=3), "head=3 is out of range",
         ("selfattn", FIRST, "--compare", SECOND, "--heads", "2", "--head", "3"),
         "--head 3 is out of range"),
        (lambda: attn.compare_heads("the key", "the keys", DEMO, source="key"),
         "source='key' and target name one cell together; add target",
         ("heads", "the key", "--compare", "the keys", "--model", DEMO, "--from", "key"),
         "--from key and --to name one cell together; add --to"),
    ],
)  # fmt: skip
def test_each_surface_names_its_own_words(run, call, python, line, cli):
    with pytest.raises(AttnError) as caught:
        call()
    said = str(caught.value)
    assert python in said and "--" not in said, said
    refused = run(*line)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.error.msgid == caught.value.msgid
    assert cli in refused.stderr, refused.stderr


def test_a_results_steps_name_the_head_as_python_writes_it():
    layer = attn.selfattn(FIRST, heads=2)
    with pytest.raises(AttnError) as caught:
        layer.steps(head=5)
    assert str(caught.value) == "head=5 is out of range: there are 2 heads (1 to 2)"
