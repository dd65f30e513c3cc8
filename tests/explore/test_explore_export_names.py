"""The explorer's e never writes over a file: its proposal is the first attn-explore-N.svg
not in the folder (yesterday's attn-explore-1.svg stays whole), and a name typed over an
existing file is refused in the status line, the file untouched."""

from __future__ import annotations

import pytest

pytest.importorskip("textual")

from attncli.errors import OptionError
from attncli.explore.launch import prepare
from attncli.explore.saved import check_new_file, free_export_name
from tests.conftest import SAMPLES
from tests.explore_screen import run_app


def test_the_proposal_skips_every_name_already_there(tmp_path):
    assert free_export_name(str(tmp_path)) == "attn-explore-1.svg"
    for number in (1, 2, 4):
        (tmp_path / f"attn-explore-{number}.svg").write_text("kept")
    assert free_export_name(str(tmp_path)) == "attn-explore-3.svg"


def test_a_file_that_is_there_is_refused(tmp_path):
    (tmp_path / "old.svg").write_text("kept")
    with pytest.raises(OptionError) as caught:
        check_new_file(str(tmp_path / "old.svg"))
    assert caught.value.fields["path"] == str(tmp_path / "old.svg")
    check_new_file(str(tmp_path / "new.svg"))  # a new name passes


def _export(app, typed: str | None):
    async def script(pilot):
        await pilot.press("e")
        await pilot.pause()
        field = pilot.app.screen.query_one("Input")
        proposed = field.value
        if typed is not None:
            field.value = typed
        await pilot.press("enter")
        await pilot.pause()
        return proposed, app.note

    return run_app(app, (120, 40), script)


@pytest.mark.parametrize(
    "source", [("las llaves del coche", None), (None, str(SAMPLES / "tren.json"))]
)  # the grid's explorer and the chain's
def test_enter_on_the_proposal_writes_a_new_file_and_keeps_yesterdays(
    tmp_path, monkeypatch, source
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "attn-explore-1.svg").write_text("yesterday")
    proposed, note = _export(prepare(*source, {}, {}), None)
    assert proposed == "attn-explore-2.svg" and note == "wrote attn-explore-2.svg"
    assert (tmp_path / "attn-explore-1.svg").read_text() == "yesterday"
    assert "<svg" in (tmp_path / "attn-explore-2.svg").read_text()


@pytest.mark.parametrize(
    "source", [("las llaves del coche", None), (None, str(SAMPLES / "tren.json"))]
)
def test_a_typed_name_of_a_file_that_is_there_is_refused_in_the_status_line(
    tmp_path, monkeypatch, source
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.svg").write_text("my own drawing")
    _, note = _export(prepare(*source, {}, {}), "mine.svg")
    assert "mine.svg" in note and "\n" not in note
    assert (tmp_path / "mine.svg").read_text() == "my own drawing"
