"""A self-attention result piped into attn score: its scores were scaled, masked or biased by
the layer, which a plain score of its queries and keys would not repeat. Refused in one
line naming the field, rather than scored again without a word."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncli.errors import InputError

SENTENCE = "las llaves del coche"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (("--causal",), "causal"),
        ((), "divisor"),  # ÷ √d_k by default
        (("--no-scale", "--window", "2"), "window"),
        (("--no-scale", "--alibi"), "alibi"),
        (("--no-scale", "--positions", "rope"), "rope_base"),
        (("--no-scale", "--valid-len", "3"), "mask"),
    ],
)
def test_a_layers_result_is_refused_by_score_naming_the_field(run, options, field):
    layer = run("selfattn", SENTENCE, *options)
    assert layer.exit_code == 0, layer.stderr
    for lang in ("en", "es"):
        refused = run("score", "--lang", lang, input=layer.stdout)
        assert refused.exit_code == 2 and refused.stdout == ""
        assert type(refused.error) is InputError and refused.error.fields["field"] == field
        assert refused.error.msgid.startswith("{field}: the input is a self-attention result")
    assert "pipe it to attn softmax" in run("score", input=layer.stdout).stderr


def test_an_unscaled_unmasked_layer_scores_again_to_its_own_scores(run):
    layer = json.loads(run("selfattn", SENTENCE, "--no-scale").stdout)
    scored = json.loads(run("score", input=json.dumps(layer)).stdout)
    np.testing.assert_allclose(scored["scores"], layer["scores"], rtol=0, atol=1e-12)


def test_the_lessons_chain_still_scores(run):
    chained = run("score", input=run("mix", input=run("softmax", input=run(
        "score", "-i", "samples/tren.json").stdout).stdout).stdout)  # fmt: skip
    assert chained.exit_code == 0, chained.stderr
