"""What stands at an output's name is respected: a link is followed and stays a link, a
character device or a FIFO is written in place and stays what it was, a disk or a socket
is refused, and a full device, an I/O error or a closed pipe is one line with nothing left
behind. Every device node and FIFO here is the test's own, made in its temporary folder:
a tool under test that replaced its output would replace only that node, never the
machine's /dev files."""

from __future__ import annotations

import errno
import os
import socket
import stat
import tempfile
import threading
from pathlib import Path

import pytest

from attncli.errors import OptionError
from attncli.present.written import check_writable, same_file, write_file
from tests.meaning import told

CANNOT_WRITE = "{option} {path}: cannot write it: {error}"
NO_READER = (
    "{option} {path}: it is a pipe that no one reads; start its reader first, or name a file"
)
NOT_ALLOWED = "{option} {path}: attn may not write in {folder}; name a file in another folder"
NOT_A_FILE = (
    "{option} {path}: it is a disk or a socket, not a file; attn writes neither: name a file"
)
LINK_LOOP = "{option} {path}: its symbolic links lead round in a circle; name a file"

NULL, FULL = os.makedev(1, 3), os.makedev(1, 7)  # the kernel's null and full devices


def device_node(folder: Path, name: str, device: int, kind: int = stat.S_IFCHR) -> Path:
    """A device node of the test's own in `folder` (it needs the right to make one)."""
    node = folder / name
    try:
        os.mknod(node, kind | 0o666, device)
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return node


@pytest.fixture
def staging(tmp_path, monkeypatch) -> Path:
    """The folder where a device's bytes are staged (the system's temporary folder, here
    the test's own), to see that nothing is left in it."""
    folder = tmp_path / "staging"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_link_is_followed_its_target_written_in_its_own_folder(tmp_path):
    (tmp_path / "kept").mkdir()
    (tmp_path / "named").mkdir()
    target = tmp_path / "kept" / "saved.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "named" / "saved.json"
    link.symlink_to(target)
    write_file(str(link), "new", "--save")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == "new"
    assert os.listdir(tmp_path / "kept") == ["saved.json"]
    assert os.listdir(tmp_path / "named") == ["saved.json"]


def test_a_link_to_a_name_still_free_creates_its_target(tmp_path):
    link = tmp_path / "out.md"
    link.symlink_to(tmp_path / "made.md")
    write_file(str(link), "text", "--export")
    assert link.is_symlink() and (tmp_path / "made.md").read_text(encoding="utf-8") == "text"


def test_a_character_device_is_written_in_place_and_stays_a_device(tmp_path, staging):
    node = device_node(tmp_path, "null.txt", NULL)
    write_file(str(node), "into the device", "--export")
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.lstat(node).st_rdev == NULL
    assert sorted(os.listdir(tmp_path)) == ["null.txt", "staging"]
    assert os.listdir(staging) == []


def test_a_full_device_is_one_line_and_stays_a_device(tmp_path, staging):
    node = device_node(tmp_path, "full.json", FULL)
    with pytest.raises(OptionError) as raised:
        write_file(str(node), "x" * 10_000, "--save")
    told(raised.value, OptionError, CANNOT_WRITE, option="--save", path=str(node))
    assert raised.value.fields["error"] == os.strerror(errno.ENOSPC)
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert os.listdir(staging) == []


