"""--steps shows the drawn (or given) score parameters a step multiplies by, so that a
student can check the step by hand."""

from __future__ import annotations

import json

from tests.conftest import SAMPLES

TREN = str(SAMPLES / "tren.json")


def test_general_steps_show_w_a(run):
    document = json.loads(run("score", "-i", TREN, "--method", "general", "--json").stdout)
    steps = run("score", "-i", TREN, "--method", "general", "--steps").stdout
    assert steps.index("w_a (drawn from seed 0)") < steps.index("General scores")
    for row in document["w_a"]:
        assert "   ".join(f"{value:.2f}" for value in row) in steps


def test_additive_steps_show_w_1_w_2_v_a_in_spanish_too(run):
    steps = run("score", "-i", TREN, "--method", "additive", "--steps", "--lang", "es").stdout
    for name in ("w_1", "w_2", "v_a"):
        assert f"{name} (sacada de la semilla 0)" in steps
    document = {**json.loads((SAMPLES / "tren.json").read_text()), "w_a": [[1, 0], [0, 1]]}
    given = run("score", "-i", "-", "--method", "general", "--steps", input=json.dumps(document))
    assert given.stdout.startswith("w_a\n") and "drawn" not in given.stdout


def test_grad_steps_show_them_and_dot_has_none(run):
    grad = run("grad", "-i", TREN, "--method", "general", "--target", "8,2", "--steps").stdout
    assert "w_a (drawn from seed 0)" in grad
    dot = run("score", "-i", TREN, "--steps").stdout
    assert "drawn" not in dot and "w_a" not in dot
