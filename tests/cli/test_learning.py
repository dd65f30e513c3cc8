"""Learning rather than memorising: one sentence trained on is memorised (its row goes
one-hot, cells nobody asked for move with it, and the screen says so); the concordance
corpus teaches a rule, not a place (its subject stands anywhere from position 2 to 5, and
a layer that only ever saw it at 2 is caught on the test sets); the concordance sample is
a layer that learned agreement on it, reproducible from its own line, read back with the
positions it learned with, and finds «llaves» for «están» in the lesson's sentence, which
it was never trained on."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from tests.meaning import told

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE = ROOT / "samples" / "concordancia.json"
LESSON = "las llaves del coche están ahí"
TEST_SETS = ("concordancia-numero.txt", "concordancia-orden.txt", "concordancia-lejos.txt")


def _corpus(name: str):
    from attncli.reading.parse.wants import parse_corpus

    path = ROOT / "samples" / name
    return parse_corpus(path.read_text(encoding="utf-8"), str(path))


def _subject_at(sentence) -> int:
    """The 0-based position of the key a test sentence (or corpus line) wants."""
    ((_, key),) = sentence.wanted
    return key


@pytest.fixture(scope="module")
def agreement():
    """The manual's runs: the sample corpus at --d-model 32, with and without positions,
    tested on the three test sets (30 sentences each, in TEST_SETS' order)."""
    tests = [sentence for name in TEST_SETS for sentence in _corpus(name)]
    corpus = _corpus("concordancia-entreno.txt")
    return {
        positions: attn.train(corpus=corpus, test=tests, d_model=32, positions=positions)
        for positions in (None, "sinusoidal")
    }


def _shares(result) -> list[str]:
    sets = [np.mean([link.hit for link in result.test[at : at + 30]]) for at in (0, 30, 60)]
    return [f"{100 * share:.1f} %" for share in (result.train_accuracy, *sets)]


@pytest.mark.slow  # trains on the whole corpus: the full run's
def test_the_manuals_accuracy_table_is_what_the_runs_give(agreement):
    manual = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    rows = {
        None: re.search(r"^without positions +(.*)$", manual, re.MULTILINE),
        "sinusoidal": re.search(r"^--positions sinusoidal +(.*)$", manual, re.MULTILINE),
    }
    for positions, found in rows.items():
        assert found is not None
        assert re.split(r"(?<=%) +", found.group(1).strip()) == _shares(agreement[positions])


@pytest.mark.slow  # trains on the whole corpus: the full run's
def test_what_a_layer_without_positions_can_and_cannot_learn(agreement):
    plain, placed = agreement[None], agreement["sinusoidal"]
    assert plain.sentences == 160 and len(plain.test) == 90
    number = np.mean([link.hit for link in plain.test[:30]])
    order = np.mean([link.hit for link in plain.test[30:60]])
    # Without positions, number alone finds the noun; two nouns of one number are near a coin.
    assert number >= 0.9 and order <= 0.65
    assert np.mean([link.hit for link in placed.test[30:60]]) >= 0.9
    assert np.all(np.diff(plain.loss) <= 1e-12)  # the corpus's loss falls at every step too
    first = plain.test[30]
    assert " ".join(first.tokens) == "hoy creo que las puertas de los libros están ahí"
    assert first.hit is (first.picked == first.key)


def test_the_corpus_puts_the_subject_in_more_than_one_place():
    corpus = _corpus("concordancia-entreno.txt")
    places = {_subject_at(sentence) for sentence in corpus}
    assert places == {1, 2, 3, 4}  # positions 2 to 5, counted from 1
    for name in TEST_SETS[:2]:  # the test sets spread it the same way ...
        assert {_subject_at(sentence) for sentence in _corpus(name)} <= places
    further = {_subject_at(sentence) for sentence in _corpus(TEST_SETS[2])}
    assert min(further) > max(places)  # ... but one, further along than any training line


@pytest.mark.slow  # trains on the whole corpus: the full run's
def test_the_trained_layer_finds_the_subject_wherever_it_stood_in_training(agreement):
    """Not a place learned: on the same-number test sentences whose subject is not at
    position 2, where a layer that looked at position 2 would miss, it still finds it;
    a layer trained only on the corpus's sentences with the subject at 2 does not."""
    placed = agreement["sinusoidal"]
    order = _corpus("concordancia-orden.txt")
    elsewhere = [n for n, sentence in enumerate(order) if _subject_at(sentence) != 1]
    assert len(elsewhere) >= 20
    assert all(placed.test[30 + n].hit for n in elsewhere)
    at_two = [s for s in _corpus("concordancia-entreno.txt") if _subject_at(s) == 1]
    shortcut = attn.train(corpus=at_two, test=order, d_model=32, positions="sinusoidal")
    assert shortcut.train_accuracy == 1.0  # it learned its corpus ...
    caught = np.mean([shortcut.test[n].hit for n in elsewhere])
    assert caught <= 0.5, caught  # ... as a place, which the test sets catch
    manual = " ".join((ROOT / "docs" / "training.md").read_text(encoding="utf-8").split())
    hits = sum(shortcut.test[n].hit for n in elsewhere)
    assert f"the {len(at_two)} sentences whose subject is at position 2" in manual
    assert f"gets {hits} of the {len(elsewhere)} same-number test sentences" in manual


@pytest.mark.slow  # trains on the whole corpus: the full run's
def test_positions_are_learned_where_they_were_seen_not_beyond(agreement):
    placed = agreement["sinusoidal"]
    further = np.mean([link.hit for link in placed.test[60:]])
    assert further <= 0.7  # at positions 6 and 7 it is back near a coin


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
    # the lesson's word for a row that picks one key: saturated, not «one-hot»
    assert "se ha saturado" in spanish.stdout and "one-hot" not in spanish.stdout
    assert "Pesos antes de entrenar (W recién inicializadas)" in spanish.stdout


def test_a_corpus_run_says_nothing_of_memorising(run):
    line = ("train", "--corpus", "concordancia-entreno", "--iterations", "5", "--format", "table")
    assert "one-hot" not in run(*line).stdout


@pytest.mark.slow  # trains on the whole corpus: the full run's
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
    line = ("selfattn", LESSON, "-i", "concordancia")  # its positions are in the file
    document = run_json(*line, "--json")
    weights = np.array(document["weights"])
    assert document["tokens"][int(weights[4].argmax())] == "llaves"
    assert document["trained_by"].startswith("attn train --corpus")
    screen = " ".join(run(*line, "--format", "table").stdout.split())
    assert "were learned, not drawn" in screen and "concordancia-entreno" in screen
    listed = run_json("samples")
    entry = next(s for s in listed["samples"] if s["name"] == "concordancia")
    assert entry["example"] == f'attn selfattn "{LESSON}" -i concordancia'
    asked = run_json(*line, "--positions", "sinusoidal", "--json")  # the same, asked for
    assert asked["weights"] == document["weights"] and asked["positions"] == "sinusoidal"


def test_a_trained_layer_is_read_with_the_positions_it_learned_with(run, run_json, tmp_path):
    """Never silently without them: taken from the document, refused when other positions
    are asked for, and refused when only its trained_by line tells."""
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert sample["positions"] == "sinusoidal"
    read = run_json("selfattn", LESSON, "-i", "concordancia")
    placed = attn.selfattn(LESSON, w_q=sample["w_q"], w_k=sample["w_k"], w_v=sample["w_v"],
                           d_model=32, positions="sinusoidal")  # fmt: skip
    bare = attn.selfattn(LESSON, w_q=sample["w_q"], w_k=sample["w_k"], w_v=sample["w_v"],
                         d_model=32)  # fmt: skip
    np.testing.assert_array_equal(np.array(read["weights"]), placed.weights)
    assert not np.allclose(placed.weights, bare.weights)  # without them: other numbers
    for lang, words in (("en", "as the input says"), ("es", "como dice la entrada")):
        screen = run("selfattn", LESSON, "-i", "concordancia", "--format", "table", "--lang", lang)
        assert words in " ".join(screen.stdout.split()), lang
    rope = run("selfattn", LESSON, "-i", "concordancia", "--positions", "rope")
    assert rope.exit_code == 2 and rope.stdout == ""
    assert isinstance(rope.error, OptionError) and rope.error.fields["kind"] == "sinusoidal"
    assert rope.error.msgid.startswith("{option}: the W were learned on X with {kind} positions")
    trimmed = {name: value for name, value in sample.items() if name != "positions"}
    path = tmp_path / "layer.json"
    path.write_text(json.dumps(trimmed), encoding="utf-8")
    result = run("selfattn", LESSON, "-i", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert isinstance(result.error, InputError) and result.error.fields["kind"] == "sinusoidal"
    assert result.error.msgid.startswith("the W were learned with {option} (trained_by says so)")
    assert run("selfattn", LESSON, "-i", str(path), "--positions", "sinusoidal").exit_code == 0


@pytest.mark.parametrize(
    ("positions", "msgid"),
    [("rope", "positions is {value}; it names the encoding the layer's X carries: {kinds}"),
     (3, "positions is {value}; it names the encoding the layer's X carries: {kinds}")],
)  # fmt: skip
def test_positions_that_are_not_an_encoding_are_refused(run, tmp_path, positions, msgid):
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    path = tmp_path / "layer.json"
    path.write_text(json.dumps({**sample, "positions": positions}), encoding="utf-8")
    result = run("selfattn", LESSON, "-i", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, msgid, value=json.dumps(positions), kinds="sinusoidal")


def test_positions_without_an_x_to_carry_them_are_refused(run, tmp_path):
    path = tmp_path / "qkv.json"
    direct = {"queries": [[1, 0]], "keys": [[1, 0], [0, 1]], "values": [[1, 0], [0, 1]],
              "positions": "sinusoidal"}  # fmt: skip
    path.write_text(json.dumps(direct), encoding="utf-8")
    result = run("selfattn", "-i", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert isinstance(result.error, InputError) and result.error.fields == {"kind": "sinusoidal"}


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
