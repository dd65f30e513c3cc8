"""The layer's header says what is there: every projection drawn from the seed by name
(W^O too with --heads), torch's add_bias_kv or add_zero_attn only for what the layer has;
a layer whose keys and values have widths of their own, given one x, is told to give x_q,
x_k, x_v; a projection of the wrong shape is told the sizes per head, as the header says."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import ShapeError
from tests.meaning import DISAGREE, said_in_spanish, told

# W^K's rows are kdim, the width of the sequence the keys are made from: x's for one x
OWN_WIDTHS = {"field": "w_k", "found": ("{count} row", {"count": 3}), "other": "x",
              "bound": ("{numbers} a row", {"numbers": ("{count} number", {"count": 4})}),
              "dimension": "kdim"}  # fmt: skip

ROOT = Path(__file__).resolve().parent.parent.parent
MHA = ROOT / "tests" / "references" / "mha"


def _screen(run, *args):
    result = run("selfattn", *args, "--format", "table")
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stdout.split())


def _one_line_error(result, kind, msgid, /, lang="en", **fields):
    """One line, nothing on stdout, and the line is that error said in `lang`."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"


SEEDED = [("en", "W^Q, W^K, W^V, W^O are random (seed 0)"),
          ("es", "W^Q, W^K, W^V, W^O son aleatorias")]  # fmt: skip


@pytest.mark.parametrize(("lang", "said"), SEEDED)
def test_the_seeded_header_names_w_o_with_heads(run, lang, said):
    screen = _screen(run, "el tren llega", "--heads", "2", "--d-model", "4", "--lang", lang)
    assert said in screen
    document = json.loads(run("selfattn", "el tren llega", "--heads", "2", "--json").stdout)
    assert document["drawn"] == ["w_q", "w_k", "w_v", "w_o"]
    alone = _screen(run, "el tren llega", "--lang", lang)
    assert "W^Q, W^K, W^V " in alone and "W^O" not in alone


@pytest.mark.parametrize(
    ("file", "options", "said", "unsaid"),
    [("bias_kv", [], "(torch's add_bias_kv)", "add_zero_attn"),
     ("zero_attn", ["--add-zero-attn"], "(torch's add_zero_attn)", "add_bias_kv"),
     ("bias_kv", ["--add-zero-attn"], "(torch's add_bias_kv, add_zero_attn)", None)],
)  # fmt: skip
def test_the_extra_keys_say_only_what_is_there(run, file, options, said, unsaid):
    screen = _screen(run, "-i", "mha_x", "--weights", str(MHA / f"{file}.safetensors"),
                     "--heads", "2", *options)  # fmt: skip
    assert said in screen
    assert unsaid is None or unsaid not in screen
    spanish = _screen(run, "-i", "mha_x", "--weights", str(MHA / f"{file}.safetensors"),
                      "--heads", "2", *options, "--lang", "es")  # fmt: skip
    assert said.replace("torch's ", "").rstrip(")") + " de torch)" in spanish


def test_a_layer_with_its_own_key_widths_given_one_x(run, tmp_path):
    result = run("selfattn", "-i", "mha_x", "--weights", str(MHA / "kdim_vdim.safetensors"),
                 "--heads", "2")  # fmt: skip
    _one_line_error(result, ShapeError, DISAGREE, **OWN_WIDTHS)
    spanish = run("selfattn", "-i", "mha_x", "--weights", str(MHA / "kdim_vdim.safetensors"),
                  "--heads", "2", "--lang", "es")  # fmt: skip
    _one_line_error(spanish, ShapeError, DISAGREE, lang="es", **OWN_WIDTHS)
    said_in_spanish(spanish.error)
    x = np.load(ROOT / "samples" / "mha_x.npy")
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=x, w_q=np.eye(4), w_k=np.ones((3, 4)), w_v=np.eye(4))
    told(caught.value, ShapeError, DISAGREE, **OWN_WIDTHS)


