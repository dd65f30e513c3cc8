"""Files attn writes are never lost: written through a temporary file and one rename, and
refused before any work when they would land on a file the same command reads or writes,
or cannot be written at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from attncli.errors import OptionError
from attncli.present.written import check_writable, write_file, written_atomically
from tests.meaning import told

CORPUS = "las llaves del coche están ahí | están=llaves\nel tren va lleno | va=tren\n"


ALSO = "{option} {path} is also {other}: attn would write over it; name another file"


def _refused(result, msgid: str | None = None, **fields) -> None:
    """One line, exit 2, nothing on stdout; and, given, the refusal that `msgid` says."""
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    if msgid is not None:
        told(result.error, OptionError, msgid, **fields)


def test_an_output_on_the_commands_own_input_is_refused_and_the_input_kept(run, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    line = ("train", "--corpus", str(corpus), "--save", str(corpus), "--iterations", "2")
    _refused(run(*line), ALSO, option="--save", path=str(corpus), other="--corpus")
    assert corpus.read_text(encoding="utf-8") == CORPUS
    document = tmp_path / "in.txt"  # a JSON document under a name --export can write
    document.write_text('{"x": [[1, 0], [0, 1]]}', encoding="utf-8")
    same = str(tmp_path / "." / "in.txt")  # another spelling of the same file
    result = run("selfattn", "-i", str(document), "--no-proj", "--export", same)
    _refused(result, ALSO, option="--export", path=same, other="--input")
    assert document.read_text(encoding="utf-8") == '{"x": [[1, 0], [0, 1]]}'


def test_two_outputs_of_one_command_on_one_file_are_refused(run, tmp_path):
    target = str(tmp_path / "g.svg")
    result = run("selfattn", "el tren", "--plot", target, "--export", target)
    _refused(result, ALSO, option="--plot", path=target, other="--export")
    line = ("train", "el tren va", "--want", "va=tren", "--plot", target, "--save", target)
    _refused(run(*line), ALSO, option="--plot", path=target, other="--save")
    assert not os.path.exists(target)


@pytest.mark.parametrize(
    ("save", "msgid"),
    [("", "{option} is empty; name the file to write"),
     (".", "{option} {path}: it is a folder; name a file in an existing folder"),
     ("nowhere/x.json",
      "{option} {path}: the folder does not exist; name a file in an existing folder")],
)  # fmt: skip
def test_an_output_that_cannot_be_written_is_refused_before_training(run, save, msgid):
    result = run("train", "el tren va", "--want", "va=tren", "--save", save)
    _refused(result, msgid, option="--save")


def test_a_failed_write_leaves_the_old_file_and_no_other(tmp_path):
    target = tmp_path / "saved.json"
    target.write_text("the old one", encoding="utf-8")
    with pytest.raises(RuntimeError), written_atomically(str(target), "--save") as temporary:
        Path(temporary).write_text("half of the new", encoding="utf-8")
        raise RuntimeError("the disk filled up")
    assert target.read_text(encoding="utf-8") == "the old one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saved.json"]


def test_a_rename_that_fails_is_one_line_naming_the_option(tmp_path, monkeypatch):
    def refuse(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OptionError) as raised:
        write_file(str(tmp_path / "a.md"), "text", "--export")
    said = raised.value.message("en", "cli")
    assert said.startswith("--export ") and "No space left on device" in said
    assert list(tmp_path.iterdir()) == []


def test_a_new_file_gets_the_usual_permissions_and_an_old_one_keeps_its_own(tmp_path):
    fresh = tmp_path / "fresh.txt"
    write_file(str(fresh), "a", "--export")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask
    kept = tmp_path / "kept.txt"
    kept.write_text("b", encoding="utf-8")
    kept.chmod(0o640)
    write_file(str(kept), "c", "--export")
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text(encoding="utf-8") == "c"


def test_check_writable_names_the_option_in_python_words_too():
    with pytest.raises(OptionError) as raised:
        check_writable("   ", "--save")
    assert raised.value.fields["option"] == "--save"


def test_a_link_to_the_commands_input_is_that_input(run, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    (tmp_path / "saved.json").symlink_to(corpus)
    line = ("train", "--corpus", str(corpus), "--save", str(tmp_path / "saved.json"))
    saved = str(tmp_path / "saved.json")
    _refused(run(*line, "--iterations", "2"), ALSO, option="--save", path=saved, other="--corpus")
    assert corpus.read_text(encoding="utf-8") == CORPUS
    assert (tmp_path / "saved.json").is_symlink()


def test_a_device_at_an_output_name_is_written_in_place_or_told_full(run, tmp_path):
    from tests.present.test_written import FULL, NULL, device_node

    null = device_node(tmp_path, "grid.txt", NULL)
    assert run("selfattn", "el tren", "--export", str(null)).exit_code == 0
    full = device_node(tmp_path, "saved.json", FULL)
    result = run("train", "el tren va", "--want", "va=tren", "--iterations", "2",
                 "--save", str(full))  # fmt: skip
    _refused(result, "{option} {path}: cannot write it: {error}", option="--save",
             path=str(full), error="No space left on device")  # fmt: skip
    assert stat.S_ISCHR(null.lstat().st_mode) and stat.S_ISCHR(full.lstat().st_mode)
    assert sorted(os.listdir(tmp_path)) == ["grid.txt", "saved.json"]


def test_save_dash_makes_the_trained_document_the_output(run, tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    result = run("train", "el tren va", "--want", "va=tren", "--iterations", "2", "--save", "-")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["tokens"] == ["el", "tren", "va"]  # one document
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("line", [["--help"], ["--version"], ["score", "--help"], []])
def test_help_into_a_full_device_is_one_line(tmp_path, line):
    import subprocess
    import sys

    from tests.present.test_written import FULL, device_node

    full = device_node(tmp_path, "full", FULL)
    with open(full, "wb") as stdout:
        done = subprocess.run([sys.executable, "-m", "attncli", *line], stdout=stdout,
                              stderr=subprocess.PIPE, timeout=60)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.decode().count("\n") == 1 and b"Traceback" not in done.stderr
