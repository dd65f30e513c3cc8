"""Start-up: a JSON run imports only what it needs. Speed itself is measured by
benchmarks/startup.py, not by timed tests."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import os, sys
leave = os._exit  # attn ends with os._exit, after which nothing runs: report before it
WATCHED = ("rich", "typer", "matplotlib", "threadpoolctl", "textual", "attncli.core.gradients",
           "attncli.present.render", "safetensors", "tokenizers", "attncli.reading.models.model",
           "attncli.core.transformer", "torch")
def report_then_leave(status):
    loaded = sorted(name for name in WATCHED if name in sys.modules)
    sys.stderr.write("LOADED " + " ".join(loaded) + "\\n")
    sys.stderr.flush()
    leave(status)
os._exit = report_then_leave
sys.argv = ["attn", *sys.argv[1:]]
from attncli.cli.entry import main
main()
"""

JSON_RUNS = [
    ("softmax", "2", "0", "1", "--json"),
    ("score", "--query", "1,0", "--keys", "[[2,1],[0,2]]", "--json"),
    ("mix", "--weights", "0.5,0.5", "--values", "[[10,0],[0,10]]", "--json"),
    ("grad", "--query", "1,0", "--keys", "[[2,1]]", "--values", "[[1]]", "--grad-output", "1",
     "--json"),
    ("selfattn", "en las llaves del coche", "--json"),
    ("compare-scores", "--tx", "2", "--ty", "2", "--d-h", "2", "--d-a", "2", "--repeat", "1",
     "--json"),
    ("exercise", "--json"),
    ("train", "en las llaves", "--want", "las=llaves", "--iterations", "2", "--json"),
]  # fmt: skip


def _loaded(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("LOADED"))
    return set(line.split()[1:])


@pytest.mark.parametrize("args", JSON_RUNS, ids=[args[0] for args in JSON_RUNS])
def test_no_json_run_imports_rich(args):
    loaded = _loaded(*args)
    assert "rich" not in loaded and "attncli.present.render" not in loaded, loaded
    assert "matplotlib" not in loaded
    # the model path's packages load only with --model
    assert not loaded & {"safetensors", "tokenizers", "attncli.reading.models.model",
                         "attncli.core.transformer"}, loaded  # fmt: skip
    if args[0] not in ("grad", "train"):  # training runs the backward pass
        assert "attncli.core.gradients" not in loaded
    if args[0] != "compare-scores":
        assert "threadpoolctl" not in loaded
    assert "textual" not in loaded  # only attn explore imports it


def test_a_layer_read_from_a_state_dict_loads_neither_torch_nor_rich(tmp_path):
    from pathlib import Path

    import numpy as np

    weights = Path(__file__).parent.parent / "references" / "mha" / "packed.safetensors"
    x = tmp_path / "x.npy"
    np.save(x, np.ones((3, 4)))
    line = ("selfattn", "-i", str(x), "--weights", str(weights), "--heads", "2", "--json")
    loaded = _loaded(*line)
    assert "safetensors" in loaded  # the file's reader, on its own path
    assert not loaded & {"torch", "rich", "tokenizers", "attncli.core.transformer"}, loaded
    archive = tmp_path / "layer.npz"
    from attncli.reading.parse.tensor_files import open_tensors

    tensors = open_tensors(str(weights))
    np.savez(archive, **{name: tensors[name] for name in tensors})
    loaded = _loaded("selfattn", "-i", str(x), "--weights", str(archive), "--heads", "2", "--json")
    assert not loaded & {"torch", "rich", "safetensors", "tokenizers"}, loaded


def test_a_table_run_does_import_rich():
    assert "rich" in _loaded("softmax", "2", "0", "1", "--format", "table")


@pytest.mark.parametrize(
    "args",
    [("selfattn", "en las llaves", "--format", "table"), ("selfattn", "--help"), ("--help",)],
    ids=["table", "selfattn-help", "help"],
)
def test_only_explore_imports_textual(args):
    assert "textual" not in _loaded(*args)


def test_attn_explore_off_a_terminal_stops_before_importing_textual():
    """Refused in one line (no terminal here), and Textual was never imported for it."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "explore", "en las llaves"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "needs a terminal" in result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("LOADED"))
    assert "textual" not in line


def _complete(shell: str, words: str, **extra: str) -> str:
    import os

    env = {**os.environ, "_ATTN_COMPLETE": f"complete_{shell}", **extra}
    if shell == "bash":
        env.update(COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - 1))
    else:
        env["_TYPER_COMPLETE_ARGS"] = words
    result = subprocess.run(
        [sys.executable, "-m", "attncli"], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow  # a process of its own for each shell
def test_shell_completion_for_bash_zsh_and_fish():
    assert _complete("bash", "attn sof").split() == ["softmax"]
    assert "--temperature" in _complete("bash", "attn softmax --tem")
    zsh = _complete("zsh", "attn selfattn --no-")
    assert "--no-proj" in zsh and "--no-out-proj" in zsh
    fish = _complete("fish", "attn so", _TYPER_COMPLETE_FISH_ACTION="get-args")
    assert "softmax" in fish
    shown = subprocess.run(
        [sys.executable, "-m", "attncli", "--help"], capture_output=True, text=True
    )
    assert "--install-completion" in shown.stdout and "--show-completion" in shown.stdout


@pytest.mark.parametrize(("error", "status"), [("BrokenPipeError", 141), ("OSError", 1)])
def test_a_failed_last_flush_is_not_a_success(error, status):
    """attn ends with os._exit once stdout is flushed; if that flush fails, the run failed."""
    script = (
        "import io, sys\n"
        "from attncli.cli.entry import _leave\n"
        "class Failing(io.StringIO):\n"
        f"    def flush(self): raise {error}()\n"
        "sys.stdout = Failing()\n"
        "_leave(0)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert result.returncode == status, result.stderr


def test_a_batch_and_a_row_blocked_run_load_no_progress_bar(tmp_path):
    """Off a terminal, the progress of a batch or of row blocks is never drawn: rich (and
    rich.progress) stay unloaded."""
    import numpy as np

    path = tmp_path / "batch.npy"
    np.save(path, np.random.default_rng(0).normal(size=(3, 5, 4)))
    for extra in ((), ("--fields", "output")):
        loaded = _loaded("selfattn", "-i", str(path), "--heads", "2", *extra, "--json")
        assert "rich" not in loaded, loaded
