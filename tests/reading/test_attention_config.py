"""A model's attention shape read from its config.json, a GGUF file's metadata and the table
of well-known models, held to what transformers' own cache kept after a forward pass
(tests/references/cost.json, made by tests/references/make_cost.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.core import attention_cost as cost
from attncli.errors import InputError
from attncli.reading.models.attention_config import gguf_config, read_shape, shape_of
from attncli.reading.models.known_attention import KNOWN, known_name
from attncli.reading.models.locate import NO_SUCH
from tests import tiny_gguf
from tests.meaning import WRONG, in_file, told

REFERENCES = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "cost.json").read_text()
)["models"]
CASES = [
    (name, index) for name, model in REFERENCES.items() for index in range(len(model["cases"]))
]
MISSING = "{path}: the field {name} is missing, and attn needs it to read the model"


@pytest.mark.parametrize(("name", "index"), CASES)
def test_the_cache_is_the_bytes_transformers_kept(name, index):
    model = REFERENCES[name]
    case = model["cases"][index]
    shape = shape_of(model["config"], name)
    kept = sum(layer["keys"]["bytes"] + layer["values"]["bytes"] for layer in case["layers"])
    numbers = cost.cache_numbers(shape, case["tokens"], case["batch"])
    assert cost.cache_bytes(numbers, case["dtype"]) == kept
    # layer by layer too: what each layer's tensors hold, in numbers
    for layer, (window, held) in enumerate(zip(shape.windows, case["layers"], strict=True)):
        stored = sum(_numbers(held[part]["shape"]) for part in ("keys", "values"))
        assert stored == case["batch"] * cost.per_token(shape) * cost.kept(window, case["tokens"])
        assert (held["kind"] == "DynamicSlidingWindowLayer") == (window is not None), layer


def _numbers(shape: list[int]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_the_parameters_are_the_self_attn_module_s(name):
    model = REFERENCES[name]
    shape = shape_of(model["config"], name)
    assert {sum(cost.parameters(shape).values())} == set(model["attention_parameters"])


@pytest.mark.parametrize("name", ["gemma2", "gemma3", "gpt_oss"])
def test_the_layers_that_slide_follow_the_family_s_rule_without_layer_types(name):
    """Published Gemma 2 and Gemma 3 configs have no layer_types: the family's rule gives
    the ones transformers made (Gemma 3's from sliding_window_pattern)."""
    model = REFERENCES[name]
    config = {k: v for k, v in model["config"].items() if k != "layer_types"}
    shape = shape_of(config, name)
    slides = ["sliding_attention" if w is not None else "full_attention" for w in shape.windows]
    assert slides == model["layer_types"]
    assert len(set(slides)) == 2  # it can fail: both kinds are there


def test_mla_keeps_the_latent_and_the_rotary_key():
    """transformers 5 keeps DeepSeek's c_KV (kv_lora_rank) and k^R (qk_rope_head_dim), one
    'head' each, not the keys and values of the 4 heads."""
    model = REFERENCES["deepseek_v3"]
    shape = shape_of(model["config"], "deepseek_v3")
    layer = model["cases"][0]["layers"][0]
    assert layer["keys"]["shape"][1:] == [1, 2, model["config"]["kv_lora_rank"]]
    assert layer["values"]["shape"][-1] == model["config"]["qk_rope_head_dim"]
    assert cost.per_token(shape) == 6 + 4
    assert cost.expanded_per_token(shape) == 4 * (12 + 10)


def test_a_missing_key_is_named():
    config = {k: v for k, v in REFERENCES["llama"]["config"].items() if k != "hidden_size"}
    with pytest.raises(InputError) as caught:
        shape_of(config, "c.json")
    told(caught.value, InputError, MISSING, name="hidden_size", path="c.json")
    config = {k: v for k, v in REFERENCES["deepseek_v3"]["config"].items()
              if k != "qk_rope_head_dim"}  # fmt: skip
    with pytest.raises(InputError) as caught:
        shape_of(config, "c.json")
    told(caught.value, InputError, MISSING, name="qk_rope_head_dim")
    config = {**REFERENCES["gpt_oss"]["config"], "sliding_window": None}
    with pytest.raises(InputError) as caught:
        shape_of(config, "c.json")
    told(caught.value, InputError, MISSING, name="sliding_window")


@pytest.mark.parametrize(
    ("change", "msgid", "fields"),
    [
        ({"num_key_value_heads": 3}, WRONG,
         {"where": in_file("c.json", "num_key_value_heads"), "kind": "3", "expected": (
             "a number that divides {name} {width}", {"name": "num_attention_heads",
                                                      "width": 4})}),
        ({"num_hidden_layers": 0}, WRONG,
         {"where": in_file("c.json", "num_hidden_layers"),
          "expected": ("a positive whole number", {})}),
        ({"head_dim": -8}, WRONG,
         {"where": in_file("c.json", "head_dim"), "expected": ("a positive whole number", {})}),
        ({"model_type": "bert"}, "{path}: {model_type} is an encoder: it reads every token at "
         "once and keeps no KV cache; attn cost counts decoders (GPT-2, Llama, Mistral, Gemma, "
         "DeepSeek, gpt-oss, …)", {"model_type": "bert"}),
        ({"model_type": "mamba"}, WRONG,
         {"where": in_file("c.json", "model_type"), "kind": '"mamba"'}),
        ({"attention_bias": "yes"}, WRONG,
         {"where": in_file("c.json", "attention_bias"), "expected": ("{choices} or {last}",
                                                 {"choices": "true", "last": "false"})}),
    ],
)  # fmt: skip
def test_sizes_that_make_no_sense_are_refused(change, msgid, fields):
    with pytest.raises(InputError) as caught:
        shape_of({**REFERENCES["llama"]["config"], **change}, "c.json")
    told(caught.value, InputError, msgid, **fields)


def test_layer_types_of_another_kind_are_refused():
    config = {**REFERENCES["gpt_oss"]["config"], "layer_types": ["chunked_attention"] * 4}
    with pytest.raises(InputError) as caught:
        shape_of(config, "c.json")
    told(caught.value, InputError, WRONG, where=in_file("c.json", "layer_types"),
         expected=("one of full_attention and sliding_attention per layer ({layers})",
                   {"layers": 4}))  # fmt: skip


def test_every_known_model_reads_and_names_its_source():
    for name, entry in KNOWN.items():
        shape = shape_of(entry["config"], name)
        assert entry["source"].startswith("https://huggingface.co/")
        assert entry["also"] and entry["also"] != entry["source"]  # a second source
        assert shape.layers == entry["config"]["num_hidden_layers"]
    assert known_name("meta-llama/Llama-3.1-70B-Instruct") == "llama-3.1-70b"
    assert known_name("Meta-Llama-3.1-8B") == "llama-3.1-8b"
    assert known_name("google/gemma-2-9b-it") == "gemma-2-9b"
    assert known_name("llama-3.1-7b") is None


def test_the_known_models_shapes():
    """The published figures a reader can check: Llama 3.1 70B keeps 320 KiB a token in
    bfloat16 (2 · 80 · 8 · 128 · 2 bytes), DeepSeek-V3 576 numbers a token and layer, Gemma 3
    27B 52 of its 62 layers sliding, gpt-oss-120b 18 of 36, with 64 sinks a layer."""
    llama = read_shape("llama-3.1-70b")[0]
    assert cost.cache_bytes(cost.cache_numbers(llama, 1), "bfloat16") == 320 * 1024
    deepseek = read_shape("deepseek-v3")[0]
    assert deepseek.design == "mla" and cost.per_token(deepseek) == 512 + 64
    gemma = read_shape("gemma-3-27b")[0]
    assert sum(w is not None for w in gemma.windows) == 52 and set(gemma.windows) == {1024, None}
    oss = read_shape("gpt-oss-120b")[0]
    assert sum(w is not None for w in oss.windows) == 18 and cost.parameters(oss)["sinks"] == 64
    qwen = read_shape("qwen2.5-7b")[0]
    assert set(qwen.windows) == {None} and qwen.biases == ("q", "k", "v")


def test_a_folder_a_config_and_a_gguf_file(tmp_path):
    folder = Path(__file__).resolve().parent.parent / "models" / "tiny-mistral"
    shape, source, _config = read_shape(str(folder))
    assert source.endswith("config.json") and shape.windows == (4, 4)
    assert read_shape(str(folder / "config.json"))[0] == shape
    path = tiny_gguf.write_gguf(tmp_path / "tiny.gguf")
    config = gguf_config(str(path))
    assert config["num_key_value_heads"] == tiny_gguf.KV_HEADS
    gguf_shape, source, _config = read_shape(str(path))
    assert source == str(path)
    assert (gguf_shape.layers, gguf_shape.d_model) == (tiny_gguf.LAYERS, tiny_gguf.WIDTH)
    assert (gguf_shape.kv_heads, gguf_shape.d_k) == (tiny_gguf.KV_HEADS, tiny_gguf.HEAD_DIM)
    # nothing was converted: the user's cache has no folder for it
    assert not list(tmp_path.glob("**/*.safetensors"))


def test_a_name_nowhere_is_refused():
    with pytest.raises(InputError) as caught:
        read_shape("no-such-model-anywhere-1b")
    assert caught.value.msgid.startswith("model {name!r} is not on this machine")
    with pytest.raises(InputError) as caught:
        read_shape("./no/such/folder")
    told(caught.value, InputError, NO_SUCH, path="./no/such/folder")


def test_a_gguf_file_of_an_architecture_attn_does_not_run(tmp_path):
    """DeepSeek's GGUF metadata (llama.cpp's deepseek2 keys), a file of metadata alone:
    attn cost reads its latent's sizes without a tensor."""
    import gguf

    path = tmp_path / "deepseek.gguf"
    writer = gguf.GGUFWriter(str(path), "deepseek2")
    for key, value in {"block_count": 61, "embedding_length": 7168,
                       "attention.head_count": 128, "attention.head_count_kv": 128,
                       "attention.key_length": 192, "attention.value_length": 128,
                       "attention.kv_lora_rank": 512, "attention.q_lora_rank": 1536,
                       "rope.dimension_count": 64}.items():  # fmt: skip
        writer.add_uint32(f"deepseek2.{key}", value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    shape = read_shape(str(path))[0]
    assert shape == read_shape("deepseek-v3")[0]


def _kv_heads_per_layer(path: Path, counts: list[int]) -> Path:
    """A GGUF file of metadata alone whose key/value heads are a count per layer."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    for key, value in {"block_count": len(counts), "embedding_length": 256,
                       "attention.head_count": 8}.items():  # fmt: skip
        writer.add_uint32(f"llama.{key}", value)
    writer.add_array("llama.attention.head_count_kv", counts)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_key_value_heads_per_layer_are_read_when_each_layer_has_the_same(tmp_path):
    path = _kv_heads_per_layer(tmp_path / "same.gguf", [2, 2, 2])
    assert gguf_config(str(path))["num_key_value_heads"] == 2
    path = _kv_heads_per_layer(tmp_path / "differ.gguf", [2, 2, 4])
    with pytest.raises(InputError) as caught:
        gguf_config(str(path))
    told(caught.value, InputError, WRONG, kind="[2, 2, 4]",
         where=in_file(str(path), "llama.attention.head_count_kv"),
         expected=("the same count for every layer; attn cost reads one", {}))  # fmt: skip


def test_gpt2_s_attention_parameters_are_its_weights(tmp_path):
    """GPT-2's c_attn (W^Q, W^K, W^V and their biases) and c_proj: the tiny GPT-2 of
    tests/tiny_models.py, its tensors counted, against what attn cost says of its config."""
    from tests import tiny_models

    weights = tiny_models.write_gpt2(tmp_path)
    shape = read_shape(str(tmp_path))[0]
    held = sum(w.size for name, w in weights.items() if ".h.0.attn." in f".{name}")
    assert held > 0 and sum(cost.parameters(shape).values()) == held
    assert shape.design == "mha" and shape.biases == ("q", "k", "v", "o")


def test_the_model_on_this_machine_before_the_table(tmp_path, monkeypatch):
    """A name the table has, found in the Hugging Face cache too: the machine's own
    config.json is read (here an edited one, of 2 layers)."""
    snapshot = tmp_path / "models--meta-llama--Llama-3.1-8B" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("abc")
    config = {**KNOWN["llama-3.1-8b"]["config"], "num_hidden_layers": 2}
    (snapshot / "config.json").write_text(json.dumps(config))
    (snapshot / "model.safetensors").write_bytes(b"")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    shape, source, _config = read_shape("Llama-3.1-8B")
    assert shape.layers == 2 and source == str(snapshot / "config.json")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    assert read_shape("Llama-3.1-8B")[0].layers == 32


MODELS = Path(__file__).resolve().parent.parent / "models"


@pytest.mark.parametrize("folder", sorted(p.name for p in MODELS.iterdir() if p.is_dir()))
def test_the_parameters_are_each_tiny_checkpoint_s_attention_tensors(folder):
    """Every checkpoint of tests/models (Llama, Mistral, Qwen2 and 3, Gemma 1 to 3, OLMo 2,
    gpt-oss, DeepSeek-V3): its first layer's self_attn tensors, counted from the
    safetensors header alone, against what attn cost says of its config.json."""
    from safetensors import safe_open

    held = 0
    for path in (MODELS / folder).glob("*.safetensors"):
        with safe_open(str(path), "np") as tensors:
            for name in tensors.keys():  # noqa: SIM118 (safe_open is not a dict)
                if ".layers.0.self_attn." in name:
                    count = 1
                    for size in tensors.get_slice(name).get_shape():
                        count *= size
                    held += count
    shape = read_shape(str(MODELS / folder))[0]
    assert held > 0 and sum(cost.parameters(shape).values()) == held


S, F = 8, None  # a sliding layer's window (sliding_window 8 below), a full layer's
# Each family's layers as transformers 5.25's configs and attention modules build them
# (MistralConfig, Gemma3TextConfig, GptOssConfig, …): Mistral's default window is 4096 and
# its layer_types is not read; Gemma 3's pattern is sliding_window_pattern, never the
# _sliding_window_pattern some saved configs carry; Llama has no window whatever the config.
WINDOWS = [
    ("mistral", {}, (4096,) * 4),
    ("mistral", {"sliding_window": None}, (F,) * 4),
    ("mistral", {"sliding_window": S, "layer_types": ["full_attention"] * 4}, (S,) * 4),
    ("llama", {"sliding_window": S}, (F,) * 4),
    ("qwen2", {"sliding_window": S}, (F,) * 4),
    ("qwen2", {"sliding_window": S, "use_sliding_window": True, "max_window_layers": 2},
     (F, F, S, S)),
    ("gemma2", {}, (4096, F) * 2),
    ("gpt_oss", {}, (128, F) * 2),
    ("gemma3_text", {"sliding_window": S, "_sliding_window_pattern": 2}, (S,) * 4),
    ("gemma3_text", {"sliding_window": S, "sliding_window_pattern": 2}, (S, F) * 2),
]  # fmt: skip


@pytest.mark.parametrize(("model_type", "fields", "windows"), WINDOWS)
def test_attn_cost_and_the_model_loader_read_one_rule_of_windows(model_type, fields, windows):
    """attn cost counts the windows --model runs with: one function reads both."""
    from attncli.reading.models.decoder_config import layer_windows

    config = {"model_type": model_type, "num_hidden_layers": 4, "hidden_size": 16,
              "num_attention_heads": 2, **fields}  # fmt: skip
    assert shape_of(config, "c.json").windows == windows
    # the loader keeps "no layer slides" as an empty tuple
    no_window = all(window is None for window in windows)
    assert layer_windows(config, "c.json", model_type, 4) == (() if no_window else windows)


@pytest.mark.parametrize(
    ("model_type", "fields", "biased"),
    [("gpt_oss", {}, ("q", "k", "v", "o")), ("gpt_oss", {"attention_bias": False}, ()),
     ("mistral", {"attention_bias": True}, ()), ("llama", {"attention_bias": True},
     ("q", "k", "v", "o")), ("qwen2", {}, ("q", "k", "v")), ("gpt2", {}, ("q", "k", "v", "o"))],
)  # fmt: skip
def test_the_biases_attn_cost_counts_are_the_ones_transformers_builds(model_type, fields, biased):
    """gpt-oss' attention_bias is true when config.json leaves it out (GptOssConfig);
    Mistral's attention has no bias whatever the config says."""
    config = {"model_type": model_type, "num_hidden_layers": 2, "hidden_size": 16,
              "num_attention_heads": 2, **fields}  # fmt: skip
    assert shape_of(config, "c.json").biases == biased


def test_a_null_window_in_layers_that_slide_is_refused_by_the_loader_too(tmp_path):
    """A Gemma 2 config whose sliding_window is null names no window: --model refuses it as
    attn cost does, where it used to run with transformers' default of 4096."""
    from attncli.reading.models.decoder_config import layer_windows

    config = {"model_type": "gemma2", "sliding_window": None}
    with pytest.raises(InputError) as caught:
        layer_windows(config, "c.json", "gemma2", 4)
    told(caught.value, InputError, MISSING, name="sliding_window", path="c.json")
