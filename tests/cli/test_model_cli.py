"""attn selfattn --model and attn heads as a user runs them, and their Python API, against
transformers' numbers (tests/references) on the tiny models and the demo model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import OptionError
from tests import tiny_models
from tests.meaning import told

PICKS = "picks from a pretrained model's layers"  # api/model.refuse_model_mismatch's why

REFERENCES = Path(__file__).parent.parent / "references"
TINY = json.loads((REFERENCES / "tiny_models.json").read_text(encoding="utf-8"))["models"]
SENTENCE = tiny_models.SENTENCES[0]  # the keys to the cabinet are on the table
DEMO = "all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-models")
    for kind, writer in tiny_models.WRITERS.items():
        writer(root / kind)
    return root


def as_json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def refused(result, *words):
    assert result.exit_code == 2 and result.stdout == ""
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, result.stderr
    for word in words:
        assert word in line, line
    return line


@pytest.mark.parametrize("kind", ["bert", "gpt2", "roberta"])
def test_one_head_as_json_is_transformers_head(run, tiny, kind):
    document = as_json(
        run(
            "selfattn",
            SENTENCE,
            "--model",
            str(tiny / kind),
            "--layer",
            "1",
            "--head",
            "2",
            "--json",
        )
    )
    reference = TINY[kind]["runs"][0]["layers"][0]
    assert document["layer"] == 1 and document["head"] == 2 and document["heads"] == 4
    assert document["tokens"][1 if kind != "gpt2" else 0] == "the"
    expected = np.asarray(reference["weights"])[1]
    assert np.abs(np.asarray(document["weights"]) - expected).max() < 1e-12
    queries = np.asarray(reference["queries"])[:, 8:16]  # head 2's columns of Q
    assert np.abs(np.asarray(document["queries"]) - queries).max() < 1e-12
    assert np.asarray(document["output"]).shape == (len(document["tokens"]), 8)
    assert document["causal"] is (kind == "gpt2")


def test_every_head_of_the_last_layer_by_default(run, tiny):
    document = as_json(run("selfattn", SENTENCE, "--model", str(tiny / "bert"), "--json"))
    reference = TINY["bert"]["runs"][0]["layers"][1]
    assert document["layer"] == 2 and document["head"] is None
    assert np.abs(np.asarray(document["weights"]) - reference["weights"]).max() < 1e-12
    output = np.asarray(document["output"])  # the attention output, after W^O
    assert np.abs(output - np.asarray(reference["attention_output"])).max() < 1e-12


def test_words_merge_pieces(run, tiny):
    document = as_json(
        run(
            "selfattn",
            "the niño",
            "--model",
            str(tiny / "bert"),
            "--head",
            "1",
            "--words",
            "--json",
        )
    )
    assert document["words"] == ["[CLS]", "the", "nino", "[SEP]"]
    assert document["word_pieces"] == [[0], [1], [2, 3, 4, 5], [6]]
    merged = np.asarray(document["word_weights"])
    weights = np.asarray(document["weights"])
    assert np.allclose(merged.sum(axis=1), 1.0, atol=1e-12)
    assert np.isclose(merged[2, 1], weights[2:6, 1].mean(), atol=1e-15)
    assert np.isclose(merged[1, 2], weights[1, 2:6].sum(), atol=1e-15)


def test_the_sentence_can_come_on_stdin(run, tiny):
    piped = as_json(run("selfattn", "--model", str(tiny / "bert"), "--json", input=SENTENCE))
    given = as_json(run("selfattn", SENTENCE, "--model", str(tiny / "bert"), "--json"))
    assert piped["weights"] == given["weights"]


def test_the_screen_names_the_model_layer_and_head(run, tiny):
    screen = run(
        "selfattn",
        SENTENCE,
        "--model",
        str(tiny / "bert"),
        "--layer",
        "1",
        "--head",
        "3",
        "--format",
        "table",
    )
    assert screen.exit_code == 0, screen.stderr
    assert "(bert) · layer 1 of 2 · head 3 of 4" in screen.stdout
    assert "trained" in screen.stdout and "random" not in screen.stdout
    spanish = run(
        "selfattn",
        SENTENCE,
        "--model",
        str(tiny / "bert"),
        "--layer",
        "1",
        "--head",
        "3",
        "--format",
        "table",
        "--lang",
        "es",
    )
    assert (
        "capa 1 de 2 · cabeza 3 de 4" in spanish.stdout
        and "las del modelo, entrenadas" in spanish.stdout
    )


def test_steps_take_the_heads_real_query_apart(run, tiny):
    screen = run(
        "selfattn",
        SENTENCE,
        "--model",
        str(tiny / "bert"),
        "--layer",
        "1",
        "--head",
        "2",
        "--steps",
        "--token",
        "are",
        "--format",
        "table",
    )
    assert screen.exit_code == 0, screen.stderr
    assert "Softmax of are" in screen.stdout and "÷ √8" in screen.stdout
    document = as_json(
        run(
            "selfattn",
            SENTENCE,
            "--model",
            str(tiny / "bert"),
            "--layer",
            "1",
            "--head",
            "2",
            "--json",
        )
    )
    row = document["tokens"].index("are")
    weight = document["weights"][row][document["tokens"].index("keys")]
    assert f"{weight:.3f}" in screen.stdout


def test_a_long_dot_product_is_abridged_and_says_so(run):
    screen = run(
        "selfattn",
        SENTENCE,
        "--model",
        DEMO,
        "--layer",
        "4",
        "--head",
        "2",
        "--steps",
        "--token",
        "are",
        "--format",
        "table",
    )
    assert screen.exit_code == 0, screen.stderr
    assert "… stands for 29 products left out; each sum is over all 32" in screen.stdout
    assert "0.807" in screen.stdout


def test_plot_and_export(run, tiny, tmp_path):
    picture, table = tmp_path / "weights.png", tmp_path / "weights.md"
    result = run(
        "selfattn",
        SENTENCE,
        "--model",
        str(tiny / "bert"),
        "--head",
        "1",
        "--plot",
        str(picture),
        "--export",
        str(table),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert "keys" in table.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--layer", "3"], "--layer 3 is out of range: the model has 2 layers (1 to 2)"),
        (["--head", "5"], "--head 5 is out of range: the model has 4 heads per layer"),
        (["--d-model", "4"], "--d-model shapes the seeded layer"),
        (["--heads", "2"], "--heads shapes the seeded layer"),
        (["--steps"], "--steps explains one head's row; add --head H (1 to 4)"),
        (["--words", "--steps", "--head", "1"], "--words merges them"),
    ],
)
def test_model_options_that_do_not_fit_are_one_line(run, tiny, extra, words):
    refused(run("selfattn", SENTENCE, "--model", str(tiny / "bert"), *extra), words)


def test_layer_and_words_need_a_model(run):
    refused(run("selfattn", "the keys", "--layer", "2"), "--layer", "add --model M")
    refused(run("selfattn", "the keys", "--words"), "--words", "add --model M")


def test_a_model_that_is_not_there_says_how_to_get_one(run, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    refused(run("selfattn", "the keys", "--model", "someone/nothing"), "never downloads")
    refused(
        run("heads", "the keys", "--model", "someone/nothing", "--pattern", "self"),
        "never downloads",
    )


def test_heads_ranks_every_head_highest_first(run, tiny):
    document = as_json(
        run("heads", SENTENCE, "--model", str(tiny / "bert"), "--from", "are", "--to", "keys")
    )
    weights = np.asarray([layer["weights"] for layer in TINY["bert"]["runs"][0]["layers"]])
    tokens = document["tokens"]
    row, column = tokens.index("are"), tokens.index("keys")
    assert (document["from"], document["to"]) == ("are", "keys")
    ranked = document["heads"]
    assert len(ranked) == 8 and [h["weight"] for h in ranked] == sorted(
        (h["weight"] for h in ranked), reverse=True
    )
    for entry in ranked:
        expected = weights[entry["layer"] - 1, entry["head"] - 1, row, column]
        assert abs(entry["weight"] - expected) < 1e-12


@pytest.mark.parametrize("pattern", ["previous", "first", "self"])
def test_heads_by_pattern_against_a_loop(run, tiny, pattern):
    document = as_json(run("heads", SENTENCE, "--model", str(tiny / "gpt2"), "--pattern", pattern))
    weights = [layer["weights"] for layer in TINY["gpt2"]["runs"][0]["layers"]]
    for entry in document["heads"]:
        grid = weights[entry["layer"] - 1][entry["head"] - 1]
        count = len(grid)
        if pattern == "previous":
            cells = [grid[i][i - 1] for i in range(1, count)]
        elif pattern == "first":
            cells = [grid[i][0] for i in range(count)]
        else:
            cells = [grid[i][i] for i in range(count)]
        assert abs(entry["weight"] - sum(cells) / len(cells)) < 1e-12


def test_heads_table_shows_ten_or_all(run):
    top = run(
        "heads", SENTENCE, "--model", DEMO, "--from", "are", "--to", "keys", "--format", "table"
    )
    assert top.exit_code == 0, top.stderr
    assert "… 62 more of 72" in top.stdout
    first = next(line for line in top.stdout.splitlines() if line.strip().startswith("1 "))
    assert first.split()[:4] == ["1", "4", "2", "0.807"]
    every = run(
        "heads",
        SENTENCE,
        "--model",
        DEMO,
        "--from",
        "are",
        "--to",
        "keys",
        "--format",
        "table",
        "--all",
    )
    assert "more of 72" not in every.stdout
    assert any(line.strip().startswith("72 ") for line in every.stdout.splitlines())


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ([], "say what to rank"),
        (["--from", "are"], "say what to rank"),
        (["--pattern", "diagonal"], "--pattern 'diagonal': give one of previous"),
        (["--pattern", "self", "--from", "are"], "give one of them"),
        (["--from", "nothing", "--to", "keys"], "--from 'nothing' is not one of the model's"),
    ],
)
def test_heads_refusals(run, tiny, extra, words):
    refused(run("heads", SENTENCE, "--model", str(tiny / "bert"), *extra), words)


def test_heads_of_a_model_s_own_words_need_a_model(run):
    alone = run("heads", "--random", "5", "--pattern", "induction")
    refused(alone)
    told(alone.error, OptionError, "{option} {why}; add {needed}", option="--random")
    refused(run("heads", SENTENCE, "--compare", SENTENCE), "--compare ranks a model's heads")


def test_the_python_api_returns_the_same_results(tiny):
    result = attn.selfattn(SENTENCE, model=str(tiny / "bert"), layer=1, head=2)
    reference = np.asarray(TINY["bert"]["runs"][0]["layers"][0]["weights"])[1]
    from attncli.results.selfattn import SelfAttnResult

    assert isinstance(result, SelfAttnResult)
    assert np.abs(result.weights - reference).max() < 1e-12
    ranked = attn.heads(SENTENCE, model=str(tiny / "bert"), source="are", target="keys")
    assert ranked.ranking[0].weight == max(h.weight for h in ranked.ranking)
    with pytest.raises(attn.OptionError, match="d_model shapes the seeded layer"):
        attn.selfattn(SENTENCE, model=str(tiny / "bert"), d_model=4)
    with pytest.raises(attn.OptionError) as caught:
        attn.selfattn(SENTENCE, layer=1)
    told(caught.value, attn.OptionError,
         "{option} {why}; add {needed}", "python", option="layer=1", needed="model=M",
         why=(PICKS, {"option": "layer=1"}))  # fmt: skip


@pytest.mark.slow  # two fresh processes, to see what each imports
def test_a_model_run_loads_the_model_packages_and_a_seeded_one_does_not():
    import subprocess
    import sys

    probe = (
        "import sys; import attncli as attn; attn.selfattn('en las llaves'); "
        "print('tokenizers' in sys.modules, 'safetensors' in sys.modules)"
    )
    seeded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert seeded.stdout.split() == ["False", "False"], seeded.stderr
    probe = probe.replace(
        "attn.selfattn('en las llaves')", f"attn.selfattn('the keys', model={DEMO!r})"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert loaded.stdout.split() == ["True", "True"], loaded.stderr


def test_show_names_the_biases_of_a_layer(run, tiny, tmp_path):
    screen = run(
        "selfattn",
        SENTENCE,
        "--model",
        str(tiny / "bert"),
        "--head",
        "1",
        "--show",
        "w,q,shapes",
        "--format",
        "table",
    )
    assert screen.exit_code == 0, screen.stderr
    assert "b^Q" in screen.stdout and "W^V" in screen.stdout
    document = tmp_path / "biased.json"
    document.write_text(
        json.dumps(
            {
                "x": [[1, 0], [0, 1]],
                "w_q": [[1, 0], [0, 1]],
                "w_k": [[1, 0], [0, 1]],
                "w_v": [[1, 0], [0, 1]],
                "b_q": [1, 1],
            }
        )
    )
    seeded = run("selfattn", "-i", str(document), "--show", "shapes,w", "--format", "table")
    assert seeded.exit_code == 0, seeded.stderr
    assert "b^Q" in seeded.stdout


def test_heads_in_spanish_and_from_stdin(run, tiny):
    screen = run(
        "heads",
        "--model",
        str(tiny / "bert"),
        "--pattern",
        "first",
        "--format",
        "table",
        "--lang",
        "es",
        input=SENTENCE,
    )
    assert screen.exit_code == 0, screen.stderr
    words = " ".join(screen.stdout.split())  # however the title wraps (a long tmp path)
    assert "ordenadas por el peso medio sobre el" in words
    assert "Puesto" in screen.stdout and "Cabeza" in screen.stdout


def test_byte_level_words_as_json(run, tiny):
    document = as_json(
        run(
            "selfattn",
            "the keys están",
            "--model",
            str(tiny / "gpt2"),
            "--head",
            "1",
            "--words",
            "--json",
        )
    )
    assert document["words"] == ["the", "keys", "están"]
    merged = np.asarray(document["word_weights"])
    assert np.allclose(merged.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.triu(merged, k=1) == 0.0)  # causal: no word looks at a later one


def test_a_notebook_shows_the_results(tiny):
    result = attn.selfattn(SENTENCE, model=str(tiny / "bert"), head=1)
    import re

    def text(html: str) -> str:  # the words, however the title wraps (a long tmp path)
        return " ".join(re.sub(r"<[^>]+>", "", html).split())

    assert "layer 2 of 2 · head 1 of 4" in text(result._repr_html_())
    ranked = attn.heads(SENTENCE, model=str(tiny / "bert"), pattern="self")
    shown = text(ranked._repr_html_())
    assert "ranked by the mean weight on the token" in shown and "Layer" in shown


@pytest.mark.parametrize(("lang", "said"), [("en", "4 of the sentence's 6 words"),
                                            ("es", "4 de las 6 palabras")])  # fmt: skip
def test_a_sentence_the_model_does_not_know_names_every_word_it_splits(run, lang, said):
    result = run("selfattn", "las llaves del coche están ahí", "--model", DEMO, "--json",
                 "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (line,) = result.stderr.splitlines()
    assert said in line
    # every word the warning counts is named, by the model's own spelling of it
    split = attn.selfattn("las llaves del coche están ahí", model=DEMO).split_words
    assert len(split) == 4
    assert all(f"«{word}»" in line for word in split), line


def test_a_long_sentence_s_split_words_are_named_up_to_a_line(capsys):
    from types import SimpleNamespace

    from attncli.cli.commands.model_runs import SHOWN, warn_if_foreign

    split = tuple(f"palabra{n}" for n in range(SHOWN + 3))
    result = SimpleNamespace(split_words=split, word_count=len(split), source_name="m")
    warn_if_foreign(result, "en")  # type: ignore[arg-type]
    line = capsys.readouterr().err
    assert all(f"«{word}»" in line for word in split[:SHOWN])
    assert f"«{split[SHOWN]}»" not in line and "and 3 more" in line
