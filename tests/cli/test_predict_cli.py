"""attn predict on the command line: the table, the lens, --steps, Spanish, JSON, refusals."""

from __future__ import annotations

import json
import re

import pytest

from attncli.errors import OptionError
from tests import tiny_models
from tests.meaning import told


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "gpt2"
    tiny_models.write_gpt2(folder)
    return str(folder)


def test_the_table_and_the_lens(run, gpt2):
    line = ("predict", "the keys of the car", "--model", gpt2, "--top-k", "3", "--by-layer")
    screen = _flat(run(*line, "--format", "table").stdout)
    assert "The next token after 5 tokens" in screen
    assert "car 10.84 0.549 0.805" in screen
    assert "drawn from 3 of the 395 tokens" in screen and "embeddings « car»" in screen
    document = json.loads(run(*line).stdout)
    assert document["kept"] == 3 and [row["layer"] for row in document["by_layer"]] == [0, 1, 2]
    assert document["top"][0]["token"] == " car"


def test_steps_lay_the_softmax_out(run, gpt2):
    screen = _flat(run("predict", "the keys of the car", "--model", gpt2, "--temperature", "2",
                       "--top-k", "3", "--steps").stdout)  # fmt: skip
    assert "Score ÷ T (2)" in screen and "car 10.84 5.42 225.60 0.596" in screen
    assert "showing 20 of 395 rows" in screen


def test_in_spanish(run, gpt2):
    screen = _flat(run("predict", "the keys of the car", "--model", gpt2, "--lang", "es",
                       "--format", "table").stdout)  # fmt: skip
    assert "El siguiente token tras 5 tokens" in screen and "car 10,84 0,549" in screen


ENCODER = ("{model} has no language-model head (it is an encoder, {kind}): {predict} needs a "
           "causal model such as GPT-2")  # fmt: skip
ENCODER_FIELDS = {"model": "all-MiniLM-L6-v2", "kind": "bert", "predict": "attn predict"}
TRY = "{refusal} (try {example})"  # api/keywords.Hinted


def test_refusals(run, gpt2):
    for line, msgid, fields in (
        (("predict", "the keys", "--model", "all-MiniLM-L6-v2"), ENCODER, ENCODER_FIELDS),
        # an encoder is refused for what it is before a sentence is asked of it
        (("predict", "", "--model", "all-MiniLM-L6-v2"), ENCODER, ENCODER_FIELDS),
        (("predict", "the keys"), "{option} {why}; add {needed}",
         {"option": "attn predict", "needed": "--model M",
          "why": ("asks a causal model such as GPT-2 for the next token",
                  {"option": "attn predict"})}),
        (("predict", "the keys", "--model", gpt2, "--top-p", "0"), TRY,
         {"example": "--top-p 0.9",
          "refusal": ("{setting}: it must be a number above {above} and at most {most}",
                      {"setting": "--top-p 0.0", "above": "0", "most": "1"})}),
        (("predict", "the keys", "--model", gpt2, "--top-k", "0"), TRY,
         {"example": "--top-k 5",
          "refusal": ("{setting}: it must be {least} or more",
                      {"setting": "--top-k 0", "least": 1, "most": 2**63 - 1})}),
    ):  # fmt: skip
        result = run(*line)
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert result.stderr.count("\n") == 1, result.stderr
        told(result.error, OptionError, msgid, **fields)
