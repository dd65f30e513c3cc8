"""A pretrained model's refusals speak Python from Python: attn.selfattn(..., model=M,
layer=99), attn.heads, attn.rollout and attn.predict name their keyword arguments (layer=99,
source='kyes', top_k=0), and the command line the same error with its options (--layer 99,
--from 'kyes', --top-k 0)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import AttnError
from tests import tiny_models
from tests.conftest import SAMPLES

OPTION = re.compile(r"(?<![\w-])--[a-z]")
DEMO = "all-MiniLM-L6-v2"
SENTENCE = "the keys to the cabinet are on the table"
TOKENS = "[CLS], the, keys, to, the, cabinet, are, on, the, table, [SEP]"
ON = ("--model", DEMO)
LLAMA = Path(__file__).parents[1] / "models" / "tiny-llama"

# name: (the call, what its error says in Python, attn's arguments, what the line says)
BOTH_WAYS = {
    "layer": (lambda: attn.selfattn(SENTENCE, model=DEMO, layer=99),
              "layer=99 is out of range: the model has 6 layers (1 to 6)",
              ("selfattn", SENTENCE, *ON, "--layer", "99"),
              "--layer 99 is out of range: the model has 6 layers (1 to 6)"),
    "head": (lambda: attn.selfattn(SENTENCE, model=DEMO, head=13),
             "head=13 is out of range: the model has 12 heads per layer (1 to 12)",
             ("selfattn", SENTENCE, *ON, "--head", "13"),
             "--head 13 is out of range: the model has 12 heads per layer (1 to 12)"),
    "no sentence": (lambda: attn.selfattn(" ", model=DEMO),
                    "give a sentence, e.g. attncli.selfattn(\"the keys to the cabinet are on "
                    "the table\", model='all-MiniLM-L6-v2')",
                    ("selfattn", " ", *ON),
                    'give a sentence, e.g. attn selfattn "the keys to the cabinet are on the '
                    'table" --model all-MiniLM-L6-v2'),
    "rollout no sentence": (lambda: attn.rollout("", model=DEMO),
                            "give a sentence, e.g. attncli.rollout(\"the keys to the cabinet are "
                            "on the table\", model='all-MiniLM-L6-v2')",
                            ("rollout", "", *ON),
                            'give a sentence, e.g. attn rollout "the keys to the cabinet are on '
                            'the table" --model all-MiniLM-L6-v2'),
    # a causal model's own example: the demo MiniLM is an encoder, which predict refuses
    "predict no sentence": (lambda: attn.predict(" ", str(LLAMA)),
                            "give a sentence, e.g. attncli.predict(\"the keys to the cabinet are "
                            f"on the\", model='{LLAMA}')",
                            ("predict", " ", "--model", str(LLAMA)),
                            'give a sentence, e.g. attn predict "the keys to the cabinet are on '
                            f'the" --model {LLAMA}'),
    "rollout layer": (lambda: attn.rollout(SENTENCE, model=DEMO, layer=7),
                      "layer=7 is out of range: the model has 6 layers (1 to 6)",
                      ("rollout", SENTENCE, *ON, "--layer", "7"),
                      "--layer 7 is out of range: the model has 6 layers (1 to 6)"),
    "rollout to": (lambda: attn.rollout(SENTENCE, model=DEMO, cell=True, to="kyes"),
                   f"to='kyes' is not one of the model's tokens here: {TOKENS}",
                   ("rollout", SENTENCE, *ON, "--steps", "--to", "kyes"),
                   f"--to 'kyes' is not one of the model's tokens here: {TOKENS}"),
    "rollout token": (lambda: attn.rollout(SENTENCE, model=DEMO, cell=True, token="kyes"),
                      f"token='kyes' is not a row here; the rows are: {TOKENS}",
                      ("rollout", SENTENCE, *ON, "--steps", "--token", "kyes"),
                      f"--token 'kyes' is not a row here; the rows are: {TOKENS}"),
    "rollout row": (lambda: attn.rollout(SENTENCE, model=DEMO, cell=True, row=12),
                    "row=12 is out of range: there are 11 rows (1 to 11)",
                    ("rollout", SENTENCE, *ON, "--steps", "--row", "12"),
                    "--row 12 is out of range: there are 11 rows (1 to 11)"),
    "rollout row and token": (lambda: attn.rollout(SENTENCE, model=DEMO, cell=True, row=1,
                                                   token="keys"),
                              "row and token both pick a row; give only one",
                              ("rollout", SENTENCE, *ON, "--steps", "--row", "1", "--token",
                               "keys"),
                              "--row and --token both pick a row; give only one"),
    "from": (lambda: attn.heads(SENTENCE, model=DEMO, source="kyes", target="keys"),
             f"source='kyes' is not one of the model's tokens here: {TOKENS}",
             ("heads", SENTENCE, *ON, "--from", "kyes", "--to", "keys"),
             f"--from 'kyes' is not one of the model's tokens here: {TOKENS}"),
    "to": (lambda: attn.heads(SENTENCE, model=DEMO, source="are", target="kyes"),
           f"target='kyes' is not one of the model's tokens here: {TOKENS}",
           ("heads", SENTENCE, *ON, "--from", "are", "--to", "kyes"),
           f"--to 'kyes' is not one of the model's tokens here: {TOKENS}"),
    "nothing to rank": (lambda: attn.heads(SENTENCE, model=DEMO),
                        "say what to rank: source=TOKEN, target=TOKEN (e.g. source='are', "
                        "target='keys'), pattern=previous|first|self|duplicate|induction or "
                        "pattern_cells=[[…]]",
                        ("heads", SENTENCE, *ON),
                        "say what to rank: --from TOKEN --to TOKEN (e.g. --from are --to keys), "
                        "--pattern previous|first|self|duplicate|induction or --pattern-file F"),
    "pattern and cell": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="first",
                                            source="are"),
                         "pattern and source/target each choose what to rank; give one of them",
                         ("heads", SENTENCE, *ON, "--pattern", "first", "--from", "are"),
                         "--pattern and --from/--to each choose what to rank; give one of them"),
    "pattern": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="diagonal"),
                "pattern='diagonal': give one of previous, first, self, duplicate, "
                "induction",
                ("heads", SENTENCE, *ON, "--pattern", "diagonal"),
                "--pattern 'diagonal': give one of previous, first, self, duplicate, "
                "induction"),
    "metric": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="first", metric="max"),
               "metric='max': give one of rows, mul, abs",
               ("heads", SENTENCE, *ON, "--pattern", "first", "--metric", "max"),
               "--metric 'max': give one of rows, mul, abs"),
    "exclude": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="first", exclude=["last"]),
                "exclude=['last']: give one of first, self",
                ("heads", SENTENCE, *ON, "--pattern", "first", "--exclude", "last"),
                "--exclude 'last': give one of first, self"),
    "metric of a cell": (lambda: attn.heads(SENTENCE, model=DEMO, source="are", target="keys",
                                            metric="mul"),
                         "metric scores a pattern; with source/target the score is the one "
                         "cell's weight",
                         ("heads", SENTENCE, *ON, "--from", "are", "--to", "keys", "--metric",
                          "mul"),
                         "--metric scores a pattern; with --from/--to the score is the one "
                         "cell's weight"),
    "exclude of a cell": (lambda: attn.heads(SENTENCE, model=DEMO, source="are", target="keys",
                                             exclude=["self"]),
                          "exclude scores a pattern; with source/target",
                          ("heads", SENTENCE, *ON, "--from", "are", "--to", "keys", "--exclude",
                           "self"),
                          "--exclude scores a pattern; with --from/--to"),
    "no cell": (lambda: attn.heads("the keys are here", model=DEMO, pattern="duplicate"),
                "pattern='duplicate' has no cell in «the keys are here» ([CLS] the keys are "
                "here [SEP]): duplicate and induction need a token that appears twice; "
                "attncli.repeated_random(model, N) draws N tokens and repeats them",
                ("heads", "the keys are here", *ON, "--pattern", "duplicate"),
                "--pattern duplicate has no cell in «the keys are here» ([CLS] the keys are "
                "here [SEP]): duplicate and induction need a token that appears twice; "
                "--random N draws N tokens and repeats them"),
    "no cell once excluded": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="self",
                                                 exclude=["self"]),
                              "[SEP]) once exclude=['self'] is applied: it leaves nothing",
                              ("heads", SENTENCE, *ON, "--pattern", "self", "--exclude",
                               "self"),
                              "[SEP]) once --exclude is applied: it leaves nothing"),
    "a sentence and sentences": (lambda: attn.heads(SENTENCE, model=DEMO, pattern="self",
                                                    sentences=["the car is here"]),
                                 "sentences=[…] with sentence='the keys",
                                 ("heads", SENTENCE, *ON, "--pattern", "self", "--sentences",
                                  str(SAMPLES / "llaves.json")),
                                 "--sentences FILE with SENTENCE: heads are ranked over one"),
    "random": (lambda: attn.repeated_random(DEMO, 1),
               "count=1: it must be 2 or more",
               ("heads", "--random", "1", *ON, "--pattern", "induction"),
               "--random 1: it must be 2 or more"),
    "top": (lambda: attn.predict(SENTENCE, model=DEMO, top=0),
            "top=0: it must be 1 or more (try top=5)",
            ("predict", SENTENCE, *ON, "--top", "0"),
            "--top 0: it must be 1 or more (try --top 5)"),
    "top-k": (lambda: attn.predict(SENTENCE, model=DEMO, top_k=0),
              "top_k=0: it must be 1 or more",
              ("predict", SENTENCE, *ON, "--top-k", "0"),
              "--top-k 0: it must be 1 or more"),
    "top-p": (lambda: attn.predict(SENTENCE, model=DEMO, top_p=1.5),
              "top_p=1.5: it must be a number above 0 and at most 1 (try top_p=0.9)",
              ("predict", SENTENCE, *ON, "--top-p", "1.5"),
              "--top-p 1.5: it must be a number above 0 and at most 1 (try --top-p 0.9)"),
    "an encoder": (lambda: attn.predict(SENTENCE, model=DEMO),
                   "all-MiniLM-L6-v2 has no language-model head (it is an encoder, bert): "
                   "attncli.predict() needs a causal model such as GPT-2",
                   ("predict", SENTENCE, *ON),
                   "all-MiniLM-L6-v2 has no language-model head (it is an encoder, bert): "
                   "attn predict needs a causal model such as GPT-2"),
    "empty model": (lambda: attn.selfattn(SENTENCE, model=""),
                    "model is empty; give a model folder, its config.json or a name such as "
                    "all-MiniLM-L6-v2",
                    ("selfattn", SENTENCE, "--model", ""),
                    "--model is empty; give a model folder, its config.json or a name such as "
                    "all-MiniLM-L6-v2"),
    "prefix at the top": (lambda: attn.selfattn(x=np.load(SAMPLES / "mha_x.npy"), heads=2,
                                                weights=str(SAMPLES / "mha.safetensors"),
                                                prefix="foo"),
                          "the file's layer is at the top level (no prefix needed; drop it)",
                          ("selfattn", "-i", "mha_x", "--weights",
                           str(SAMPLES / "mha.safetensors"), "--heads", "2", "--prefix", "foo"),
                          "the file's layer is at the top level (no --prefix needed; drop it)"),
}  # fmt: skip


@pytest.mark.parametrize("name", BOTH_WAYS)
def test_a_model_s_refusal_names_keywords_in_python_and_options_on_the_command_line(run, name):
    call, python, arguments, cli = BOTH_WAYS[name]
    with pytest.raises(AttnError) as raised:
        call()
    said = str(raised.value)
    assert python in said and not OPTION.search(said), said
    result = run(*arguments)
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert cli in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.error.msgid == raised.value.msgid  # the one error, said two ways
    spanish = raised.value.message("es", "python")
    assert not OPTION.search(spanish) and spanish != said, spanish  # in Spanish, still Python


def test_an_unread_name_in_a_state_dict_is_fixed_with_prefix(run, tmp_path):
    from safetensors.numpy import load_file

    state = {**load_file(SAMPLES / "mha.safetensors"), "zzz": np.zeros(2)}
    with pytest.raises(AttnError) as raised:
        attn.selfattn(x=np.load(SAMPLES / "mha_x.npy"), weights=state, heads=2)
    said = str(raised.value)
    assert said.endswith("zzz is not a weight of the attention layer attn reads there; "
                         "remove it, or pick the layer with prefix"), said  # fmt: skip
    assert not OPTION.search(said)
    np.savez(tmp_path / "layer.npz", **state)
    result = run("selfattn", "-i", "mha_x", "--weights", str(tmp_path / "layer.npz"), "--heads",
                 "2")  # fmt: skip
    assert result.exit_code == 2 and result.stderr.rstrip().endswith(
        "remove it, or pick the layer with --prefix"
    ), result.stderr


def _cached(cache, owner: str) -> None:
    snapshot = cache / f"models--{owner}--tiny" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    (snapshot / "model.safetensors").write_bytes(b"")


def test_a_model_name_two_owners_have_is_named_as_model(run, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    _cached(tmp_path, "alice")
    _cached(tmp_path, "bob")
    with pytest.raises(AttnError) as raised:
        attn.heads(SENTENCE, model="tiny", pattern="first")
    assert str(raised.value) == (
        "model='tiny' could be alice/tiny or bob/tiny; give the one you mean in full"
    )
    result = run("heads", SENTENCE, "--model", "tiny", "--pattern", "first")
    assert result.stderr == (
        "attn: error: --model tiny could be alice/tiny or bob/tiny; give the one you mean in full\n"
    )


def test_a_vocabulary_too_small_asks_for_what_it_can_draw(tmp_path):
    folder = tmp_path / "bert"
    tiny_models.WRITERS["bert"](folder)
    found = len(attn.repeated_random(str(folder), 2).split()) // 2  # it draws at least 2
    with pytest.raises(AttnError) as raised:
        attn.repeated_random(str(folder), 200)
    said = str(raised.value)
    assert not OPTION.search(said), said
    asked = raised.value.fields["found"]
    assert asked >= found and said.endswith(f"whole words to draw; ask count={asked}"), said
    assert raised.value.message("en", "cli").endswith(f"ask --random {asked}")


def test_empty_sentences_are_asked_for_in_python():
    with pytest.raises(AttnError) as raised:
        attn.heads(None, model=DEMO, pattern="self", sentences=[])
    assert str(raised.value) == "sentences has no sentences; give one or more"
    assert raised.value.message("en", "cli") == "--sentences has no sentences; write one per line"


def test_a_pattern_given_twice_names_pattern_cells(run):
    with pytest.raises(AttnError) as raised:
        attn.heads(SENTENCE, model=DEMO, pattern="self", pattern_cells=np.eye(11))
    assert str(raised.value) == "pattern and pattern_cells each give a pattern; give one of them"
    assert raised.value.message("en", "cli") == (
        "--pattern and --pattern-file each give a pattern; give one of them"
    )


@pytest.mark.parametrize(
    ("make", "python"),
    [
        (lambda: attn.rollout(SENTENCE, model=DEMO),
         "attncli.rollout() writes its one cell out with cell=True, token=T, to=T (result.cell)"),
        (lambda: attn.heads(SENTENCE, model=DEMO, source="are", target="keys"),
         "attncli.heads() ranks heads and has no steps; explain one with "
         "attncli.selfattn(sentence, model=M, layer=L, head=H).steps()"),
    ],
)  # fmt: skip
def test_a_result_without_steps_says_how_to_ask_in_python(make, python):
    with pytest.raises(AttnError) as raised:
        make().steps()
    assert str(raised.value) == python


def test_a_pattern_file_without_cells_is_named_once(run, tmp_path):
    """A pattern of zeros has no cell: named as the file (or pattern_cells), not as
    '--pattern --pattern-file'."""
    with pytest.raises(AttnError) as raised:
        attn.heads("the keys", model=DEMO, pattern_cells=np.zeros((4, 4)))
    said = str(raised.value)
    assert said.startswith("pattern_cells has no cell in «the keys»"), said
    zeros = tmp_path / "zeros.json"
    zeros.write_text(json.dumps(np.zeros((4, 4)).tolist()), encoding="utf-8")
    result = run("heads", "the keys", *ON, "--pattern-file", str(zeros))
    assert result.stderr.startswith("attn: error: --pattern-file has no cell in «the keys»")


def test_too_many_tokens_to_draw_names_count(run, tmp_path):
    folder = tmp_path / "gpt2"
    tiny_models.WRITERS["gpt2"](folder)  # 48 positions
    with pytest.raises(AttnError) as raised:
        attn.repeated_random(str(folder), 24)
    said = str(raised.value)
    assert said == f"count=24 makes 50 tokens; {folder} reads at most 48", said
    result = run("heads", "--random", "24", "--model", str(folder), "--pattern", "induction")
    assert result.stderr == f"attn: error: --random 24 makes 50 tokens; {folder} reads at most 48\n"
    assert result.error.msgid == raised.value.msgid
