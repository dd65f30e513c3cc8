"""Qwen3 and OLMo 2 from the command line: the model's header says its QK-norm and its
rotary scaling, --steps shows each pair scaled, and --kv-cache replays the QK-norm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parent.parent / "models"
SENTENCE = "the keys to the cabinet are on the table"
REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_steps_table_each_pair_of_the_scaled_rotary_positions(run, lang):
    result = run("selfattn", SENTENCE, "--model", str(MODELS / "tiny-qwen3"), "--head", "2",
                 "--steps", "--token", "table", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    pairs = [
        line.split()
        for line in lines
        if line.strip().startswith(tuple(f"{i}," for i in range(1, 9)))
    ]
    assert [row[:2] for row in pairs[:8]] == [[f"{i},", str(i + 8)] for i in range(1, 9)]
    factor = REFERENCE["rope"]["yarn-tiny-qwen3"]["runs"][0]["float64"]["attention_factor"]
    said = f"{factor:.4f}" if lang == "en" else f"{factor:.4f}".replace(".", ",")
    assert said in result.stdout and "yarn" in lines[0]
    assert max(len(line) for line in lines) <= 100


@pytest.mark.parametrize(("name", "said"), [("tiny-qwen3", "q_norm, k_norm"),
                                            ("tiny-olmo2", "all heads at once"),
                                            ("tiny-gemma2", "2 · tanh(score ÷ 2)"),
                                            ("tiny-gemma3", "by √20 (query_pre_attn_scalar)"),
                                            ("tiny-gpt-oss", "learned sinks")])  # fmt: skip
def test_the_header_says_what_the_family_adds(run, name, said):
    result = run("selfattn", SENTENCE, "--model", str(MODELS / name), "--steps", "--head", "1")
    assert result.exit_code == 0, result.stderr
    shown = run("selfattn", SENTENCE, "--model", str(MODELS / name), "--json")
    document = json.loads(shown.stdout)
    assert {"qk_norm", "attn_logit_softcapping", "sinks"} & set(document)
    from rich.console import Console

    from attncli.api.model import model_selfattn
    from attncli.present.format import Format
    from attncli.present.model.view import model_header

    console = Console(width=80, record=True)
    console.print(model_header(model_selfattn(SENTENCE, str(MODELS / name)), Format(), frozenset()))
    assert said in " ".join(console.export_text().split())


def test_the_kv_cache_of_a_qk_norm_model_is_replayed(run):
    result = run("selfattn", SENTENCE, "--model", str(MODELS / "tiny-qwen3"), "--kv-cache")
    assert result.exit_code == 0 and result.stderr == ""
    document = json.loads(result.stdout)
    assert document["bit_for_bit"] is True
    assert document["replayed"] == ["qk_norm", "rope_attention_factor"]
