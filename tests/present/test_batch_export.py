"""A batch's export is the screen's: it says which sequence it shows ("sequence 2 of 3"),
or that it shows the first and how to see another; the JSON keeps the whole batch."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from tests.meaning import said_in_spanish, told


@pytest.fixture
def batch(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(3).standard_normal((3, 4, 8)))
    return str(path)


def _plain(text: str) -> str:
    """An export's words without its markup (an SVG writes a space as &#160;)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\xa0", " ")


@pytest.mark.parametrize("kind", ["html", "svg", "tex", "md", "txt"])
def test_the_export_of_one_sequence_says_which_of_the_batch(run, batch, tmp_path, kind):
    path = tmp_path / f"item.{kind}"
    result = run("selfattn", "-i", batch, "--item", "2", "--export", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert "sequence 2 of 3" in _plain(path.read_text())
    assert np.asarray(json.loads(result.stdout)["weights"]).shape == (3, 4, 4)  # every one


def test_in_spanish_too(run, batch, tmp_path):
    path = tmp_path / "item.html"
    result = run("selfattn", "-i", batch, "--item", "3", "--lang", "es", "--export", str(path))
    assert result.exit_code == 0, result.stderr
    assert "secuencia 3 de 3" in _plain(path.read_text())


def test_without_item_the_screen_and_export_say_the_first_and_how_to_see_another(
    run, batch, tmp_path
):
    path = tmp_path / "batch.svg"
    screen = run("selfattn", "-i", batch, "--format", "table", "--export", str(path)).stdout
    lines = screen.splitlines()
    assert (
        lines[0] == "a batch of 3 sequences, computed together; shown: the first (--json has all)"
    )
    assert lines[1] == "--item N shows sequence N instead"
    exported = _plain(path.read_text())
    # The file says which sequence it shows; how to ask for another is the terminal's advice.
    assert "shown: the first" in exported and "--item N" not in exported
    spanish = run("selfattn", "-i", batch, "--format", "table", "--lang", "es").stdout
    assert spanish.splitlines()[1] == "--item N muestra la secuencia N"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_item_of_one_sequence_is_refused_in_one_line(run, tmp_path, lang):
    path = tmp_path / "one.html"
    result = run("selfattn", "el tren", "--item", "2", "--lang", lang, "--export", str(path))
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert result.stderr.count("\n") == 1
    told(result.error, InputError,
         "there is no sequence {number}: the input is one sequence, not a batch (x of B × T × d)",
         number=2)  # fmt: skip
    assert result.stderr == f"attn: error: {result.error.message(lang)}\n"
    if lang == "es":
        said_in_spanish(result.error)


def test_item_beyond_the_batch_is_refused_in_one_line(run, batch):
    result = run("selfattn", "-i", batch, "--item", "4")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{option} is out of range: {there} (1 to {total})",
         option=("sequence {number}", {"number": 4}),
         there=("the batch has {total}", {"total": 3}), total=3)  # fmt: skip
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"
