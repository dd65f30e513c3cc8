"""The model loader's checks that several readers share, each refusal said one way wherever
it is found: a tensor the checkpoint lacks (checkpoint.needed), a tensor of another shape
(checkpoint.expect_shape), a whole number (config_fields.whole_number) in a config.json or a
GGUF file's metadata, the head size (config_fields.head_size) for the model loader and attn
cost, and config.json's object (config_fields.config_json) for both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import AttnError, InputError, ShapeError
from attncli.reading.models.attention_config import read_shape, shape_of
from attncli.reading.models.checkpoint import MISSING_PART
from attncli.reading.models.config_fields import BELOW, MISSING
from attncli.reading.models.model import load_model
from tests import tiny_gguf, tiny_models
from tests.cli.test_model_errors import _edit_weights, edit_config
from tests.meaning import A_LIST_NOT_FIELDS, WRONG, in_file, told

MODELS = Path(__file__).resolve().parent.parent / "models"
DIVIDES = ("a number that divides {name} {width}", {"name": "hidden_size", "width": 30})


def _refused(folder: Path) -> AttnError:
    """What loading the model in `folder` and reading its first layer raises, in one line
    in either language."""
    with pytest.raises(AttnError) as caught:
        load_model(str(folder)).network.blocks[0]  # noqa: B018 (a layer is read when asked)
    for lang in ("en", "es"):
        assert "\n" not in caught.value.message(lang)
    return caught.value


@pytest.fixture
def llama(tmp_path):
    folder = tmp_path / "llama"
    shutil.copytree(MODELS / "tiny-llama", folder)
    return folder


@pytest.mark.parametrize(
    ("kind", "ending", "name"),
    [("bert", "attention.self.query.bias", "encoder.layer.0.attention.self.query.bias"),
     ("gpt2", "h.0.attn.c_attn.bias", "transformer.h.0.attn.c_attn.bias"),
     ("bert", "intermediate.dense.bias", "encoder.layer.0.intermediate.dense.bias"),
     ("bert", "token_type_embeddings.weight", "embeddings.token_type_embeddings.weight")],
)  # fmt: skip
def test_a_part_the_checkpoint_lacks_is_named_as_the_file_would_name_it(
    tmp_path, kind, ending, name
):
    folder = tmp_path / kind
    tiny_models.WRITERS[kind](folder)
    _edit_weights(folder, ending, lambda array: None)
    told(_refused(folder), InputError, MISSING_PART, name=name)


def test_a_bias_the_config_asks_for_and_the_file_lacks_is_the_same_refusal(llama):
    edit_config(llama, attention_bias=True)
    told(_refused(llama), InputError, MISSING_PART, name="model.layers.0.self_attn.q_proj.bias")


def test_a_head_of_another_shape_than_the_embeddings_is_named_with_them():
    from attncli.reading.models.model import read_config
    from attncli.reading.models.weights import network
    from attncli.reading.parse.tensor_files import open_safetensors

    tensors = open_safetensors([str(MODELS / "tiny-llama" / "model.safetensors")])
    state = {name: tensors[name] for name in tensors}
    state["lm_head.weight"] = state["lm_head.weight"][:-1]
    with pytest.raises(ShapeError) as caught:
        network(state, read_config(str(MODELS / "tiny-llama"))[1])
    told(caught.value, ShapeError, WRONG, where="lm_head.weight", kind="395 × 32",
         expected=("{expected}, the shape of {word}",
                   {"expected": "396 × 32", "word": "model.embed_tokens.weight"}))  # fmt: skip


@pytest.mark.parametrize(
    ("value", "msgid", "expected"),
    [(-1, WRONG, (BELOW[0], {})), (True, WRONG, (BELOW[0], {})), (None, MISSING, None)],
)
def test_roberta_s_padding_id_is_read_as_any_whole_number(tmp_path, value, msgid, expected):
    folder = tmp_path / "roberta"
    tiny_models.WRITERS["roberta"](folder)
    config = json.loads((folder / "config.json").read_text())
    config["pad_token_id"] = value
    (folder / "config.json").write_text(json.dumps(config))
    at = in_file(str(folder / "config.json"), "pad_token_id")
    fields = {"expected": expected, "where": at} if expected else {"name": "pad_token_id"}
    told(_refused(folder), InputError, msgid, **fields)


def test_a_gguf_count_of_no_heads_is_refused_as_a_config_s_would_be(tmp_path):
    path = tiny_gguf.write_gguf(tmp_path / "none.gguf", claimed_kv_heads=0)
    with pytest.raises(InputError) as caught:
        load_model(str(path))
    told(caught.value, InputError, WRONG, where=in_file(str(path), "llama.attention.head_count_kv"),
         kind="0", expected=(BELOW[1], {}))  # fmt: skip


def test_a_head_size_that_does_not_divide_is_one_refusal_for_attn_cost_and_the_loader(llama):
    config = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 30,
              "num_attention_heads": 4}  # fmt: skip
    with pytest.raises(InputError) as caught:
        shape_of(config, "c.json")
    told(caught.value, InputError, WRONG, where=in_file("c.json", "num_attention_heads"),
         kind="4", expected=DIVIDES)  # fmt: skip
    edit_config(llama, hidden_size=30, head_dim=None)
    told(_refused(llama), InputError, WRONG, kind="4", expected=DIVIDES,
         where=in_file(str(llama / "config.json"), "num_attention_heads"))  # fmt: skip


def test_a_config_that_is_no_object_is_one_refusal_for_attn_cost_and_the_loader(llama):
    (llama / "config.json").write_text("[1, 2]")
    told(_refused(llama), InputError, WRONG, where=str(llama / "config.json"), **A_LIST_NOT_FIELDS)
    with pytest.raises(InputError) as caught:
        read_shape(str(llama))
    told(caught.value, InputError, WRONG, where=str(llama / "config.json"), **A_LIST_NOT_FIELDS)


class _Field:
    """A GGUF metadata field as the gguf package's reader gives one."""

    def __init__(self, name: str, value: object) -> None:
        self.name, self.value = name, value

    def contents(self) -> object:
        return self.value


