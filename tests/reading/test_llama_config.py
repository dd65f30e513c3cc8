"""A Llama-family config.json or checkpoint attn would misread is refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attncli.errors import InputError, ShapeError
from attncli.reading.models import files
from attncli.reading.models.checkpoint import MISSING_PART
from attncli.reading.models.model import load_model
from attncli.reading.models.rope_config import NOT_COMPUTED, PARTIAL
from tests.meaning import WRONG, in_file, told

MODELS = Path(__file__).resolve().parent.parent / "models"


def _folder(tmp_path: Path, name: str = "tiny-llama", **fields) -> Path:
    folder = tmp_path / name
    shutil.copytree(MODELS / name, folder)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(fields)
    path.write_text(json.dumps(config))
    return folder


def _refused(folder: Path, kind: type = InputError):
    with pytest.raises(kind) as caught:
        load_model(str(folder))
    error = caught.value
    for language in ("en", "es"):
        line = error.message(language)
        assert line and "\n" not in line and "{path}" not in line
    return error


def _config_field(folder: Path, field: str) -> tuple[str, dict[str, str]]:
    """A field of the folder's config.json, where a refusal of its value points."""
    return in_file(str(folder / "config.json"), field)


def test_a_rope_type_attn_does_not_compute_is_refused(tmp_path):
    other = {"rope_type": "proportional", "rope_theta": 10000.0, "factor": 4.0}
    folder = _folder(tmp_path, rope_parameters=other)
    told(_refused(folder), InputError, WRONG, kind='"proportional"',
         where=_config_field(folder, "rope_parameters.rope_type"))  # fmt: skip
    assert _refused(folder).fields["expected"].msgid == NOT_COMPUTED


def test_an_old_rope_scaling_of_another_type_is_refused_too(tmp_path):
    old = {"type": "su", "factor": 2.0}
    folder = _folder(tmp_path, rope_parameters=None, rope_theta=1e4, rope_scaling=old)
    told(_refused(folder), InputError, WRONG, kind='"su"',
         where=_config_field(folder, "rope_scaling.type"))  # fmt: skip


def test_rope_parameters_per_layer_type_are_refused(tmp_path):
    nested = {"full_attention": {"rope_type": "default", "rope_theta": 1e6}}
    folder = _folder(tmp_path, rope_parameters=nested)
    error = _refused(folder)
    told(error, InputError, WRONG, where=_config_field(folder, "rope_parameters"),
         expected=("one set of rotary settings, an object such as {example}",
                   {"example": '{"rope_type": "default", "rope_theta": 10000.0}'}))  # fmt: skip
    assert "full_attention" in error.fields["kind"]


def test_a_partial_rotary_factor_is_refused(tmp_path):
    folder = _folder(tmp_path, "tiny-qwen2", partial_rotary_factor=0.5)
    told(_refused(folder), InputError, WRONG, kind="0.5",
         where=_config_field(folder, "partial_rotary_factor"),
         expected=(PARTIAL, {"whole": "1"}))  # fmt: skip


def test_llama3_scaling_without_its_band_is_refused(tmp_path):
    rope = {"rope_type": "llama3", "rope_theta": 1e4, "factor": 8.0, "low_freq_factor": 4.0,
            "high_freq_factor": 1.0, "original_max_position_embeddings": 40}  # fmt: skip
    folder = _folder(tmp_path, rope_parameters=rope)
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "high_freq_factor"),
         kind="1.0", expected=("a number above low_freq_factor {low}: llama3 scaling blends the "
                               "frequencies between the two", {"low": 4.0}))  # fmt: skip
    del rope["factor"]
    error = _refused(_folder(tmp_path / "b", rope_parameters=rope))
    assert error.fields["name"] == "factor"


