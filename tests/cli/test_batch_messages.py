"""A batch's messages say what a batch needs: a gradient at the output of B × T × d (one
sequence's T × d is refused with the shape, not broadcast), --item N for --steps."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from tests.meaning import said_in_spanish, told

X = np.random.default_rng(0).normal(size=(3, 4, 6)).round(2)
ONE_SEQUENCE = (
    "{name} is {shown}, one sequence's, but x is a batch and the output is {wanted}: give "
    "{name} as B × T × d ({wanted} here), a T × d matrix per sequence"
)
PICK_ONE = (
    "--steps explains one sequence and x is a batch of {batch}; pick one with --item N (1 to "
    "{batch}; in Python, result.item(N).steps())"
)


def _one_line_error(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


@pytest.mark.parametrize("name", ["grad_output", "target"])
def test_one_sequences_gradient_for_a_batch_says_b_t_d(run, tmp_path, name):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist(), name: X[0].tolist()}))
    result = run("selfattn", "-i", str(path))
    shapes = {"name": name, "shown": "4 × 6", "wanted": "3 × 4 × 6"}
    _one_line_error(result, ShapeError, ONE_SEQUENCE, **shapes)
    spanish = run("selfattn", "-i", str(path), "--lang", "es")
    _one_line_error(spanish, ShapeError, ONE_SEQUENCE, lang="es", **shapes)
    assert spanish.error.message("es") != spanish.error.message("en")  # said in Spanish
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=X, **{name: X[0]})  # a numpy array too
    told(caught.value, ShapeError, ONE_SEQUENCE, **shapes)


def test_the_grad_output_option_on_a_batch(run, tmp_path):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist()}))
    result = run("selfattn", "-i", str(path), "--grad-output", json.dumps(X[0].tolist()))
    _one_line_error(result, ShapeError, ONE_SEQUENCE, name="grad_output", shown="4 × 6",
                    wanted="3 × 4 × 6")  # fmt: skip
    whole = run("selfattn", "-i", str(path), "--grad-output", json.dumps(X.tolist()), "--json")
    assert whole.exit_code == 0 and np.shape(json.loads(whole.stdout)["grad_x"]) == (3, 4, 6)


def test_steps_on_a_batch_points_to_item(run, tmp_path):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist()}))
    result = run("selfattn", "-i", str(path), "--steps")
    _one_line_error(result, InputError, PICK_ONE, batch=3)
    spanish = run("selfattn", "-i", str(path), "--steps", "--lang", "es")
    _one_line_error(spanish, InputError, PICK_ONE, lang="es", batch=3)
    said_in_spanish(spanish.error)
    assert run("selfattn", "-i", str(path), "--steps", "--item", "2").exit_code == 0
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=X).steps()
    told(caught.value, InputError, PICK_ONE, batch=3)
    assert attn.selfattn(x=X).item(2).steps()
