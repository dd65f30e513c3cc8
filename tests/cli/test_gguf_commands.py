"""GGUF files through attn's commands: --model a .gguf path, the stderr line of a first
conversion, --chat, and a GGUF refusal as one line with status 2."""

from __future__ import annotations

import json
from pathlib import Path

from attncli.reading.models import chat, gguf_cache, gguf_file
from tests.meaning import told

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_predict_reads_a_gguf_file_and_says_once_that_it_converts(run, tiny_ggufs, tmp_path,
                                                                  monkeypatch):  # fmt: skip
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path))
    first = run("predict", "the keys to the", "--model", str(tiny_ggufs["tiny-qwen2"]), "--json")
    assert first.exit_code == 0, first.stderr
    assert json.loads(first.stdout)["tokens"] == ["the", "keys", "to", "the"]
    assert first.stderr.count("\n") == 1 and str(tmp_path) in first.stderr
    second = run("predict", "the keys to the", "--model", str(tiny_ggufs["tiny-qwen2"]), "--json")
    assert second.stderr == "" and second.stdout == first.stdout


def test_chat_puts_the_sentence_in_the_files_chat_template(run_json, tiny_ggufs):
    result = run_json("predict", "the keys", "--model", str(tiny_ggufs["tiny-qwen2"]), "--chat",
                      "--json")  # fmt: skip
    from attncli.reading.models.model import load_model

    prompt = "<|im_start|>user\nthe keys<|im_end|>\n<|im_start|>assistant\n"
    tokenizer = load_model(str(tiny_ggufs["tiny-qwen2"])).tokenizer
    assert result["tokens"] == list(tokenizer.encode(prompt).tokens)
    assert result["tokens"][0] == "<|im_start|>" and "<|im_end|>" in result["tokens"]


def test_chat_without_a_template_is_refused(run):
    result = run("predict", "the keys", "--model", str(MODELS / "tiny-llama"), "--chat")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, type(result.error), chat.NO_TEMPLATE, chat="--chat")


def test_a_bad_gguf_file_is_one_line_and_status_2(run, tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + (7).to_bytes(4, "little") + bytes(16))
    result = run("selfattn", "the keys", "--model", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    told(result.error, type(result.error), gguf_file.VERSION, version=7)


def test_a_pipe_named_gguf_is_refused_not_waited_on(run, tmp_path):
    import os

    path = tmp_path / "model.gguf"
    os.mkfifo(path)
    result = run("predict", "the keys", "--model", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert gguf_cache.FORMAT == 1  # the refusal comes before any conversion
