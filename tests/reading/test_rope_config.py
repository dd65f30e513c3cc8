"""A config's rotary scaling read as transformers reads it: every rope_type's θ_i and
attention factor equal to transformers' ROPE_INIT_FUNCTIONS (tests/references/frontier.json,
made by tests/references/make_frontier.py), and a scaling attn would misread refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.core.rotary import attention_factor, model_frequencies
from attncli.errors import InputError
from attncli.reading.models.rope_config import rope_settings
from tests.meaning import WRONG, in_file, told

DISAGREE = (
    "{other}, as {older} gives it: the two disagree, so the rotary angles are not known; keep one"
)

REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
)["rope"]


def _config(case: dict) -> dict:
    return {
        "head_dim": case["head_dim"],
        "max_position_embeddings": case["max_position_embeddings"],
        "rope_parameters": dict(case["rope_parameters"]),
    }


def _read(config: dict):
    return rope_settings(config, "config.json", config["max_position_embeddings"],
                         config["head_dim"])  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_each_rope_type_is_transformers_own_to_the_last_digits(name):
    case = REFERENCE[name]
    base, scaling = _read(_config(case))
    assert scaling is not None and scaling.kind == case["rope_parameters"]["rope_type"]
    for run in case["runs"]:
        theta = model_frequencies(case["head_dim"], base, scaling, run["seq_len"])
        exact, shipped = run["float64"], run["shipped"]
        np.testing.assert_allclose(theta, exact["inv_freq"], rtol=1e-12, atol=0)
        assert attention_factor(scaling) == pytest.approx(exact["attention_factor"], abs=1e-12)
        # as transformers ships them: θ_i in float32
        np.testing.assert_allclose(theta, shipped["inv_freq"], rtol=1e-6, atol=0)
        assert attention_factor(scaling) == pytest.approx(shipped["attention_factor"], abs=1e-12)


def test_the_reference_scales_where_it_should():
    # a held reference that scaled nothing would hold nothing: each case moves some θ_i
    for name, case in REFERENCE.items():
        d = case["head_dim"]
        base = case["rope_parameters"]["rope_theta"]
        plain = 1.0 / base ** (np.arange(0, d, 2) / d)
        moved = [not np.allclose(run["float64"]["inv_freq"], plain, rtol=1e-9)
                 or run["float64"]["attention_factor"] != 1.0 for run in case["runs"]]  # fmt: skip
        assert any(moved), name


def test_dynamic_keeps_the_base_up_to_the_trained_length():
    case = REFERENCE["dynamic"]
    base, scaling = _read(_config(case))
    assert scaling is not None and scaling.original_positions == 2048
    unscaled = model_frequencies(64, base)
    np.testing.assert_array_equal(model_frequencies(64, base, scaling, 2048), unscaled)
    assert model_frequencies(64, base, scaling, 2049)[1] < unscaled[1]


def test_yarn_and_longrope_work_out_a_factor_left_out():
    yarn = {
        "head_dim": 16,
        "max_position_embeddings": 256,
        "rope_parameters": {"rope_type": "yarn", "original_max_position_embeddings": 64},
    }
    _base, scaling = _read(yarn)
    assert scaling is not None and scaling.factor == 4.0
    assert (scaling.beta_fast, scaling.beta_slow, scaling.truncate) == (32.0, 1.0, True)
    phi3 = _config(REFERENCE["longrope-phi3"])
    _base, scaling = _read(phi3)
    assert scaling is not None and scaling.factor == 128 / 32


def test_phi3s_original_length_beside_the_parameters_is_read():
    config = _config(REFERENCE["longrope-phi3"])
    original = config["rope_parameters"].pop("original_max_position_embeddings")
    config["original_max_position_embeddings"] = original
    _base, scaling = _read(config)
    assert scaling is not None and scaling.original_positions == original


def _refused(config: dict) -> InputError:
    with pytest.raises(InputError) as caught:
        _read(config)
    for language in ("en", "es"):
        line = caught.value.message(language)
        assert line and "\n" not in line
    return caught.value


def test_the_original_length_given_twice_must_agree():
    config = _config(REFERENCE["longrope-phi3"])
    config["original_max_position_embeddings"] = 64
    told(_refused(config), InputError, WRONG, kind="32",
         where=in_file("config.json", "rope_parameters.original_max_position_embeddings"),
         expected=(DISAGREE, {"older": "config.json", "other": "64"}))  # fmt: skip


@pytest.mark.parametrize("name", ["short_factor", "long_factor"])
@pytest.mark.parametrize("value", [[1.0] * 7, [1.0] * 7 + [0.0], [1.0] * 7 + ["2"], None])
def test_longrope_needs_a_positive_factor_per_pair(name, value):
    config = _config(REFERENCE["longrope-phi3"])
    config["rope_parameters"][name] = value
    told(_refused(config), InputError, WRONG, where=in_file("config.json", name),
         expected=("{count} positive numbers, one per pair of a head (head_dim {head_dim} ÷ 2)",
                   {"count": 8, "head_dim": 16}))  # fmt: skip


def test_dynamic_on_a_head_of_two_is_refused():
    config = {"head_dim": 2, "max_position_embeddings": 64,
              "rope_parameters": {"rope_type": "dynamic", "factor": 2.0}}  # fmt: skip
    told(_refused(config), InputError, WRONG, where=in_file("config.json", "head_dim"), kind="2",
         expected=("more than 2: rope_type dynamic grows the base by a power of d ÷ (d − 2)",
                   {}))  # fmt: skip


@pytest.mark.parametrize(
    ("name", "value"), [("beta_fast", -1), ("attention_factor", "big"), ("factor", 0)]
)
def test_a_yarn_number_that_is_no_positive_number_is_refused(name, value):
    config = _config(REFERENCE["yarn-qwen2.5"])
    config["rope_parameters"][name] = value
    told(_refused(config), InputError, WRONG, where=in_file("config.json", name))


LAYERS = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
)["models"]["layer_types"]


def _gemma(tmp_path: Path, name: str, **fields) -> Path:
    import shutil

    folder = tmp_path / name
    shutil.copytree(Path(__file__).resolve().parent.parent / "models" / name, folder)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(fields)
    config = {key: value for key, value in config.items() if value is not None}
    path.write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(("case", "name"), [("gemma2", "tiny-gemma2"), ("gemma3", "tiny-gemma3"),
                                            ("gemma3-pattern-3", "tiny-gemma3")])  # fmt: skip
def test_gemmas_layer_types_left_out_are_transformers_pattern(tmp_path, case, name):
    from attncli.reading.models.model import read_config

    given = dict(LAYERS[case])
    kinds = given.pop("layer_types")
    folder = _gemma(tmp_path, name, layer_types=None, **given)
    _type, arch = read_config(str(folder))
    assert tuple(arch.layer_kind(i) for i in range(arch.layers)) == tuple(kinds)


def test_gemma3s_older_rotary_fields_are_transformers_reading(tmp_path):
    from attncli.reading.models.model import read_config

    case = LAYERS["gemma3-older-rope"]
    folder = _gemma(tmp_path, "tiny-gemma3", rope_parameters=None, **case["given"])
    _type, arch = read_config(str(folder))
    full, sliding = case["rope_parameters"]["full_attention"], case["rope_parameters"][
        "sliding_attention"]  # fmt: skip
    assert arch.rope(1)[0] == full["rope_theta"] and arch.rope(0)[0] == sliding["rope_theta"]
    scaling = arch.rope(1)[1]
    assert scaling is not None and (scaling.kind, scaling.factor) == (full["rope_type"],
                                                                      full["factor"])  # fmt: skip
    assert arch.rope(0)[1] is None and sliding["rope_type"] == "default"


@pytest.mark.parametrize(
    "nested",
    [{"full_attention": {"rope_type": "default"}, "chunked_attention": {}},
     {"full_attention": {"rope_type": "default"}, "sliding_attention": 10000.0}],
    ids=["another layer type", "no object"],
)  # fmt: skip
def test_gemma3s_rotary_settings_of_another_layer_type_are_refused(tmp_path, nested):
    from attncli.reading.models.model import read_config

    folder = _gemma(tmp_path, "tiny-gemma3", rope_parameters=nested)
    with pytest.raises(InputError) as caught:
        read_config(str(folder))
    told(caught.value, InputError, WRONG,
         where=in_file(str(folder / "config.json"), "rope_parameters"), expected=(
             "one set of rotary settings for full_attention and one for sliding_attention, "
             "as Gemma 3 reads them", {}))  # fmt: skip
    assert "full_attention" in caught.value.fields["kind"]
