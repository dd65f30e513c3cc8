"""The `attn` console script: as little as possible happens before the command runs, and
nothing after it."""

from __future__ import annotations

import gc
from typing import NoReturn


def main() -> NoReturn:
    """Run the CLI with the cycle collector off, and end without the interpreter's teardown.

    A run lasts a fraction of a second and makes no reference cycles worth
    collecting; with the collector on, it would walk the objects that importing
    numpy and rich creates, a tenth of the start-up time.
    """
    import os
    import signal

    # Ctrl-C ends the run at once and silently, even during the imports below.
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    gc.disable()
    import sys

    # A terminal or pipe that cannot show «están» or × (PYTHONIOENCODING=ascii) gets "?"
    # in their place rather than an error.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")

    try:
        from attncli.cli.fastpath import run_plain

        status = run_plain(sys.argv[1:])
        if status is None:
            from attncli.cli.app import run

            run(sys.argv[1:])  # ends with SystemExit, as Click does
            status = 0
    except SystemExit as ending:
        status = _status(ending.code)
    _leave(status)


def _status(code: object) -> int:
    """An exit status as sys.exit(code) gives it: None is 0, a message is 1 after it is
    written to stderr."""
    import sys

    if code is None or isinstance(code, int):
        return code or 0
    sys.stderr.write(f"{code}\n")
    return 1


def _leave(status: int) -> NoReturn:
    """End the process once stdout and stderr are flushed, skipping the interpreter's
    teardown: freeing every object numpy and rich made takes longer than most runs, and
    attn needs none of it (every file it writes is closed as it is written)."""
    import os
    import sys

    from attncli.errors import ExitStatus

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away: the output was cut
            status = status or int(ExitStatus.BROKEN_PIPE)
        except (OSError, ValueError):
            status = status or int(ExitStatus.OUTPUT_ERROR)
    os._exit(status)
