"""The Llama family on the command line: attn selfattn --model, heads, heads --grid,
rollout and predict on the tiny Llama, Mistral, Qwen2 and Gemma of tests/models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attncli.errors import InputError
from tests.meaning import WRONG, in_file, told

MODELS = Path(__file__).resolve().parent.parent / "models"
LLAMA, MISTRAL, QWEN2, GEMMA = (
    str(MODELS / name) for name in ("tiny-llama", "tiny-mistral", "tiny-qwen2", "tiny-gemma")
)
NOT_COMPUTED = (
    "one attn computes ({known}); another's rotary angles would differ, so this model is "
    "not supported"
)


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


def test_the_header_says_what_the_family_does(run):
    screen = _flat(run("selfattn", "the keys to the cabinet", "--model", MISTRAL,
                       "--format", "table").stdout)  # fmt: skip
    assert "(mistral) · layer 2 of 2 · all 4 heads" in screen
    assert "2 key/value heads, each read by 2 query heads" in screen
    assert "sliding window 4: each query sees itself and the 3 before it" in screen
    assert "(after its RMSNorm)" in screen
    assert "rope_theta 10000, linear scaling ×2" in screen
    spanish = _flat(run("selfattn", "the keys to the cabinet", "--model", LLAMA, "--format",
                        "table", "--lang", "es").stdout)  # fmt: skip
    assert "(tras su RMSNorm)" in spanish and "escalado llama3 ×8" in spanish


@pytest.mark.parametrize("model", [LLAMA, MISTRAL])
def test_the_json_says_what_shaped_the_numbers_in_the_config_s_names(run, model):
    config = json.loads((Path(model) / "config.json").read_text(encoding="utf-8"))
    document = json.loads(run("selfattn", "the keys", "--model", model).stdout)
    assert document["num_key_value_heads"] == config["num_key_value_heads"] == 2
    assert document.get("sliding_window") == config.get("sliding_window")
    assert document["rope_parameters"] == config["rope_parameters"]
    one_head = json.loads(run("selfattn", "the keys", "--model", model, "--head", "2").stdout)
    assert one_head["num_key_value_heads"] == 2  # the model's, though one head is shown


def test_one_head_and_its_steps(run):
    result = run("selfattn", "the keys to the cabinet", "--model", QWEN2, "--head", "3",
                 "--steps", "--token", "keys", "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "Softmax of keys" in result.stdout
    document = json.loads(run("selfattn", "the keys", "--model", QWEN2, "--head", "3").stdout)
    assert document["model_type"] == "qwen2" and document["head"] == 3


@pytest.mark.parametrize("model", [LLAMA, MISTRAL, QWEN2, GEMMA])
def test_heads_grid_rollout_and_predict_run(run, model):
    ranked = json.loads(run("heads", "the keys to the cabinet", "--model", model,
                            "--pattern", "previous").stdout)  # fmt: skip
    assert len(ranked["heads"]) == 8
    grid = run("heads", "the keys to the cabinet", "--model", model, "--grid", "--format", "table")
    assert grid.exit_code == 0 and "2 layers × 4 heads" in grid.stdout
    rolled = json.loads(run("rollout", "the keys to the cabinet", "--model", model).stdout)
    assert rolled["layers"] == 2
    predicted = json.loads(run("predict", "the keys of the car", "--model", model).stdout)
    assert len(predicted["top"]) == 5


def test_a_refused_config_is_one_line_on_stderr(run, tmp_path):
    import shutil

    folder = tmp_path / "proportional"
    shutil.copytree(MODELS / "tiny-llama", folder)
    config = json.loads((folder / "config.json").read_text())
    config["rope_parameters"] = {"rope_type": "proportional", "rope_theta": 1e4, "factor": 4.0}
    (folder / "config.json").write_text(json.dumps(config))
    result = run("predict", "the keys", "--model", str(folder))
    assert result.exit_code != 0 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    told(result.error, InputError, WRONG, kind='"proportional"',
         where=in_file(str(folder / "config.json"), "rope_parameters.rope_type"))  # fmt: skip
    assert result.error.fields["expected"].msgid == NOT_COMPUTED


@pytest.mark.parametrize(
    ("parameters", "name", "value", "expected"),
    [
        ({"rope_type": "default", "rope_theta": 0}, "rope_theta", "0", "a positive number"),
        ({"rope_type": "default", "rope_theta": "10000"}, "rope_theta", '"10000"',
         "a positive number"),
        (None, "rms_norm_eps", "-1e-06", "a small positive number such as 1e-12"),
    ],
    ids=["theta-0", "theta-text", "epsilon-negative"],
)  # fmt: skip
def test_a_config_number_out_of_range_is_named_with_what_it_must_be(
    run, tmp_path, parameters, name, value, expected
):
    import shutil

    folder = tmp_path / "edited"
    shutil.copytree(MODELS / "tiny-llama", folder)
    config = json.loads((folder / "config.json").read_text())
    if parameters is None:
        config[name] = -1e-6
    else:
        config["rope_parameters"] = parameters
    (folder / "config.json").write_text(json.dumps(config))
    result = run("predict", "the keys", "--model", str(folder))
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, WRONG, where=in_file(str(folder / "config.json"), name),
         kind=value, expected=(expected, {}))  # fmt: skip
