"""What the handout tests need from the machine: pdflatex with Latin Modern, poppler-utils
(pdftotext, pdftoppm), chromium. Each test that needs one is skipped, saying which, where
it is missing; CI installs them all from Debian (.ci/run)."""

from __future__ import annotations

import shutil
import subprocess


def missing(*tools: str) -> list[str]:
    """Of `tools`, those not installed; "lmodern" is the Latin Modern fonts for pdflatex."""
    absent = []
    for tool in tools:
        if tool == "lmodern":
            found = shutil.which("kpsewhich") is not None and bool(
                subprocess.run(
                    ["kpsewhich", "lmodern.sty"], capture_output=True, text=True
                ).stdout.strip()
            )
        else:
            found = shutil.which(tool) is not None
        if not found:
            absent.append(tool)
    return absent


def reason(absent: list[str]) -> str:
    return (
        f"{', '.join(absent)} not installed here: the pages are printed where they are "
        "(CI installs texlive-latex-base, lmodern, poppler-utils and chromium)"
    )
