"""What a Gemma 3 GGUF file's scores are divided by: llama.cpp scales the queries of a file
of 62 blocks (Gemma 3 27B) by 1/√(embedding_length ÷ head_count) and every other by
1/√key_length (src/llama-model.cpp, LLM_ARCH_GEMMA3's f_attention_scale); attn reads the
same query_pre_attn_scalar from the metadata. Tiny files written with the gguf package's own
writer, their metadata alone, shaped so that the two rules differ (24 ÷ 2 = 12 against a
head of 8)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from attncli.reading.models.gguf_file import config_of, gemma3_query_scalar, metadata
from attncli.reading.models.known_attention import KNOWN
from attncli.reading.models.model import read_config

WIDTH, HEADS, KV_HEADS, HEAD = 24, 2, 1, 8


def _gemma3_file(folder: Path, blocks: int) -> Path:
    import gguf

    path = folder / f"gemma3-{blocks}.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_block_count(blocks)
    writer.add_context_length(64)
    writer.add_embedding_length(WIDTH)
    writer.add_feed_forward_length(16)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_key_length(HEAD)
    writer.add_value_length(HEAD)
    writer.add_rope_freq_base(1000000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_sliding_window(4)
    writer.add_vocab_size(32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.mark.parametrize(("blocks", "scalar"), [(62, WIDTH // HEADS), (18, HEAD), (26, HEAD)])
def test_query_pre_attn_scalar_is_llama_cpp_s(tmp_path, blocks, scalar):
    """62 blocks: 27B's rule, 12; 18 (270M) and 26 (1B): the head size, 8."""
    config = config_of(metadata(str(_gemma3_file(tmp_path, blocks))))
    assert config["hidden_size"] // config["num_attention_heads"] != config["head_dim"]
    assert config["query_pre_attn_scalar"] == scalar
    (tmp_path / "config.json").write_text(json.dumps(config))
    model_type, arch = read_config(str(tmp_path))
    assert model_type == "gemma3_text" and arch.layers == blocks
    assert arch.query_scalar == scalar and arch.divisor == math.sqrt(scalar)


def test_the_rule_gives_gemma_3_27b_s_published_scalar():
    """llama.cpp's rule on Gemma 3 27B's published shape gives its config.json's 168, not its
    head size of 128 (known_attention's entry, from google/gemma-3-27b-it)."""
    config = KNOWN["gemma-3-27b"]["config"]
    assert config["head_dim"] == 128
    assert gemma3_query_scalar(config) == config["query_pre_attn_scalar"] == 168
