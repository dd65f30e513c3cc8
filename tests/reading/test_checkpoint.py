"""The checkpoint name table and the weight-file readers, against torch's and transformers'
numbers (tests/references/mha.json, layers.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.core.attention import causal_mask
from attncli.core.selfattn import attend, attention_layer, join_heads, project, split_heads
from attncli.errors import InputError, ShapeError
from attncli.reading.models.checkpoint import attention_prefixes, attention_weights, detect_kind
from attncli.reading.parse.tensor_files import open_tensors
from tests.meaning import WRONG, told

REFERENCES = Path(__file__).parent.parent / "references"
MHA = {case["name"]: case for case in json.loads((REFERENCES / "mha.json").read_text())["cases"]}
LAYERS = json.loads((REFERENCES / "layers.json").read_text())["layers"]


def _mha(name: str):
    case = MHA[name]
    layer = attention_weights(open_tensors(str(REFERENCES / case["file"])))
    return case, layer


@pytest.mark.parametrize(
    "name", ["packed", "packed_float32", "no_bias", "kdim_vdim", "bool_attn_mask", "causal_float32"]
)
def test_an_mha_state_dict_computes_torchs_numbers(name):
    case, layer = _mha(name)
    assert layer.kind == "mha" and layer.unread == ()
    inputs = case["inputs"]
    query, key, value = (np.asarray(inputs[k], dtype=np.float64) for k in ("query", "key", "value"))
    heads = case["module"]["num_heads"]
    allowed = None
    if "attn_mask" in inputs:
        mask = np.asarray(inputs["attn_mask"])
        allowed = ~mask if mask.dtype == bool else ~np.isneginf(mask)  # torch: True = may not
    p = {k: np.asarray(v, dtype=np.float64) for k, v in layer.params.items()}
    # key and value of their own widths (kdim, vdim): each through its own projection
    q, k, v = (
        project(a, p[f"w_{n}"], p.get(f"b_{n}"))
        for a, n in ((query, "q"), (key, "k"), (value, "v"))
    )
    attended = attend(*(split_heads(a, heads) for a in (q, k, v)), allowed=allowed)
    output = project(join_heads(attended.output), p["w_o"], p.get("b_o"))
    weights = attended.weights
    tolerance = 1e-6 if case["dtype"] == "float32" else 1e-13
    assert np.abs(output - np.asarray(case["output"])).max() < tolerance
    assert np.abs(weights - np.asarray(case["weights"])).max() < tolerance
    assert np.abs(weights.mean(axis=0) - np.asarray(case["weights_mean"])).max() < tolerance


def test_the_mha_names_map_as_the_table_says():
    case, layer = _mha("packed")
    state = open_tensors(str(REFERENCES / case["file"]))
    packed = state["in_proj_weight"]  # [3E, E]
    assert np.array_equal(layer.params["w_q"], packed[:4].T)
    assert np.array_equal(layer.params["w_v"], packed[8:].T)
    assert np.array_equal(layer.params["b_k"], state["in_proj_bias"][4:8])
    assert np.array_equal(layer.params["w_o"], state["out_proj.weight"].T)
    assert layer.sources["w_k"] == "in_proj_weight"
    _, kv = _mha("kdim_vdim")
    assert kv.params["w_k"].shape == (3, 4) and kv.params["w_v"].shape == (5, 4)
    assert kv.sources["w_v"] == "v_proj_weight"
    _, biased = _mha("bias_kv")
    assert biased.params["bias_k"].shape == (4,) and biased.params["bias_v"].shape == (4,)
    _, plain = _mha("no_bias")
    assert "b_q" not in plain.params and "b_o" not in plain.params


@pytest.mark.parametrize("reference", LAYERS, ids=[layer["kind"] for layer in LAYERS])
def test_one_checkpoint_layer_computes_transformers_numbers(reference):
    state = open_tensors(str(REFERENCES / reference["file"]))
    assert detect_kind(state, reference["prefix"]) == reference["kind"]
    assert attention_prefixes(state) == [reference["prefix"]]
    layer = attention_weights(state, reference["prefix"])
    x = np.asarray(reference["x"])
    allowed = causal_mask(len(x), len(x)) if reference["causal"] else None
    params = {k: np.asarray(v, dtype=np.float64) for k, v in layer.params.items()}
    run = attention_layer(x, x, params, reference["heads"], None, allowed)
    assert np.abs(run.weights - np.asarray(reference["weights"])).max() < 1e-12
    assert np.abs(run.concat - np.asarray(reference["context"])).max() < 1e-12
    assert np.abs(run.output - np.asarray(reference["output"])).max() < 1e-12
    if reference["kind"] == "bert":  # the residual's LayerNorm is known, and not attention
        assert layer.unread == ()
        assert layer.sources["w_o"] == "encoder.layer.1.attention.output.dense.weight"


NO_LAYER = "no attention layer {where}: {hint}"


def test_no_attention_layer_names_the_prefixes_there_are():
    state = open_tensors(str(REFERENCES / "layer_bert.safetensors"))
    with pytest.raises(InputError) as caught:
        attention_weights(state)
    told(caught.value, InputError, NO_LAYER,
         hint=("the file holds attention layers under {listed}; pick one with its prefix",
               {"listed": "encoder.layer.1.attention"}))  # fmt: skip
    with pytest.raises(InputError) as caught:
        attention_weights({"W_v": np.eye(2)})
    told(caught.value, InputError, NO_LAYER,
         hint=("expected in_proj_weight (nn.MultiheadAttention), self.query.weight (BERT) or "
               "c_attn.weight (GPT-2)", {}))  # fmt: skip


def test_unread_names_are_listed():
    case = MHA["packed"]
    state = dict(open_tensors(str(REFERENCES / case["file"])))
    state["extra.thing"] = np.eye(2)
    assert attention_weights(state).unread == ("extra.thing",)


@pytest.mark.parametrize(
    ("state", "kind", "msgid", "fields"),
    [
        ({"in_proj_weight": np.zeros((12, 5)), "out_proj.weight": np.zeros((4, 4))}, ShapeError,
         WRONG, {"where": "in_proj_weight", "kind": "12 × 5", "expected": "15 × 5"}),
        ({"in_proj_weight": np.zeros((10, 4))}, ShapeError, WRONG,
         {"where": "in_proj_weight", "kind": "10 × 4"}),
        ({"in_proj_weight": np.zeros((12, 4))}, InputError,
         "{name} is missing: {needs}", {"name": "out_proj.weight", "needs": (
             "a {kind} layer{where} needs it{also}",
             {"kind": "nn.MultiheadAttention", "where": "", "also": ""})}),
        ({"in_proj_weight": np.zeros((12, 4)), "in_proj_bias": np.zeros(11),
          "out_proj.weight": np.zeros((4, 4))}, ShapeError, WRONG,
         {"where": "in_proj_bias", "kind": "11", "expected": "12"}),
        ({"q_proj_weight": np.zeros((4, 4)), "k_proj_weight": np.zeros((3, 3)),
          "v_proj_weight": np.zeros((4, 4)), "out_proj.weight": np.zeros((4, 4))}, ShapeError,
         WRONG, {"where": "k_proj_weight", "kind": "3 × 3", "expected": (
             "{expected}: the queries', keys' and values' weights project to the same E",
             {"expected": "4 × 3"})}),
        ({"h.0.attn.c_attn.weight": np.zeros((4, 11))}, ShapeError, WRONG,
         {"where": "h.0.attn.c_attn.weight", "kind": "4 × 11"}),
    ],
)  # fmt: skip
def test_wrong_shapes_name_the_field(state, kind, msgid, fields):
    prefix = "h.0.attn" if any(k.startswith("h.0") for k in state) else ""
    with pytest.raises((ShapeError, InputError)) as caught:
        attention_weights(state, prefix)
    told(caught.value, kind, msgid, **fields)


def test_the_readers_of_npz_npy_and_json(tmp_path):
    arrays = {"in_proj_weight": np.arange(48.0).reshape(12, 4), "out_proj.weight": np.eye(4)}
    np.savez(tmp_path / "layer.npz", **arrays)
    np.save(tmp_path / "w_q.npy", np.eye(3))
    document = {**{k: v.tolist() for k, v in arrays.items()}, "tokens": ["a", "b"]}
    (tmp_path / "layer.json").write_text(json.dumps(document))
    for name in ("layer.npz", "layer.json"):
        tensors = open_tensors(str(tmp_path / name))
        assert tensors.shape("in_proj_weight") == (12, 4)
        assert np.array_equal(
            attention_weights(tensors).params["w_k"], arrays["in_proj_weight"][4:8].T
        )
    assert open_tensors(str(tmp_path / "layer.json")).others == ("tokens",)
    npy = open_tensors(str(tmp_path / "w_q.npy"))
    assert list(npy) == ["w_q"] and np.array_equal(npy["w_q"], np.eye(3))


@pytest.mark.parametrize("name", ["layer.pt", "pytorch_model.bin", "model.pth"])
def test_pickle_files_are_refused_with_the_safe_conversion(tmp_path, name):
    (tmp_path / name).write_bytes(b"\x80\x04")
    with pytest.raises(InputError) as caught:
        open_tensors(str(tmp_path / name))
    told(
        caught.value,
        InputError,
        "{name} is a pickle file, which can run code when it is opened, and attn never opens "
        "one; save the weights as safetensors with torch: {command}",
        name=name,
        command='safetensors.torch.save_file(module.state_dict(), "layer.safetensors")',
    )
    assert "pickle" in caught.value.message("es")


def test_broken_files_are_one_line(tmp_path):
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 nothing")
    (tmp_path / "bad.json").write_text("[1, 2")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.safetensors").write_bytes(b"\x08" + b"\0" * 7 + b"{}")
    (tmp_path / "weights.txt").write_text("1 2")
    (tmp_path / "folder.npz").mkdir()
    for name, msgid, fields in (
        ("bad.npz", "{path} could not be read ({reason}); the file may be truncated or corrupt: "
         "save it again or download it again", {}),
        ("bad.json", "{source}: not valid JSON at line {lineno}, column {colno}: {msg} "
         "({expected})", {"lineno": 1, "colno": 6}),
        ("list.json", WRONG, {"kind": ("a list", {}),
                              "expected": ("a JSON object of named arrays", {})}),
        ("weights.txt", "{path}: attn reads weights from {suffixes} files; a torch module's are "
         "saved safely with {command}", {"suffixes": ".safetensors, .npz, .npy, .json"}),
        ("missing.npz", "cannot read '{path}': no such file ({hint})",
         {"hint": ("give the path of a .safetensors, .npz, .npy or .json file", {})}),
        ("missing.safetensors", "cannot read '{path}': no such file ({hint})", {}),
        ("missing.json", "cannot read '{path}': no such file ({hint})", {}),
        ("folder.npz", "{path}: not a regular file (a pipe, a device or a folder); {instead}",
         {"instead": ("give the path of a .safetensors, .npz, .npy or .json file", {})}),
    ):  # fmt: skip
        with pytest.raises(InputError) as caught:
            open_tensors(str(tmp_path / name))
        told(caught.value, InputError, msgid, **fields)
        fields = caught.value.fields
        where = fields.get("path", fields.get("source", fields.get("where")))
        assert where == str(tmp_path / name)
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("held", "also"),
    [("model.layers.1.mlp.gate_proj.weight", ""),
     ("model.layers.0.mlp.gate_prj.weight", (" (the file has {held}: rename it {full})",
      {"held": "model.layers.0.mlp.gate_prj.weight",
       "full": "model.layers.0.mlp.gate_proj.weight"}))],
)  # fmt: skip
def test_the_same_weight_of_another_layer_is_no_misspelling(held, also):
    """A layer's missing weight is not told to take another layer's name (layer 1's
    gate_proj is layer 1's own); a misspelling of its own name is."""
    from attncli.reading.models.checkpoint import get_named

    with pytest.raises(InputError) as caught:
        get_named({held: np.zeros(2)}, "model.layers.0", "mlp.gate_proj.weight", "Llama")
    told(caught.value, InputError, "{name} is missing: {needs}",
         needs=("a {kind} layer{where} needs it{also}",
                {"kind": "Llama", "where": (" under {prefix}", {"prefix": "model.layers.0"}),
                 "also": also}))  # fmt: skip