def _gguf_metadata(**changes: object):
    """A GGUF file's metadata alone (a Llama of 4 heads of 8), as gguf_file reads it."""
    from types import SimpleNamespace

    from attncli.reading.models.gguf_file import GGUF

    values = {"llama.embedding_length": 32, "llama.attention.head_count": 4,
              "llama.feed_forward_length": 64, "llama.block_count": 2,
              "llama.context_length": 48, "llama.vocab_size": 10, **changes}  # fmt: skip
    fields = {key: _Field(key, value) for key, value in values.items()}
    return GGUF("m.gguf", SimpleNamespace(get_field=fields.get, fields=fields, tensors=[]), "llama")


@pytest.mark.parametrize(
    ("change", "msgid", "fields", "kind"),
    [({"llama.rope.dimension_count": 4}, "PARTIAL", {"whole": 8}, "4"),
     ({"llama.rope.scaling.type": "yarn"}, "NOT_COMPUTED", {"known": "none, linear"}, '"yarn"'),
     ({"llama.rope.freq_base": -1.0}, None, None, "-1.0"),
     ({"llama.rope.scaling.type": "linear", "llama.rope.scaling.factor": "x"}, None, None,
      '"x"'),
     ({"llama.attention.layer_norm_rms_epsilon": 0.0}, None, None, "0.0")],
)  # fmt: skip
def test_a_gguf_file_s_rotary_or_norm_settings_attn_does_not_read_name_its_keys(
    change, msgid, fields, kind
):
    """A rotary or norm setting refused at the conversion, naming the file's own key (never
    the config.json written from it)."""
    from attncli.reading.models import rope_config
    from attncli.reading.models.gguf_file import config_of

    assert config_of(_gguf_metadata())["head_dim"] == 8  # the stand-in reads whole
    with pytest.raises(InputError) as caught:
        config_of(_gguf_metadata(**change))
    why = {"expected": (getattr(rope_config, msgid), fields)} if msgid else {}
    told(caught.value, InputError, WRONG, where=in_file("m.gguf", list(change)[-1]), kind=kind,
         **why)  # fmt: skip


# what opening a file that is not there says (reading/parse/opening.reading)
NO_SUCH_FILE = "cannot read '{path}': no such file"


def test_a_gguf_file_or_part_the_system_cannot_read_is_said_as_any_input_file(tmp_path):
    from attncli.reading.models.gguf_cache import joined
    from attncli.reading.models.gguf_file import open_gguf

    with pytest.raises(InputError) as caught:
        open_gguf(str(tmp_path))  # a folder: the system will not read it as a file
    told(caught.value, InputError, "cannot read '{path}': it is a folder, not a file",
         path=str(tmp_path))  # fmt: skip
    with pytest.raises(InputError) as caught:
        open_gguf(str(tmp_path / "gone.gguf"))
    told(caught.value, InputError, NO_SUCH_FILE, path=str(tmp_path / "gone.gguf"))
    part = tmp_path / "gone.gguf.part01"
    (tmp_path / "gone.gguf.part00").write_bytes(b"GGUF")
    with pytest.raises(InputError) as caught:
        joined("gone.gguf", [str(tmp_path / "gone.gguf.part00"), str(part)])
    told(caught.value, InputError, NO_SUCH_FILE, path=str(part))


def test_a_missing_mlp_weight_is_named_as_a_layer_s_not_an_attention_s():
    from attncli.reading.models.model import read_config
    from attncli.reading.models.weights import network
    from attncli.reading.parse.tensor_files import open_safetensors

    tensors = open_safetensors([str(MODELS / "tiny-llama" / "model.safetensors")])
    state = {name: tensors[name] for name in tensors if "0.mlp.gate_proj" not in name}
    with pytest.raises(InputError) as caught:
        network(state, read_config(str(MODELS / "tiny-llama"))[1]).blocks[0]  # noqa: B018
    told(caught.value, InputError, MISSING_PART, name="model.layers.0.mlp.gate_proj.weight")
    assert caught.value.fields["needs"].fields["kind"] == "Llama-family"


