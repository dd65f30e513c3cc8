"""Progress on long work: a big batch of self-attention and attn compare-scores draw a bar on
stderr when it is a terminal, nothing when it is not, never on stdout; the numbers are the
same as in one go."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import attncli as attn
from attncli.api.comparison import compare
from attncli.core import selfattn as core
from attncli.results.comparison import Sizes
from tests.terminal import drawn_on_a_terminal

# 65 sequences of 512 tokens: 17 million score cells, over core.BATCH_CELLS
BIG = (65, 512, 2)


@pytest.fixture
def small_groups(monkeypatch):
    """A batch of a few hundred score cells already counts as big, a few sequences a group."""
    monkeypatch.setattr(core, "BATCH_CELLS", 10)
    monkeypatch.setattr(core, "GROUP_CELLS", 400)


RNG = np.random.default_rng(31)
X = RNG.normal(size=(7, 13, 8))
CASES = {
    "one head": {"x": X},
    "two heads": {"x": X, "heads": 2},
    "causal, padding": {
        "x": X,
        "heads": 2,
        "causal": True,
        "key_padding_mask": RNG.random((7, 13)) < 0.2,
    },
    "attn_mask per head": {"x": X, "heads": 2, "attn_mask": RNG.normal(size=(7, 2, 13, 13))},
    "no projections": {"x": X, "projections": False},
    "given Q, K, V": {"queries": X, "keys": X, "values": X[..., :6], "heads": 2},
    "cross, bias_kv": {
        "x_q": X,
        "x_kv": X[:, :9],
        "heads": 2,
        "bias_k": RNG.normal(size=8),
        "bias_v": RNG.normal(size=8),
        "add_zero_attn": True,
    },
    "backward": {"x": X, "heads": 2, "target": RNG.normal(size=(7, 13, 8))},
}
PARTS = ("queries", "keys", "values", "scores", "weights", "output")


@pytest.mark.parametrize("given", CASES.values(), ids=CASES.keys())
def test_a_big_batch_in_groups_gives_the_same_numbers_bit_for_bit(given, monkeypatch):
    whole = attn.selfattn(**given)
    monkeypatch.setattr(core, "BATCH_CELLS", 10)
    monkeypatch.setattr(core, "GROUP_CELLS", 400)
    grouped = attn.selfattn(**given)
    for name in PARTS:
        assert np.array_equal(getattr(whole, name), getattr(grouped, name)), name
    assert whole.grads.keys() == grouped.grads.keys()
    for name, gradient in whole.grads.items():
        assert np.array_equal(gradient, grouped.grads[name]), name


def _output_only(document: dict, heard: list | None = None) -> np.ndarray:
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    settings = SelfAttnSettings(grids=False, heads=2)
    told = None if heard is None else (lambda *done: heard.append(done))
    return selfattn_inputs(
        LayerInputs.from_document(document), None, settings, progress=told
    ).output


def test_a_big_batch_in_row_blocks_tells_its_progress_with_the_same_numbers(small_groups):
    whole = attn.selfattn(x=X, heads=2).output
    heard: list[tuple[int, int]] = []
    output = _output_only({"x": X}, heard)
    assert np.array_equal(output, whole)
    assert heard[-1] == (7 * 13, 7 * 13) and len(heard) > 2
    assert all(a[0] <= b[0] for a, b in zip(heard, heard[1:], strict=False))
    assert {total for _, total in heard} == {7 * 13}


def test_a_small_batch_is_computed_in_one_go(monkeypatch):
    calls: list[int] = []
    attend = core.attend_or_block

    def counted(queries, *rest):
        calls.append(len(queries))
        return attend(queries, *rest)

    monkeypatch.setattr(core, "attend_or_block", counted)
    attn.selfattn(x=X, heads=2)
    assert calls == [7]  # the whole batch at once
    monkeypatch.setattr(core, "BATCH_CELLS", 10)
    monkeypatch.setattr(core, "GROUP_CELLS", 2 * 13 * 13 * 2)  # two sequences of two heads
    calls.clear()
    attn.selfattn(x=X, heads=2)
    assert calls == [2, 2, 2, 1]


@pytest.mark.slow  # two processes of their own, one on a terminal
def test_a_big_batch_draws_a_bar_on_a_terminal_and_nothing_on_a_pipe(tmp_path):
    path = tmp_path / "batch.npy"
    np.save(path, np.random.default_rng(32).normal(size=BIG))
    line = ["selfattn", "-i", str(path), "--no-proj", "--fields", "output", "--json"]
    text, stdout = drawn_on_a_terminal(line)
    assert "queries attended" in text and f"{65 * 512}/{65 * 512}" in text, text[:300]
    piped = subprocess.run([sys.executable, "-m", "attncli", *line], capture_output=True)
    assert piped.returncode == 0 and piped.stderr == b""
    assert stdout == piped.stdout  # the bar never reaches stdout
    whole = attn.selfattn(x=np.load(path), projections=False)
    assert np.array_equal(json.loads(stdout)["output"], whole.output)


def test_compare_scores_counts_its_work():
    heard: list[tuple[str, int, int]] = []
    compare(Sizes(3, 2, 4, 2, 0, 3, [4]), lambda *told: heard.append(told))
    total = 4 * (1 + 3) + 3  # four warm-ups, four methods timed three times, loops, sweep
    assert heard[0] == ("progress_timing:additive, general, dot, scaled", 0, total)
    assert heard[-1] == ("progress_sweep:", total, total)
    assert [done for _, done, _ in heard] == sorted(done for _, done, _ in heard)
    assert ("progress_loop:general", 4 * 4, total) in heard
    assert ("progress_loop:additive", 4 * 4 + 1, total) in heard
    from attncli.present.language import say

    for stage, _, _ in heard:
        key, method = stage.split(":")
        assert say("es", key, method=method) and say("en", key, method=method)


def test_compare_scores_draws_a_bar_on_a_terminal_and_nothing_on_a_pipe(run):
    line = ["compare-scores", "--tx", "8", "--ty", "8", "--d-h", "8", "--d-a", "8",
            "--repeat", "2", "--d-k", "4", "--json"]  # fmt: skip
    text, stdout = drawn_on_a_terminal(line)
    total = 4 * (1 + 2) + 3
    assert f"{total}/{total}" in text and "scaling sweep" in text, text[:300]
    assert json.loads(stdout)["repeat"] == 2  # only the JSON on stdout
    piped = run(*line)
    assert piped.exit_code == 0 and piped.stderr == ""
    from attncli.present.output import progress_on_stderr

    with progress_on_stderr("en") as show:
        assert show is None  # the tests' stderr is no terminal
