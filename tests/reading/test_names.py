"""A misspelled name gets the nearest name attn reads, among its own fields and torch's,
BERT's and GPT-2's (reading/models/checkpoint.py, the name table); --prefix on a file whose layer
sits at the top level says so; --help and the README list every field attn selfattn reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from attncli.reading.check.fields import INPUTS

ROOT = Path(__file__).resolve().parent.parent.parent
MHA = ROOT / "samples" / "mha.safetensors"


def _one_line_error(result, *fragments):
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("in_proj_weights", "in_proj_weight"), ("out_proj_weight", "out_proj.weight"),
     ("q_proj.weight", "q_proj_weight"), ("out_proj.Weight", "out_proj.weight"),
     ("out_proj.Bias", "out_proj.bias"), ("W_v", "w_v"), ("xq", "x_q"),
     ("h.0.attn.c_atn.weight", "h.0.attn.c_attn.weight"),
     ("encoder.layer.0.attention.self.querry.weight",
      "encoder.layer.0.attention.self.query.weight")],
)  # fmt: skip
def test_a_misspelled_name_gets_the_nearest_name_attn_reads(run, typed, meant):
    document = {"x": [[1.0, 0.0], [0.0, 1.0]], typed: [[1.0, 0.0], [0.0, 1.0]]}
    result = run("selfattn", input=json.dumps(document))
    _one_line_error(result, f"did you mean {meant}?")
    spanish = run("selfattn", "--lang", "es", input=json.dumps(document))
    _one_line_error(spanish, f"¿querías decir {meant}?")


def test_a_misspelled_name_in_a_weight_file(run, tmp_path):
    from safetensors.numpy import load_file, save_file

    weights = load_file(str(MHA))
    bias = dict(weights, **{"out_proj.Bias": weights["out_proj.bias"]})
    del bias["out_proj.bias"]
    save_file(bias, str(tmp_path / "bias.safetensors"))
    result = run("selfattn", "-i", "mha_x", "--weights", str(tmp_path / "bias.safetensors"),
                 "--heads", "2")  # fmt: skip
    _one_line_error(result, "out_proj.Bias is not a weight", "did you mean out_proj.bias?")
    weight = dict(weights, **{"out_proj.Weight": weights["out_proj.weight"]})
    del weight["out_proj.weight"]
    save_file(weight, str(tmp_path / "weight.safetensors"))
    result = run("selfattn", "-i", "mha_x", "--weights", str(tmp_path / "weight.safetensors"),
                 "--heads", "2")  # fmt: skip
    _one_line_error(result, "out_proj.weight is missing", "the file has out_proj.Weight")


def test_a_prefix_for_a_layer_at_the_top_level(run):
    result = run("selfattn", "-i", "mha_x", "--weights", str(MHA), "--heads", "2",
                 "--prefix", "foo")  # fmt: skip
    _one_line_error(result, "no attention layer under 'foo'", "at the top level",
                    "no --prefix needed")  # fmt: skip
    assert "under ;" not in result.stderr
    spanish = run("selfattn", "-i", "mha_x", "--weights", str(MHA), "--heads", "2",
                  "--prefix", "foo", "--lang", "es")  # fmt: skip
    _one_line_error(spanish, "nivel superior", "no hace falta --prefix")


def test_help_lists_every_field_selfattn_reads(run):
    text = " ".join(run("selfattn", "--help").stdout.split())
    text = text.replace("│", " ")
    text = " ".join(text.split())
    start = text.index("Instead of a sentence")
    listed = text[start : text.index("any other field is refused", start)]
    for name in INPUTS:
        assert re.search(rf"\b{name}\b", listed), name
    assert "in_proj_weight" in listed and "--prefix" in listed


def test_the_reference_lists_every_field_and_refuses_what_it_says(run):
    readme = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    start = readme.index("- `attn selfattn` takes a sentence")
    listed = readme[start : readme.index("every other field is refused", start)]
    for name in INPUTS:
        assert f"`{name}`" in listed, name
    said = readme.split("a field it does not read is refused", 1)[1].split(")", 1)[0]
    examples = re.findall(r"`([^`]+)`", said)
    assert len(examples) >= 3
    for name in examples:  # each example the README gives is refused, with a nearest name
        document = {"x": np.eye(2).tolist(), name: np.eye(2).tolist()}
        _one_line_error(run("selfattn", input=json.dumps(document)), "did you mean")
