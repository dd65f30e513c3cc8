"""attn heads --sentences FILE: each head's score is the mean of its scores in separate runs
of each sentence, its lowest beside it; the file, the sentence and the options are checked
before any ranking is printed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError
from attncli.messages import Message
from tests import tiny_models
from tests.meaning import told

SENTENCES = ["the keys to the cabinet are on the table", "the keys of the car are here",
             "the keys on the table are here"]  # fmt: skip


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "bert"
    tiny_models.WRITERS["bert"](folder)
    return str(folder)


@pytest.fixture
def sentence_file(tmp_path):
    path = tmp_path / "agreement.txt"
    path.write_text("# agreement\n\n" + "\n".join(SENTENCES) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("asked", [{"source": "are", "target": "keys"}, {"pattern": "previous"}])
def test_the_mean_is_the_mean_of_separate_runs(bert, asked):
    ranked = attn.heads(None, bert, sentences=SENTENCES, shown_count=None, **asked)
    alone = [attn.heads(text, bert, shown_count=None, **asked) for text in SENTENCES]
    for entry in ranked.ranking:
        each = [next(h for h in run.ranking if (h.layer, h.head) == (entry.layer, entry.head))
                for run in alone]  # fmt: skip
        assert entry.each == tuple(h.weight for h in each)
        assert entry.weight == pytest.approx(np.mean([h.weight for h in each]), abs=1e-15)
        assert entry.lowest == min(h.weight for h in each)
        if "source" in asked:
            assert entry.rival is None  # the strongest other key differs from one to another
            assert entry.rival_weight == pytest.approx(
                np.mean([h.rival_weight for h in each]), abs=1e-15)  # fmt: skip
            assert entry.column_mean == pytest.approx(
                np.mean([h.column_mean for h in each]), abs=1e-15)  # fmt: skip
    weights = [entry.weight for entry in ranked.ranking]
    assert weights == sorted(weights, reverse=True)
    assert [s for s in ranked.sentences or ()] == SENTENCES


def test_the_command_reads_a_file_or_stdin_and_writes_each_sentence(run, bert, sentence_file):
    document = json.loads(run("heads", "--sentences", sentence_file, "--model", bert, "--from",
                              "are", "--to", "keys", "--json").stdout)  # fmt: skip
    assert [s["sentence"] for s in document["sentences"]] == SENTENCES
    assert document["sentences"][1]["tokens"][0] == "[CLS]"
    assert (document["from"], document["to"]) == ("are", "keys")
    best = document["heads"][0]
    assert len(best["each"]) == 3 and best["lowest"] == min(best["each"])
    assert best["weight"] == pytest.approx(sum(best["each"]) / 3, abs=1e-15)
    piped = run("heads", "--sentences", "-", "--model", bert, "--from", "are", "--to", "keys",
                "--json", input="\n".join(SENTENCES))  # fmt: skip
    assert json.loads(piped.stdout) == document


def test_the_screen_says_over_how_many_and_what_lowest_means(run, bert, sentence_file):
    screen = run("heads", "--sentences", sentence_file, "--model", bert, "--pattern", "self",
                 "--format", "table").stdout  # fmt: skip
    assert "the mean over 3 sentences" in screen and "Lowest" in screen
    assert "[CLS] the keys of the car are here [SEP]" in screen
    spanish = run("heads", "--sentences", sentence_file, "--model", bert, "--pattern", "self",
                  "--format", "table", "--lang", "es").stdout  # fmt: skip
    assert "la media de 3 frases" in spanish and "Mínimo" in spanish


NOT_A_TOKEN = "{option} is not one of the model's tokens here: {known}"
IN_SENTENCE = "sentence {number} of {count} ({sentence}): {reason}"


def refused(result, kind, msgid, /, **fields):
    """One line, nothing on stdout, and the line is that error said."""
    assert result.exit_code != 0 and result.stdout == "", result.stdout
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_refusals(run, bert, sentence_file, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    pattern = ("--model", bert, "--pattern", "self")
    refused(run("heads", "the keys", "--sentences", sentence_file, *pattern), OptionError,
            "{option} with {beside}: {why}", option="--sentences FILE", beside=("SENTENCE", {}),
            why=("heads are ranked over one sentence or over a file of them; leave out {option} "
                 "or the sentence",
                 {"option": "--sentences FILE"}))  # fmt: skip
    refused(run("heads", "--sentences", str(empty), *pattern), InputError,
            "{source} has no sentences; write one per line, e.g. {example}", source=str(empty),
            example="the keys to the cabinet are on the table")  # fmt: skip
    none = str(tmp_path / "none.txt")
    refused(run("heads", "--sentences", none, *pattern), InputError,
            "cannot read '{path}': no such file (check the path given to {option}; attn "
            "samples lists the samples installed with attn)",
            path=none, option="--sentences")  # fmt: skip
    missing = tmp_path / "missing.txt"
    missing.write_text("the keys are here\nthe car is here\n", encoding="utf-8")
    asked = ("--model", bert, "--from", "are", "--to", "keys")
    result = run("heads", "--sentences", str(missing), *asked)
    refused(result, InputError, IN_SENTENCE, number=2, count=2, sentence="the car is here")
    told(result.error.fields["reason"], Message, NOT_A_TOKEN, option="--from 'are'",
         token="are", known="[CLS], the, car, is, here, [SEP]")  # fmt: skip
    assert "frase 2 de 2 (the car is here): --from 'are' no es" in result.error.message("es")


def test_a_refusal_not_about_a_sentence_names_none(run, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("the dog runs fast\nthe cat sleeps\n", encoding="utf-8")
    result = run("heads", "--sentences", str(path), "--heads", "3", "--from", "dog", "--to", "the")
    assert result.exit_code == 2 and "sentence" not in result.error.fields
    assert not result.error.msgid.startswith("sentence {number}")
    lacking = run("heads", "--sentences", str(path), "--from", "dog", "--to", "the")
    told(lacking.error, InputError, IN_SENTENCE, number=2, count=2, sentence="the cat sleeps")
