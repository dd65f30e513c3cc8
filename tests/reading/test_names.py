"""A misspelled name gets the nearest name attn reads, among its own fields and torch's,
BERT's and GPT-2's (reading/models/checkpoint.py, the name table); --prefix on a file whose layer
sits at the top level says so; --help and the README list every field attn selfattn reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import InputError
from attncli.reading.check.fields import INPUTS
from tests.meaning import said_in_spanish, told

ROOT = Path(__file__).resolve().parent.parent.parent
MHA = ROOT / "samples" / "mha.safetensors"


def _one_line_error(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


# a name of a layer's weights misspelled, or a field of the input document
NO_NAME = "the input: {name} is no name attn reads: did you mean {near}?"
NOT_A_FIELD = "{field}: not a field attn selfattn reads; {hint}"
DID_YOU_MEAN = "did you mean {near}?"


def _nearest(typed: str, meant: str, msgid: str) -> dict:
    """The fields that name what was typed and the name it is nearest to."""
    if msgid == NO_NAME:
        return {"name": typed, "near": meant}
    return {"field": typed, "hint": (DID_YOU_MEAN, {"near": meant})}


@pytest.mark.parametrize(
    ("typed", "meant", "msgid"),
    [("in_proj_weights", "in_proj_weight", NO_NAME),
     ("out_proj_weight", "out_proj.weight", NOT_A_FIELD),
     ("q_proj.weight", "q_proj_weight", NO_NAME),
     ("out_proj.Weight", "out_proj.weight", NOT_A_FIELD),
     ("out_proj.Bias", "out_proj.bias", NOT_A_FIELD), ("W_v", "w_v", NOT_A_FIELD),
     ("xq", "x_q", NOT_A_FIELD),
     ("h.0.attn.c_atn.weight", "h.0.attn.c_attn.weight", NO_NAME),
     ("encoder.layer.0.attention.self.querry.weight",
      "encoder.layer.0.attention.self.query.weight", NO_NAME)],
)  # fmt: skip
def test_a_misspelled_name_gets_the_nearest_name_attn_reads(run, typed, meant, msgid):
    document = {"x": [[1.0, 0.0], [0.0, 1.0]], typed: [[1.0, 0.0], [0.0, 1.0]]}
    result = run("selfattn", input=json.dumps(document))
    _one_line_error(result, InputError, msgid, **_nearest(typed, meant, msgid))
    spanish = run("selfattn", "--lang", "es", input=json.dumps(document))
    _one_line_error(spanish, InputError, msgid, lang="es", **_nearest(typed, meant, msgid))
    said_in_spanish(spanish.error)


def test_a_misspelled_name_in_a_weight_file(run, tmp_path):
    from safetensors.numpy import load_file, save_file

    weights = load_file(str(MHA))
    bias = dict(weights, **{"out_proj.Bias": weights["out_proj.bias"]})
    del bias["out_proj.bias"]
    save_file(bias, str(tmp_path / "bias.safetensors"))
    result = run("selfattn", "-i", "mha_x", "--weights", str(tmp_path / "bias.safetensors"),
                 "--heads", "2")  # fmt: skip
    _one_line_error(
        result, InputError,
        "{source}: {name} is not a weight of the attention layer attn reads there; {fix}",
        source=str(tmp_path / "bias.safetensors"), name="out_proj.Bias",
        fix=(DID_YOU_MEAN, {"near": "out_proj.bias"}),
    )  # fmt: skip
    weight = dict(weights, **{"out_proj.Weight": weights["out_proj.weight"]})
    del weight["out_proj.weight"]
    save_file(weight, str(tmp_path / "weight.safetensors"))
    result = run("selfattn", "-i", "mha_x", "--weights", str(tmp_path / "weight.safetensors"),
                 "--heads", "2")  # fmt: skip
    _one_line_error(
        result, InputError, "{name} is missing: {needs}", name="out_proj.weight", needs=(
            "a {kind} layer{where} needs it{also}",
            {"kind": "nn.MultiheadAttention", "where": "",
             "also": (" (the file has {held}: rename it {full})",
                      {"held": "out_proj.Weight", "full": "out_proj.weight"})}),
    )  # fmt: skip


def test_a_prefix_for_a_layer_at_the_top_level(run):
    result = run("selfattn", "-i", "mha_x", "--weights", str(MHA), "--heads", "2",
                 "--prefix", "foo")  # fmt: skip
    at_the_top = {
        "where": ("under {prefix}", {"prefix": "'foo'"}),
        "hint": (
            "the file's layer is at the top level (no {prefix} needed; drop it)",
            {"prefix": "--prefix"},
        ),
    }
    _one_line_error(result, InputError, "no attention layer {where}: {hint}", **at_the_top)
    spanish = run("selfattn", "-i", "mha_x", "--weights", str(MHA), "--heads", "2",
                  "--prefix", "foo", "--lang", "es")  # fmt: skip
    _one_line_error(spanish, InputError, "no attention layer {where}: {hint}", lang="es",
                    **at_the_top)  # fmt: skip
    said_in_spanish(spanish.error)


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
        result = run("selfattn", input=json.dumps(document))
        assert result.error.msgid in (NO_NAME, NOT_A_FIELD), result.error.msgid
        near = result.error.fields.get("near") or result.error.fields["hint"].fields["near"]
        _one_line_error(result, InputError, result.error.msgid,
                        **_nearest(name, near, result.error.msgid))  # fmt: skip
