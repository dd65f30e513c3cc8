"""How fast attn explore answers: from a key press to the redrawn grid, and from the command
to the app on the screen.

Key press → redrawn grid: the app runs headless through Textual's Pilot at 120 × 40; each
`p` (projections on/off, so every number changes) is timed from the moment the key is sent
to the end of the first layout-and-paint pass of the screen after the grid widget got its
new grid (the pass is wrapped to note when it ends): the grid redrawn. A change of the
header's height (p adds or drops a line) makes Textual lay the screen out once more; the
end of that last pass is shown too, as the screen settled. An unhandled key, which repaints
nothing, is timed to the moment Pilot finds the app idle again: that is Pilot's own way of
waiting (it sleeps and compares CPU with wall time), shown for comparison only.

On screen: `attn explore SENTENCE` in a pseudo-terminal of 120 × 40, timed from the start
of the process to the first output holding the grid's title, then quit with `q`.

    python benchmarks/explore.py [--presses 40] [--starts 7]

Needs the explore extra (pip install ".[explore]").
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "las llaves del coche están ahí"
TARGETS = {12: 0.050, 40: 0.150}  # seconds, median key press → redrawn grid
ON_SCREEN_TARGET = 1.0


def sentence(tokens: int) -> str:
    words = ["en", "las", "llaves", "del", "coche", "están", "ahí", "y", "no", "aquí"]
    return " ".join(
        words[i % len(words)] + ("" if i < len(words) else str(i)) for i in range(tokens)
    )


async def _presses(tokens: int, presses: int) -> tuple[list[float], list[float], list[float]]:
    sys.path.insert(0, str(ROOT))
    from attncli.explore.app import Explorer, GridView
    from attncli.explore.session import Source

    app = Explorer(Source(sentence=sentence(tokens)))
    painted: list[float] = []  # when each layout-and-paint pass of the screen ended
    updated: list[float] = []  # when the grid widget was given its new grid
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        paint = screen._refresh_layout
        grid = app.query_one("#grid", GridView)
        update = grid.update

        def noted(*args, **kwargs):
            result = paint(*args, **kwargs)
            painted.append(time.perf_counter())
            return result

        def given(*args, **kwargs):
            updated.append(time.perf_counter())
            return update(*args, **kwargs)

        screen._refresh_layout = noted  # type: ignore[method-assign]
        grid.update = given  # type: ignore[method-assign]

        async def timed(key: str) -> tuple[float, float]:
            await asyncio.sleep(0.05)  # the previous key's repaints are over
            painted.clear()
            updated.clear()
            start = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()
            idle = time.perf_counter()  # Pilot's own wait for the app to go idle
            await asyncio.sleep(0.1)  # a repaint still waiting for the refresh timer
            if not updated:
                return idle - start, idle - start
            drawn = next(t for t in painted if t > updated[-1])  # the new grid on screen
            return drawn - start, painted[-1] - start  # ... and the screen settled

        floor = [(await timed("x"))[0] for _ in range(presses // 2)]
        keyed = [await timed("p") for _ in range(presses)]
        assert app.result is not None and app.note == "", app.note
    return [k[0] for k in keyed], [k[1] for k in keyed], floor


def key_presses(presses: int) -> bool:
    met = True
    print(f"{'T':>3} {'p → grid redrawn':>17} {'→ screen settled':>17} {'Pilot idle wait':>16}"
          f" {'target':>7}")  # fmt: skip
    for tokens, target in TARGETS.items():
        drawn, settled, floor = asyncio.run(_presses(tokens, presses))
        median = statistics.median(drawn)
        verdict = "ok" if median <= target else "SLOW"
        met &= verdict == "ok"
        print(
            f"{tokens:>3} {median * 1000:14.1f} ms {statistics.median(settled) * 1000:14.1f} ms "
            f"{statistics.median(floor) * 1000:13.1f} ms {target * 1000:5.0f} ms {verdict}"
        )
    return met


def on_screen(starts: int) -> bool:
    """Seconds from the command to the grid on a terminal, median of `starts` runs."""
    import fcntl
    import pty
    import struct
    import termios

    times = []
    for _ in range(starts + 1):  # the first run warms the file cache and .pyc files
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        environment = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "attncli", "explore", SENTENCE],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            close_fds=True,
        )
        os.close(slave)
        seen = b""
        while b"Weights" not in seen:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            seen += chunk
        times.append(time.perf_counter() - start)
        os.write(master, b"q")
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass
        process.wait(timeout=10)
        os.close(master)
    median = statistics.median(times[1:])
    verdict = "ok" if median <= ON_SCREEN_TARGET else "SLOW"
    print(f"on screen: {median * 1000:.0f} ms median of {starts} (target {ON_SCREEN_TARGET:.0f} s) "
          f"{verdict}")  # fmt: skip
    return verdict == "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--starts", type=int, default=7)
    args = parser.parse_args()
    met = key_presses(args.presses)
    met &= on_screen(args.starts)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
