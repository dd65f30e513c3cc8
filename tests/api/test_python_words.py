"""The Python API speaks Python: an error from attn.selfattn(...) names keyword arguments
(heads=h, draw_missing=True, d_model=5), the command line the same error with its options
(--heads h, --draw-missing, --d-model 5); a notebook cell shows no command-line advice."""

from __future__ import annotations

import re

import numpy as np
import pytest

import attncli as attn
from attncli.errors import AttnError
from tests.conftest import SAMPLES

X = np.arange(12.0).reshape(3, 4) / 10
OPTION = re.compile(r"(?<![\w-])--[a-z]")


def _python_error(**kwargs: object) -> str:
    with pytest.raises(AttnError) as raised:
        attn.selfattn(**kwargs)
    return str(raised.value)


@pytest.mark.parametrize(
    ("kwargs", "python", "cli_args", "cli"),
    [
        (
            {"x": X, "weights": str(SAMPLES / "mha.safetensors")},
            "give heads=h",
            ("-i", str(SAMPLES / "mha_x.npy"), "--weights", str(SAMPLES / "mha.safetensors")),
            "give --heads h",
        ),
        (
            {"x": X, "w_q": np.eye(4)},
            "or draw_missing=True to draw w_k, w_v from seed=0",
            ("-i", "-"),
            "or --draw-missing to draw w_k, w_v from --seed 0",
        ),
        (
            {"x": X, "d_model": 5},
            "but d_model is 5 (drop d_model)",
            ("-i", "-", "--d-model", "5"),
            "but --d-model is 5 (drop --d-model)",
        ),  # fmt: skip
        (
            {"x": X, "heads": 2, "projections": False},
            "heads needs the projections; drop projections=False or heads",
            ("-i", "-", "--heads", "2", "--no-proj"),
            "--heads needs the projections; drop --no-proj or --heads",
        ),  # fmt: skip
        (
            {"x": X, "w_o": np.eye(4)},
            "w_o joins the heads of heads=h through W^O; give heads",
            ("-i", "-"),
            "w_o joins the heads of --heads h through W^O; give --heads",
        ),  # fmt: skip
    ],
)
def test_an_error_names_keywords_in_python_and_options_on_the_command_line(
    run, kwargs, python, cli_args, cli
):
    said = _python_error(**kwargs)
    assert python in said and not OPTION.search(said), said
    document = {
        "x": X.tolist(),
        **{k: np.asarray(v).tolist() for k, v in kwargs.items() if k in ("w_q", "w_o")},
    }
    import json

    result = run("selfattn", *cli_args, input=json.dumps(document))
    assert result.exit_code != 0 and cli in result.stderr, result.stderr


def test_a_notebook_shows_no_command_line_advice(run):
    shown = attn.selfattn(x=X)._repr_html_()
    assert "Weights" in shown and not OPTION.search(shown.replace("&#x27;", "'"))
    terminal = run("selfattn", "-i", "-", "--format", "table", input='{"x": [[1, 0], [0, 1]]}')
    assert "--steps --token T" in terminal.stdout  # where it can be typed, it is said
