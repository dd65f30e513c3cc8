"""Files attn writes, never lost and never destroying what stands at their name.

A regular file (or a name where nothing stands yet) is written to a temporary file beside
it, synced, and renamed over it only once complete, so a failed write (a full disk, a size
limit, an error half-way) leaves the previous file as it was and no half-written one. A
symbolic link is followed: its target is written that way, in the target's folder, and the
link stays a link. A rename would replace a character device or a FIFO by a regular file
(`attn train --save /dev/null` run as root would replace the machine's /dev/null), so those
are written directly, with no temporary file beside them and no rename; a block device or a
socket is refused. `-` is standard output. (GNU sed's --follow-symlinks, rsync's --inplace.)
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from attncli.errors import PATH_SHOWN, OptionError, install_command, shown
from attncli.messages import Message, _

STANDARD_OUTPUT = "-"


@contextmanager
def written_atomically(path: str, option: str) -> Iterator[str]:
    """A temporary path (the same suffix as `path`, so a writer that reads the format from
    the name still can) to write to by name; on leaving without an error, its bytes become
    `path`'s: renamed over a regular file, streamed into a character device, a FIFO or
    standard output. A write that fails is one line naming `option`, and the temporary
    file is removed."""
    import tempfile

    kind, target = _where(path, option)
    # A device's bytes are staged away from it: in the system's temporary folder, since
    # the device's own folder (/dev) is no place for a file.
    folder = os.path.dirname(target) if kind == "file" else None
    suffix = os.path.splitext(path)[1]
    temporary = None  # until it is made: a fault before is the folder's, never stdout's
    try:
        handle, temporary = tempfile.mkstemp(prefix=".attn-", suffix=suffix, dir=folder)
        os.close(handle)
        yield temporary
        if kind == "file":
            _sync(temporary)
            os.chmod(temporary, _mode_of(target))
            os.replace(temporary, target)
        else:
            _stream(temporary, target, kind)
    except OSError as error:
        if kind == "stdout" and temporary is not None:
            raise  # standard output's own faults: a closed pipe, a full disk (cli.reporting)
        raise _cannot(option, path, error, kind) from None
    finally:
        if temporary is not None and os.path.lexists(temporary):
            os.unlink(temporary)


def check_writable(path: str, option: str) -> None:
    """Refuse, before any work, an output that cannot be written: no name, a folder, a
    folder that does not exist or that attn may not write in, a block device or a socket,
    a chain of links that never ends."""
    if not path.strip():
        raise OptionError(_("{option} is empty; name the file to write"), option=option)
    kind, target = _where(path, option)
    if kind != "file":
        return
    folder = os.path.dirname(target)
    # each fault of the folder it would go in, the first found said with how to fix it
    faults = (
        (os.path.isdir(target),
         _("{option} {path}: it is a folder; name a file in an existing folder")),
        (not os.path.isdir(folder),
         _("{option} {path}: the folder does not exist; name a file in an existing folder")),
        (not os.access(folder, os.W_OK | os.X_OK),
         _("{option} {path}: attn may not write in {folder}; name a file in another folder")),
    )  # fmt: skip
    fault = next((text for found, text in faults if found), None)
    if fault is not None:
        raise OptionError(fault, option=option, path=path, folder=folder)


def check_kind(path: str, option: str, kinds: Sequence[str]) -> str:
    """An output whose extension picks its kind (--export, --plot, --answer-sheet): one of
    `kinds`, and writable (check_writable), else one line before any work; its extension."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in kinds:
        raise OptionError(
            _("{option} {path}: unknown kind {kind}; name a file ending in {kinds}"),
            option=option,
            path=shown(path, PATH_SHOWN),
            kind=shown(suffix) or Message(_("(no extension)")),
            kinds=", ".join(kinds),
        )
    check_writable(path, option)
    return suffix


