"""GGUF files through attn's commands: --model a .gguf path, the stderr line of a first
conversion, --chat, and a GGUF refusal as one line with status 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from attncli.reading.models import chat, gguf_cache, gguf_file, gguf_tokens
from tests import tiny_gguf
from tests.meaning import WRONG, told

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
    told(result.error, type(result.error), WRONG, kind="7",
         expected=(gguf_file.VERSION, {"versions": "2, 3"}))  # fmt: skip


BROKEN = {
    "not GGUF": gguf_file.NOT_GGUF,
    "truncated": gguf_file.TRUNCATED,
    "version": WRONG,  # a field of the file, held to what attn reads (gguf_file.VERSION)
    "unknown type": WRONG,  # a tensor's type, held to the gguf package's (UNKNOWN_TYPE)
    "unsupported type": WRONG,  # and to those attn dequantizes (UNSUPPORTED_TYPE)
    "architecture": WRONG,
    "shape": WRONG,  # the tensor's place names the file (gguf_file.SHAPE says why)
    "pre-tokenizer": gguf_tokens.CANNOT_REBUILD,
    "tokenizer model": gguf_tokens.CANNOT_REBUILD,
    "not UTF-8": gguf_file.TRUNCATED,
}


# why a refusal of a field or a tensor of the file expects what it does (values.WRONG's
# {expected})
WHY = {"version": gguf_file.VERSION, "unknown type": gguf_file.UNKNOWN_TYPE,
       "unsupported type": gguf_file.UNSUPPORTED_TYPE, "architecture": gguf_file.ARCHITECTURE,
       "shape": gguf_file.SHAPE}  # fmt: skip


@pytest.mark.parametrize("kind", BROKEN)
@pytest.mark.parametrize("command", [["predict"], ["selfattn"], ["heads", "--pattern", "previous"]],
                         ids=["predict", "selfattn", "heads"])  # fmt: skip
def test_each_bad_gguf_file_is_one_line_and_status_2(run, tiny_ggufs, tmp_path, monkeypatch,
                                                     kind, command):  # fmt: skip
    cache = tmp_path / "cache"
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(cache))
    path = tiny_gguf.broken(kind, tiny_ggufs["tiny-llama"], tmp_path)
    result = run(*command, "the keys", "--model", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    error = result.error
    if BROKEN[kind] == WRONG:  # a tensor or a metadata key of the file, named in `where`
        told(error, type(error), WRONG)
        assert error.fields["where"].fields["path"] == str(path)
        assert error.fields["expected"].msgid == WHY[kind]
    else:
        told(error, type(error), BROKEN[kind], path=str(path))
    assert not cache.exists() or os.listdir(cache) == []  # nothing half-converted left


def test_a_model_larger_than_the_memory_free_is_one_line_before_dequantizing(
    run, tiny_ggufs, monkeypatch, tmp_path
):
    import gguf

    from attncli import limits

    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path))

    def never(*args, **kwargs):
        raise AssertionError("dequantized")

    monkeypatch.setattr(gguf.quants, "dequantize", never)
    monkeypatch.setattr(limits, "available_memory", lambda: 10**6)
    result = run("predict", "the keys", "--model", str(tiny_ggufs["tiny-llama"]))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.error.msgid == limits.MEMORY_REFUSED


def test_a_half_written_cache_entry_is_converted_again_and_said(run, tiny_ggufs, tmp_path,
                                                                monkeypatch):  # fmt: skip
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(tmp_path / "cache"))
    line = ("predict", "the keys to the", "--model", str(tiny_ggufs["tiny-qwen2"]), "--json")
    first = run(*line)
    (folder,) = [p for p in (tmp_path / "cache").iterdir() if p.name.startswith("tiny-qwen2")]
    weights = folder / "model.safetensors"
    with open(weights, "r+b") as file:
        file.truncate(weights.stat().st_size // 3)
    again = run(*line)
    assert again.exit_code == 0 and again.stdout == first.stdout
    assert again.stderr.count("\n") == 1 and str(folder) in again.stderr
    assert gguf_cache.is_whole(str(folder))


def test_a_cache_folder_it_cannot_write_is_one_line(run, tiny_ggufs, tmp_path, monkeypatch):
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    monkeypatch.setenv("ATTN_GGUF_CACHE", str(taken))
    result = run("predict", "the keys", "--model", str(tiny_ggufs["tiny-llama"]))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    told(result.error, type(result.error), gguf_cache.UNWRITABLE, folder=str(taken))


def test_a_pipe_named_gguf_is_refused_not_waited_on(run, tmp_path):
    import os

    path = tmp_path / "model.gguf"
    os.mkfifo(path)
    result = run("predict", "the keys", "--model", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    # refused for what it is, before anything is read or converted
    told(result.error, type(result.error),
         "{path}: not a regular file (a pipe, a device or a folder); {instead}",
         path=str(path), instead=("put the file there", {}))  # fmt: skip
