"""A GGUF file read as a model folder: its metadata as config.json, and every way a file can
be wrong refused in one line, before anything is dequantized (reading/models/gguf_file.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli import limits
from attncli.errors import InputError, ShapeError
from attncli.reading.models import gguf_file
from attncli.reading.models.checkpoint import MISSING_PART
from attncli.reading.models.gguf_file import config_of, open_gguf
from attncli.reading.models.model import load_model
from tests import tiny_gguf
from tests.meaning import WRONG, in_file, told


def test_the_metadata_becomes_the_config_attn_reads(tiny_ggufs):
    config = config_of(open_gguf(str(tiny_ggufs["tiny-llama"])))
    assert (config["model_type"], config["hidden_size"], config["num_hidden_layers"]) == (
        "llama", tiny_gguf.WIDTH, tiny_gguf.LAYERS)  # fmt: skip
    assert (config["num_attention_heads"], config["num_key_value_heads"]) == (4, 2)
    assert config["head_dim"] == 64 and config["intermediate_size"] == tiny_gguf.FFN
    assert config["rope_parameters"] == {"rope_type": "default", "rope_theta": 10000.0}
    assert config["tie_word_embeddings"] is False  # it has output.weight
    qwen2 = config_of(open_gguf(str(tiny_ggufs["tiny-qwen2"])))
    assert qwen2["model_type"] == "qwen2" and qwen2["tie_word_embeddings"] is True
    assert qwen2["rope_parameters"]["rope_theta"] == 1e6


def test_the_model_reads_as_any_model_folder(tiny_ggufs):
    model = load_model(str(tiny_ggufs["tiny-qwen2"]))
    arch = model.architecture
    assert (arch.family, arch.kv_heads, arch.biases, arch.tied) == ("qwen2", 2, ("q", "k", "v"),
                                                                   True)  # fmt: skip
    assert model.name == str(tiny_ggufs["tiny-qwen2"])
    assert json.loads((Path(model.folder) / "config.json").read_text())["gguf"]["architecture"] \
        == "qwen2"  # fmt: skip


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, gguf_file.NOT_GGUF, path=str(path))


@pytest.mark.parametrize("keep", [6, 10, 24, 200, 40_000, 300_000, -1000])
def test_a_truncated_file_is_refused(tiny_ggufs, tmp_path, keep):
    data = tiny_ggufs["tiny-llama"].read_bytes()
    path = tmp_path / "cut.gguf"
    path.write_bytes(data[:keep])
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, gguf_file.TRUNCATED, path=str(path))
    reason = caught.value.fields["reason"]
    # its size said (the gguf package's read of it), not numpy's words for a short read
    assert reason.msgid == gguf_file.ENDS_EARLY and reason.fields["size"] == len(data[:keep])


def test_a_version_it_does_not_read_is_refused(tiny_ggufs, tmp_path):
    data = bytearray(tiny_ggufs["tiny-llama"].read_bytes())
    data[4:8] = (1).to_bytes(4, "little")
    path = tmp_path / "old.gguf"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG,
         where=in_file(str(path), (gguf_file.GGUF_VERSION, {})), kind="1",
         expected=(gguf_file.VERSION, {"versions": "2, 3"}))  # fmt: skip


def test_a_type_number_the_gguf_package_does_not_know_is_refused(tiny_ggufs, tmp_path):
    source = tiny_ggufs["tiny-llama"]
    path = tiny_gguf.with_type(source, tmp_path / "x.gguf", "blk.0.attn_q.weight", 250)
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG, kind="250",
         where=in_file(str(path), (gguf_file.TENSOR_TYPE, {"name": "blk.0.attn_q.weight"})),
         expected=(gguf_file.UNKNOWN_TYPE, {"types": ", ".join(gguf_file.TYPES)}))  # fmt: skip


def test_a_known_type_attn_does_not_dequantize_is_refused_by_name(tiny_ggufs, tmp_path):
    import gguf

    # Q4_K's blocks of 256 read as Q2_K's (smaller): the file still holds them
    number = int(gguf.GGMLQuantizationType.Q2_K)
    path = tiny_gguf.with_type(tiny_ggufs["tiny-llama"], tmp_path / "q2.gguf",
                               "blk.0.ffn_gate.weight", number)  # fmt: skip
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG, kind='"Q2_K"',
         where=in_file(str(path), (gguf_file.TENSOR_TYPE, {"name": "blk.0.ffn_gate.weight"})),
         expected=(gguf_file.UNSUPPORTED_TYPE, {"types": ", ".join(gguf_file.TYPES)}))  # fmt: skip


def test_an_architecture_attn_does_not_run_is_refused_naming_those_it_runs(tmp_path):
    path = tiny_gguf.other_architecture(tmp_path / "phi.gguf")
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG, where=in_file(str(path), "general.architecture"),
         kind='"phi3"',
         expected=(gguf_file.ARCHITECTURE, {"supported": "llama, qwen2, gemma3"}))  # fmt: skip


def test_metadata_that_contradicts_a_tensor_is_refused_before_reading_it(tmp_path, monkeypatch):
    import gguf

    path = tiny_gguf.write_gguf(tmp_path / "lie.gguf", claimed_kv_heads=4)

    def never(*args, **kwargs):
        raise AssertionError("dequantized")

    monkeypatch.setattr(gguf.quants, "dequantize", never)
    with pytest.raises(ShapeError) as caught:
        load_model(str(path))
    told(caught.value, ShapeError, WRONG,
         where=("{path}: tensor {name}", {"path": str(path), "name": "blk.0.attn_k.weight"}),
         kind="128 × 256", expected=(gguf_file.SHAPE, {
             "expected": "256 × 256", "meaning": ("the metadata's sizes", {})}))  # fmt: skip


def test_a_model_too_large_for_the_memory_free_is_refused_before_dequantizing(
    tiny_ggufs, monkeypatch, tmp_path
):
    import gguf

    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path))

    def never(*args, **kwargs):
        raise AssertionError("dequantized")

    monkeypatch.setattr(gguf.quants, "dequantize", never)
    monkeypatch.setattr(limits, "available_memory", lambda: 1000)
    with pytest.raises(InputError) as caught:
        load_model(str(tiny_ggufs["tiny-llama"]))
    assert caught.value.msgid == limits.MEMORY_REFUSED
    assert list(tmp_path.iterdir()) == [] or all(p.name.startswith(".") is False
                                                  for p in tmp_path.iterdir())  # fmt: skip


def _rewritten(tmp_path: Path, drop: str = "", add: str = "", **metadata: object) -> Path:
    """The tiny Llama's file written again without the tensor `drop`, with a tensor `add`
    of 32 ones, or with other `metadata` values."""
    import gguf
    import numpy as np

    source = tiny_gguf.write_gguf(tmp_path / "a.gguf")
    reader = gguf.GGUFReader(str(source))
    path = tmp_path / "rewritten.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = metadata.get(field.name, field.contents())
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    for tensor in reader.tensors:
        if tensor.name != drop:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    if add:
        writer.add_tensor(add, np.ones(32, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_tensor_attn_does_not_read_is_refused_not_left_out(tmp_path):
    with pytest.raises(InputError) as caught:
        load_model(str(_rewritten(tmp_path, add="altup_proj.weight")))
    told(caught.value, InputError, gguf_file.NOT_A_WEIGHT, name="altup_proj.weight",
         hint=("attn reads a {arch} model's own tensors only", {"arch": "llama"}))  # fmt: skip


def test_a_tensor_of_a_layer_past_the_block_count_is_refused(tmp_path):
    path = _rewritten(tmp_path, **{"llama.block_count": tiny_gguf.LAYERS - 1})
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    last = tiny_gguf.LAYERS - 1
    told(caught.value, InputError, gguf_file.NOT_A_WEIGHT, name=f"blk.{last}.attn_norm.weight",
         hint=("it is of layer {number}, and {key} says {layers} layers (0 … {last})",
               {"number": last, "key": "llama.block_count", "layers": last,
                "last": last - 1}))  # fmt: skip


def test_a_file_without_a_weight_is_not_a_whole_model(tmp_path):
    path = _rewritten(tmp_path, drop="blk.1.ffn_up.weight")
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(
        caught.value,
        InputError,
        MISSING_PART,
        name="blk.1.ffn_up.weight",
        needs=(
            gguf_file.WHOLE_FILE,
            {"arch": "llama", "layers": tiny_gguf.LAYERS, "path": str(path)},
        ),
    )


def test_metadata_text_that_is_not_utf8_is_refused_naming_its_key(tiny_ggufs, tmp_path):
    path = tiny_gguf.broken("not UTF-8", tiny_ggufs["tiny-llama"], tmp_path)
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, gguf_file.TRUNCATED, path=str(path))
    assert caught.value.fields["reason"].fields["key"] == "tokenizer.ggml.pre"


def test_attn_and_attn_cost_read_the_metadata_by_one_table(tiny_ggufs):
    from attncli.reading.models.attention_config import gguf_config

    for name in ("tiny-llama", "tiny-qwen2"):
        path = str(tiny_ggufs[name])
        run, cost = config_of(open_gguf(path)), gguf_config(path)
        shared = set(run) & set(cost) & set(gguf_file.CONFIG_KEYS)
        assert {"num_hidden_layers", "hidden_size", "num_key_value_heads"} <= shared
        assert {field: run[field] for field in shared} == {field: cost[field] for field in shared}
