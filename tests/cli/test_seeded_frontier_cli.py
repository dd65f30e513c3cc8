"""--softcap, --sinks, --qk-norm and --rope-scaling on attn selfattn's seeded layer from the
command line: --steps shows each as a step of its own in English and Spanish, the JSON reads
back with the same options (and is refused without them), and a replay that would not do
them (--kv-cache, --tiles, --heads-sum) is one line. Gemma's score table says what it
divides by."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import InputError, OptionError
from tests.meaning import told

SENTENCE = "el tren va lleno"
ALL = ["--heads", "2", "--softcap", "1.5", "--sinks", "0.5,-1", "--qk-norm",
       "--positions", "rope", "--rope-scaling", "yarn:4:2"]  # fmt: skip
MODELS = Path(__file__).resolve().parent.parent / "models"


def test_steps_show_each_one_as_a_step_in_order():
    import attncli as attn

    result = attn.selfattn(SENTENCE, heads=2, softcap=1.5, sinks="0.5,-1", qk_norm=True,
                           positions="rope", rope_scaling="yarn:4:2")  # fmt: skip
    steps = result.steps(token="lleno", head=2)
    kinds = [type(step).__name__ for step in steps]
    assert kinds == ["QkNormSteps", "RopePairs", "RotarySteps", "RotarySteps", "ScoreSteps",
                     "SoftcapSteps", "SoftmaxSteps", "MixSteps"]  # fmt: skip
    softmax = steps[kinds.index("SoftmaxSteps")]
    assert softmax.sink == "sink" and softmax.rows[-1].score == -1.0  # head 2's own sink
    assert softmax.kept == pytest.approx(result.weights[1, 3].sum(), rel=1e-12)
    capped = steps[kinds.index("SoftcapSteps")]
    assert [row.capped for row in capped.rows] == pytest.approx(
        result.scores[1, 3].tolist(), rel=1e-12
    )  # fmt: skip
    normed = steps[0]
    np.testing.assert_allclose(normed.rows[0].after, result.attention.unrotated[0][1, 3],
                               rtol=1e-12)  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_steps_are_said_in_the_language_asked(run, lang):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, *ALL, "--steps", "--token", "lleno", "--format",
                 "table", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    shown = " ".join(result.stdout.split())
    for key, fields in [("qk_norm_after", {}), ("rope_scaled_theta", {}),
                        ("softcap_note", {"cap": "1,50" if lang == "es" else "1.50"})]:  # fmt: skip
        assert " ".join(say(lang, key, **fields).split()) in shown, key
    assert "sink" in shown


def test_the_header_says_what_each_row_sums_to(run):
    result = run("selfattn", SENTENCE, "--heads", "2", "--sinks", "0.5,-1", "--format", "table")
    assert result.exit_code == 0, result.stderr
    import attncli as attn

    sums = attn.selfattn(SENTENCE, heads=2, sinks=(0.5, -1)).weights.sum(axis=-1)
    shown = " ".join(result.stdout.split())
    assert f"{sums.min():.3f} to {sums.max():.3f} over the keys" in shown


def test_the_json_reads_back_with_the_same_options(run):
    written = run("selfattn", SENTENCE, *ALL, "--json")
    assert written.exit_code == 0, written.stderr
    document = json.loads(written.stdout)
    assert document["softcap"] == 1.5 and document["sinks"] == [0.5, -1.0]
    assert document["qk_norm"] is True and document["rope_scaling"] == "yarn:4:2"
    again = run("selfattn", "-i", "-", *ALL, "--json", input=written.stdout)
    assert again.exit_code == 0, again.stderr
    read = json.loads(again.stdout)
    np.testing.assert_array_equal(read["weights"], document["weights"])
    np.testing.assert_array_equal(read["sink_weights"], document["sink_weights"])


@pytest.mark.parametrize(("left_out", "field"), [
    (["--softcap", "1.5"], "softcap"),
    (["--sinks", "0.5,-1"], "sinks"),
    (["--qk-norm"], "qk_norm"),
    (["--rope-scaling", "yarn:4:2"], "rope_scaling"),
])  # fmt: skip
def test_read_back_without_one_of_them_is_refused(run, left_out, field):
    written = run("selfattn", SENTENCE, *ALL, "--json").stdout
    start = ALL.index(left_out[0])
    asked = ALL[:start] + ALL[start + len(left_out) :]
    result = run("selfattn", "-i", "-", *asked, input=written)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError,
         "{field}: the input is a result computed with {field} {value}, and computing it again "
         "otherwise would change its numbers; read it back {fix}", field=field)  # fmt: skip


@pytest.mark.parametrize("replay", [["--kv-cache"], ["--tiles", "2,2"], ["--heads-sum"]])
@pytest.mark.parametrize("option", [["--softcap", "2"], ["--sinks", "1"], ["--qk-norm"]])
def test_a_replay_that_would_not_do_them_is_one_line(run, replay, option):
    result = run("selfattn", SENTENCE, "--causal", "--heads", "2", *option, *replay)
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError,
         "{option} replays the plain layer; {setting} changes its scores, which the replay does "
         "not do yet: leave out one of them", option=replay[0])  # fmt: skip


def test_the_options_beside_a_model_are_refused(run):
    result = run("selfattn", SENTENCE, "--model", str(MODELS / "tiny-gemma2"), "--softcap", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.error.msgid.startswith("{name} shapes the seeded layer")


def test_gemma_s_score_table_says_it_divides_by_the_root_of_query_pre_attn_scalar():
    from attncli.api.model import model_selfattn
    from attncli.explain.calculator import ScoreSteps

    result = model_selfattn("the keys", str(MODELS / "tiny-gemma2"), head=1)
    scored = next(step for step in result.steps() if isinstance(step, ScoreSteps))
    assert (scored.root_of, scored.root_name) == (24, "query_pre_attn_scalar")
    assert scored.divisor == pytest.approx(24**0.5, rel=1e-15)
    from rich.console import Console

    from attncli.present.format import Format
    from attncli.present.render import score_steps_table

    console = Console(width=120, record=True)
    console.print(score_steps_table(scored, Format()))
    text = console.export_text()
    assert "÷ √24 = 4.90" in text and "√d_k" not in text


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_score_grid_of_a_softcapped_layer_says_it_is_capped(run, lang):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, "--softcap", "2", "--format", "table", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    title = say(lang, "scores_who_capped", cap="2", divisor="√8")
    assert " ".join(title.split()) in " ".join(result.stdout.split())


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_cap_of_infinity_shows_no_softcap_step_and_says_it_caps_nothing(run, lang):
    from attncli.present.language import say

    result = run("selfattn", SENTENCE, "--softcap", "inf", "--steps", "--token", "va",
                 "--format", "table", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    shown = " ".join(result.stdout.split())
    header = run("selfattn", SENTENCE, "--softcap", "inf", "--format", "table", "--lang", lang)
    said = " ".join(say(lang, "layer_softcap_none", cap="∞").split())
    assert said in " ".join(header.stdout.split())
    step = " ".join(say(lang, "softcap_heading", row="va", cap="∞").split())
    assert "NaN" not in shown and step not in shown
    finite = run("selfattn", SENTENCE, "--softcap", "2", "--steps", "--token", "va",
                 "--format", "table", "--lang", lang)  # fmt: skip
    assert " ".join(say(lang, "softcap_heading", row="va", cap="2").split()) in " ".join(
        finite.stdout.split()
    )
