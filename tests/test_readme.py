"""Every `$ attn ...` example in the README's ```console blocks is run, and its output compared.

To refresh the README after a deliberate change of output:

    python tests/test_readme.py --update
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)


def examples(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for each `$ ` line of each console block."""
    found = []
    for block in BLOCK.findall(text):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            found.append((command, "\n".join(output)))
    return found


def run_example(command: str) -> str:
    """Run a README command as a user would, in the repository, with a fixed terminal width."""
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",
        "PYTHONIOENCODING": "utf-8",
    }
    environment.pop("ATTN_LANG", None)
    environment.pop("NO_COLOR", None)
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"{command}\n{result.stderr}"
    return normalise(result.stdout)


def normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@pytest.mark.parametrize(("command", "expected"), examples(README.read_text(encoding="utf-8")))
def test_readme_example(command, expected):
    assert run_example(command) == normalise(expected)


def update() -> None:
    """Rewrite the output under every README command with what the command prints now."""
    text = README.read_text(encoding="utf-8")

    def refresh(match: re.Match[str]) -> str:
        lines = []
        for command, _ in examples(match.group(0)):
            lines.append(f"$ {command}")
            output = run_example(command)
            if output:
                lines.append(output)
        return "```console\n" + "\n".join(lines) + "\n```"

    README.write_text(BLOCK.sub(refresh, text), encoding="utf-8")


if __name__ == "__main__" and "--update" in sys.argv:
    update()