def check_installed(package: str, option: str, path: str) -> None:
    """The optional `package` an output needs (matplotlib for an image, openpyxl for a
    spreadsheet), found where attn runs, else one line with the command that installs it."""
    from importlib.util import find_spec

    if find_spec(package) is None:
        raise OptionError(
            _("{option} {path} needs {package}, which is not installed where attn runs: "
              "{command}"),
            option=option, path=shown(path, PATH_SHOWN), package=package,
            command=install_command(package),
        )  # fmt: skip


def write_file(path: str, content: str | bytes, option: str) -> None:
    """`content` (text as UTF-8) written to `path` as this module writes every file;
    `option` names it in an error (--save), or nothing for a file named in full."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with written_atomically(path, option) as temporary, open(temporary, "wb") as file:
        file.write(data)


def same_file(one: str, other: str) -> bool:
    """Whether two names are one file: through links, `.` and `..`, and hard links (the
    same device and inode); a name where nothing stands is compared by its resolved path."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.realpath(one) == os.path.realpath(other)


def _where(path: str, option: str) -> tuple[str, str]:
    """What stands at `path`, links followed: ("file", the regular file's resolved path,
    existing or not), ("stdout", "-"), or ("device" | "fifo", `path` itself, opened as
    given so that /dev/stdout and a shell's /dev/fd/63 still work). A block device, a
    socket or a loop of links is refused."""
    if path == STANDARD_OUTPUT:
        return "stdout", path
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # nothing there yet, or a link to a name still free
        return "file", os.path.realpath(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OptionError(
                _("{option} {path}: its symbolic links lead round in a circle; name a file"),
                option=option,
                path=path,
            ) from None
        raise _cannot(option, path, error) from None
    if stat.S_ISCHR(mode):
        return "device", path
    if stat.S_ISFIFO(mode):
        return "fifo", path
    if stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise OptionError(
            _(
                "{option} {path}: it is a disk or a socket, not a file; attn writes "
                "neither: name a file"
            ),
            option=option,
            path=path,
        )
    return "file", os.path.realpath(path)


def _stream(staged: str, target: str, kind: str) -> None:
    """The staged bytes into a character device, a FIFO or standard output, in place. A
    FIFO that no one reads fails at once rather than being waited on forever."""
    import shutil
    import sys

    with open(staged, "rb") as source:
        if kind == "stdout":
            sys.stdout.flush()
            shutil.copyfileobj(source, sys.stdout.buffer)
            sys.stdout.buffer.flush()
            return
        # a FIFO is opened without waiting for a reader: none there is ENXIO (_cannot)
        descriptor = os.open(target, os.O_WRONLY | (os.O_NONBLOCK if kind == "fifo" else 0))
        os.set_blocking(descriptor, True)  # a reader is there: wait on it as it reads
        with open(descriptor, "wb", closefd=True) as device:
            shutil.copyfileobj(source, device)


def _sync(temporary: str) -> None:
    """The temporary file's bytes on the disk before the rename, so that a full disk or an
    I/O error is told now (a filesystem may only say so when it writes back) and a crash
    never leaves an empty file under the old name."""
    descriptor = os.open(temporary, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _mode_of(path: str) -> int:
    """The permissions the written file gets: the old file's, else what a plain open()
    would give (0666 less the umask), not mkstemp's private 0600."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _cannot(option: str, path: str, error: OSError, kind: str = "file") -> OptionError:
    """A write that failed, said by its cause: a FIFO that no one reads (opened without
    waiting, ENXIO), else the system's own words."""
    if kind == "fifo" and error.errno == errno.ENXIO:
        return OptionError(
            _("{option} {path}: it is a pipe that no one reads; start its reader first, or "
              "name a file"),
            option=option,
            path=path,
        )  # fmt: skip
    reason = error.strerror or str(error)
    if not option:  # a file the explorer writes, named in full
        return OptionError(_("cannot write {path}: {error}"), path=path, error=reason)
    return OptionError(
        _("{option} {path}: cannot write it: {error}"), option=option, path=path, error=reason
    )
