"""attn heads without --model: the seeded layer's heads (attn selfattn's, with the same
settings) ranked, scored against a pattern and drawn as the model view, as a model's are;
every number is the layer's own weights."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import attncli as attn
from attncli.errors import OptionError
from tests.meaning import told

LESSON = "las llaves del coche están ahí"


def test_the_model_view_is_the_layer_s_own_weights_bit_for_bit(run, tmp_path):
    layer = attn.selfattn(LESSON, heads=4, seed=2)
    viewed = attn.heads(LESSON, heads=4, seed=2, grid=True)
    assert viewed.grid.shape == (1, 4, 6, 6)
    assert np.array_equal(viewed.grid[0], layer.weights)
    document = json.loads(run("heads", LESSON, "--heads", "4", "--seed", "2", "--grid",
                              "--json").stdout)  # fmt: skip
    assert document["model"] == "seeded" and document["layer"] == {"seed": 2, "heads": 4}
    assert np.array_equal(np.array(document["weights"]), viewed.grid)
    path = tmp_path / "heads.svg"
    assert run("heads", LESSON, "--heads", "4", "--seed", "2", "--grid", "--export",
               str(path)).exit_code == 0  # fmt: skip
    cells = re.findall(r'data-weight="([^"]+)"', path.read_text(encoding="utf-8"))
    assert [float(c) for c in cells] == layer.weights.ravel().tolist()


def test_heads_ranked_by_a_cell_are_the_layer_s_weights_on_it():
    layer = attn.selfattn(LESSON, heads=4, causal=True)
    ranked = attn.heads(LESSON, heads=4, causal=True, source="están", target="llaves")
    cell = layer.weights[:, 4, 1]  # están (5th) on llaves (2nd), each head
    assert [h.weight for h in ranked.ranking] == sorted(cell.tolist(), reverse=True)
    assert [h.head for h in ranked.ranking] == (np.argsort(-cell, kind="stable") + 1).tolist()
    assert {h.layer for h in ranked.ranking} == {1} and ranked.causal


def test_a_pattern_scores_the_seeded_heads_as_a_loop_does():
    """duplicate on «el tren va lleno el tren»: rows 5 and 6 have an earlier copy (1, 2);
    attn's rows metric is the mean of their weight there."""
    sentence = "el tren va lleno el tren"
    layer = attn.selfattn(sentence, heads=2, causal=True)
    ranked = attn.heads(sentence, heads=2, causal=True, pattern="duplicate")
    for entry in ranked.ranking:
        weights = layer.weights[entry.head - 1]
        expected = (weights[4, 0] + weights[5, 1]) / 2
        assert entry.weight == pytest.approx(expected, abs=1e-15)


def test_the_screen_names_the_seeded_layer_in_both_languages(run):
    english = run("heads", LESSON, "--heads", "4", "--from", "están", "--to", "llaves",
                  "--format", "table").stdout  # fmt: skip
    said = " ".join(english.split())
    assert said.startswith("Heads of the seeded layer (seed 0) ranked by the weight from «están»")
    assert (
        "explain the first: attn selfattn 'las llaves del coche están ahí' --heads 4 --head" in said
    )
    assert "--model" not in said
    spanish = " ".join(run("heads", LESSON, "--heads", "4", "--grid", "--format", "table",
                           "--lang", "es").stdout.split())  # fmt: skip
    assert (
        "Todas las cabezas de la capa aleatoria (semilla 0): 4 cabezas, 6 tokens cada una"
        in spanish
    )


def test_a_seeded_setting_beside_a_model_is_refused_in_each_surface_s_words(run):
    result = run("heads", "the keys", "--model", "all-MiniLM-L6-v2", "--heads", "4", "--from",
                 "the", "--to", "keys")  # fmt: skip
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert result.error.fields["name"] == "--heads"
    with pytest.raises(OptionError) as raised:
        attn.heads("the keys", "all-MiniLM-L6-v2", heads=4, source="the", target="keys")
    told(raised.value, OptionError,
         "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, "
         "sizes and weights are the model's own; leave it out", "python", name="heads",
         model="model=")  # fmt: skip


