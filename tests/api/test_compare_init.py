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
    assert "Largest weight of a row at init" in screen and "uniform 0.167" in screen
    spanish = run(*args, "--repeat", "1", "--d-k", "8", "--format", "table", "--lang", "es")
    assert "Mayor peso de una fila al iniciar" in spanish.stdout and "0,167" in spanish.stdout


def test_the_sweep_shows_one_seeded_row_beside_the_average(run):
    from attncli.core.seeding import generator

    document = _document(run, "--d-k", "8,512")
    draws = {entry["d_k"]: entry for entry in document["scaling_one_draw"]}
    assert sorted(draws) == [8, 512] and len(document["scaling"]) == 2
    for d_k, entry in draws.items():
        rng = generator(0, "draw", str(d_k))
        query = rng.standard_normal((1, 1, d_k))[0, 0]
        keys = rng.standard_normal((1, 6, d_k))[0]
        for divisor, field in ((1.0, "largest_weight"), (math.sqrt(d_k), "largest_weight_scaled")):
            scores = [sum(q * k for q, k in zip(query, key, strict=True)) / divisor
                      for key in keys]  # fmt: skip
            exponentials = [math.exp(s - max(scores)) for s in scores]
            assert math.isclose(entry[field], max(exponentials) / sum(exponentials), rel_tol=1e-9)
    args = ("compare-scores", "--tx", "6", "--ty", "6", "--d-h", "8", "--d-a", "8")
    screen = run(*args, "--repeat", "1", "--format", "table").stdout
    assert "one row, unscaled" in screen and "what ÷√d_k guarantees" in screen
