"""Files attn writes, never lost: each is written to a temporary file beside its target
and renamed over it only once complete, so a failed write (a full disk, a size limit, an
error half-way) leaves the previous file as it was and no half-written one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from attncli.errors import OptionError
from attncli.messages import _


@contextmanager
def written_atomically(path: str, option: str) -> Iterator[str]:
    """A temporary path beside `path` (the same suffix, so a writer that reads the format
    from the name still can) to write to; on leaving without an error it replaces `path`
    in one rename. A write that fails is one line naming `option`, and the temporary file
    is removed."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    try:
        handle, temporary = tempfile.mkstemp(prefix=".attn-", suffix=suffix, dir=folder)
    except OSError as error:
        raise _cannot(option, path, error) from None
    os.close(handle)
    try:
        yield temporary
        os.chmod(temporary, _mode_of(path))
        os.replace(temporary, path)
    except OSError as error:
        raise _cannot(option, path, error) from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def check_writable(path: str, option: str) -> None:
    """Refuse, before any work, an output that cannot be written: no name, a folder, a
    folder that does not exist or that attn may not write in."""
    if not path.strip():
        raise OptionError(_("{option} is empty; name the file to write"), option=option)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OptionError(
            _("{option} {path}: it is a folder; name a file in an existing folder"),
            option=option,
            path=path,
        )
    if not os.path.isdir(folder):
        raise OptionError(
            _("{option} {path}: the folder does not exist; name a file in an existing folder"),
            option=option,
            path=path,
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OptionError(
            _("{option} {path}: attn may not write in {folder}; name a file in another folder"),
            option=option,
            path=path,
            folder=folder,
        )


def write_file(path: str, content: str | bytes, option: str) -> None:
    """`content` (text as UTF-8) written to `path` atomically; `option` names it in an error
    (--save), or nothing for a file named in full."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with written_atomically(path, option) as temporary, open(temporary, "wb") as file:
        file.write(data)


def _mode_of(path: str) -> int:
    """The permissions the written file gets: the old file's, else what a plain open()
    would give (0666 less the umask), not mkstemp's private 0600."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _cannot(option: str, path: str, error: OSError) -> OptionError:
    reason = error.strerror or str(error)
    if not option:  # a file the explorer writes, named in full
        return OptionError(_("cannot write {path}: {error}"), path=path, error=reason)
    return OptionError(
        _("{option} {path}: cannot write it: {error}"), option=option, path=path, error=reason
    )
