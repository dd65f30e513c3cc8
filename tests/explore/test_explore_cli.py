"""attn explore from the command line: its help, its refusals before the screen is taken,
and the files its keys write (j reads back into attn selfattn -i, e is --export's)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("textual")

import attncli as attn
from attncli.errors import AttnError, OptionError
from attncli.explore.launch import prepare
from tests.conftest import SAMPLES
from tests.explore_screen import run_app
from tests.meaning import told


def test_help_in_both_languages(run):
    import subprocess
    import sys

    english = run("explore", "--help")
    assert english.exit_code == 0 and "Explore the self-attention grid" in english.stdout
    assert "attn explore" in english.stdout and "--no-proj" in english.stdout
    assert "--json" not in english.stdout and "--export" not in english.stdout
    spanish = subprocess.run(
        [sys.executable, "-m", "attncli", "explore", "--help", "--lang", "es"],
        capture_output=True,
        text=True,
    )
    assert spanish.returncode == 0 and "Explora la rejilla" in spanish.stdout


def test_off_a_terminal_it_is_one_line_and_nothing_on_stdout(run):
    result = run("explore", "en las llaves")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.error.msgid == (
        "attn explore is a full-screen app and needs a terminal; to compute or pipe, use attn "
        "selfattn with the same options"
    )


PICKS = "{option} {why}; add {needed}"  # api/refusals.refuse_without
MODEL_NEEDED = ("--model M (e.g. --model all-MiniLM-L6-v2)", {})
SEEDED = (
    "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, sizes and "
    "weights are the model's own; leave it out"
)


@pytest.mark.parametrize(
    ("args", "kind", "msgid", "fields"),
    [
        (("--layer", "2", "el tren"), OptionError, PICKS,
         {"option": "--layer 2", "needed": MODEL_NEEDED}),
        (("--words", "el tren"), OptionError, PICKS, {"option": "--words", "needed": MODEL_NEEDED}),
        (("--model", "all-MiniLM-L6-v2", "--causal", "x"), OptionError, SEEDED,
         {"name": "--causal", "model": "--model"}),
        (("--model", "all-MiniLM-L6-v2", "-i", str(SAMPLES / "tren.json")), OptionError, SEEDED,
         {"name": "-i", "model": "--model"}),
    ],
    ids=["layer", "words", "causal-with-model", "input-with-model"],
)  # fmt: skip
def test_a_mistake_in_the_options_is_told_before_the_missing_terminal(
    run, args, kind, msgid, fields
):
    """Off a terminal too, the options' own mistake comes first, not the terminal's:
    fixing it should not reveal another, and the terminal is the last thing a user
    changes."""
    result = run("explore", *args)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_without_textual_it_says_how_to_get_it(run, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "textual" else real(name)
    )
    result = run("explore", "en las llaves", "--lang", "es")
    assert result.exit_code == 2 and result.stdout == ""
    assert "pip install 'attncli[explore]'" in result.stderr and "necesita Textual" in result.stderr


def _prepare(sentence=None, path=None, **sizes):
    switches = {
        name: sizes.pop(name) for name in ("projections", "scale", "causal") if name in sizes
    }
    return prepare(sentence, path, sizes, switches)


@pytest.mark.parametrize(
    ("sentence", "path", "message"),
    [
        ("", None, "the sentence is empty"),
        ("a " * 70, None, "the explorer shows at most 64"),
        ("en las", str(SAMPLES / "llaves.json"), "not both"),
        (None, "-", "the keyboard"),
        (None, "missing.json", "missing.json"),
        ("en las llaves", None, "does not divide"),
    ],
    ids=["empty", "too-long", "both", "stdin", "missing", "heads"],
)
def test_bad_input_is_refused_before_the_screen_is_taken(sentence, path, message):
    sizes = {"heads": 3} if message == "does not divide" else {}
    with pytest.raises(AttnError, match=message):
        _prepare(sentence, path, **sizes)


def test_the_document_decides_the_screen():
    from attncli.explore.app import Explorer
    from attncli.explore.chain import ChainExplorer

    assert isinstance(_prepare(None, str(SAMPLES / "tren.json")), ChainExplorer)
    assert isinstance(_prepare(None, str(SAMPLES / "llaves.json")), Explorer)
    grid = _prepare(None, str(SAMPLES / "tren-grid.json"))
    assert isinstance(grid, Explorer) and grid.frame.direct
    seeded = _prepare("en las llaves", d_model=4, norm=1.0, seed=3, causal=True)
    assert seeded.result.x.shape == (3, 4) and seeded.result.norm == 1.0
    assert seeded.result.causal and seeded.result.seed == 3


@pytest.mark.parametrize(
    "keys",
    [
        [],
        ["p"],
        ["s"],
        ["c"],
        ["h", "h"],
        ["d", "d"],
        ["N", "r"],
        ["c", "h", "d"],
        ["o"],
        ["a", "H"],
        ["<", "<"],
        ["c", "<", "o", "a"],
        ["k", "h"],  # QK-norm: read back only with --qk-norm
        ["(", "(", "+"],  # a softcap and a sink: read back only with --softcap and --sinks
        ["h", "+", "+", "+"],
    ],  # fmt: skip
    ids=lambda keys: "-".join(keys) or "opening",
)
def test_j_writes_what_attn_selfattn_reads_back(keys, run_json, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = _prepare("las llaves del coche están ahí")

    async def script(pilot):
        await pilot.press(*keys, "j")
        await pilot.pause()
        return app.note

    note = run_app(app, (120, 40), script)
    command = note.split(": ", 1)[1].split(" reads it back")[0].split()
    assert command[:4] == ["attn", "selfattn", "-i", "attn-explore-state.json"], note
    document = run_json(*command[1:], "--json")
    np.testing.assert_allclose(document["weights"], app.result.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(document["output"], app.result.output, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", [".svg", ".html", ".txt", ".md", ".tex"])
def test_e_exports_the_view_with_the_exporters_of_export(kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = _prepare("las llaves del coche están ahí")
    name = f"view{kind}"

    async def script(pilot):
        await pilot.press("e")
        await pilot.pause()
        field = pilot.app.screen.query_one("Input")
        field.value = name
        await pilot.press("enter")
        await pilot.pause()
        return app.note

    note = run_app(app, (120, 40), script)
    assert note == f"wrote {name}"
    text = (tmp_path / name).read_text(encoding="utf-8")
    expected = attn.selfattn("las llaves del coche están ahí")
    for value in expected.weights[0]:
        assert f"{value:.3f}" in text
    assert ("Weights" in text) or ("Weights".replace(" ", "\\ ") in text)


def test_e_refuses_an_unknown_kind_in_the_status_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = _prepare("en las llaves")

    async def script(pilot):
        await pilot.press("e")
        await pilot.pause()
        pilot.app.screen.query_one("Input").value = "view.docx"
        await pilot.press("enter")
        await pilot.pause()
        return app.note, pilot.app.is_running

    note, running = run_app(app, (80, 24), script)
    assert "unknown kind .docx" in note and running


def test_the_chain_recomputes_as_the_query_is_typed(tmp_path, monkeypatch, run_json):
    """«Cambia la consulta por [0, 1]»: va gets the most weight now."""
    monkeypatch.chdir(tmp_path)
    app = _prepare(None, str(SAMPLES / "tren.json"))

    async def script(pilot):
        before = app.chain.softmax.weights.copy()
        await pilot.press("slash", "ctrl+u", "0", "comma", "space", "1")
        await pilot.pause()
        after = app.chain.softmax.weights.copy()
        from tests.explore_screen import screen_lines

        screen = "\n".join(screen_lines(app))
        await pilot.press("enter", "j")
        await pilot.pause()
        return before, after, screen, app.note

    before, after, screen, note = run_app(app, (80, 24), script)
    tren = json.loads((SAMPLES / "tren.json").read_text())
    expected = attn.softmax(attn.score(query=[0, 1], keys=tren["keys"])).weights
    np.testing.assert_array_equal(after, expected)
    assert int(np.argmax(after)) == 1 and int(np.argmax(before)) == 0  # va, then tren
    assert "Scores: query (0, 1) · each key" in screen and "0.576" in screen
    assert "attn-explore-chain.json" in note
    written = json.loads((tmp_path / "attn-explore-chain.json").read_text())
    assert written["query"] == [0, 1] and written["keys"] == tren["keys"]


def test_a_key_typed_wrong_in_the_chain_is_a_line_and_the_tables_stay():
    app = _prepare(None, str(SAMPLES / "tren.json"))

    async def script(pilot):
        await pilot.press("slash", "tab", "ctrl+u", "2", "comma", "1", "comma", "5")
        await pilot.pause()
        return app.note, app.chain.score.scores.tolist(), pilot.app.is_running

    note, scores, running = run_app(app, (80, 24), script)
    assert "keys: row 2 has 2 numbers, row 1 has 3" in note and running
    assert scores == [2.0, 0.0, 1.0]  # the last good chain