def test_key_value_heads_that_do_not_divide_the_heads_are_refused(tmp_path):
    folder = _folder(tmp_path, num_key_value_heads=3)
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "num_key_value_heads"),
         kind="3", expected=("a number that divides {name} {width}",
                             {"name": "num_attention_heads", "width": 4}))  # fmt: skip


def test_an_odd_head_dim_is_refused(tmp_path):
    folder = _folder(tmp_path, head_dim=7)
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "head_dim"), kind="7",
         expected=("an even number: rotary positions turn coordinates in pairs", {}))  # fmt: skip


FAMILIES = json.loads((MODELS.parent / "references" / "cost.json").read_text())["models"]


@pytest.mark.parametrize(
    ("family", "change", "name", "expected"),
    [
        ("deepseek_v3", {"num_key_value_heads": 1}, "num_key_value_heads",
         ("num_attention_heads {heads}: latent attention reads a key and a value per head "
          "from its latent", {"heads": 4})),
        ("gpt_oss", {"num_experts_per_tok": 99}, "num_experts_per_tok",
         ("at most num_local_experts {experts}: a token takes some of the experts",
          {"experts": 4})),
    ],
)  # fmt: skip
def test_a_familys_count_it_cannot_hold_is_refused_as_its_field(family, change, name, expected):
    from attncli.reading.models.decoder_config import llama_architecture

    config = {**FAMILIES[family]["config"], **change}
    config.pop("quantization_config", None)
    with pytest.raises(InputError) as caught:
        llama_architecture(config, "c.json", family)
    told(caught.value, InputError, WRONG, where=in_file("c.json", name),
         kind=str(change[name]), expected=expected)  # fmt: skip


def test_a_head_dim_other_than_the_weights_is_named(tmp_path):
    model = load_model(str(_folder(tmp_path, head_dim=4)))
    with pytest.raises(ShapeError) as caught:  # a layer is read when it is reached
        model.network.blocks[0]
    told(caught.value, ShapeError, WRONG, where="model.layers.0.self_attn.q_proj.weight")


@pytest.mark.parametrize(
    "sizes", [{"head_dim": 10**9}, {"num_attention_heads": 10**9, "num_key_value_heads": 10**9}]
)
def test_config_sizes_the_weights_do_not_have_are_named_not_blamed_on_the_sentence(tmp_path, sizes):
    """head_dim 10^9 was told 'a sentence of 3 tokens would need about 1536.0 GB; lower the
    number of tokens', which no sentence could do: the weights' own shapes say what is
    wrong."""
    import attncli as attn

    folder = _folder(tmp_path, **sizes)
    with pytest.raises(ShapeError) as caught:
        attn.selfattn("the keys", model=str(folder))
    told(caught.value, ShapeError, WRONG, where="model.layers.0.self_attn.q_proj.weight")


def test_a_tie_word_embeddings_that_is_no_boolean_is_refused(tmp_path):
    folder = _folder(tmp_path, tie_word_embeddings="yes")
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "tie_word_embeddings"))


def test_layer_types_of_another_length_are_refused(tmp_path):
    folder = _folder(tmp_path, "tiny-qwen2", use_sliding_window=True,
                     layer_types=["full_attention"])  # fmt: skip
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "layer_types"),
         kind='["full_attention"]',
         expected=("one of full_attention and sliding_attention per layer ({layers})",
                   {"layers": 2}))  # fmt: skip


def test_another_activation_is_refused(tmp_path):
    folder = _folder(tmp_path, "tiny-mistral", hidden_act="gelu")
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "hidden_act"))


def test_a_missing_bias_is_refused_never_taken_for_zeros(tmp_path):
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = _folder(tmp_path, "tiny-qwen2")
    tensors = open_tensors(str(folder / "model.safetensors"))
    gone = "model.layers.1.self_attn.k_proj.bias"
    save_file({n: tensors[n] for n in tensors if n != gone}, str(folder / "model.safetensors"))
    model = load_model(str(folder))  # layers are read when the forward pass reaches them
    with pytest.raises(InputError) as caught:
        model.network.blocks[1]
    assert caught.value.fields["name"] == gone


