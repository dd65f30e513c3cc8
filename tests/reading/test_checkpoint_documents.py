"""One attention layer of a checkpoint given in a plain document (-i doc.json or .npz) under
the checkpoint's own names (BERT's encoder.layer.1.attention.self.query.weight, GPT-2's
h.1.attn.c_attn.weight): read without --prefix when it holds one layer, picked by --prefix
when it holds several, with the same numbers as --weights FILE --prefix P
(tests/references/layers.json, made by tests/references/make.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from attncli.reading.parse.tensor_files import open_tensors
from tests.meaning import told

REFERENCES = Path(__file__).parent.parent / "references"
LAYERS = {
    layer["kind"]: layer for layer in json.loads((REFERENCES / "layers.json").read_text())["layers"]
}


def _one_line_error(result, kind, msgid, /, **fields) -> None:
    """One line, nothing on stdout, and the line is that error said."""
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


SEVERAL_LAYERS = (
    "the input holds {count} attention layers ({listed}); pick one with {pick}, e.g. {example}"
)


def _document(kind: str, *renamed: str) -> dict:
    """x and the layer's tensors under their own names; each of `renamed` adds a copy of
    the layer under that prefix too."""
    layer = LAYERS[kind]
    tensors = open_tensors(str(REFERENCES / layer["file"]))
    document = {"x": layer["x"]}
    for name in tensors:
        value = np.asarray(tensors[name], dtype=np.float64).tolist()
        document[name] = value
        for prefix in renamed:
            document[prefix + name[len(layer["prefix"]) :]] = value
    return document


def _written(tmp_path, document: dict, suffix: str = ".json") -> str:
    path = tmp_path / f"layer{suffix}"
    if suffix == ".npz":
        np.savez(path, **{name: np.asarray(value) for name, value in document.items()})
    else:
        path.write_text(json.dumps(document))
    return str(path)


def _by_weights_file(run_json, tmp_path, kind: str) -> dict:
    layer = LAYERS[kind]
    x = tmp_path / "x.npy"
    np.save(x, np.asarray(layer["x"]))
    weights = str(REFERENCES / layer["file"])
    arguments = ["-i", str(x), "--weights", weights, "--prefix", layer["prefix"]]
    return run_json("selfattn", *arguments, "--heads", str(layer["heads"]), "--json")


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_one_layer_in_a_document_is_read_without_a_prefix(run_json, tmp_path, kind, suffix):
    layer = LAYERS[kind]
    path = _written(tmp_path, _document(kind), suffix)
    out = run_json("selfattn", "-i", path, "--heads", str(layer["heads"]), "--json")
    assert out["causal"] is layer["causal"]  # GPT-2's attention is causal by itself
    for name, reference in (("weights", "weights"), ("concat", "context"), ("output", "output")):
        assert np.abs(np.asarray(out[name]) - np.asarray(layer[reference])).max() < 1e-12
    same = _by_weights_file(run_json, tmp_path, kind)
    for name in ("weights", "concat", "output", "w_q", "w_o", "b_v"):
        assert out[name] == same[name], name
    given = run_json("selfattn", "-i", path, "--heads", str(layer["heads"]),
                     "--prefix", layer["prefix"], "--json")  # fmt: skip
    assert given["output"] == out["output"]


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_several_layers_need_a_prefix(run, run_json, tmp_path, kind):
    layer = LAYERS[kind]
    other = layer["prefix"].replace(".1.", ".0.")
    path = _written(tmp_path, _document(kind, other))
    heads = ("--heads", str(layer["heads"]))
    listed = f"{layer['prefix']}, {other}"
    _one_line_error(run("selfattn", "-i", path, *heads), InputError, SEVERAL_LAYERS,
                    count=2, listed=listed, example=f"--prefix {layer['prefix']}")  # fmt: skip
    picked = run_json("selfattn", "-i", path, *heads, "--prefix", layer["prefix"], "--json")
    assert picked["output"] == _by_weights_file(run_json, tmp_path, kind)["output"]
    _one_line_error(
        run("selfattn", "-i", path, *heads, "--prefix", "h.7.attn"), InputError,
        "{given}: the input holds no names under {prefix}; {hint}", prefix="h.7.attn",
        hint=("it holds layers under {listed}", {"listed": listed}),
    )  # fmt: skip


def test_a_layer_in_a_document_still_needs_its_heads_and_every_name_read(run, tmp_path):
    document = _document("gpt2")
    path = _written(tmp_path, document)
    _one_line_error(
        run("selfattn", "-i", path), InputError,
        "{source}: a state dict does not hold the number of heads; give {heads} "
        "(nn.MultiheadAttention's num_heads, a config's num_attention_heads or n_head)",
        source="the input", heads="--heads h",
    )  # fmt: skip
    document["h.1.attn.c_attn.scale"] = [1.0]
    _one_line_error(
        run("selfattn", "-i", _written(tmp_path, document), "--heads", "2"), InputError,
        "{source}: {name} is not a weight of the attention layer attn reads there; {fix}",
        source="the input", name="h.1.attn.c_attn.scale",
    )  # fmt: skip
    twice = _document("gpt2")
    twice["w_o"] = np.eye(32).tolist()
    _one_line_error(
        run("selfattn", "-i", _written(tmp_path, twice), "--heads", "2"), InputError,
        "{name} is given twice: in the input and in {source} ({kind}'s names); keep one",
        name="w_o", source="the input", kind="GPT-2",
    )  # fmt: skip


def test_the_spanish_line_lists_the_prefixes_too():
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    document = _document("gpt2", "h.0.attn")
    with pytest.raises(InputError) as raised:
        selfattn_inputs(LayerInputs.from_document(document), None, SelfAttnSettings(heads=2))
    told(raised.value, InputError, SEVERAL_LAYERS, count=2, listed="h.1.attn, h.0.attn")
    assert "la entrada tiene 2 capas de atención (h.1.attn, h.0.attn)" in raised.value.message("es")


def test_a_gpt2_layer_is_causal_by_itself_and_no_causal_switches_it_off(run, run_json, tmp_path):
    layer = LAYERS["gpt2"]
    path = _written(tmp_path, _document("gpt2"))
    causal = run_json("selfattn", "-i", path, "--heads", "2", "--json")
    assert causal["causal"] is True and causal["causal_from"] == "GPT-2"
    unmasked = run_json("selfattn", "-i", path, "--heads", "2", "--no-causal", "--json")
    assert unmasked["causal"] is False and "causal_from" not in unmasked
    assert np.asarray(unmasked["weights"])[:, 0, 1:].min() > 0  # the first token sees on
    # the same weights in attn's own names, computed without a mask: the same numbers
    own = {name: unmasked[name] for name in ("x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k")}
    own.update(b_v=unmasked["b_v"], b_o=unmasked["b_o"])
    plain = run_json("selfattn", "--heads", "2", input=json.dumps(own))
    assert plain["output"] == unmasked["output"] and plain["weights"] == unmasked["weights"]
    with_causal = run_json("selfattn", "--heads", "2", "--causal", input=json.dumps(own))
    assert with_causal["output"] == causal["output"]
    weights = str(REFERENCES / layer["file"])
    x = tmp_path / "x.npy"
    np.save(x, np.asarray(layer["x"]))
    by_file = run_json("selfattn", "-i", str(x), "--weights", weights, "--prefix",
                       layer["prefix"], "--heads", "2", "--no-causal", "--json")  # fmt: skip
    assert by_file["output"] == unmasked["output"]
    # read back, the result is causal by --causal: the settings it was computed with
    again = run_json("selfattn", "--heads", "2", "--causal", input=json.dumps(causal))
    assert again["output"] == causal["output"]


def test_causal_and_no_causal_together_are_refused_and_no_causal_alone_is_every_key(
    run, run_json, tmp_path
):
    gpt2 = _written(tmp_path, _document("gpt2"))
    _one_line_error(
        run("selfattn", "-i", gpt2, "--heads", "2", "--causal", "--no-causal"), OptionError,
        "{first} and {second} ask for opposite things; give one",
        first="--causal", second="--no-causal",
    )  # fmt: skip
    import attncli as attn
    from attncli.layer import OPPOSITE

    with pytest.raises(OptionError) as raised:
        attn.selfattn("el tren", causal=True, no_causal=True)
    assert raised.value.msgid == OPPOSITE
    assert raised.value.message("en", "python").startswith("causal=True and no_causal=True")
    # A layer that is not causal by itself stays as it is: --no-causal changes nothing.
    bert = str(tmp_path / "bert.json")
    Path(bert).write_text(json.dumps(_document("bert")))
    plain = run_json("selfattn", "-i", bert, "--heads", "4", "--json")
    unmasked = run_json("selfattn", "-i", bert, "--heads", "4", "--no-causal", "--json")
    assert unmasked["weights"] == plain["weights"] and unmasked["causal"] is False


def test_the_screen_says_why_a_gpt2_layer_is_causal_and_how_to_switch_it_off(run, tmp_path):
    path = _written(tmp_path, _document("gpt2"))
    for lang, said in (
        ("en", "causal mask, as GPT-2's layers are (--no-causal without it)"),
        ("es", "máscara causal, como las capas de GPT-2 (--no-causal sin ella)"),
    ):
        screen = run("selfattn", "-i", path, "--heads", "2", "--format", "table", "--lang", lang)
        assert screen.exit_code == 0 and said in screen.stdout  # fmt: skip
    unmasked = run("selfattn", "-i", path, "--heads", "2", "--no-causal", "--format", "table")
    assert "causal" not in unmasked.stdout.split("Head 1")[0]
    seeded = run("selfattn", "el tren va", "--causal", "--format", "table").stdout
    assert "· causal mask\n" in seeded and "GPT-2" not in seeded


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_a_layer_in_a_document_beside_weights_is_told_as_two_layers(run, tmp_path, suffix):
    """It was told the document's first name was 'not a field attn selfattn reads'."""
    layer = LAYERS["gpt2"]
    path = _written(tmp_path, _document("gpt2"), suffix)
    weights = str(REFERENCES / layer["file"])
    _one_line_error(
        run("selfattn", "-i", path, "--weights", weights, "--prefix", layer["prefix"],
            "--heads", str(layer["heads"])), InputError,
        "the input holds an attention layer of its own ({name}) and {source} gives one too; "
        "keep one: leave out {weights} or the layer's names in the input",
        source=weights, weights=("--weights FILE", {}),
    )  # fmt: skip
