"""A batch's messages say what a batch needs: a gradient at the output of B × T × d (one
sequence's T × d is refused with the shape, not broadcast), --item N for --steps."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError

X = np.random.default_rng(0).normal(size=(3, 4, 6)).round(2)


def _one_line_error(result, *fragments):
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.mark.parametrize("name", ["grad_output", "target"])
def test_one_sequences_gradient_for_a_batch_says_b_t_d(run, tmp_path, name):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist(), name: X[0].tolist()}))
    result = run("selfattn", "-i", str(path))
    _one_line_error(result, f"{name} is 4 × 6, one sequence's", "B × T × d (3 × 4 × 6 here)")
    assert "wrap it in" not in result.stderr
    spanish = run("selfattn", "-i", str(path), "--lang", "es")
    _one_line_error(spanish, "B × T × d (3 × 4 × 6 aquí)")
    with pytest.raises(ShapeError, match=r"B × T × d \(3 × 4 × 6 here\)"):
        attn.selfattn(x=X, **{name: X[0]})  # a numpy array too


def test_the_grad_output_option_on_a_batch(run, tmp_path):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist()}))
    result = run("selfattn", "-i", str(path), "--grad-output", json.dumps(X[0].tolist()))
    _one_line_error(result, "grad_output is 4 × 6", "3 × 4 × 6 here")
    whole = run("selfattn", "-i", str(path), "--grad-output", json.dumps(X.tolist()), "--json")
    assert whole.exit_code == 0 and np.shape(json.loads(whole.stdout)["grad_x"]) == (3, 4, 6)


def test_steps_on_a_batch_points_to_item(run, tmp_path):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"x": X.tolist()}))
    result = run("selfattn", "-i", str(path), "--steps")
    _one_line_error(result, "--item N (1 to 3", "result.item(N).steps()")
    assert "numpy.save" not in result.stderr
    _one_line_error(
        run("selfattn", "-i", str(path), "--steps", "--lang", "es"), "elige una con --item N"
    )
    assert run("selfattn", "-i", str(path), "--steps", "--item", "2").exit_code == 0
    with pytest.raises(InputError, match="--item N"):
        attn.selfattn(x=X).steps()
    assert attn.selfattn(x=X).item(2).steps()
