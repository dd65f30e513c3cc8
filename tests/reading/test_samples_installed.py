"""The samples ship with the package: -i NAME (or samples/NAME.json where no such file
exists) finds them from any folder, attn samples lists them; a missing matplotlib is told
with the command that installs it where attn runs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import OptionError, install_command
from attncli.present.plot import check_plot_path
from attncli.reading.parse.samples import FOLDER, installed, sample_for
from tests.conftest import SAMPLES
from tests.meaning import told

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_sample_of_the_repository_is_package_data():
    import fnmatch
    import re

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    line = re.search(r'^"attncli.reading.parse" = \[(.*)\]$', pyproject, re.M)
    assert line is not None
    globs = re.findall(r'"samples/([^"]+)"', line.group(1))
    files = {p.name for p in SAMPLES.iterdir() if p.is_file()}
    assert {"mha_x.npy", "mha.safetensors", "tren.json"} <= files
    for name in files:  # every file of samples/ is shipped, the layer's arrays too
        assert any(fnmatch.fnmatch(name, glob) for glob in globs), name
    assert {sample.file for sample in installed()} == files
    assert (Path(FOLDER) / "tren.json").is_file()


@pytest.mark.parametrize(
    "typed",
    [("-i", "mha_x", "--weights", "mha"),
     ("-i", "samples/mha_x.npy", "--weights", "samples/mha.safetensors"),
     ("-i", "mha_x.npy", "--weights", "mha.safetensors")],
)  # fmt: skip
def test_the_layer_samples_are_found_from_any_folder(tmp_path, typed):
    result = _attn_from(tmp_path, "selfattn", *typed, "--heads", "2", "--json")
    assert result.returncode == 0, result.stderr
    torch_output = [[0.1258, 0.3813, 0.1881, -0.0251], [0.1302, 0.4689, 0.2826, -0.0502],
                    [0.1308, 0.4232, 0.2403, -0.0415]]  # fmt: skip
    output = np.array(
        json.loads(result.stdout)["output"]
    )  # torch 2.13, tests/reading/test_samples.py
    assert abs(output - np.array(torch_output)).max() < 6e-5


def _told_from(folder: Path, run, monkeypatch, *args: str):
    """The error `attn ARGS` tells in-process, run from `folder` as _attn_from runs it."""
    monkeypatch.chdir(folder)
    return run(*args).error


def test_a_sample_weight_file_given_as_input_says_weights(run, monkeypatch, tmp_path):
    result = _attn_from(tmp_path, "selfattn", "-i", "mha")
    assert result.returncode != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    error = _told_from(tmp_path, run, monkeypatch, "selfattn", "-i", "mha")
    told(
        error,
        attn.InputError,
        "{path} holds a layer's weights, not an input document; give it to attn selfattn as "
        "--weights FILE (with x in -i, or a sentence)",
        path=str(Path(FOLDER) / "mha.safetensors"),
    )
    # the process reads the installed samples, the test the source tree's: the same file
    said = error.message("en")
    tail = said.split("mha.safetensors", 1)[1]
    assert result.stderr.startswith("attn: error: ") and result.stderr.endswith(f"{tail}\n")
    assert "reading/parse/samples/mha.safetensors holds a layer's weights" in result.stderr


def _attn_from(folder: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    environment.pop("ATTN_LANG", None)
    return subprocess.run([sys.executable, "-m", "attncli", *args], cwd=folder,
                          capture_output=True, text=True, env=environment)  # fmt: skip


@pytest.mark.parametrize("typed", ["tren", "tren.json", "samples/tren.json"])
def test_a_sample_is_found_from_any_folder(tmp_path, typed):
    result = _attn_from(tmp_path, "score", "-i", typed, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["scores"] == [2.0, 0.0, 1.0]


def test_a_file_of_that_name_comes_first(tmp_path):
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "tren.json").write_text('{"query": [1], "keys": [[5]]}')
    result = _attn_from(tmp_path, "score", "-i", "samples/tren.json", "--json")
    assert json.loads(result.stdout)["scores"] == [5.0]
    assert sample_for(str(tmp_path / "samples" / "tren.json")) is None


def test_a_missing_file_names_attn_samples(run, monkeypatch, tmp_path):
    result = _attn_from(tmp_path, "score", "-i", "nada.json")
    assert result.returncode == 2 and result.stdout == ""
    error = _told_from(tmp_path, run, monkeypatch, "score", "-i", "nada.json")
    told(error, attn.InputError,
         "cannot read '{path}': no such file (check the path given to {option}; attn "
         "samples lists the samples installed with attn)",
         path="nada.json", option="-i")  # fmt: skip
    assert result.stderr == f"attn: error: {error.message('en')}\n"
    assert sample_for("other/tren.json") is None and sample_for("../tren.json") is None


def test_attn_samples_lists_them(run):
    document = json.loads(run("samples", "--json").stdout)
    by_name = {sample["name"]: sample for sample in document["samples"]}
    assert by_name["tren"]["holds"].endswith("(tokens, query, keys, values)")
    assert by_name["tren"]["holds"].startswith("«el tren va lleno»")
    assert by_name["tren"]["example"] == "attn score -i tren"
    assert by_name["llaves"]["example"] == "attn selfattn -i llaves"
    layer = "attn selfattn -i mha_x --weights mha --heads 2"
    assert by_name["mha"]["example"] == by_name["mha_x"]["example"] == layer
    assert by_name["mha_x"]["holds"].startswith("x 3 × 4")
    assert "in_proj_weight 12 × 4" in by_name["mha"]["holds"]
    assert Path(by_name["tren"]["path"]).is_file()
    table = run("samples", "--format", "table", "--lang", "es").stdout
    assert "Qué contiene" in table and "attn score -i tren" in table
    assert [s.name for s in attn.samples().samples] == list(by_name)


def test_install_command_fits_how_attn_was_installed():
    pipx = install_command("matplotlib", prefix="/home/ana/.local/share/pipx/venvs/attncli")
    assert pipx == "pipx inject attncli matplotlib"
    uv = install_command("matplotlib", prefix="/home/ana/.local/share/uv/tools/attncli")
    assert uv == "uv tool install attncli --with matplotlib"
    venv = install_command("matplotlib", prefix="/work/venv", python="/work/venv/bin/python")
    assert venv == "/work/venv/bin/python -m pip install matplotlib"


def test_missing_matplotlib_says_the_command_that_works(monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    with pytest.raises(OptionError) as error:
        check_plot_path(str(tmp_path / "w.png"))
    told(error.value, OptionError,
         "{option} {path} needs {package}, which is not installed where attn runs: {command}",
         option="--plot", package="matplotlib",
         command=f"{shlex.quote(sys.executable)} -m pip install matplotlib")  # fmt: skip
    assert "matplotlib" in error.value.message("es")


@pytest.mark.slow  # a process of its own for each sample, in another folder
def test_every_sample_s_example_runs_from_any_folder(run, tmp_path):
    """What attn samples says to try works as typed: a test set is tried as a test set
    (--test), after training on the training set, not trained on itself."""
    document = json.loads(run("samples", "--json").stdout)
    by_name = {sample["name"]: sample["example"] for sample in document["samples"]}
    for name in ("concordancia-numero", "concordancia-orden", "concordancia-lejos"):
        assert by_name[name] == f"attn train --corpus concordancia-entreno --test {name}"
    assert by_name["concordancia-entreno"] == "attn train --corpus concordancia-entreno"
    for name, example in by_name.items():
        command = shlex.split(example)[1:]
        if command[0] == "train":
            command += ["--iterations", "5"]
        result = _attn_from(tmp_path, *command, "--json")
        assert result.returncode == 0, (name, result.stderr)
        if "--test" in command:
            assert "accuracy" in json.loads(result.stdout)["test"]
        if "--weights" in command:
            assert json.loads(result.stdout)["drawn"] == []  # every weight from the file
    assert "mha" in by_name and "mha_x" in by_name


def test_attn_samples_says_what_each_holds_in_spanish(run):
    table = run("samples", "--format", "table", "--lang", "es").stdout
    joined = " ".join(table.split())
    for english in ("Agreement", "Not trained on", "a token per row"):
        assert english not in joined
    for spanish in ("Concordancia: el verbo", "No entrenadas", "un token por fila", "2 cabezas"):
        assert spanish in joined, spanish
    english = " ".join(run("samples", "--format", "table").stdout.split())
    assert "Agreement: the verb" in english and "Concordancia" not in english
    # every corpus still trains: the Spanish line is a comment like the others
    document = json.loads(run("samples", "--json").stdout)
    assert all("holds_es" in sample for sample in document["samples"])


def test_softmax_help_in_spanish_names_its_argument_in_spanish(run):
    import subprocess

    spanish = subprocess.run([sys.executable, "-m", "attncli", "softmax", "--help", "--lang", "es"],
                             capture_output=True, text=True).stdout  # fmt: skip
    arguments = spanish.split("Argumentos:")[1].split("Opciones:")[0]
    assert "[PUNTUACIÓN]..." in arguments and "SCORE" not in spanish


@pytest.mark.parametrize(
    ("package", "what"),
    [("safetensors", "reading .safetensors"), ("tokenizers", "a model's tokenizer"),
     ("gguf", "a GGUF file"), ("jinja2", "a chat template")],
)  # fmt: skip
def test_a_missing_model_package_says_the_command_that_works(monkeypatch, tmp_path, package,
                                                             what):  # fmt: skip
    """Without the model extra, the --help example with a .safetensors file (or a model's
    tokenizer, a GGUF file, a chat template) says how to install the package where attn
    runs, not an extra's name that a clone's pip does not know."""
    from attncli.reading.models.chat import chat_prompt
    from attncli.reading.models.gguf_file import open_gguf
    from attncli.reading.models.tokens import load_tokenizer
    from attncli.reading.parse.tensor_files import open_safetensors

    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF" + (3).to_bytes(4, "little"))  # a header the package would read
    (tmp_path / "tokenizer_config.json").write_text('{"chat_template": "{{ messages }}"}')
    for name in [package, *(n for n in sys.modules if n.startswith(f"{package}."))]:
        monkeypatch.setitem(sys.modules, name, None)  # as if it were not installed
    with pytest.raises(attn.AttnError) as error:
        if package == "safetensors":
            open_safetensors([str(Path(FOLDER) / "mha.safetensors")])
        elif package == "tokenizers":
            load_tokenizer(FOLDER, "bert", 512)
        elif package == "gguf":
            open_gguf(str(gguf))
        else:
            chat_prompt(str(tmp_path), "a model", "hello")
    told(error.value, attn.InputError, "{what} needs the {package} package: {command}",
         what=(what, {}), package=package,
         command=f"{shlex.quote(sys.executable)} -m pip install {package}")  # fmt: skip
    assert package in error.value.message("es")