def test_an_lm_head_of_another_shape_is_named(tmp_path):
    import numpy as np
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = _folder(tmp_path, "tiny-mistral")
    tensors = {n: v for n, v in open_tensors(str(folder / "model.safetensors")).items()}
    tensors["lm_head.weight"] = np.zeros((10, 32), np.float32)
    save_file(tensors, str(folder / "model.safetensors"))
    told(_refused(folder, ShapeError), ShapeError, WRONG, where="lm_head.weight")


def test_a_gemma_read_both_ways_is_refused(tmp_path):
    folder = _folder(tmp_path, "tiny-gemma", use_bidirectional_attention=True)
    told(_refused(folder), InputError, WRONG, kind="true",
         where=_config_field(folder, "use_bidirectional_attention"))  # fmt: skip


def test_gemmas_legacy_gelu_is_the_tanh_form_transformers_reads(tmp_path):
    model = load_model(str(_folder(tmp_path, "tiny-gemma", hidden_act="gelu")))
    assert model.architecture.activation == "gelu_pytorch_tanh"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["rope_theta", "factor"])
def test_a_nan_or_infinity_in_the_rotary_settings_is_refused_as_written(tmp_path, literal, field):
    folder = _folder(tmp_path)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config["rope_parameters"][field] = "LITERAL"  # JSON's NaN is written by hand below
    path.write_text(json.dumps(config).replace('"LITERAL"', literal))
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, field), kind=literal)


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [("tiny-qwen2", "use_sliding_window", 1), ("tiny-qwen2", "use_sliding_window", "yes"),
     ("tiny-llama", "attention_bias", 1), ("tiny-llama", "tie_word_embeddings", "true")],
)  # fmt: skip
def test_a_flag_that_is_not_true_or_false_is_refused_never_read_as_false(
    tmp_path, name, field, value
):
    """transformers' typed configs refuse them; read as false they dropped the window or
    the q/k/v biases without a word."""
    folder = _folder(tmp_path, name, **{field: value})
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, field),
         kind=json.dumps(value),
         expected=("{choices} or {last}", {"choices": "true", "last": "false"}))  # fmt: skip


def test_a_null_head_dim_is_hidden_size_over_the_heads_as_in_transformers(tmp_path):
    model = load_model(str(_folder(tmp_path, head_dim=None)))
    assert model.architecture.head_dim == 32 // 4


def test_max_window_layers_0_slides_the_window_in_every_layer(tmp_path):
    folder = _folder(tmp_path, "tiny-qwen2", use_sliding_window=True, layer_types=None,
                     max_window_layers=0)  # fmt: skip
    assert load_model(str(folder)).architecture.windows == (4, 4)
    folder = _folder(tmp_path / "minus", "tiny-qwen2", use_sliding_window=True,
                     layer_types=None, max_window_layers=-1)  # fmt: skip
    told(_refused(folder), InputError, WRONG, where=_config_field(folder, "max_window_layers"))


def test_rope_parameters_and_rope_scaling_that_disagree_are_refused(tmp_path):
    llama3 = json.loads((MODELS / "tiny-llama" / "config.json").read_text())["rope_parameters"]
    same = {"rope_type": "llama3", "factor": 8.0}
    assert load_model(str(_folder(tmp_path / "same", rope_scaling=same, rope_theta=10000.0)))
    for older, name in (({"type": "linear", "factor": 8.0}, "rope_type"),
                        ({"rope_type": "llama3", "factor": 4.0}, "factor")):  # fmt: skip
        folder = _folder(tmp_path / name, rope_scaling=older)
        error = _refused(folder)
        told(error, InputError, WRONG, where=_config_field(folder, f"rope_parameters.{name}"))
        assert error.fields["expected"].fields["older"] == "rope_scaling"
    folder = _folder(tmp_path / "theta", rope_theta=500000.0)
    told(_refused(folder), InputError, WRONG, kind=json.dumps(llama3["rope_theta"]),
         where=_config_field(folder, "rope_parameters.rope_theta"),
         expected=("{other}, as {older} gives it: the two disagree, so the rotary angles "
                   "are not known; keep one", {"other": "500000.0",
                                               "older": "rope_theta"}))  # fmt: skip