def test_a_wrong_shape_says_the_sizes_per_head(run):
    result = run("selfattn", "-i", "mha_x", "--weights", "mha", "--heads", "2", "--d-k", "3")
    _one_line_error(
        result, ShapeError, DISAGREE, field="w_q",
        found=("{numbers} a row", {"numbers": ("{count} number", {"count": 4})}),
        other=("{field} for {heads}", {"field": "--d-k 3", "heads": "--heads 2"}),
        bound=("{count} number", {"count": 6}), dimension="d_k",
    )  # fmt: skip
    header = _screen(run, "-i", "mha_x", "--weights", "mha", "--heads", "2")
    assert "d_k = 2 · d_v = 2 · 2 heads" in header
    plain = run("selfattn", input=json.dumps({"x": np.eye(2).tolist(), "w_q": np.eye(3).tolist()}))
    _one_line_error(plain, ShapeError, DISAGREE, field="w_q", found=("{count} row", {"count": 3}),
                    other="x", dimension="d_model")  # fmt: skip


@pytest.mark.parametrize(
    ("file", "prefix", "where"),
    [("layer_gpt2.safetensors", "h.1.attn", "config.json (n_head)"),
     ("layer_bert.safetensors", "encoder.layer.1.attention", "config.json (num_attention_heads)")],
)  # fmt: skip
def test_heads_nothing_can_check_are_said_so(run, tmp_path, file, prefix, where):
    references = json.loads((ROOT / "tests" / "references" / "layers.json").read_text())
    layer = next(layer for layer in references["layers"] if layer["file"] == file)
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"x": layer["x"]}))
    weights = str(ROOT / "tests" / "references" / file)
    screen = _screen(run, "-i", str(path), "--weights", weights, "--prefix", prefix,
                     "--heads", "4")  # fmt: skip
    assert "--heads 4 is taken as given" in screen and where in screen
    spanish = _screen(run, "-i", str(path), "--weights", weights, "--prefix", prefix,
                      "--heads", "4", "--lang", "es")  # fmt: skip
    assert "--heads 4 se toma tal cual" in spanish
    module = _screen(run, "-i", "mha_x", "--weights", "mha", "--heads", "2")
    assert "the module's num_heads says how many" in module
    seeded = _screen(run, "el tren llega", "--heads", "2")
    assert "taken as given" not in seeded


def test_heads_from_config_json_need_no_note(run, tmp_path):
    references = json.loads((ROOT / "tests" / "references" / "layers.json").read_text())
    layer = next(layer for layer in references["layers"] if layer["kind"] == "gpt2")
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "layer.safetensors").write_bytes(
        (ROOT / "tests" / "references" / layer["file"]).read_bytes()
    )
    config = {"model_type": "gpt2", "n_embd": len(layer["x"][0]), "n_head": layer["heads"],
              "n_layer": 2, "n_positions": 64}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    (tmp_path / "x.json").write_text(json.dumps({"x": layer["x"]}))
    screen = _screen(run, "-i", str(tmp_path / "x.json"), "--weights",
                     str(folder / "layer.safetensors"), "--prefix", layer["prefix"])  # fmt: skip
    assert "4 heads" in screen and "taken as given" not in screen


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "scores ÷ √1 = 1"), ("es", "puntuaciones ÷ √1 = 1")]
)
def test_heads_of_one_column_say_they_are_divided_by_the_root_of_one(run, lang, said):
    shown = _screen(run, "el tren va", "--heads", "8", "--lang", lang)
    assert said in shown and "no scaling" not in shown and "sin escalar" not in shown
    unscaled = _screen(run, "el tren va", "--heads", "8", "--no-scale")
    assert "no scaling" in unscaled and "√1" not in unscaled


def test_without_projections_the_screen_says_what_the_grids_show(run):
    shown = _screen(run, "las llaves del coche están ahí", "--no-proj")
    assert "the scores are symmetric" in shown and "its own diagonal" in shown
    longest = _screen(run, "-i", "longitudes", "--no-proj")
    assert "goes to the longest, «va»" in longest and "own diagonal" not in longest
    spanish = _screen(run, "-i", "longitudes", "--no-proj", "--lang", "es")
    assert "va al más largo, «va»" in spanish
    with_w = _screen(run, "las llaves del coche están ahí")
    assert "symmetric" not in with_w
