"""--latent-rank on attn selfattn's seeded layer from the command line: --steps shows the
latent step (c_KV, the key and value read from it, the scores both ways) in English and
Spanish, the header says the cache a token, the JSON reads back with the same rank (and is
refused without it), and a replay that would not do it is one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from tests.meaning import told

SENTENCE = "las llaves del coche están ahí"
LATENT = ["--heads", "2", "--latent-rank", "3"]


def test_the_latent_step_comes_before_the_scores_and_agrees_with_them():
    import attncli as attn

    result = attn.selfattn(SENTENCE, heads=2, latent_rank=3, causal=True)
    steps = result.steps(token="están", head=2)
    kinds = [type(step).__name__ for step in steps]
    assert kinds == ["LatentSteps", "ScoreSteps", "SoftmaxSteps", "MixSteps"]
    latent = steps[0]
    np.testing.assert_array_equal(latent.latent, result.attention.latent[4])
    np.testing.assert_array_equal(latent.key, result.keys[1, 4])
    np.testing.assert_array_equal(latent.value, result.values[1, 4])
    plain = [row.plain for row in latent.rows]
    assert plain == pytest.approx(result.scores[1, 4].tolist(), rel=1e-12)
    assert plain[5] == -np.inf  # causal: «ahí» is after «están»
    assert max(abs(row.difference) for row in latent.rows) < 1e-12
    assert (latent.cache_latent, latent.cache_heads) == (3, 2 * (4 + 4))


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_steps_and_the_header_are_said_in_the_language_asked(run, lang):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, *LATENT, "--steps", "--token", "están", "--format",
                 "table", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    shown = " ".join(result.stdout.split())
    for key, fields in [("latent_heading", {"row": "están", "head": 1, "rank": 3}),
                        ("latent_cache", {"rank": 3, "heads": 16})]:  # fmt: skip
        assert " ".join(say(lang, key, **fields).split()) in shown, key
    assert "(q W^UKᵀ) · c_KV ÷ 2" in shown
    header = run("selfattn", SENTENCE, *LATENT, "--format", "table", "--lang", lang)
    assert header.exit_code == 0, header.stderr
    said = " ".join(say(lang, "layer_latent", rank=3, heads=16).split())
    assert said in " ".join(header.stdout.split())


def test_the_json_reads_back_with_the_same_rank_and_not_without(run):
    written = run("selfattn", SENTENCE, *LATENT, "--causal", "--json")
    assert written.exit_code == 0, written.stderr
    document = json.loads(written.stdout)
    assert document["latent_rank"] == 3 and np.shape(document["latent"]) == (6, 3)
    assert document["drawn"] == ["w_q", "w_dkv", "w_uk", "w_uv", "w_o"]
    again = run("selfattn", "-i", "-", *LATENT, "--causal", "--json", input=written.stdout)
    assert again.exit_code == 0, again.stderr
    np.testing.assert_array_equal(json.loads(again.stdout)["output"], document["output"])
    refused = run("selfattn", "-i", "-", "--heads", "2", "--causal", input=written.stdout)
    assert refused.exit_code == 2 and refused.stdout == ""
    told(refused.error, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}", field="latent_rank")  # fmt: skip


@pytest.mark.parametrize("replay", [["--kv-cache"], ["--tiles", "2,2"], ["--heads-sum"]])
def test_a_replay_that_would_not_do_it_is_one_line(run, replay):
    result = run("selfattn", SENTENCE, "--causal", *LATENT, *replay)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError,
         "{option} replays the plain layer; {setting} changes its scores, which the replay does "
         "not do yet: leave out one of them", option=replay[0],
         setting="--latent-rank 3")  # fmt: skip


@pytest.mark.parametrize(("extra", "msgid", "fields"), [
    (["--latent-rank", "2"], "{setting} is {what}; add {needed}",
     {"setting": "--latent-rank 2", "needed": "--heads"}),
    (["--heads", "2", "--latent-rank", "2", "--no-proj"],
     "{setting} is {what}, which the seeded layer does not do with {needed} yet; leave out "
     "one of them", {"setting": "--latent-rank 2", "needed": "--no-proj"}),
])  # fmt: skip
def test_what_it_does_not_do_is_one_line(run, extra, msgid, fields):
    result = run("selfattn", SENTENCE, *extra)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, msgid, **fields)


def test_a_rank_of_zero_is_refused_by_its_range(run):
    result = run("selfattn", SENTENCE, "--heads", "2", "--latent-rank", "0")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--latent-rank" in result.stderr and result.stderr.count("\n") == 1


def test_the_option_beside_a_model_is_refused(run):
    from pathlib import Path

    model = Path(__file__).resolve().parent.parent / "models" / "tiny-gemma2"
    result = run("selfattn", SENTENCE, "--model", str(model), "--latent-rank", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid.startswith("{name} shapes the seeded layer")
