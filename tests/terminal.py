"""attn run with stderr a terminal (a pty) and stdout a pipe, as a user sees a progress bar."""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def drawn_on_a_terminal(
    arguments: list[str], stdin: str | None = None, timeout: float = 300
) -> tuple[str, bytes]:
    """Run attn with stderr a terminal and stdout a pipe: (what the terminal showed, stdout)."""
    import pty

    leader, follower = pty.openpty()
    drawn: list[bytes] = []

    def read() -> None:  # read as it is drawn, so a full terminal buffer never blocks attn
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: attn has ended
                return
            if not chunk:
                return
            drawn.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    command = [sys.executable, "-m", "attncli", *arguments]
    with open(stdin or os.devnull, "rb") as given:
        process = subprocess.run(
            command, stdin=given, stdout=subprocess.PIPE, stderr=follower, timeout=timeout
        )
    os.close(follower)
    reader.join(timeout=10)
    os.close(leader)
    assert process.returncode == 0
    return b"".join(drawn).decode("utf-8", "replace"), process.stdout
