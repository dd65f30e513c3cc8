"""A latent attention's sizes (DeepSeek's kv_lora_rank, q_lora_rank, qk_nope_head_dim,
qk_rope_head_dim, v_head_dim) read by one reader, config_fields.latent_sizes, for the model
attn runs and for attn cost: the same sizes, and the same refusal of a wrong one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.errors import InputError
from attncli.reading.models.attention_config import shape_of
from attncli.reading.models.model import read_config
from tests.meaning import WRONG, in_file, told

FOLDER = Path(__file__).resolve().parent.parent / "models" / "tiny-deepseek-v3"
CONFIG = json.loads((FOLDER / "config.json").read_text())


def test_attn_and_attn_cost_read_the_same_sizes():
    latent = read_config(str(FOLDER))[1].latent
    shape = shape_of(CONFIG, "config.json")
    assert latent is not None and shape.latent is not None
    assert (shape.latent.rank, shape.latent.rope, shape.latent.q_rank) == (
        latent.rank, latent.rope, latent.q_rank)  # fmt: skip
    assert (shape.d_k, shape.d_v) == (latent.nope + latent.rope, latent.v)
    assert (latent.rank, latent.q_rank, latent.nope, latent.rope, latent.v) == tuple(
        CONFIG[name] for name in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim",
                                  "qk_rope_head_dim", "v_head_dim"))  # fmt: skip


@pytest.mark.parametrize("name", ["kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "v_head_dim"])
def test_a_size_of_none_is_refused_by_both(tmp_path, name):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**CONFIG, name: 0}))
    for read in (lambda: read_config(str(folder)),
                 lambda: shape_of({**CONFIG, name: 0}, str(folder / "config.json"))):  # fmt: skip
        with pytest.raises(InputError) as caught:
            read()
        told(caught.value, InputError, WRONG, where=in_file(str(folder / "config.json"), name),
             kind="0", expected=("a positive whole number", {}))  # fmt: skip
