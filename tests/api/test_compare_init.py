"""compare-scores reports lesson 001's weights at initialisation (each row's largest weight
against the uniform one) and the lesson's ratio, additive against general."""

from __future__ import annotations

import json
import math

import numpy as np

from attncli.core import costs


def _document(run, *extra):
    args = ("compare-scores", "--tx", "6", "--ty", "6", "--d-h", "64", "--d-a", "64")
    result = run(*args, "--repeat", "2", "--d-k", "8", *extra, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _peaks_by_hand(method):
    problem = costs.make_problem(6, 6, 64, 64, 0)
    grid = costs.grid(problem, method)
    peaks = []
    for row in grid:
        exponentials = [math.exp(value - max(row)) for value in row]
        peaks.append(max(exponentials) / sum(exponentials))
    return sum(peaks) / len(peaks), min(peaks), max(peaks)


def test_largest_weight_at_init_per_method(run):
    document = _document(run)
    for entry in document["methods"]:
        init = entry["largest_weight_at_init"]
        mean, least, most = _peaks_by_hand(entry["method"])
        np.testing.assert_allclose([init["mean"], init["min"], init["max"]], [mean, least, most])
        assert init["uniform"] == 1 / 6 and init["uniform"] <= least <= mean <= most <= 1
    by_method = {entry["method"]: entry["largest_weight_at_init"] for entry in document["methods"]}
    # tanh bounds the additive score: its rows start nearer uniform than general's.
    assert by_method["additive"]["mean"] < by_method["general"]["mean"]


def test_the_additive_parameters_start_as_nn_linear_starts_them():
    """W_1, W_2 and v_a are drawn as torch's nn.Linear draws a weight: kaiming_uniform_ with
    a = √5, whose bound is gain · √(3 / fan_in) with gain = √(2 / (1 + a²)), i.e. 1/√fan_in."""
    problem = costs.make_problem(6, 6, 64, 32, 0)
    gain = math.sqrt(2 / (1 + 5))
    for weight, fan_in in ((problem.w_1, 64), (problem.w_2, 64), (problem.v_a, 32)):
        bound = gain * math.sqrt(3 / fan_in)
        assert math.isclose(bound, 1 / math.sqrt(fan_in))
        assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    for weight in (problem.w_1, problem.w_2):  # uniform on ±1/√64: variance 1 / (3 · 64)
        assert abs(weight.var() * 3 * 64 - 1) < 0.1


def test_additive_rows_start_near_the_uniform_weight(run):
    """The lesson: additive rows start near the uniform weight; a multiplicative row already
    takes most of it. At 6 keys (uniform 0.167), every size of the lesson's."""
    for size in ("8", "64", "256"):
        args = ("compare-scores", "--tx", "6", "--ty", "6", "--d-h", size, "--d-a", size)
        result = run(*args, "--repeat", "1", "--d-k", "8", "--json")
        peaks = {
            entry["method"]: entry["largest_weight_at_init"]["mean"]
            for entry in json.loads(result.stdout)["methods"]
        }
        assert peaks["additive"] < 2 * (1 / 6) < peaks["general"], (size, peaks)


def test_the_headline_ratio_is_additive_against_general(run):
    document = _document(run)
    seconds = {entry["method"]: entry["seconds"] for entry in document["methods"]}
    assert document["additive_to_general"] == seconds["additive"] / seconds["general"]
    for entry in document["methods"]:
        assert entry["ratio_to_general"] == entry["seconds"] / seconds["general"]
        assert "ratio_to_fastest" in entry


def test_the_table_shows_both(run):
    args = ("compare-scores", "--tx", "6", "--ty", "6", "--d-h", "8", "--d-a", "8")
    screen = run(*args, "--repeat", "1", "--d-k", "8", "--format", "table").stdout
    assert "× general" in screen and "× the fastest" in screen
    assert "A row at init" in screen and "largest weight, mean" in screen
    assert "uniform 0.167" in screen
    spanish = run(*args, "--repeat", "1", "--d-k", "8", "--format", "table", "--lang", "es")
    assert "Una fila al iniciar" in spanish.stdout and "mayor peso, media" in spanish.stdout
    assert "uniforme 0,167" in spanish.stdout


def test_the_sweep_shows_one_seeded_row_beside_the_average(run):
    from attncli.core.seeding import generator

    document = _document(run, "--d-k", "8,512")
    draws = {entry["d_k"]: entry for entry in document["scaling_one_draw"]}
    assert sorted(draws) == [8, 512] and len(document["scaling"]) == 2
    for d_k, entry in draws.items():
        rng = generator(0, "one row", str(d_k))  # attn scaling's one row
        query = rng.standard_normal((1, 1, d_k))[0, 0]
        keys = rng.standard_normal((1, 6, d_k))[0]
        for divisor, field in ((1.0, "largest_weight"), (math.sqrt(d_k), "largest_weight_scaled")):
            scores = [sum(q * k for q, k in zip(query, key, strict=True)) / divisor
                      for key in keys]  # fmt: skip
            exponentials = [math.exp(s - max(scores)) for s in scores]
            assert math.isclose(entry[field], max(exponentials) / sum(exponentials), rel_tol=1e-9)
    args = ("compare-scores", "--tx", "6", "--ty", "6", "--d-h", "8", "--d-a", "8")
    screen = run(*args, "--repeat", "1", "--format", "table").stdout
    assert "one row, unscaled" in screen and "the same as attn scaling's" in screen


def _spread_by_hand(method, t_x=6, d_h=64, d_a=64):
    grid = costs.grid(costs.make_problem(t_x, 6, d_h, d_a, 0), method)
    spreads = []
    for row in grid:
        mean = sum(row) / len(row)
        spreads.append(math.sqrt(sum((value - mean) ** 2 for value in row) / len(row)))
    return sum(spreads) / len(spreads)


def test_the_spread_of_a_rows_scores_at_init_per_method(run):
    document = _document(run)
    for entry in document["methods"]:
        assert math.isclose(
            entry["score_spread_at_init"], _spread_by_hand(entry["method"]), rel_tol=1e-12
        )


def test_tanh_keeps_the_additive_spread_while_the_multiplicative_grows_with_d_h():
    additive = [_spread_by_hand("additive", d_h=d, d_a=d) for d in (8, 64, 256)]
    general = [_spread_by_hand("general", d_h=d, d_a=d) for d in (8, 64, 256)]
    assert max(additive) < 1 < general[0] < general[1] < general[2]
    # v_a's variance 1/d_a: a wider hidden layer does not widen the additive scores.
    wide = [_spread_by_hand("additive", d_h=256, d_a=d_a) for d_a in (8, 1024)]
    assert max(wide) < 1


def test_the_projected_states_and_the_factor_d_a(run):
    document = _document(run)
    by_method = {entry["method"]: entry for entry in document["methods"]}
    additive, general = by_method["additive"], by_method["general"]
    assert (additive["projected_states"], additive["projected_numbers"]) == (12, 12 * 64)
    assert (general["projected_states"], general["projected_numbers"]) == (6, 6 * 64)
    assert by_method["dot"]["projected_states"] == by_method["scaled"]["projected_states"] == 0
    assert additive["intermediate_numbers"] == 64 * general["intermediate_numbers"] == 64 * 36


def test_the_screen_says_why_the_rows_start_where_they_do(run):
    from attncli.present.format import Format
    from attncli.present.language import say

    args = ("compare-scores", "--tx", "60", "--ty", "60", "--repeat", "1", "--d-k", "8")
    for lang in ("en", "es"):
        result = run(*args, "--format", "table", "--lang", lang)
        document = run(*args, "--json").stdout
        entries = {m["method"]: m for m in json.loads(document)["methods"]}
        fmt = Format(lang=lang)

        def number(value, fmt=fmt):
            return fmt.number(value, 3, whole_bare=False)

        expected = say(
            lang,
            "init_bounded",
            additive_spread=number(entries["additive"]["score_spread_at_init"]),
            general_spread=number(entries["general"]["score_spread_at_init"]),
            additive_peak=number(entries["additive"]["largest_weight_at_init"]["mean"]),
            general_peak=number(entries["general"]["largest_weight_at_init"]["mean"]),
            uniform=number(1 / 60),
        )
        flat = " ".join(result.stdout.split())
        assert " ".join(expected.split()) in flat
        held = say(
            lang,
            "held_factor",
            d_a=fmt.count(256),
            numbers=fmt.count(921_600),
            scores=fmt.count(3_600),
            states=fmt.count(60),
            projected=fmt.count(60 * 256),
        )
        assert " ".join(held.split()) in flat
