"""attn selfattn --compare and attn heads --compare as a user types them: JSON when piped
(equal to two separate runs bit for bit), the screen in English and Spanish saying how the
tokens were aligned, and one line for each refusal."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rich.console import Console

import attncli as attn
from attncli.errors import InputError, OptionError
from attncli.present.format import Format
from attncli.present.views import view_of
from tests.meaning import plain

FIRST, SECOND = "la llave del coche está ahí", "las llaves del coche están ahí"
DEMO = "all-MiniLM-L6-v2"
KEY = "the key to the cabinet is on the table"
KEYS = "the keys to the cabinet are on the table"


def as_json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def refused(result, kind):
    assert result.exit_code != 0 and result.stdout == "", result.stdout
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, result.stderr
    assert isinstance(result.error, kind), result.stderr
    return result.error


def screen(result, width=80, lang="en"):
    console = Console(width=width, record=True, color_system=None)
    for part in view_of(result, Format.chosen(None, lang)):
        console.print(part)
    return console.export_text()


def test_piped_json_is_two_separate_runs_bit_for_bit(run):
    document = as_json(run("selfattn", FIRST, "--compare", SECOND))
    first = as_json(run("selfattn", FIRST))
    second = as_json(run("selfattn", SECOND))
    a, b = np.array(first["weights"]), np.array(second["weights"])
    assert np.array(document["weights"][0]).tolist() == a.tolist()
    assert np.array(document["difference"]).tolist() == (b - a).tolist()
    assert document["tokens"] == [first["tokens"], second["tokens"]]
    assert [(p["first_token"], p["second_token"]) for p in document["aligned"]][:2] == [
        ("la", "las"), ("llave", "llaves")]  # fmt: skip
    assert document["unaligned"] == []
    top = document["largest"][0]
    assert (top["from"], top["to"]) == ("llave/llaves", "está/están")
    assert top["change"] == (b - a)[1, 4]


def test_the_seeded_layers_options_apply_to_both(run):
    document = as_json(run("selfattn", FIRST, "--compare", SECOND, "--heads", "2", "--seed", "4",
                           "--causal"))  # fmt: skip
    a = attn.selfattn(FIRST, heads=2, seed=4, causal=True)
    b = attn.selfattn(SECOND, heads=2, seed=4, causal=True)
    assert np.array(document["difference"]).tolist() == (b.weights - a.weights).tolist()
    assert document["heads"] == 2 and document["causal"] is True


def test_the_model_with_and_without_words(run):
    first, second = "the key to the cupboard", "the keys to the cupboards"
    document = as_json(run("selfattn", first, "--compare", second, "--model", DEMO,
                           "--layer", "2", "--head", "3"))  # fmt: skip
    assert [u["word"] for u in document["unaligned"]] == ["cupboard", "cupboards"]
    assert document["unaligned"][0]["facing_pieces"] == 2
    a = attn.selfattn(first, model=DEMO, layer=2, head=3).weights
    b = attn.selfattn(second, model=DEMO, layer=2, head=3).weights
    kept_a, kept_b = [0, 1, 2, 3, 4, 6], [0, 1, 2, 3, 4, 7]
    expected = b[np.ix_(kept_b, kept_b)] - a[np.ix_(kept_a, kept_a)]
    assert np.array(document["difference"]).tolist() == expected.tolist()
    words = as_json(run("selfattn", first, "--compare", second, "--model", DEMO, "--layer", "2",
                        "--head", "3", "--words"))  # fmt: skip
    assert words["level"] == "words" and words["unaligned"] == []
    assert words["tokens"][1][5] == "cupboards"


def test_the_screen_says_what_was_aligned_and_what_was_not():
    pair = attn.compare_sentences("the key to the cupboard", "the keys to the cupboards",
                                  model=DEMO, layer=2, head=3)  # fmt: skip
    text = " ".join(screen(pair).split())
    assert "key ↔ keys" in text and "«cupboard» and «cupboards», read as 1 and 2 pieces" in text
    assert "--words merges the pieces" in text and "need not sum to 0" in text
    spanish = " ".join(screen(pair, lang="es").split())
    assert "Sin alinear: «cupboard» y «cupboards», leídas en 1 y 2 piezas" in spanish


def test_the_seeded_screen_marks_and_lists_the_largest_changes():
    pair = attn.compare_sentences(FIRST, SECOND)
    text = screen(pair)
    for line in text.splitlines():
        assert len(line) <= 80
    assert text.count("◆") == 3 + 1  # three cells and the legend's mark
    assert "«llave/llaves» → «está/están»: 0.011 → 0.695 (+0.684)" in text
    assert "la ↔ las, llave ↔ llaves, del, coche, está ↔ están, ahí" in " ".join(text.split())
    spanish = screen(pair, lang="es")
    assert "«llave/llaves» → «está/están»: 0,011 → 0,695 (+0,684)" in spanish
    assert "Mayores cambios" in spanish and "Todos los tokens se corresponden" in spanish


def test_heads_compare_ranks_the_agreement_head_first(run):
    document = as_json(run("heads", KEY, "--compare", KEYS, "--model", DEMO, "--from", "is",
                           "--to", "key"))  # fmt: skip
    best = document["heads"][0]
    assert (best["layer"], best["head"], best["from"], best["to"]) == (4, 2, "is/are", "key/keys")
    a = attn.selfattn(KEY, model=DEMO, layer=4, head=2).weights
    b = attn.selfattn(KEYS, model=DEMO, layer=4, head=2).weights
    assert (best["before"], best["after"], best["change"]) == (a[6, 2], b[6, 2], b[6, 2] - a[6, 2])
    assert len(document["heads"]) == 72


def test_heads_compare_on_screen_with_the_grid():
    change = attn.compare_heads(KEY, KEYS, DEMO, source="is", target="key", grid=True)
    text = screen(change, width=120)
    assert "ranked by the change of «is/are» → «key/keys»" in text
    assert "|second − first| on the 11 aligned tokens, 6 layers × 12 heads" in text
    row = next(line for line in text.splitlines() if line.split()[:3] == ["1", "4", "2"])
    assert "+0.483" in row and "0.323" in row and "0.807" in row
    spanish = screen(change, width=120, lang="es")
    assert "Cabezas de all-MiniLM-L6-v2 ordenadas por el cambio" in spanish


@pytest.mark.parametrize(
    "arguments, kind, field",
    [
        (["selfattn", FIRST, "--compare", SECOND, "--steps"], OptionError, ("option", "--steps")),
        (
            ["selfattn", FIRST, "--compare", SECOND, "--token", "la"],
            OptionError,
            ("option", "--token"),
        ),
        (
            ["selfattn", FIRST, "--compare", SECOND, "--kv-cache", "--causal"],
            OptionError,
            ("option", "--kv-cache"),
        ),
        (
            ["selfattn", FIRST, "--compare", SECOND, "--layer", "2"],
            OptionError,
            ("option", "--layer 2"),
        ),
        (
            ["selfattn", FIRST, "--compare", SECOND, "--model", DEMO, "--seed", "3"],
            OptionError,
            ("name", "--seed"),
        ),
        (
            ["selfattn", FIRST, "--compare", SECOND, "--heads", "2", "--head", "5"],
            OptionError,
            ("total", 2),
        ),
        (["selfattn", FIRST, "--compare", " "], OptionError, None),
        (["selfattn", "--compare", SECOND], InputError, None),
        (
            ["selfattn", "uno dos", "--compare", "tres cuatro cinco"],
            InputError,
            ("first", "uno dos"),
        ),
        (["selfattn", FIRST, "--compare", SECOND, "--context", "el tren"], OptionError, None),
        (
            ["heads", KEY, "--compare", KEYS, "--model", DEMO, "--pattern", "previous"],
            OptionError,
            ("option", "--pattern"),
        ),
        (["heads", KEY, "--compare", KEYS, "--model", DEMO, "--from", "is"], OptionError, None),
        (
            ["heads", KEY, "--compare", KEYS, "--model", DEMO, "--from", "table", "--to", "zz"],
            InputError,
            ("known", "[CLS], the, key, to, the, cabinet, is, on, the, table, [SEP]"),
        ),
    ],
)
def test_each_refusal_is_one_line(run, arguments, kind, field):
    error = refused(run(*arguments), kind)
    if field is not None:
        assert plain(error.fields[field[0]]) == field[1], error.fields


def test_a_word_not_aligned_cannot_be_asked_for(run):
    error = refused(run("heads", "the key to the cupboard", "--compare", "the keys to the "
                        "cupboards", "--model", DEMO, "--from", "cupboard", "--to", "key"),
                    InputError)  # fmt: skip
    assert error.fields["token"] == "cupboard"
    assert error.msgid == (
        "{option} is not aligned with a token of the other sentence (its word is not in both, or "
        "has another number of pieces); name an aligned one"
    )
    assert plain(error.fields["option"]) == "--from 'cupboard'"


def test_help_has_the_example_in_both_languages(run):
    english = run("selfattn", "--help")
    assert "--compare" in english.stdout and "las llaves del coche están ahí" in english.stdout
    import subprocess
    import sys

    # Spanish help is chosen before the command line is read: a process of its own
    spanish = subprocess.run([sys.executable, "-m", "attncli", "heads", "--help", "--lang", "es"],
                             capture_output=True, text=True, check=True)  # fmt: skip
    assert "Con --compare OTRA" in " ".join(spanish.stdout.split())
    assert "Dos frases comparadas" not in spanish.stdout  # the screen's words stay on screen


def test_exports_hold_the_difference(run, tmp_path):
    tex = tmp_path / "pair.tex"
    result = run("selfattn", FIRST, "--compare", SECOND, "--export", str(tex))
    assert result.exit_code == 0, result.stderr
    # a slash may break a printed line: LaTeX's \allowbreak after it is not a character
    text = tex.read_text(encoding="utf-8").replace(r"\allowbreak{}", "")
    assert "llave/llaves" in text and "DifferenceGrid(" not in text
    assert "+0.684$\\blacklozenge$" in text  # the mark of a largest change, as pdflatex sets it


def test_the_grid_of_changes_exported_is_every_heads_change(run, tmp_path):
    import re

    drawing = tmp_path / "change.svg"
    result = run("heads", KEY, "--compare", KEYS, "--model", DEMO, "--grid", "--export",
                 str(drawing))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    change = attn.compare_heads(KEY, KEYS, DEMO, grid=True)
    cell = re.compile(r'data-row="(\d+)" data-column="(\d+)" data-weight="([^"]+)"')
    text = drawing.read_text(encoding="utf-8")
    heads = text.split('<g class="head" ')[1:]
    assert len(heads) == 72
    for group in heads[:3] + heads[-2:]:
        layer = int(re.search(r'data-layer="(\d+)"', group).group(1))
        head = int(re.search(r'data-head="(\d+)"', group).group(1))
        for row, column, weight in cell.findall(group):
            expected = abs(change.difference[layer - 1, head - 1, int(row) - 1, int(column) - 1])
            assert float(weight) == expected
