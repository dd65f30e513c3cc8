"""attn heads --pattern duplicate|induction, --pattern-file, --metric, --exclude and
--random on the tiny models: each head's score is TransformerLens's formula (the loop of
tests/core/test_head_patterns.py) on that head's own weight grid; what cannot be scored is
refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, OptionError, ShapeError
from tests import tiny_models
from tests.core.test_head_patterns import loop_pattern, loop_score
from tests.meaning import told

NO_CELL = "{pattern} has no cell in «{sentence}» ({tokens}){left}: {why}"
NEEDS_A_REPEAT = "duplicate and induction need a token that appears twice; {fix}"

REPEATED = "the keys to the cabinet are on the table the keys to the cabinet"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("pattern-models")
    for kind in ("bert", "gpt2"):
        tiny_models.WRITERS[kind](root / kind)
    return root


def grids(model: str, sentence: str) -> dict[tuple[int, int], list[list[float]]]:
    found = {}
    for layer in (1, 2):
        weights = attn.selfattn(sentence, model=model, layer=layer).weights
        for head, grid in enumerate(weights, start=1):
            found[layer, head] = grid.tolist()
    return found


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
@pytest.mark.parametrize("name", ["duplicate", "induction", "previous"])
@pytest.mark.parametrize(("metric", "exclude"), [("mul", ()), ("abs", ("first",)),
                                                 ("rows", ("first", "self"))])  # fmt: skip
def test_each_heads_score_is_the_loop_on_its_own_grid(models, kind, name, metric, exclude):
    model = str(models / kind)
    ranked = attn.heads(REPEATED, model, pattern=name, metric=metric, exclude=exclude,
                        shown_count=None)  # fmt: skip
    ids = attn.selfattn(REPEATED, model=model).source.ids
    cells = loop_pattern(name, list(ids))
    own = grids(model, REPEATED)
    assert len(ranked.ranking) == 8
    for entry in ranked.ranking:
        expected = loop_score(own[entry.layer, entry.head], cells, metric, exclude)
        assert abs(entry.weight - expected) < 1e-12


def test_the_mean_over_sentences_is_transformerlenss_mean(models):
    # head_detector.py lines 116-117: one score per sequence, then their mean
    model = str(models / "gpt2")
    texts = [REPEATED, "the car is here the car is here"]
    ranked = attn.heads(None, model, pattern="duplicate", metric="mul", sentences=texts,
                        shown_count=None)  # fmt: skip
    each = [attn.heads(text, model, pattern="duplicate", metric="mul", shown_count=None)
            for text in texts]  # fmt: skip
    for entry in ranked.ranking:
        alone = [next(h.weight for h in run.ranking if (h.layer, h.head) ==
                      (entry.layer, entry.head)) for run in each]  # fmt: skip
        assert entry.weight == pytest.approx(sum(alone) / 2, abs=1e-15)


def test_a_pattern_file_scores_as_the_named_pattern(run, models, tmp_path):
    model = str(models / "bert")
    ids = attn.selfattn(REPEATED, model=model).source.ids
    path = tmp_path / "previous.json"
    path.write_text(json.dumps(loop_pattern("previous", list(ids))), encoding="utf-8")
    given = json.loads(run("heads", REPEATED, "--model", model, "--pattern-file", str(path),
                           "--metric", "mul", "--json").stdout)  # fmt: skip
    named = json.loads(run("heads", REPEATED, "--model", model, "--pattern", "previous",
                           "--metric", "mul", "--json").stdout)  # fmt: skip
    assert given["pattern"] == "given" and given["metric"] == "mul"
    assert given["heads"] == named["heads"]


def test_random_repeats_a_seeded_draw(run, models):
    model = str(models / "bert")
    first = json.loads(run("heads", "--random", "5", "--model", model, "--pattern",
                           "induction", "--json").stdout)  # fmt: skip
    again = json.loads(run("heads", "--random", "5", "--model", model, "--pattern",
                           "induction", "--json").stdout)  # fmt: skip
    other = json.loads(run("heads", "--random", "5", "--seed", "1", "--model", model,
                           "--pattern", "induction", "--json").stdout)  # fmt: skip
    tokens = first["tokens"]
    assert first == again and other["tokens"] != tokens
    assert len(tokens) == 12 and tokens[1:6] == tokens[6:11] and len(set(tokens[1:6])) == 5
    sentence = attn.repeated_random(model, 5, seed=0)
    assert sentence.split() == tokens[1:11]


def test_random_repeats_the_same_tokens_in_a_byte_level_vocabulary(models):
    """GPT-2's vocabulary reads «keys» alone and « keys» after a space as two tokens: the
    first word is read after a space too, so the second half is the first, id for id."""
    model = str(models / "gpt2")
    sentence = attn.repeated_random(model, 5, seed=0)
    ids = list(attn.selfattn(sentence, model=model).source.ids)
    assert len(ids) == 10 and ids[:5] == ids[5:] and len(set(ids[:5])) == 5


def test_the_screen_says_the_metric_and_what_a_causal_pattern_means_here(run, models):
    bert = run("heads", REPEATED, "--model", str(models / "bert"), "--pattern", "induction",
               "--format", "table").stdout  # fmt: skip
    assert "Score (rows, the default)" in bert and "This model is bidirectional" in bert
    gpt2 = run("heads", REPEATED, "--model", str(models / "gpt2"), "--pattern", "induction",
               "--metric", "mul", "--exclude", "first", "--format", "table").stdout  # fmt: skip
    assert "Score (mul, TransformerLens')" in gpt2 and "bidirectional" not in gpt2
    assert "Left out of the score: the weight on the first token." in gpt2
    spanish = run("heads", REPEATED, "--model", str(models / "bert"), "--pattern",
                  "duplicate", "--format", "table", "--lang", "es").stdout  # fmt: skip
    # the lines wrap where the model's path (a temporary folder's) leaves them
    spanish = " ".join(spanish.split())
    assert "bidireccional" in spanish and "copias anteriores" in spanish


def refused(result, kind, msgid, /, **fields):
    """One line, nothing on stdout, and the line is that error said."""
    assert result.exit_code != 0 and result.stdout == "", result.stdout
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


@pytest.mark.parametrize(
    ("extra", "kind", "msgid", "fields"),
    [
        (["--pattern", "duplicate", "--metric", "max"], OptionError,
         "{setting}: give one of {choices}", {"setting": "--metric 'max'"}),
        (["--pattern", "duplicate", "--exclude", "last"], OptionError,
         "{setting}: give one of {choices}",
         {"setting": "--exclude 'last'", "choices": "first, self"}),
        (["--from", "are", "--to", "keys", "--metric", "mul"], OptionError,
         "{option} scores a pattern; with {source}/{target} the score is the one cell's weight",
         {"option": "--metric", "source": "--from", "target": "--to"}),
        (["--pattern", "self", "--exclude", "self"], InputError, NO_CELL,
         {"pattern": "--pattern self",
          "left": (" once {exclude} is applied", {"exclude": "--exclude"}),
          "why": ("it leaves nothing to score; exclude less", {})}),
    ],
)  # fmt: skip
def test_refusals(run, models, extra, kind, msgid, fields):
    refused(run("heads", REPEATED, "--model", str(models / "bert"), *extra), kind, msgid,
            **fields)  # fmt: skip


def test_a_sentence_without_repeats_has_no_duplicate_cell(run, models):
    model = str(models / "bert")
    refused(run("heads", "the keys are here", "--model", model, "--pattern", "duplicate"),
            InputError, NO_CELL, pattern="--pattern duplicate", sentence="the keys are here",
            left="", why=(NEEDS_A_REPEAT, {"fix": ("{random} draws N tokens and repeats them",
                                                   {"random": "--random N"})}))  # fmt: skip
    refused(run("heads", "keys", "--pattern", "previous"), InputError, NO_CELL,
            why=("the sentence is too short for it; give a longer one", {}))  # fmt: skip


def test_pattern_file_refusals(run, models, tmp_path):
    bert, gpt2 = str(models / "bert"), str(models / "gpt2")
    count = len(attn.selfattn("the keys", model=gpt2).tokens)
    square = tmp_path / "square.json"
    square.write_text(json.dumps(np.eye(count).tolist()), encoding="utf-8")
    refused(run("heads", "the keys are here", "--model", bert, "--pattern-file", str(square)),
            ShapeError,
            "{source} is {rows} × {columns}; the sentence has {count} tokens as the model reads "
            "them ({tokens}), so the pattern must be {count} × {count}",
            source="--pattern-file", rows=count, columns=count, count=6)  # fmt: skip
    upper = np.zeros((count, count))
    upper[0, 1] = 1
    square.write_text(json.dumps(upper.tolist()), encoding="utf-8")
    refused(run("heads", "the keys", "--model", gpt2, "--pattern-file", str(square)),
            InputError,
            "{source}: row {row}, column {column} is above the diagonal, and a causal model's "
            "token never sees a later one; set it to 0", row=1, column=2)  # fmt: skip
    upper[0, 1] = 2
    square.write_text(json.dumps(upper.tolist()), encoding="utf-8")
    refused(run("heads", "the keys", "--model", gpt2, "--pattern-file", str(square)),
            InputError, "{source}: row {row}, column {column} is {value}; a pattern's cells are "
            "0 to 1", row=1, column=2, value=2.0)  # fmt: skip
    refused(run("heads", "the keys", "--model", gpt2, "--pattern-file", str(square),
                "--pattern", "self"), OptionError,
            "{pattern} and {cells} each give a pattern; give one of them",
            pattern="--pattern", cells="--pattern-file")  # fmt: skip
    refused(run("heads", "the keys", "--random", "4", "--model", gpt2, "--pattern", "self"),
            OptionError, "{option} with {beside}: {why}", option=("SENTENCE", {}),
            beside="--random N")  # fmt: skip