def _layer_error(name: str, edit, **config: object) -> AttnError:
    """What reading layer 1 of the tiny checkpoint `name` raises once `edit` has changed
    its tensors (a dict of names to arrays) and `config` its config.json's fields."""
    from dataclasses import replace

    from attncli.reading.models.model import read_config
    from attncli.reading.models.weights import network
    from attncli.reading.parse.tensor_files import open_safetensors

    tensors = open_safetensors([str(MODELS / name / "model.safetensors")])
    state = {tensor: np.asarray(tensors[tensor]) for tensor in tensors}
    edit(state)
    architecture = replace(read_config(str(MODELS / name))[1], **config)
    with pytest.raises(AttnError) as caught:
        network(state, architecture).blocks[1]  # noqa: B018 (a layer is read when asked)
    return caught.value


def test_gpt_oss_router_of_another_width_is_said_as_any_table_s():
    def narrower(state):
        state["model.layers.1.mlp.router.weight"] = state["model.layers.1.mlp.router.weight"][:, 1:]

    told(_layer_error("tiny-gpt-oss", narrower), ShapeError, WRONG,
         where="model.layers.1.mlp.router.weight", kind="4 × 31",
         expected=("{expected} (the width config.json gives)",
                   {"expected": ("{width} columns", {"width": 32})}))  # fmt: skip


def test_a_deepseek_expert_of_another_size_is_named_against_expert_0():
    def smaller(state):
        for part in ("gate_proj", "up_proj"):
            name = f"model.layers.1.mlp.experts.3.{part}.weight"
            state[name] = state[name][:6]
        name = "model.layers.1.mlp.experts.3.down_proj.weight"
        state[name] = state[name][:, :6]

    told(_layer_error("tiny-deepseek-v3", smaller), ShapeError, WRONG,
         where="model.layers.1.mlp.experts.3.gate_proj.weight (as x @ W)", kind="32 × 6",
         expected=("{expected}, as expert 0's", {"expected": "32 × 8"}))  # fmt: skip


def test_a_latent_attention_bias_the_config_asks_for_is_needed():
    told(_layer_error("tiny-deepseek-v3", lambda state: None, biases=("q", "k", "o")),
         InputError, MISSING_PART, name="model.layers.1.self_attn.q_a_proj.bias")  # fmt: skip


def test_gpt_oss_gate_up_of_an_odd_or_wrong_width_is_said_as_any_table_s():
    """gate_up_proj holds the gate's and the up's columns side by side (an even number),
    on rows of config.json's width."""
    name = "model.layers.1.mlp.experts.gate_up_proj"
    for cut, shape in ((lambda array: array[:, :31], "4 × 31 × 32"),
                       (lambda array: array[..., :31], "4 × 32 × 31")):  # fmt: skip
        error = _layer_error("tiny-gpt-oss", lambda state, cut=cut: state.update(
            {name: cut(state[name])}))  # fmt: skip
        told(error, ShapeError, WRONG, where=name, kind=shape, expected="4 × 32 × 2F")


def test_a_checkpoint_without_the_family_s_embeddings_is_not_its_weights(tmp_path):
    from attncli.reading.models.checkpoint import MISSING_PART
    from attncli.reading.models.stored import checkpoint_root

    assert checkpoint_root(["bert.embeddings.word_embeddings.weight"], "bert") == "bert."
    with pytest.raises(InputError) as caught:
        checkpoint_root(["h.0.attn.c_attn.weight"], "gpt2")
    told(caught.value, InputError, MISSING_PART, name="wte.weight",
         needs=("a {family} model's checkpoint holds it, so these are not its weights",
                {"family": "gpt2"}))  # fmt: skip


def test_roberta_s_positions_leave_one_after_the_padding_offset(tmp_path):
    folder = tmp_path / "roberta"
    tiny_models.WRITERS["roberta"](folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(pad_token_id=1, max_position_embeddings=2)
    (folder / "config.json").write_text(json.dumps(config))
    told(_refused(folder), InputError, WRONG, kind="2",
         where=in_file(str(folder / "config.json"), "max_position_embeddings"),
         expected=("more than the padding offset {offset}, to leave a position after it",
                   {"offset": 2}))  # fmt: skip


def test_a_gguf_file_without_a_vocabulary_size_names_the_key():
    from attncli.reading.models.config_fields import MISSING
    from attncli.reading.models.gguf_file import config_of

    assert config_of(_gguf_metadata())["vocab_size"] == 10
    with pytest.raises(InputError) as caught:  # null: left out, and the file has no tokens
        config_of(_gguf_metadata(**{"llama.vocab_size": None}))
    told(caught.value, InputError, MISSING, path="m.gguf", name="llama.vocab_size")
