"""attn rollout on the tiny models: the rollout is that of each layer's own weights (as attn
selfattn --model gives them), the cell --steps writes sums to the product's cell, and the
refusals are one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests import tiny_models
from tests.core.test_rollout import loop_rollout
from tests.meaning import told

SENTENCE = "the keys to the cabinet are on the table"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("rollout-models")
    for kind in ("bert", "gpt2"):
        tiny_models.WRITERS[kind](root / kind)
    return root


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_the_rollout_is_the_layers_own_weights_rolled_out(models, kind):
    model = str(models / kind)
    result = attn.rollout(SENTENCE, model)
    weights = [attn.selfattn(SENTENCE, model=model, layer=layer).weights.tolist()
               for layer in (1, 2)]  # fmt: skip
    expected = np.asarray(loop_rollout(weights))
    assert np.abs(result.products - expected).max() < 1e-12
    assert np.abs(result.rollout - expected[-1]).max() < 1e-12
    np.testing.assert_allclose(result.rollout.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    if kind == "gpt2":  # causal: nothing flows from a later token
        assert np.all(np.triu(result.rollout, k=1) == 0)


def test_the_cell_written_out_is_the_products_cell(run, models):
    document = json.loads(run("rollout", SENTENCE, "--model", str(models / "bert"), "--steps",
                              "--token", "are", "--to", "keys", "--json").stdout)  # fmt: skip
    cell = document["cell"]
    tokens = document["tokens"]
    i, j = tokens.index("are"), tokens.index("keys")
    assert (cell["row"], cell["column"], cell["layer"]) == (i + 1, j + 1, 2)
    assert cell["upper"] == document["mixed"][1][i]
    assert cell["lower"] == [row[j] for row in document["products"][0]]
    assert abs(sum(cell["products"]) - document["rollout"][i][j]) < 1e-15
    assert cell["value"] == document["rollout"][i][j]
    screen = run("rollout", SENTENCE, "--model", str(models / "bert"), "--steps", "--token",
                 "are", "--format", "table").stdout  # fmt: skip
    assert "R2[are, " in screen and "M2[are, k]" in screen and "Rollout assumes" in screen


def test_layer_stops_the_product_and_spanish_says_it(run, models):
    model = str(models / "bert")
    first = json.loads(run("rollout", SENTENCE, "--model", model, "--layer", "1").stdout)
    assert first["layers"] == 1 and first["rollout"] == first["mixed"][0]
    spanish = run("rollout", SENTENCE, "--model", model, "--format", "table", "--lang",
                  "es").stdout  # fmt: skip
    assert "no es un gradiente" in " ".join(spanish.split()) and "sumando 1" in spanish


NOT_A_TOKEN = "{option} is not one of the model's tokens here: {known}"


def refused(result, kind, msgid, /, **fields):
    """One line, nothing on stdout, and the line is that error said."""
    assert result.exit_code != 0 and result.stdout == "", result.stdout
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_refusals(run, models):
    model = str(models / "bert")
    refused(run("rollout", SENTENCE), OptionError, "{option} {why}; add {needed}",
            option="attn rollout", needed=("--model M (e.g. --model all-MiniLM-L6-v2)", {}),
            why=("combines a model's layers, and the seeded layer is one",
                 {"option": "attn rollout"}))  # fmt: skip
    refused(run("rollout", SENTENCE, "--model", model, "--to", "keys"), OptionError,
            "{option} {why}; add {needed}", option="--to keys", needed="--steps",
            why=("picks the cell {steps} writes out", {"option": "--to keys",
                                                      "steps": "--steps"}))  # fmt: skip
    refused(run("rollout", SENTENCE, "--model", model, "--layer", "1", "--steps"), OptionError,
            "{steps} writes a cell of two layers' product; {layer} has one layer (give 2 or more)",
            layer="--layer 1")  # fmt: skip
    refused(
        run("rollout", SENTENCE, "--model", model, "--layer", "3"),
        OptionError,
        "{option} is out of range: {there} (1 to {total})",
        option="--layer 3",
        total=2,
        there=("the model has {total} {what}", {"total": 2, "what": ("layers", {})}),
    )
    refused(run("rollout", SENTENCE, "--model", model, "--steps", "--to", "nothing"), InputError,
            NOT_A_TOKEN, option="--to 'nothing'", token="nothing")  # fmt: skip
