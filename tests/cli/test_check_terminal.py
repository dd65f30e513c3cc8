"""attn check at a real terminal (tmux, 80 columns): the student types each answer after
its question and the verdict comes at once; the captures on the teaching pages are what
this run shows, line for line, the sheet above the questions with as many blanks as they
ask."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from attncli.present.format import Format

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
# The student of the teaching pages: the products right, √d_k forgotten at the first score,
# then e^score worked from that wrong score (right from their own number).
ANSWERS = ("3", "2", "2", "3", "1", "1", "20.09")
ANSWERS_ES = ("3", "2", "2", "3", "1", "1", "20,09")


class Terminal:
    """One tmux pane of `width` columns running a command; keys typed one line at a time."""

    def __init__(self, command: str, width: int = 80) -> None:
        self.socket = f"attn-check-{uuid.uuid4().hex[:8]}"
        env = f"PATH={Path(sys.executable).parent}:{os.environ.get('PATH', '')} LANG=C.UTF-8"
        shell = f"cd {ROOT} && env -u COLUMNS -u NO_COLOR {env} {command}; sleep 30"
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", "200", shell)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        ).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t", "-S", "-200")

    def wait_for(self, ready, timeout: float = 20) -> str:
        """The screen once `ready(screen)` holds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.screen()
            if ready(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never ready:\n{self.screen()}")

    def type_line(self, text: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", text)
        self._tmux("send-keys", "-t", "t", "Enter")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def _session(lang: str, answers: tuple[str, ...]) -> str:
    """The pane, from the sheet's heading to the count, after typing `answers` one by one
    (each after its question shows) and Ctrl-D."""
    fmt = Format(lang=lang)
    first = fmt.say("check.ask.product", token="perro", root=4)

    def asking(verdicts: int):
        """A question waits (the last line ends at its colon) after `verdicts` verdicts."""

        def ready(screen: str) -> bool:
            lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
            if not lines or not any(line.startswith(first) for line in lines):
                return False
            shown = lines[next(i for i, line in enumerate(lines) if line.startswith(first)) :]
            # the questions so far (a verdict's lines are indented, however it wraps): the
            # next one shows once it is the one more than the verdicts, waiting at its colon
            questions = sum(not line.startswith(" ") for line in shown)
            return lines[-1].endswith(":") and questions == verdicts + 1

        return ready

    summary = fmt.say("check.summary", right=6, answered=len(answers), blanks=17)
    terminal = Terminal(f"attn check --seed 3 --method scaled --lang {lang}")
    try:
        for done, answer in enumerate(answers):
            terminal.wait_for(asking(done))
            terminal.type_line(answer)
        terminal.wait_for(asking(len(answers)))
        terminal._tmux("send-keys", "-t", "t", "C-d")
        screen = terminal.wait_for(lambda text: summary in text)
    finally:
        terminal.close()
    lines = [line.rstrip() for line in screen.splitlines()]
    heading = fmt.say("worksheet").upper()  # the sheet it asks from, then the questions
    start = next(i for i, line in enumerate(lines) if line == heading)
    end = max(i for i, line in enumerate(lines) if line.strip())
    return "\n".join(lines[start : end + 1])


def _doc_capture(page: str, heading: str) -> str:
    """The ```text block that follows `heading` on a teaching page."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    tail = text[text.index(heading) :]
    block = re.search(r"```text\n(.*?)```", tail, re.DOTALL)
    assert block is not None
    return block.group(1).rstrip()


@needs_tmux
@pytest.mark.parametrize(
    ("lang", "answers", "page", "heading"),
    [
        ("en", ANSWERS, "teaching.md", "At a terminal"),
        ("es", ANSWERS_ES, "ensenanza.md", "En una terminal"),
    ],
)
def test_a_student_at_a_terminal_sees_each_verdict_at_once(lang, answers, page, heading):
    fmt = Format(lang=lang)
    pane = _session(lang, answers)
    words = " ".join(pane.split())  # a verdict wrapped at the terminal's width, read whole
    assert fmt.say("check.mistake.root_forgotten") in words
    assert fmt.say("check.right") in words
    assert fmt.say("check.carried", expected=fmt.number(2.7182818**1.5, 2)) in words
    assert max(len(line) for line in pane.splitlines()) <= 80
    assert pane == _doc_capture(page, heading)
