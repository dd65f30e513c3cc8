"""attn compare-scores: the course's counts, the loop check, the sweep, and refusals."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from rich.console import Console

from attncli.api.comparison import check_sizes, compare
from attncli.core.costs import score_costs
from attncli.core.timing import Timing
from attncli.errors import OptionError
from attncli.present.comparison_view import closing_line
from attncli.present.format import Format
from attncli.results.comparison import Sizes
from tests.meaning import told

SMALL = ["--tx", "5", "--ty", "4", "--d-h", "8", "--d-a", "3", "--repeat", "2", "--dk", "4,16"]


def by_method(document):
    return {entry["method"]: entry for entry in document["methods"]}


def test_course_figures_with_the_defaults(run_json):
    methods = by_method(run_json("compare-scores", "--repeat", "2", "--json"))
    additive, general = methods["additive"], methods["general"]
    assert round(additive["mult_adds"] / 1e6, 1) == 8.8
    assert round(general["mult_adds"] / 1e6, 1) == 4.9
    assert additive["tanh"] == 921_600 and general["tanh"] == 0
    assert additive["intermediate_numbers"] == 921_600
    assert round(additive["intermediate_bytes"] / 1e6, 1) == 7.4
    assert general["intermediate_numbers"] == 3_600
    assert additive["elementwise"] == 921_600
    for entry in methods.values():
        assert {
            "method",
            "params",
            "mult_adds",
            "tanh",
            "intermediate_numbers",
            "intermediate_bytes",
            "seconds",
        } <= set(entry)
        assert entry["seconds"] > 0 and entry["seconds_fastest"] <= entry["seconds"]
        assert entry["seconds"] <= entry["seconds_slowest"]


def test_parameter_counts_of_the_course():
    costs = {cost.method: cost for cost in score_costs(t_x=60, t_y=60, d_h=64, d_a=32)}
    assert costs["general"].params == 4_096
    assert costs["additive"].params == 4_128
    assert costs["dot"].params == costs["scaled"].params == 0


def test_smaller_d_a_does_less_arithmetic_than_general():
    costs = {cost.method: cost for cost in score_costs(t_x=60, t_y=60, d_h=256, d_a=64)}
    assert round(costs["additive"].mult_adds / 1e6, 1) == 2.2
    assert round(costs["general"].mult_adds / 1e6, 1) == 4.9


def test_counts_follow_the_shapes():
    # Independent arithmetic: projections, then one d-length dot product per pair.
    t_x, t_y, d_h, d_a = 7, 3, 5, 2
    costs = {cost.method: cost for cost in score_costs(t_x, t_y, d_h, d_a)}
    assert costs["additive"].mult_adds == (t_y + t_x) * d_a * d_h + t_y * t_x * d_a
    assert costs["general"].mult_adds == t_y * d_h * d_h + t_y * t_x * d_h
    assert costs["dot"].mult_adds == t_y * t_x * d_h
    assert costs["scaled"].elementwise == t_y * t_x


def test_loop_and_matrix_forms_agree(run_json):
    methods = by_method(run_json("compare-scores", *SMALL, "--json"))
    for name in ("general", "additive"):
        check = methods[name]["loop_check"]
        assert check["agrees"] and check["pairs"] == 20 and check["max_difference"] < 1e-12


def test_scaling_sweep_saturates_unscaled_only(run_json):
    sweep = run_json("compare-scores", *SMALL[:-2], "--dk", "8,64,512", "--json")["scaling"]
    unscaled = [entry["largest_weight"] for entry in sweep]
    scaled = [entry["largest_weight_scaled"] for entry in sweep]
    assert unscaled == sorted(unscaled) and unscaled[-1] > 0.9
    assert max(scaled) - min(scaled) < 0.1 and max(scaled) < 0.5


def test_table_shows_everything_side_by_side(run):
    result = run("compare-scores", *SMALL, "--format", "table")
    assert result.exit_code == 0, result.output
    for text in (
        "additive",
        "general",
        "dot",
        "scaled",
        "Multiply-adds",
        "tanh evaluations",
        "Time, median (ms)",
        "fastest",
        "slowest",
        "1 BLAS thread; median of 2 interleaved runs",
        "× the fastest",
        "every pair: the same grid",
        "Why ÷√d_k",
    ):
        assert text in result.stdout


def test_progress_is_reported_while_measuring():
    steps: list[str] = []
    compare(Sizes(3, 2, 4, 2, 0, 1, [4]), lambda stage, done, total: steps.append(stage))
    assert steps[0] == "progress_timing:additive, general, dot, scaled"
    assert "progress_sweep:" in steps
    from attncli.present.language import say

    for step in steps:
        key, method = step.split(":")
        assert say("es", key, method=method)


def _comparison(additive_seconds, general_seconds, d_a):
    comparison = compare(Sizes(4, 4, 8, d_a, 0, 1, [4]))
    comparison.timings["additive"] = Timing(additive_seconds, additive_seconds, additive_seconds, 1)
    comparison.timings["general"] = Timing(general_seconds, general_seconds, general_seconds, 1)
    return comparison


def test_closing_line_says_what_the_measurement_shows():
    fewer_but_slower = closing_line(_comparison(0.3, 0.1, d_a=1), Format())
    assert fewer_but_slower is not None and "fewer multiply-adds" in fewer_but_slower
    assert "3.0× slower" in fewer_but_slower
    spanish = closing_line(_comparison(0.3, 0.1, d_a=1), Format(lang="es"))
    assert spanish is not None and "tarda 3,0 veces más" in spanish
    assert closing_line(_comparison(0.05, 0.1, d_a=1), Format()) is None


ONE_OR_MORE = "{setting}: it must be {least} or more"
D_K = (
    "--d-k {text!r}: item {item} is {part!r}; give whole numbers from 1 to {most} separated "
    "by commas, e.g. 8,64,512"
)
MEMORY = (
    "{what} would need about {need}, more than half of the {memory} available; lower {lower}{hint}"
)


@pytest.mark.parametrize(
    ("args", "msgid", "fields"),
    [
        (["--tx", "0"], ONE_OR_MORE, {"setting": "--tx 0", "least": 1}),
        (["--ty", "-1"], ONE_OR_MORE, {"setting": "--ty -1", "least": 1}),
        (["--d-a", "0"], ONE_OR_MORE, {"setting": "--d-a 0", "least": 1}),
        (["--repeat", "0"], ONE_OR_MORE, {"setting": "--repeat 0", "least": 1}),
        (["--dk", "8,x"], D_K, {"text": "8,x", "item": 2, "part": "x"}),
        (["--dk", "0"], D_K, {"text": "0", "item": 1, "part": "0"}),
        (["--dk", "8," + "1" * 20], D_K, {"text": "8," + "1" * 20, "item": 2, "part": "1" * 20,
                                          "most": 2**63 - 1}),
        (["--tx", "100000", "--ty", "100000"], MEMORY,
         {"lower": ("{choices} or {last}", {"choices": "--tx", "last": "--ty"}), "hint": ""}),
    ],
)  # fmt: skip
def test_refusals(run, args, msgid, fields):
    result = run("compare-scores", *args)
    assert result.exit_code != 0 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0
    told(result.error, OptionError, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_memory_estimate_is_checked_before_allocating():
    # 2,000 × 2,000 pairs × d_a 256 is the additive block: any of the three alone fixes it.
    tx_ty = ("{first}, {second}", {"first": "--tx", "second": "--ty"})
    any_of_three = ("{choices} or {last}", {"choices": tx_ty, "last": "--d-a"})
    for sizes, lower in ((Sizes(2_000, 2_000, 256, 256, 0, 1), any_of_three),
                         (Sizes(60, 60, 10**8, 256, 0, 1), "--d-h"),
                         (Sizes(60, 60, 256, 256, 0, 1, [8, 10**20]), "--d-k")):  # fmt: skip
        with pytest.raises(OptionError) as caught:
            check_sizes(sizes, memory=10**10)
        told(caught.value, OptionError, MEMORY, lower=lower, memory="10.0 GB", hint="")
    check_sizes(Sizes(60, 60, 256, 256, 0, 1), memory=10**9)


def test_methods_are_timed_interleaved():
    from attncli.core.timing import time_interleaved

    calls = []
    timings = time_interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                               repeat=3, warmup=1)  # fmt: skip
    assert calls == ["a", "b", "a", "b", "a", "b", "a", "b"]
    assert timings["a"].runs == 3 and timings["a"].fastest <= timings["a"].slowest


def test_a_wide_spread_warns_that_the_machine_was_busy():
    from attncli.present.comparison_view import comparison_view

    quiet = _comparison(0.3, 0.1, d_a=1)
    busy = _comparison(0.3, 0.1, d_a=1)
    busy.timings["dot"] = Timing(0.01, 0.001, 0.02, 1)
    assert not quiet.busy and busy.busy and busy.to_document()["busy"] is True

    def text(comparison, lang):
        console = Console(width=80, color_system=None, record=True, file=io.StringIO())
        for part in comparison_view(comparison, Format(lang=lang)):
            console.print(part)
        return " ".join(console.export_text().split())

    assert "the machine was busy" in text(busy, "en") and "busy" not in text(quiet, "en")
    assert "la máquina estaba ocupada" in text(busy, "es")


def test_threads_are_chosen_and_reported(run):
    result = run("compare-scores", *SMALL, "--threads", "2", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["threads"] == 2
    refused = run("compare-scores", *SMALL, "--threads", "0")
    assert refused.exit_code == 2
    told(refused.error, OptionError, ONE_OR_MORE, setting="--threads 0", least=1)


def test_additive_scores_are_computed_in_place_with_the_same_numbers():
    rng = np.random.default_rng(0)
    queries, keys = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    w_1, w_2, v_a = rng.standard_normal((6, 4)), rng.standard_normal((6, 4)), rng.standard_normal(6)
    expected = np.tanh((queries @ w_1.T)[:, None, :] + (keys @ w_2.T)[None, :, :]) @ v_a
    from attncli.core.attention import additive_scores

    np.testing.assert_allclose(additive_scores(queries, keys, w_1, w_2, v_a), expected, rtol=1e-14)


def test_one_run_is_said_as_one(run):
    for lang, said, wrong in (("en", "one run after a warm-up", "median of 1"),
                              ("es", "una ejecución tras un", "mediana de 1")):  # fmt: skip
        screen = run("compare-scores", "--repeat", "1", "--tx", "4", "--ty", "4", "--d-h", "4",
                     "--d-a", "4", "--format", "table", "--lang", lang).stdout  # fmt: skip
        flat = " ".join(screen.split())
        assert said in flat and wrong not in flat
