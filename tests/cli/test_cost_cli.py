"""attn cost on the command line: its options made from the one declaration, the screen in
80 columns, Spanish, JSON, --steps, --plot, and each refusal one line with nothing on stdout."""

from __future__ import annotations

import json
import re
from dataclasses import fields

import pytest

from attncli.api.cost import CostInputs
from attncli.errors import InputError, OptionError
from tests.meaning import told

# an output file of a kind the option does not write (present/written.check_kind)
UNKNOWN_KIND = "{option} {path}: unknown kind {kind}; name a file ending in {kinds}"


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


def test_every_declared_input_is_an_option(run):
    result = run("cost", "--help")
    assert result.exit_code == 0, result.stderr
    said = _flat(result.stdout)
    for declared in fields(CostInputs):
        meta = declared.metadata
        for option in [meta["option"]] if meta.get("option") else [f for f, *_ in meta["flags"]]:
            assert option in said, option
    assert "--plot" in said and "MODEL" in said


def test_the_screen_fits_80_columns(run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = run("cost", "llama-3.1-70b", "--tokens", "1k,128k", "--as", "mha,mla:512",
                 "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    screen = _flat(result.stdout)
    assert "What attention costs in llama-3.1-70b: batch 1, cache in bfloat16" in screen
    assert "grouped-query: 64 query heads of 128 share 8 key/value heads" in screen
    assert "Design 1,024 131,072 a token" in screen
    assert "gqa 320 MiB 40.0 GiB 320 KiB" in screen
    assert "mha 2.50 GiB 320 GiB 2.50 MiB" in screen
    assert "mla:512 90.0 MiB 11.2 GiB 90.0 KiB" in screen
    assert "the keys and values made for every head would take 16,384 (28.4 times as many)" in (
        screen
    )


def test_the_piped_document(run):
    document = json.loads(run("cost", "deepseek-v3", "--tokens", "1k", "--as", "gqa:8").stdout)
    own, grouped = document["designs"]
    assert own["kind"] == "mla" and own["cache_numbers_per_token_layer"] == 576
    assert own["expanded_numbers_per_token_layer"] == 128 * (192 + 128)
    assert grouped["kind"] == "gqa" and grouped["kv_heads"] == 8
    assert own["lengths"][0]["cache_bytes"] == 61 * 576 * 1024 * 2
    assert own["lengths"][0]["decode_position"] == 1025
    assert own["cache_bytes_per_token"] == 61 * 576 * 2


def test_steps_write_each_formula_with_its_numbers(run):
    result = run("cost", "gpt-oss-120b", "--tokens", "128k", "--steps")
    assert result.exit_code == 0, result.stderr
    screen = _flat(result.stdout)
    assert ("B · L · g · (d_k + d_v) · T = 1 · 18 · 8 · (64 + 64) · 131,072 = 2,415,919,104"
            in screen)  # fmt: skip
    assert ("B · L · g · (d_k + d_v) · min(T, W − 1) = 1 · 18 · 8 · (64 + 64) · min(131,072, "
            "128 − 1) = 2,340,864") in screen  # fmt: skip
    assert "Sinks: 64" in screen
    document = json.loads(run("cost", "gpt-oss-120b", "--tokens", "128k", "--steps",
                              "--json").stdout)  # fmt: skip
    formulas = {f["quantity"]: f for f in document["steps"][0]["formulas"]}
    assert formulas["cache_window"]["value"] == 2340864
    assert formulas["cache_window"]["window"] == 128
    assert formulas["cache"]["formula"] == "B · L · g · (d_k + d_v) · T"


def test_in_spanish(run):
    result = run("cost", "mistral-7b-v0.1", "--tokens", "32k", "--lang", "es", "--format", "table")
    assert result.exit_code == 0, result.stderr
    screen = _flat(result.stdout)
    assert "Lo que cuesta la atención en mistral-7b-v0.1: lote de 1, caché en bfloat16" in screen
    assert "32 de las capas ven una ventana de 4\u202f096 claves" in screen
    assert "gqa 512 MiB 128 KiB" in screen  # the window keeps 4,095 tokens, not 32,768


def test_from_options_alone(run):
    line = ("cost", "--layers", "2", "--d-model", "32", "--heads", "4", "--kv-heads", "2",
            "--window", "4", "--tokens", "11")  # fmt: skip
    document = json.loads(run(*line).stdout)
    assert document["source"] == "options"
    assert document["designs"][0]["lengths"][0]["cache_numbers"] == 2 * 2 * 16 * 3


def test_the_plot(run, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "cache.png"
    result = run("cost", "gemma-3-27b", "--as", "mha", "--plot", str(path), "--format", "table")
    assert result.exit_code == 0, result.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("arguments", "kind", "msgid", "fields"),
    [
        (("llama-3.1-8b", "--cache-dtype", "fp7"), OptionError,
         "{setting}: not a cache dtype attn knows; one of {known}",
         {"setting": "--cache-dtype fp7"}),
        (("llama-3.1-8b", "--as", "linear"), OptionError,
         "{setting}: {design} is not a design attn knows; give mha, mqa, gqa:G or mla:R "
         "(mla:R+D)", {"setting": "--as linear"}),
        (("llama-3.1-8b", "--tokens", "100000000000000000"), InputError,
         "{tokens} tokens × {batch}: {count} is past what a 64-bit count holds (2^63 − 1); "
         "give a shorter length or a smaller batch", {"batch": "--batch 1"}),
        (("--layers", "2", "--heads", "3", "--d-model", "32"), OptionError,
         "{d_model} is no multiple of {heads}: give each head's size with {head_dim}",
         {"head_dim": "--head-dim"}),
        (("llama-3.1-8b", "--plot", "cache.txt"), OptionError,
         UNKNOWN_KIND, {"option": "--plot"}),
        (("llama-3.1-8b", "--kv-heads", "8", "--kv-rank", "512"), OptionError,
         "{option} with {beside}: {why}",
         {"option": "--kv-heads 8", "beside": "--kv-rank 512",
          "why": ("they ask for two designs; give one (or the other with {as_})",
                  {"option": "--kv-heads 8", "as_": "--as mla:R"})}),
        (("llama-3.1-8b", "--q-rank", "1536"), OptionError, "{option} {why}; add {needed}",
         {"option": "--q-rank 1536", "needed": "--kv-rank R",
          "why": ("shapes latent attention", {"option": "--q-rank 1536"})}),
    ],
)  # fmt: skip
def test_refusals_are_one_line(run, arguments, kind, msgid, fields):
    result = run("cost", *arguments)
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    told(result.error, kind, msgid, **fields)


def test_a_config_missing_a_key_names_it(run, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 2,
                                "num_attention_heads": 4}))  # fmt: skip
    result = run("cost", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError,
         "{path}: the field {name} is missing, and attn needs it to read the model",
         name="hidden_size")  # fmt: skip
