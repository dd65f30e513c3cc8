"""attn selfattn reads a layer's weights as torch and transformers save them (a state dict,
a .safetensors file, one layer of a checkpoint by its prefix) and gives their numbers
(tests/references/mha.json and layers.json, made by tests/references/make.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError, ShapeError
from attncli.reading.parse.tensor_files import open_tensors
from tests.meaning import DISAGREE, FINITE, NUMBER, WRONG, told

REFERENCES = Path(__file__).parent.parent / "references"
MHA = {case["name"]: case for case in json.loads((REFERENCES / "mha.json").read_text())["cases"]}
LAYERS = {
    layer["kind"]: layer for layer in json.loads((REFERENCES / "layers.json").read_text())["layers"]
}


def _one_line_error(result, kind, msgid, /, **fields):
    """One line on stderr, nothing on stdout, and the line is that error said."""
    assert result.exit_code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


NO_HEADS = (
    "{source}: a state dict does not hold the number of heads; give {heads} "
    "(nn.MultiheadAttention's num_heads, a config's num_attention_heads or n_head)"
)
PICKLE = (
    "{name} is a pickle file, which can run code when it is opened, and attn never opens one; "
    "save the weights as safetensors with torch: {command}"
)
BOTH_GIVEN = (
    "{packed} and {separate} are both given: nn.MultiheadAttention holds either in_proj_weight "
    "or q_proj_weight, k_proj_weight and v_proj_weight, never both; keep one"
)
MISSING = "{name} is missing: {needs}"
LAYER_NEEDS = "a {kind} layer{where} needs it{also}"


def _at(row: int, item: int, field: str = "in_proj_weight"):
    """The `where` of a number in a state dict, as data."""
    return ("{field}: row {row}, item {item}", {"field": field, "row": row, "item": item})


def _batch_first(case: dict, array) -> np.ndarray:
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 3 and not case["module"].get("batch_first"):
        return array.transpose(1, 0, 2)
    return array


@pytest.mark.parametrize(
    "name", ["packed", "packed_float32", "no_bias", "batch_first", "bool_attn_mask"]
)
def test_a_safetensors_state_dict_gives_torchs_numbers(run_json, tmp_path, name):
    case = MHA[name]
    document = {"x": _batch_first(case, case["inputs"]["query"]).tolist()}
    if "attn_mask" in case["inputs"]:
        document["attn_mask"] = case["inputs"]["attn_mask"]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(document))
    weights = str(REFERENCES / case["file"])
    heads = str(case["module"]["num_heads"])
    out = run_json("selfattn", "-i", str(path), "--weights", weights, "--heads", heads, "--json")
    tolerance = 1e-6 if case["dtype"] == "float32" else 1e-13
    assert np.abs(np.asarray(out["output"]) - _batch_first(case, case["output"])).max() < tolerance
    assert np.abs(np.asarray(out["weights"]) - np.asarray(case["weights"])).max() < tolerance
    mean = np.asarray(out["weights_mean"]) - np.asarray(case["weights_mean"])
    assert np.abs(mean).max() < tolerance


def test_the_python_api_reads_a_state_dict():
    case = MHA["packed"]
    state = dict(open_tensors(str(REFERENCES / case["file"])).items())
    x = np.asarray(case["inputs"]["query"])
    result = attn.selfattn(weights=state, heads=2, x=x)
    assert np.abs(result.output - np.asarray(case["output"])).max() < 1e-13
    by_path = attn.selfattn(weights=str(REFERENCES / case["file"]), heads=2, x=x)
    assert np.array_equal(by_path.output, result.output)
    with pytest.raises(InputError) as caught:
        attn.selfattn(weights=state, x=x)
    told(caught.value, InputError, NO_HEADS, "python", heads="heads=h")
    with pytest.raises(OptionError) as caught:
        attn.selfattn(x=x, prefix="h.0.attn")
    told(caught.value, OptionError, "prefix= picks a layer of weights=; give weights= too")
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, weights=[1, 2], heads=2)
    told(caught.value, InputError,
         "weights is {kind}; give a state dict (module.state_dict(), a mapping of names to "
         "tensors or arrays) or the path of a weight file (a str or a pathlib.Path)",
         kind="list")  # fmt: skip


def test_a_state_dict_of_tensors_is_read_without_torch():
    from tests.reading.test_torch_masks import FakeTensor

    case = MHA["packed"]
    tensors = open_tensors(str(REFERENCES / case["file"]))
    state = {name: FakeTensor(tensors[name], requires_grad=True) for name in tensors}
    x = FakeTensor(np.asarray(case["inputs"]["query"]))
    result = attn.selfattn(weights=state, heads=2, x=x)
    assert np.abs(result.output - np.asarray(case["output"])).max() < 1e-13


def test_torchs_names_in_an_npz_beside_x(run_json, tmp_path):
    case = MHA["packed"]
    tensors = open_tensors(str(REFERENCES / case["file"]))
    path = tmp_path / "layer.npz"
    np.savez(path, x=np.asarray(case["inputs"]["query"]), **{k: tensors[k] for k in tensors})
    out = run_json("selfattn", "-i", str(path), "--heads", "2", "--json")
    assert np.abs(np.asarray(out["output"]) - np.asarray(case["output"])).max() < 1e-13


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_one_layer_of_a_checkpoint_by_its_prefix(run_json, tmp_path, kind):
    layer = LAYERS[kind]
    path = tmp_path / "x.npy"
    np.save(path, np.asarray(layer["x"]))
    weights = str(REFERENCES / layer["file"])
    arguments = ["-i", str(path), "--weights", weights, "--prefix", layer["prefix"]]
    out = run_json("selfattn", *arguments, "--heads", str(layer["heads"]), "--json")
    assert out["causal"] is layer["causal"]  # GPT-2's attention is causal by itself
    assert np.abs(np.asarray(out["weights"]) - np.asarray(layer["weights"])).max() < 1e-12
    assert np.abs(np.asarray(out["concat"]) - np.asarray(layer["context"])).max() < 1e-12
    assert np.abs(np.asarray(out["output"]) - np.asarray(layer["output"])).max() < 1e-12


def test_heads_from_config_json_beside_the_file(run_json, tmp_path):
    layer = LAYERS["gpt2"]
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "layer.safetensors").write_bytes((REFERENCES / layer["file"]).read_bytes())
    config = {"model_type": "gpt2", "n_embd": len(layer["x"][0]), "n_head": layer["heads"]}
    config.update(n_layer=2, n_positions=64)
    (folder / "config.json").write_text(json.dumps(config))
    np.save(tmp_path / "x.npy", np.asarray(layer["x"]))
    arguments = ["-i", str(tmp_path / "x.npy"), "--weights", str(folder / "layer.safetensors")]
    out = run_json("selfattn", *arguments, "--prefix", layer["prefix"], "--json")
    assert out["heads"] == layer["heads"]
    assert np.abs(np.asarray(out["output"]) - np.asarray(layer["output"])).max() < 1e-12


def test_a_sentence_takes_d_model_from_the_weights(run_json):
    weights = str(REFERENCES / MHA["packed"]["file"])
    out = run_json("selfattn", "el tren va", "--weights", weights, "--heads", "2", "--json")
    assert out["d_model"] == 4 and "seed" in out


def test_what_cannot_be_read_is_refused(run, tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.ones((3, 4)))
    packed = str(REFERENCES / MHA["packed"]["file"])
    _one_line_error(
        run("selfattn", "-i", str(x), "--weights", packed),
        InputError, NO_HEADS, source=packed, heads="--heads h",
    )  # fmt: skip
    _one_line_error(
        run(
            "selfattn",
            "-i",
            str(x),
            "--weights",
            str(REFERENCES / MHA["kdim_vdim"]["file"]),
            "--heads",
            "2",
        ),  # fmt: skip
        ShapeError, DISAGREE, field="w_k", found=("{count} row", {"count": 3}), other="x",
        dimension="kdim",
    )  # fmt: skip
    pickled = tmp_path / "layer.pt"
    pickled.write_bytes(b"\x80\x04not really")
    saved = 'safetensors.torch.save_file(module.state_dict(), "layer.safetensors")'
    _one_line_error(
        run("selfattn", "-i", str(x), "--weights", str(pickled), "--heads", "2"),
        InputError, PICKLE, name="layer.pt", command=saved,
    )  # fmt: skip
    _one_line_error(run("selfattn", "-i", str(pickled)), InputError, PICKLE, name="layer.pt")
    _one_line_error(
        run("selfattn", "-i", packed), InputError,
        "{path} holds a layer's weights, not an input document; give it to attn selfattn as "
        "--weights FILE (with x in -i, or a sentence)", path=packed,
    )  # fmt: skip
    _one_line_error(
        run("selfattn", "-i", str(x), "--prefix", "h.0.attn"), InputError,
        "{given}: the input holds no names under {prefix}; {hint}", prefix="h.0.attn",
        given="--prefix h.0.attn",
        hint=("give the checkpoint's weights with {weights}, or its names in {document}",
              {"weights": ("--weights FILE", {}), "document": ("-i FILE", {})}),
    )  # fmt: skip
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"x": np.ones((3, 4)).tolist(), "w_q": np.eye(4).tolist()}))
    _one_line_error(
        run("selfattn", "-i", str(both), "--weights", packed, "--heads", "2"), InputError,
        "{name} is given twice: in the input and in {source} ({kind}'s names); keep one",
        name="w_q", source=packed,
    )  # fmt: skip


def test_a_name_under_the_prefix_that_is_no_weight_is_refused(run, tmp_path):
    tensors = open_tensors(str(REFERENCES / MHA["packed"]["file"]))
    path = tmp_path / "extra.npz"
    np.savez(path, **{k: tensors[k] for k in tensors}, in_proj_scale=np.ones(3))
    x = tmp_path / "x.npy"
    np.save(x, np.ones((3, 4)))
    _one_line_error(
        run("selfattn", "-i", str(x), "--weights", str(path), "--heads", "2"), InputError,
        "{source}: {name} is not a weight of the attention layer attn reads there; {fix}",
        source=str(path), name="in_proj_scale",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["bias_kv", "zero_attn", "bias_kv_zero_attn_masks"])
def test_add_bias_kv_and_add_zero_attn_give_torchs_numbers(run_json, tmp_path, name):
    case = MHA[name]
    document = {"x": _batch_first(case, case["inputs"]["query"]).tolist()}
    for field in ("attn_mask", "key_padding_mask"):
        if field in case["inputs"]:
            document[field] = case["inputs"][field]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(document))
    weights = str(REFERENCES / case["file"])
    zero = ["--add-zero-attn"] if case["module"].get("add_zero_attn") else []
    arguments = ["selfattn", "-i", str(path), "--weights", weights, "--heads", "2", *zero]
    out = run_json(*arguments, "--json")
    assert np.abs(np.asarray(out["output"]) - _batch_first(case, case["output"])).max() < 1e-13
    assert np.abs(np.asarray(out["weights"]) - np.asarray(case["weights"])).max() < 1e-13
    extra = (["bias_k"] if case["module"].get("add_bias_kv") else []) + (["zero"] if zero else [])
    assert out["extra_keys"] == extra
    blocks = run_json(*arguments, "--fields", "output")
    assert np.allclose(blocks["output"], out["output"], atol=1e-14)


def test_bias_kv_in_python_and_its_refusals():
    from attncli.reading.models.checkpoint import attention_weights

    case = MHA["bias_kv"]
    state = dict(open_tensors(str(REFERENCES / case["file"])).items())
    x = np.asarray(case["inputs"]["query"])
    layer = attn.selfattn(weights=state, heads=2, x=x)
    assert layer.key_labels == ("t1", "t2", "t3", "bias_k") and layer.weights.shape == (2, 3, 4)
    params = attention_weights(state).params
    by_fields = attn.selfattn(x=x, heads=2, **params)
    assert np.array_equal(by_fields.output, layer.output)
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, heads=2, **{k: v for k, v in params.items() if k != "bias_v"})
    told(caught.value, InputError,
         "{given} without {other}: torch's add_bias_kv appends a key row and a value row; give "
         "both", given="bias_k", other="bias_v")  # fmt: skip
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=x, heads=2, **{**params, "bias_k": params["bias_k"][:3]})
    told(caught.value, ShapeError, DISAGREE, field="bias_k",
         found=("{count} number", {"count": 3}), other="w_q", dimension="d_k")  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, projections=False, add_zero_attn=True)
    told(caught.value, InputError,
         "{setting} goes with the projections; drop {no_proj} or {setting}", "python",
         setting="add_zero_attn=True", no_proj="projections=False")  # fmt: skip


@pytest.mark.parametrize("zero", [False, True])
def test_the_backward_pass_with_the_layers_own_keys(zero):
    # torch's autograd gave these gradients to 1e-15 where this was written; here they are
    # held to finite differences
    case = MHA["bias_kv"]
    state = dict(open_tensors(str(REFERENCES / case["file"])).items())
    x = np.asarray(case["inputs"]["query"])
    target = np.random.default_rng(13).normal(size=x.shape)
    result = attn.selfattn(weights=state, heads=2, x=x, target=target, add_zero_attn=zero)
    assert result.grads["grad_bias_k"].shape == (4,) and result.grads["grad_x"].shape == x.shape

    def loss(name, array):
        changed = {**state, name: array.reshape(state[name].shape)}
        again = attn.selfattn(weights=changed, heads=2, x=x, target=target, add_zero_attn=zero)
        return again.loss

    step = 1e-6
    for name in ("bias_k", "bias_v"):
        flat = np.asarray(state[name], dtype=np.float64).ravel()
        for i in range(flat.size):
            up, down = flat.copy(), flat.copy()
            up[i] += step
            down[i] -= step
            numeric = (loss(name, up) - loss(name, down)) / (2 * step)
            assert abs(result.grads[f"grad_{name}"][i] - numeric) < 1e-7, (name, i)


def test_the_screen_says_where_the_weights_came_from(run):
    weights = str(REFERENCES / MHA["packed"]["file"])
    x = REFERENCES.parent.parent / "samples" / "mha_x.npy"
    screen = run(
        "selfattn", "-i", str(x), "--weights", weights, "--heads", "2", "--format", "table"
    )
    said = " ".join(screen.stdout.split())  # the long path may wrap the line
    assert f"weights from {weights} (nn.MultiheadAttention's names)" in said
    spanish = run("selfattn", "-i", str(x), "--weights", weights, "--heads", "2",
                  "--format", "table", "--lang", "es")  # fmt: skip
    assert "(con los nombres de nn.MultiheadAttention)" in " ".join(spanish.stdout.split())
    state = dict(open_tensors(weights).items())
    result = attn.selfattn(weights=state, heads=2, x=np.load(x))
    assert result.weights_from == ("the given state dict", "nn.MultiheadAttention")


def _mha_state(d: int = 4) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"in_proj_weight": rng.normal(size=(3 * d, d)), "out_proj.weight": np.eye(d)}


def test_in_proj_weight_beside_q_proj_weight_is_refused_on_every_path(run, tmp_path):
    from safetensors.numpy import save_file

    state = {**_mha_state(), "q_proj_weight": np.eye(4)}
    names = {"packed": "in_proj_weight", "separate": "q_proj_weight"}
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=np.eye(4), weights=state, heads=1)
    told(caught.value, InputError, BOTH_GIVEN, **names)
    save_file(state, str(tmp_path / "both.safetensors"))
    x = tmp_path / "x.json"
    x.write_text(json.dumps({"x": np.eye(4).tolist()}))
    result = run("selfattn", "-i", str(x), "--weights", str(tmp_path / "both.safetensors"),
                 "--heads", "1")  # fmt: skip
    _one_line_error(result, InputError, BOTH_GIVEN, **names)
    document = {"x": np.eye(4).tolist(), **{k: v.tolist() for k, v in state.items()}}
    _one_line_error(
        run("selfattn", "--heads", "1", input=json.dumps(document)), InputError, BOTH_GIVEN,
        **names,
    )  # fmt: skip


def test_a_typo_gets_the_same_hint_in_a_document_and_in_a_weight_file(run, tmp_path):
    state = _mha_state()
    state["out_proj.Weight"] = state.pop("out_proj.weight")
    listed = {k: v.tolist() for k, v in state.items()}
    (tmp_path / "typo.json").write_text(json.dumps(listed))
    (tmp_path / "x.json").write_text(json.dumps({"x": np.eye(4).tolist()}))
    also = (
        " (the file has {held}: rename it {full})",
        {"held": "out_proj.Weight", "full": "out_proj.weight"},
    )
    hint = {"name": "out_proj.weight", "needs": (
        LAYER_NEEDS, {"kind": "nn.MultiheadAttention", "where": "", "also": also})}  # fmt: skip
    by_file = run("selfattn", "-i", str(tmp_path / "x.json"), "--weights",
                  str(tmp_path / "typo.json"), "--heads", "1")  # fmt: skip
    _one_line_error(by_file, InputError, MISSING, **hint)
    document = {"x": np.eye(4).tolist(), **listed}
    _one_line_error(
        run("selfattn", "--heads", "1", input=json.dumps(document)), InputError, MISSING, **hint
    )


def test_a_missing_weight_is_never_blamed_on_a_present_one(run, tmp_path):
    state = _mha_state()
    del state["out_proj.weight"]
    (tmp_path / "layer.json").write_text(json.dumps({k: v.tolist() for k, v in state.items()}))
    (tmp_path / "x.json").write_text(json.dumps({"x": np.eye(4).tolist()}))
    result = run("selfattn", "-i", str(tmp_path / "x.json"), "--weights",
                 str(tmp_path / "layer.json"), "--heads", "1")  # fmt: skip
    _one_line_error(result, InputError, MISSING, name="out_proj.weight", needs=(
        LAYER_NEEDS, {"kind": "nn.MultiheadAttention", "where": "", "also": ""}))  # fmt: skip


def test_a_misspelt_first_weight_in_a_file_is_named(run, tmp_path):
    state = _mha_state()
    state["in_proj_weights"] = state.pop("in_proj_weight")
    (tmp_path / "layer.json").write_text(json.dumps({k: v.tolist() for k, v in state.items()}))
    (tmp_path / "x.json").write_text(json.dumps({"x": np.eye(4).tolist()}))
    result = run("selfattn", "-i", str(tmp_path / "x.json"), "--weights",
                 str(tmp_path / "layer.json"), "--heads", "1")  # fmt: skip
    _one_line_error(
        result, InputError, "no attention layer {where}: {hint}",
        hint=("{name} is no name attn reads: did you mean {near}?",
              {"name": "in_proj_weights", "near": "in_proj_weight"}),
    )  # fmt: skip


def test_a_non_number_in_a_documents_state_dict_is_named_where_it_stands(run):
    state = {k: v.tolist() for k, v in _mha_state().items()}
    for value, kind in ((None, ("null", {})), (True, ("{value} (a boolean)", {"value": "true"}))):
        state["in_proj_weight"][1][2] = value
        document = {"x": np.eye(4).tolist(), **state}
        result = run("selfattn", "--heads", "1", input=json.dumps(document))
        _one_line_error(result, InputError, WRONG, where=_at(2, 3), kind=kind, expected=NUMBER)
    text = json.dumps({"x": np.eye(4).tolist(), **state}).replace("true", "NaN")
    _one_line_error(
        run("selfattn", "--heads", "1", input=text), InputError,
        WRONG, where=_at(2, 3), kind="NaN", expected=FINITE,
    )  # fmt: skip
    state["in_proj_weight"][1][2] = "0.5"
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=np.eye(4), weights=state, heads=1)
    told(caught.value, InputError, WRONG, where=_at(2, 3),
         kind=("{value} (a string)", {"value": '"0.5"'}), expected=NUMBER)  # fmt: skip


def test_a_state_dict_s_bias_of_another_shape_is_refused_not_flattened():
    state = _mha_state()
    x = np.eye(4)[:3]
    state["bias_k"], state["bias_v"] = np.ones((1, 1, 4)), np.ones((1, 1, 4))
    attn.selfattn(x=x, weights=state, heads=2)  # torch's own shape: read
    for name in ("out_proj.bias", "bias_k"):
        wrong = dict(state, **{name: np.arange(4.0).reshape(2, 2)})  # 4 numbers, not a row
        with pytest.raises(ShapeError) as raised:
            attn.selfattn(x=x, weights=wrong, heads=2)
        told(raised.value, ShapeError, WRONG, where=name,
             kind="2 × 2", expected="4")  # fmt: skip
