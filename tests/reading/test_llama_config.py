"""A Llama-family config.json or checkpoint attn would misread is refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attncli.errors import InputError, ShapeError
from attncli.reading.models.model import load_model

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


def test_a_rope_type_attn_does_not_compute_is_refused(tmp_path):
    yarn = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0}
    error = _refused(_folder(tmp_path, rope_parameters=yarn))
    assert "rope_type" in error.msgid and error.fields["kind"] == '"yarn"'
    assert error.fields["field"] == "rope_parameters"


def test_an_old_rope_scaling_of_another_type_is_refused_too(tmp_path):
    old = {"type": "dynamic", "factor": 2.0}
    error = _refused(_folder(tmp_path, rope_parameters=None, rope_theta=1e4, rope_scaling=old))
    assert error.fields["kind"] == '"dynamic"' and error.fields["field"] == "rope_scaling"


def test_rope_parameters_per_layer_type_are_refused(tmp_path):
    nested = {"full_attention": {"rope_type": "default", "rope_theta": 1e6}}
    error = _refused(_folder(tmp_path, rope_parameters=nested))
    assert error.fields["field"] == "rope_parameters" and "full_attention" in error.fields["value"]


def test_a_partial_rotary_factor_is_refused(tmp_path):
    error = _refused(_folder(tmp_path, "tiny-qwen2", partial_rotary_factor=0.5))
    assert "partial_rotary_factor" in error.msgid and error.fields["value"] == "0.5"


def test_llama3_scaling_without_its_band_is_refused(tmp_path):
    rope = {"rope_type": "llama3", "rope_theta": 1e4, "factor": 8.0, "low_freq_factor": 4.0,
            "high_freq_factor": 1.0, "original_max_position_embeddings": 40}  # fmt: skip
    error = _refused(_folder(tmp_path, rope_parameters=rope))
    assert (error.fields["high"], error.fields["low"]) == (1.0, 4.0)
    del rope["factor"]
    error = _refused(_folder(tmp_path / "b", rope_parameters=rope))
    assert error.fields["name"] == "factor"


def test_key_value_heads_that_do_not_divide_the_heads_are_refused(tmp_path):
    error = _refused(_folder(tmp_path, num_key_value_heads=3))
    assert (error.fields["heads"], error.fields["kv_heads"]) == (4, 3)


def test_an_odd_head_dim_is_refused(tmp_path):
    error = _refused(_folder(tmp_path, head_dim=7))
    assert error.fields["head_dim"] == 7


def test_a_head_dim_other_than_the_weights_is_named(tmp_path):
    model = load_model(str(_folder(tmp_path, head_dim=4)))
    with pytest.raises(ShapeError) as caught:  # a layer is read when it is reached
        model.network.blocks[0]
    assert caught.value.fields["name"] == "model.layers.0.self_attn.q_proj.weight"


def test_a_tie_word_embeddings_that_is_no_boolean_is_refused(tmp_path):
    error = _refused(_folder(tmp_path, tie_word_embeddings="yes"))
    assert error.fields["name"] == "tie_word_embeddings"


def test_layer_types_of_another_length_are_refused(tmp_path):
    error = _refused(
        _folder(tmp_path, "tiny-qwen2", use_sliding_window=True, layer_types=["full_attention"])
    )
    assert error.fields["layers"] == 2


def test_another_activation_is_refused(tmp_path):
    error = _refused(_folder(tmp_path, "tiny-mistral", hidden_act="gelu"))
    assert error.fields["name"] == "hidden_act"


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
    error = _refused(folder, ShapeError)
    assert error.fields["name"] == "lm_head.weight"


def test_a_gemma_read_both_ways_is_refused(tmp_path):
    error = _refused(_folder(tmp_path, "tiny-gemma", use_bidirectional_attention=True))
    assert error.fields["name"] == "use_bidirectional_attention"


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
    error = _refused(folder)
    assert error.fields["name"] == field and error.fields["value"] == literal