def test_a_cell_no_head_can_see_is_said(run):
    """A causal layer's token after the one asked from, and a key outside every layer's
    sliding window (the tiny Mistral's 4 tokens), are 0 in every head: the screen says why."""
    causal = attn.heads(LESSON, heads=2, causal=True, source="llaves", target="están")
    assert causal.unseen == "causal" and {h.weight for h in causal.ranking} == {0.0}
    assert attn.heads(LESSON, heads=2, causal=True, source="están", target="llaves").unseen is None
    from pathlib import Path

    mistral = str(Path(__file__).parents[1] / "models" / "tiny-mistral")
    screen = run("heads", "the keys to the cabinet are on the table", "--model", mistral,
                 "--from", "are", "--to", "keys", "--format", "table").stdout  # fmt: skip
    assert ("No head can look from «are» to «keys»: it lies outside every layer's sliding "
            "window; every weight here is 0.") in " ".join(screen.split())  # fmt: skip
    near = attn.heads("the keys to the cabinet are on the table", mistral, source="are",
                      target="cabinet")  # fmt: skip
    assert near.unseen is None


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_exported_model_view_is_as_wide_as_its_title(run, tmp_path, lang):
    path = tmp_path / "heads.svg"
    assert run("heads", LESSON, "--heads", "4", "--grid", "--lang", lang, "--export",
               str(path)).exit_code == 0  # fmt: skip
    drawing = path.read_text(encoding="utf-8")
    width = int(re.search(r'<svg [^>]*width="(\d+)"', drawing)[1])
    title = re.search(r'<text x="4" y="12"[^>]*>([^<]+)</text>', drawing)[1]
    assert width >= 4 + len(title) * 9 * 0.6  # a monospace character is 0.6 em at 9 units


def test_the_seeded_layer_s_refusals_point_where_it_can_go(run):
    induction = run("heads", "el tren va lleno", "--heads", "4", "--pattern", "induction")
    assert induction.exit_code == 2 and induction.stdout == ""
    fix = induction.error.fields["why"].fields["fix"]
    # the sentence repeated, not --random: that needs a model's vocabulary
    assert fix.msgid == "repeat a word, e.g. «{example}»"
    assert fix.fields == {"example": "el tren va lleno el tren va lleno"}
    compare = run("heads", "las llaves", "--heads", "4", "--compare", "la llave")
    assert compare.exit_code == 2 and compare.stderr.count("\n") == 1
    told(compare.error, OptionError, "{option} {why}; add {needed}", option="--compare",
         needed=("--model M (e.g. --model all-MiniLM-L6-v2)", {}),
         why=("ranks a model's heads by their change (the seeded layer's two sentences: attn "
              "selfattn SENTENCE --compare OTHER {settings})",
              {"option": "--compare", "settings": "--heads 4"}))  # fmt: skip
    with pytest.raises(OptionError) as raised:
        attn.heads(LESSON, hedas=4)
    assert str(raised.value) == "heads() got an unexpected keyword hedas= (did you mean heads=?)"


@pytest.mark.parametrize(
    ("given", "option"),
    [({"context": "el coche"}, "context"), ({"add_zero_attn": True}, "add_zero_attn"),
     ({"draw_missing": True}, "draw_missing")],
)  # fmt: skip
def test_a_setting_whose_heads_cannot_be_ranked_is_refused(given, option):
    # the seeded heads are ranked over the sentence's own tokens: another sentence's keys, a
    # key of zeros, W drawn where a file leaves it out are refused, never ignored
    with pytest.raises(OptionError) as raised:
        attn.heads(LESSON, pattern="self", d_model=2, **given)
    told(raised.value, OptionError, "{option} with {beside}: {why}", "python", option=option,
         beside="heads()")  # fmt: skip


def test_a_seed_beside_a_model_seeds_only_random_s_draw(run):
    alone = run("heads", "the keys", "--model", "all-MiniLM-L6-v2", "--seed", "3", "--from",
                "the", "--to", "keys")  # fmt: skip
    assert alone.exit_code == 2 and alone.error.fields["name"] == "--seed"  # not ignored
    drawn = run("heads", "--random", "4", "--model", "all-MiniLM-L6-v2", "--seed", "3",
                "--pattern", "induction", "--json")  # fmt: skip
    assert drawn.exit_code == 0, drawn.stderr


def test_a_word_not_in_the_sentence_is_named_as_the_seeded_layer_reads_it(run):
    result = run("heads", LESSON, "--heads", "4", "--from", "están", "--to", "kyes")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid == "{option} is not one of the sentence's words here: {known}"
    assert result.error.fields["known"] == "las, llaves, del, coche, están, ahí"


def test_a_seeded_setting_given_beside_a_model_is_refused_even_at_its_default():
    """A seed or a size given to heads() beside a model would shape nothing: refused, as
    compare_sentences() refuses it, never left unused without a word."""
    for call in (lambda: attn.heads("the keys", "all-MiniLM-L6-v2", seed=0, pattern="first"),
                 lambda: attn.compare_sentences("the key", "the keys", model="all-MiniLM-L6-v2",
                                                seed=0)):  # fmt: skip
        with pytest.raises(OptionError) as raised:
            call()
        told(raised.value, OptionError,
             "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, "
             "sizes and weights are the model's own; leave it out", "python", name="seed",
             model="model=")  # fmt: skip