def _with_head(tmp_path, head):
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = _folder(tmp_path, "tiny-llama", tie_word_embeddings=True)
    tensors = {n: v for n, v in open_tensors(str(folder / "model.safetensors")).items()}
    tensors["lm_head.weight"] = head(tensors["model.embed_tokens.weight"])
    save_file(tensors, str(folder / "model.safetensors"))
    return folder


def test_a_tied_head_beside_the_checkpoint_s_own_other_head_is_refused(tmp_path):
    error = _refused(_with_head(tmp_path / "other", lambda word: word + 1))
    assert error.fields["word"] == "model.embed_tokens.weight"
    model = load_model(str(_with_head(tmp_path / "same", lambda word: word.copy())))
    assert model.architecture.tied and model.network.head is None


def _sharded(tmp_path, twice):
    """tiny-llama in two shards, the word embeddings in both (`twice` makes the second)."""
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = _folder(tmp_path)
    tensors = {n: v for n, v in open_tensors(str(folder / "model.safetensors")).items()}
    (folder / "model.safetensors").unlink()
    names = sorted(tensors)
    word = "model.embed_tokens.weight"
    first = {n: tensors[n] for n in names[: len(names) // 2]} | {word: tensors[word]}
    second = {n: tensors[n] for n in names[len(names) // 2 :]} | {word: twice(tensors[word])}
    shards = {"model-00001-of-00002.safetensors": first,
              "model-00002-of-00002.safetensors": second}  # fmt: skip
    weight_map = {}
    for shard, held in shards.items():
        save_file(held, str(folder / shard))
        weight_map.update(dict.fromkeys(held, shard))
    index = {"metadata": {}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return folder


def test_a_tensor_in_two_shards_with_different_values_is_refused(tmp_path):
    error = _refused(_sharded(tmp_path / "other", lambda word: word * 2))
    assert error.fields["name"] == "model.embed_tokens.weight"
    assert load_model(str(_sharded(tmp_path / "same", lambda word: word.copy())))


def test_a_shard_that_is_a_link_to_another_is_named_with_what_it_lacks(tmp_path):
    """The second shard a link to the first: the index's tensors of the second are in no
    shard (it was told 'config.json asks for 2 layers and the checkpoint holds 1')."""
    folder = _sharded(tmp_path, lambda word: word.copy())
    second = folder / "model-00002-of-00002.safetensors"
    second.unlink()
    second.symlink_to("model-00001-of-00002.safetensors")
    error = _refused(folder)
    told(error, InputError, MISSING_PART, name="model.layers.0.self_attn.v_proj.weight",
         needs=(files.NAMED_TENSOR, {"index": str(folder / files.INDEX),
                                     "shard": str(second)}))  # fmt: skip


def test_a_shard_that_is_a_pipe_is_refused_not_waited_for(tmp_path):
    """A shard named in a folder of its own (sub/…) is beside no check of the folder's
    files: a FIFO there was told 'missing'."""
    import os

    folder = _sharded(tmp_path, lambda word: word.copy())
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    moved = {name: "sub/" + shard if shard.startswith("model-00002") else shard
             for name, shard in index["weight_map"].items()}  # fmt: skip
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": moved}))
    (folder / "sub").mkdir()
    os.mkfifo(folder / "sub" / "model-00002-of-00002.safetensors")
    error = _refused(folder)
    assert error.msgid.startswith("{path}: not a regular file")
    assert error.fields["path"] == str(folder / "sub" / "model-00002-of-00002.safetensors")