def test_a_link_to_a_device_writes_the_device_and_keeps_the_link(tmp_path, staging):
    node = device_node(tmp_path, "null", NULL)
    link = tmp_path / "out.txt"
    link.symlink_to(node)
    write_file(str(link), "text", "--export")
    assert link.is_symlink() and stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_fifo_is_written_in_place_to_its_reader(tmp_path, staging):
    import time

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as reader:  # waits in open() for a writer
            received.append(reader.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for _ in range(1000):  # until the reader's thread has reached its open()
        try:
            write_file(str(fifo), "a whole document", "--save")
            break
        except OptionError as refused:
            assert refused.msgid == NO_READER
            time.sleep(0.005)
    reader.join(timeout=10)
    assert received == [b"a whole document"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(staging) == []


def test_a_fifo_that_no_one_reads_is_refused_not_waited_on(tmp_path, staging):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(OptionError) as raised:
        write_file(str(fifo), "text", "--save")
    told(raised.value, OptionError, NO_READER, option="--save", path=str(fifo))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(staging) == []


def test_a_block_device_and_a_socket_are_refused_before_any_work(tmp_path):
    disk = device_node(tmp_path, "disk.json", os.makedev(7, 250), stat.S_IFBLK)
    with pytest.raises(OptionError) as raised:
        check_writable(str(disk), "--save")
    told(raised.value, OptionError, NOT_A_FILE, option="--save", path=str(disk))
    listening = socket.socket(socket.AF_UNIX)
    try:
        listening.bind(str(tmp_path / "socket.json"))
        with pytest.raises(OptionError) as raised:
            write_file(str(tmp_path / "socket.json"), "text", "--save")
        told(raised.value, OptionError, NOT_A_FILE, path=str(tmp_path / "socket.json"))
    finally:
        listening.close()
    assert stat.S_ISBLK(os.lstat(disk).st_mode)
    assert stat.S_ISSOCK(os.lstat(tmp_path / "socket.json").st_mode)


def test_links_in_a_circle_are_refused(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OptionError) as raised:
        check_writable(str(tmp_path / "a"), "--save")
    told(raised.value, OptionError, LINK_LOOP, option="--save")


def test_a_folder_attn_may_not_write_in_is_refused_naming_it(tmp_path, monkeypatch):
    # root writes anywhere: the folder's permission is what os.access answers
    monkeypatch.setattr(os, "access", lambda path, mode: path != str(tmp_path))
    with pytest.raises(OptionError) as raised:
        check_writable(str(tmp_path / "saved.json"), "--save")
    told(raised.value, OptionError, NOT_ALLOWED, option="--save",
         path=str(tmp_path / "saved.json"), folder=str(tmp_path))  # fmt: skip


@pytest.mark.parametrize("where", ["saved.json", "-"])
def test_a_temporary_file_that_cannot_be_made_is_one_line(tmp_path, monkeypatch, where):
    # standard output's bytes are staged too: a fault there is the staging's, not stdout's
    def refuse(*args, **kwargs):
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    path = where if where == "-" else str(tmp_path / where)
    with pytest.raises(OptionError) as raised:
        write_file(path, "text", "--save")
    told(raised.value, OptionError, CANNOT_WRITE, option="--save", path=path,
         error="Permission denied")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code", [errno.EIO, errno.ENOSPC])
def test_an_error_when_the_bytes_reach_the_disk_keeps_the_old_file(tmp_path, monkeypatch, code):
    target = tmp_path / "saved.json"
    target.write_text("the old one", encoding="utf-8")

    def fail(descriptor):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OptionError) as raised:
        write_file(str(target), "the new one", "--save")
    assert raised.value.fields["error"] == os.strerror(code)
    assert target.read_text(encoding="utf-8") == "the old one"
    assert os.listdir(tmp_path) == ["saved.json"]


def test_a_dash_is_standard_output(capfdbinary, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_file("-", "to stdout\n", "--save")
    assert capfdbinary.readouterr().out == b"to stdout\n"
    assert os.listdir(tmp_path) == []


def test_one_file_by_any_of_its_names(tmp_path):
    original = tmp_path / "corpus.txt"
    original.write_text("x", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(original)
    os.link(original, tmp_path / "hard.txt")
    for name in ("link.txt", "hard.txt", "./corpus.txt"):
        assert same_file(str(tmp_path / name), str(original))
    assert same_file(str(tmp_path / "new.json"), str(tmp_path / "sub" / ".." / "new.json"))
    assert not same_file(str(tmp_path / "new.json"), str(original))
