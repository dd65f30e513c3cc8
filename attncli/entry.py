"""The `attn` console script: as little as possible happens before the command runs."""

from __future__ import annotations

import gc


def main() -> None:
    """Run the CLI with the cycle collector off.

    A run lasts a fraction of a second and makes no reference cycles worth
    collecting; with the collector on, it would walk the objects that importing
    numpy, typer and rich creates, a tenth of the start-up time.
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

    from attncli.fastpath import run_plain

    status = run_plain(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from attncli.cli import run

    run(sys.argv[1:])
