"""Learning rather than memorising: one sentence trained on is memorised (its row goes
one-hot, cells nobody asked for move with it, and the screen says so); the concordance
sample is a layer that learned agreement on a corpus, reproducible from its own line, and
finds «llaves» for «están» in the lesson's sentence, which it was never trained on."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np

import attncli as attn

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE = ROOT / "samples" / "concordancia.json"
LESSON = "las llaves del coche están ahí"


def test_one_sentence_is_memorised_and_the_screen_says_so(run):
    trained = attn.train(LESSON, want="están=llaves")
    moved = trained.moved_most()
    tokens = trained.tokens
    before = trained.weights_before
    after = trained.weights_after
    # the cells that moved most, besides the wanted one, by the grids themselves
    change = np.abs(after - before)
    change[4, 1] = -1
    assert (moved[0][0], moved[0][1]) == np.unravel_index(np.argmax(change), change.shape)
    assert (tokens[moved[0][0]], tokens[moved[0][1]]) == ("coche", "llaves")
    screen = run("train", LESSON, "--want", "están=llaves", "--format", "table").stdout
    assert "coche → llaves" in screen and "went one-hot" in screen
    spanish = run("train", LESSON, "--want", "están=llaves", "--format", "table", "--lang", "es")
    assert "se ha vuelto one-hot" in spanish.stdout


def test_a_corpus_run_says_nothing_of_memorising(run):
    line = ("train", "--corpus", "concordancia-entreno", "--iterations", "5", "--format", "table")
    assert "one-hot" not in run(*line).stdout


def test_the_concordance_sample_is_its_own_trained_line_again(run_json, tmp_path):
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    words = shlex.split(sample["trained_by"])
    assert words[:2] == ["attn", "train"] and "--corpus" in words
    trained = run_json(*words[1:], "--json")
    # The same training again, to a few units in the last place of each matrix: its
    # thousands of BLAS products round by the machine's kernel (AVX-512 or AVX2), so a
    # matrix trained on another machine may differ in the last bit.
    for name in ("w_q", "w_k", "w_v"):
        again, written = np.array(trained[name]), np.array(sample[name])
        most = 8 * np.finfo(np.float64).eps * np.abs(written).max()
        assert np.abs(again - written).max() <= most, name
    corpus = (ROOT / "samples" / "concordancia-entreno.txt").read_text(encoding="utf-8")
    assert LESSON not in corpus  # the lesson's sentence is not one it was trained on


def test_the_learned_layer_finds_llaves_for_estan_and_says_where_it_came_from(run, run_json):
    line = ("selfattn", LESSON, "-i", "concordancia", "--positions", "sinusoidal")
    document = run_json(*line, "--json")
    weights = np.array(document["weights"])
    assert document["tokens"][int(weights[4].argmax())] == "llaves"
    assert document["trained_by"].startswith("attn train --corpus")
    screen = " ".join(run(*line, "--format", "table").stdout.split())
    assert "were learned, not drawn" in screen and "concordancia-entreno" in screen
    listed = run_json("samples")
    entry = next(s for s in listed["samples"] if s["name"] == "concordancia")
    assert entry["example"] == f'attn selfattn "{LESSON}" -i concordancia --positions sinusoidal'


def test_trained_by_that_is_not_a_text_is_refused(run, tmp_path):
    document = json.loads(SAMPLE.read_text(encoding="utf-8"))
    document["trained_by"] = 3
    path = tmp_path / "layer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = run("selfattn", LESSON, "-i", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid.startswith("trained_by is {kind};")
    assert result.error.fields == {"kind": "int"}


def test_the_samples_are_told_in_spanish_and_each_comment_once(run_json):
    listed = {s["name"]: s for s in run_json("samples", "--lang", "es")["samples"]}
    for name in ("tren", "tren-grid", "llaves"):
        assert listed[name]["holds_es"] and "«" in listed[name]["holds_es"], name
    assert "a mano" in listed["llaves"]["holds_es"]
    for path in (ROOT / "samples").glob("concordancia-*.txt"):
        comments = [
            line for line in path.read_text(encoding="utf-8").splitlines() if line[:1] == "#"
        ]
        assert len(comments) == len(set(comments)), path.name
