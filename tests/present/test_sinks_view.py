"""The sink rates on screen and on paper: the ranking's Sink column, the model view's grid of
rates, and each head's rate under it in the SVG, each the result's own number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from tests import tiny_models

MODELS = Path(__file__).resolve().parent.parent / "models"
SENTENCE = tiny_models.SENTENCES[0]
SINK = re.compile(r'<text class="sink" [^>]*data-layer="(\d+)" data-head="(\d+)" '
                  r'data-sink-rate="([^"]+)">s([0-9.]+)</text>')  # fmt: skip


def test_the_ranking_shows_each_head_s_rate_beside_its_weight(run):
    model = str(MODELS / "tiny-llama")
    document = json.loads(run("heads", SENTENCE, "--model", model, "--pattern", "previous",
                              "--json").stdout)  # fmt: skip
    shown = run("heads", SENTENCE, "--model", model, "--pattern", "previous", "--format", "table")
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    header = next(line for line in lines if "Rank" in line)
    assert header.split()[:5] == ["Rank", "Layer", "Head", "Weight", "Sink"]
    for rank, head in enumerate(document["heads"], start=1):
        row = next(line.split() for line in lines if line.split()[:1] == [str(rank)])
        assert row[1:5] == [str(head["layer"]), str(head["head"]), f"{head['weight']:.3f}",
                            f"{head['sink_rate']:.3f}"]  # fmt: skip
    said = " ".join(shown.stdout.split())
    assert f"{document['sink_heads']} of 8 heads pass 0.3" in said


def test_the_model_view_draws_every_rate_in_a_grid_of_layers_by_heads(run):
    model = str(MODELS / "tiny-gemma2")
    document = json.loads(run("heads", SENTENCE, "--model", model, "--grid", "--json").stdout)
    shown = run("heads", SENTENCE, "--model", model, "--grid", "--format", "table")
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Sink rate of each head"))
    assert lines[start + 2].split() == ["h1", "h2", "h3", "h4"]
    for layer, rates in enumerate(document["sink_rates"], start=1):
        row = lines[start + 3 + layer].split()
        assert row == [f"L{layer}", *(f"{rate:.2f}" for rate in rates)]


def test_spanish_says_the_rates_with_its_decimal_comma(run):
    model = str(MODELS / "tiny-gpt-oss")
    shown = run("--lang", "es", "heads", SENTENCE, "--model", model, "--grid", "--format",
                "table")  # fmt: skip
    assert shown.exit_code == 0, shown.stderr
    document = json.loads(run("heads", SENTENCE, "--model", model, "--grid", "--json").stdout)
    first = f"{document['sink_rates'][0][0]:.2f}".replace(".", ",")
    assert "Tasa de sumidero de cada cabeza" in shown.stdout
    assert any(line.split()[:2] == ["C1", first] for line in shown.stdout.splitlines())
    assert "sumideros aprendidos" in shown.stdout


def test_the_svg_writes_each_head_s_rate_under_it(run, tmp_path):
    model = str(MODELS / "tiny-gpt-oss")
    path = tmp_path / "view.svg"
    out = run("heads", SENTENCE, "--model", model, "--grid", "--export", str(path), "--json")
    assert out.exit_code == 0, out.stderr
    rates = np.array(json.loads(out.stdout)["sink_rates"])
    found = SINK.findall(path.read_text(encoding="utf-8"))
    assert len(found) == rates.size
    for layer, head, exact, label in found:
        rate = rates[int(layer) - 1, int(head) - 1]
        assert float(exact) == rate  # written at 17 digits: the same float
        assert label == f"{rate:.2f}"


def test_the_tex_writes_each_head_s_rate_under_it_and_the_legend(run, tmp_path):
    model = str(MODELS / "tiny-gpt-oss")
    path = tmp_path / "view.tex"
    out = run("heads", SENTENCE, "--model", model, "--grid", "--export", str(path), "--json")
    assert out.exit_code == 0, out.stderr
    document = json.loads(out.stdout)
    rates = np.array(document["sink_rates"])
    text = path.read_text(encoding="utf-8")
    labels = re.findall(r"\\put\(([\d.]+),([-\d.]+)\)\{\\tiny s([0-9.]+)\}", text)
    assert [float(label) for _x, _y, label in labels] == [
        float(f"{rate:.2f}")
        for rate in rates.reshape(-1)  # layer by layer, head by head
    ]
    assert f"{document['sink_heads']} of 8 heads pass 0.3" in text
