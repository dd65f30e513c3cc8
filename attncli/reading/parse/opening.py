"""What opening and reading a file said, said one way for every file attn reads: no
such file, a folder, no permission (the system's words otherwise), bytes a library
refuses (cut short or corrupt), bytes that are not UTF-8, and a path that is no regular
file, which a read would wait on forever."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

from attncli.errors import PATH_SHOWN, AttnError, InputError, first_line, shown
from attncli.messages import Message, _


def decoded(data: bytes | str, source: str) -> str:
    """read_raw()'s bytes as text: UTF-8, else one line saying so for `source`."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:  # a sentence, a corpus, a JSON document alike
        raise InputError(
            _("{source}: not UTF-8 text (byte {byte}); convert it, e.g. iconv -t UTF-8"),
            source=shown(source, PATH_SHOWN),
            byte=error.start + 1,
        ) from None


# What a library reading a file's bytes raises when they are not what it reads (numpy's
# format module, zipfile, safetensors): the file is cut short or corrupt.
LIBRARY_ERRORS: tuple[type[Exception], ...] = (ValueError, EOFError, zipfile.BadZipFile)


@contextmanager
def reading(
    path: str,
    option: str | None = None,
    refused: tuple[type[Exception], ...] = LIBRARY_ERRORS,
    missing: Message | None = None,
) -> Iterator[None]:
    """Where a file is opened and read, by attn or by a library (numpy, zipfile,
    safetensors): what opening it said (no such file, a folder, no permission: _unopened,
    `option` the one that gave the path, else `missing` what to give where it is not
    there), or a library's `refused` bytes (corrupt), said in one line naming the file,
    once for every reader of files; attn's own refusals pass as they are."""
    try:
        yield
    except AttnError:
        raise
    except OSError as error:
        raise _unopened(path, error, option, missing) from None
    except refused as error:
        raise corrupt(path, error) from None


def check_regular(path: str, instead: Message | None = None) -> None:
    """Refuse `path` when it is there and not a regular file (a pipe, a device, a folder):
    a pipe no one writes would block the read forever, a device would never end; a path
    that is not there (or a broken link) is left to the read to say. Said one way for a
    model folder's files, a weight file and a student's answer file, with what to give
    `instead` (by default, the file itself in that place)."""
    import stat

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return
    if not regular:
        raise InputError(
            _("{path}: not a regular file (a pipe, a device or a folder); {instead}"),
            path=shown(path, PATH_SHOWN),
            instead=instead or Message(_("put the file there")),
        )


def _unopened(path: str, error: OSError, option: str | None, missing: Message | None) -> InputError:
    """What an OSError opening or reading `path` says: no such file (with where to look, for
    a path an option gave, or what to give: `missing`), a folder, no permission, or the
    system's own words."""
    where = shown(path, PATH_SHOWN)
    if isinstance(error, FileNotFoundError) and option is not None:
        return InputError(
            _(
                "cannot read '{path}': no such file (check the path given to {option}; attn "
                "samples lists the samples installed with attn)"
            ),
            path=where,
            option=option,
        )
    if isinstance(error, FileNotFoundError) and missing is not None:
        return InputError(
            _("cannot read '{path}': no such file ({hint})"), path=where, hint=missing
        )
    if isinstance(error, FileNotFoundError):
        return InputError(_("cannot read '{path}': no such file"), path=where)
    if isinstance(error, IsADirectoryError) or os.path.isdir(path):  # Windows: PermissionError
        return InputError(_("cannot read '{path}': it is a folder, not a file"), path=where)
    if isinstance(error, PermissionError):
        return InputError(_("cannot read '{path}': permission denied"), path=where)
    return unreadable(path, error)


def unreadable(path: str, error: OSError) -> InputError:
    """A file the system could not open or read, with its reason (Permission denied)."""
    return InputError(
        _("cannot read '{path}': {value}"),
        path=shown(path, PATH_SHOWN),
        value=error.strerror or error,
    )


def corrupt(path: str, error: BaseException | str) -> InputError:
    """A file that a library could not read (a weight file, a tokenizer), with its reason."""
    reason = error if isinstance(error, str) else first_line(error)
    return InputError(
        _(
            "{path} could not be read ({reason}); the file may be truncated or corrupt: "
            "save it again or download it again"
        ),
        path=path,
        reason=reason,
    )
