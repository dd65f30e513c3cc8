"""Every `$ attn ...` example in the ```console blocks of the README and of the manual
(docs/*.md) is run, and its output compared.

To refresh the README after a deliberate change of output:

    python tests/docs/test_readme.py --update
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
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


def _parsed(line: str) -> object:
    """The JSON a line holds, or the line itself when it is not a JSON document."""
    if line[:1] in ("{", "["):
        try:
            return json.loads(line)
        except ValueError:
            pass
    return line


def same_output(actual: str, expected: str) -> bool:
    """Text equal line by line; a JSON line equal as data, numbers to ~1e-12 relative.

    The last printed digit of a full-precision float depends on the BLAS kernel the CPU
    runs, so JSON numbers are compared as numbers, never as text.
    """
    actual_lines, expected_lines = actual.splitlines(), expected.splitlines()
    return len(actual_lines) == len(expected_lines) and all(
        _same(_parsed(a), _parsed(e)) for a, e in zip(actual_lines, expected_lines, strict=True)
    )


def _same(actual: object, expected: object) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            _same(a, e) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            _same(actual[k], expected[k]) for k in expected
        )
    return actual == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [case for page in PAGES for case in examples(page.read_text(encoding="utf-8"))],
)
def test_readme_example(command, expected):
    actual = run_example(command)
    assert same_output(actual, normalise(expected)), f"{actual}\n!=\n{normalise(expected)}"


def test_json_lines_compare_as_numbers():
    """One unit in the last place is the same number; a real difference is not; text is text."""
    assert same_output('{"output":[2.123948086977793]}', '{"output":[2.1239480869777925]}')
    assert not same_output('{"output":[2.1239]}', '{"output":[2.1238]}')
    assert not same_output('{"output":[1],"x":2}', '{"output":[1]}')
    assert not same_output("0.665", "0.666")
    assert not same_output("a\nb", "a")


def update() -> None:
    """Rewrite the output under every command of the README and the manual with what the
    command prints now."""
    for page in PAGES:
        _update(page)


def _update(page: Path) -> None:
    text = page.read_text(encoding="utf-8")

    def refresh(match: re.Match[str]) -> str:
        lines = []
        for command, _ in examples(match.group(0)):
            lines.append(f"$ {command}")
            output = run_example(command)
            if output:
                lines.append(output)
        return "```console\n" + "\n".join(lines) + "\n```"

    page.write_text(BLOCK.sub(refresh, text), encoding="utf-8")


if __name__ == "__main__" and "--update" in sys.argv:
    update()


def test_ci_runs_the_readme_test_command_exactly():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.+?)\n```", quick_start)
    assert len(commands) == 2 and "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == commands[1]


def test_every_example_gives_a_checkpoint_its_own_heads():
    """A state dict does not hold its heads, so a manual's example that gives --heads for a
    checkpoint must give the model's own (tests/references/layers.json; mha.safetensors was
    made with num_heads=2), or a reader copying it gets numbers that are not the model's."""
    references = json.loads((ROOT / "tests" / "references" / "layers.json").read_text())
    own = {layer["file"]: layer["heads"] for layer in references["layers"]}
    own["mha.safetensors"] = 2
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    lines = [command for command, _ in examples(text)]
    lines += re.findall(r"`(attn selfattn [^`]*)`", text)
    checked = 0
    for line in lines:
        heads = re.search(r"--heads (\d+)", line)
        for file, number in own.items():
            if heads and file in line:
                assert int(heads.group(1)) == number, (file, line)
                checked += 1
    assert checked >= 4
