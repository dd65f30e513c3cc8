"""--latent-rank with --positions rope from the command line: the decoupled rotary key's
steps (k^R and q^R beside c_KV, the absorbed score's two parts, their turns) in English and
Spanish, the header's sizes and cache, --rope-dim in --help, the JSON read back with the
same width, and its refusals one line each."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from tests.meaning import told

SENTENCE = "las llaves del coche están ahí"
ROTARY = ["--heads", "2", "--latent-rank", "3", "--positions", "rope", "--rope-dim", "4"]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_steps_and_the_header_are_said_in_the_language_asked(run, lang):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, *ROTARY, "--steps", "--token", "están", "--format",
                 "table", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    shown = " ".join(result.stdout.split())
    for key, fields in [("latent_k_rotary", {}), ("latent_q_rotary", {"head": 1}),
                        ("latent_k_content", {"head": 1}),
                        ("latent_cache_rotary", {"rank": 3, "rope": 4, "heads": 24})]:  # fmt: skip
        assert " ".join(say(lang, key, **fields).split()) in shown, key
    divisor = "2.83" if lang == "en" else "2,83"  # √(4 + 4)
    for column in ("(q^C W^UKᵀ) · c_KV", "q^R · k^R", f"(… + …) ÷ {divisor}"):
        assert column in shown
    assert "q^R" in shown and "k^R" in shown
    header = run("selfattn", SENTENCE, *ROTARY, "--format", "table", "--lang", lang)
    assert header.exit_code == 0, header.stderr
    flat = " ".join(header.stdout.split())
    assert "d_k = 4 · d_rope = 4 · d_v = 4" in flat
    said = say(lang, "layer_latent_rotary", rank=3, rope=4, heads=24)
    assert " ".join(said.split()) in flat


def test_help_names_the_option(run):
    result = run("selfattn", "--help")
    assert result.exit_code == 0 and "--rope-dim" in result.stdout


def test_the_json_reads_back_with_the_same_width_and_not_with_another(run):
    written = run("selfattn", SENTENCE, *ROTARY, "--causal", "--json")
    assert written.exit_code == 0, written.stderr
    document = json.loads(written.stdout)
    assert document["rope_dim"] == 4 and np.shape(document["rotary_key"]) == (6, 4)
    assert document["drawn"] == ["w_q", "w_dkv", "w_uk", "w_uv", "w_qr", "w_kr", "w_o"]
    again = run("selfattn", "-i", "-", *ROTARY, "--causal", "--json", input=written.stdout)
    assert again.exit_code == 0, again.stderr
    np.testing.assert_array_equal(json.loads(again.stdout)["output"], document["output"])
    other = [*ROTARY[:-1], "2"]
    refused = run("selfattn", "-i", "-", *other, "--causal", input=written.stdout)
    assert refused.exit_code == 2 and refused.stdout == ""
    told(refused.error, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}", field="rope_dim")  # fmt: skip


@pytest.mark.parametrize(("extra", "msgid", "fields"), [
    (["--heads", "2", "--latent-rank", "2", "--positions", "rope", "--rope-dim", "3"],
     "{width} is {size}, an odd number; rotary positions turn pairs of numbers, so give an "
     "even {option}", {"width": "d_rope", "size": 3, "option": "--rope-dim"}),
    (["--heads", "2", "--positions", "rope", "--rope-dim", "2"],
     "{setting} is {what}; add {needed}", {"needed": "--latent-rank"}),
    (["--heads", "2", "--latent-rank", "2", "--rope-dim", "2"],
     "{setting} is {what}; add {needed}", {"needed": "--positions rope"}),
])  # fmt: skip
def test_what_the_width_cannot_be_is_one_line(run, extra, msgid, fields):
    result = run("selfattn", SENTENCE, *extra)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, msgid, **fields)


def test_the_option_beside_a_model_is_refused(run):
    from pathlib import Path

    model = Path(__file__).resolve().parent.parent / "models" / "tiny-gemma2"
    result = run("selfattn", SENTENCE, "--model", str(model), "--rope-dim", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid.startswith("{name} shapes the seeded layer")


def test_show_lists_the_latent_and_the_rotary_key_and_a_scaling_names_their_factor(run):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, *ROTARY, "--rope-scaling", "yarn:4:2", "--show", "all",
                 "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    shape_of = {line.split()[0]: line.split()[1:4] for line in lines if line.startswith("  ")}
    assert shape_of["c_KV"] == ["6", "×", "3"] and shape_of["k^R"] == ["6", "×", "4"]
    assert "c_KV" in lines  # the block --show k adds: the latent the keys are read from
    flat = " ".join(result.stdout.split())
    assert say("en", "layer_rope_factor_latent", factor="1.1386", squared="1.2965") in flat
