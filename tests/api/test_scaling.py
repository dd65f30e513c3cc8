"""attn scaling / attncli.scaling: the experiment behind the divisor √d_k."""

from __future__ import annotations

import json

import pytest

import attncli as attn
from attncli.errors import OptionError
from tests.meaning import told


def test_the_spread_of_the_raw_scores_is_the_root_of_d_k():
    result = attn.scaling(d_k=[8, 64, 512], rows=2000)
    for line in result.lines:  # 12,000 scores each: the spread within a few percent
        assert line.spread == pytest.approx(line.root, rel=0.05)


def test_unscaled_rows_saturate_and_pass_nothing_back_scaled_ones_do_not():
    lines = attn.scaling().lines
    unscaled = [line.largest[0] for line in lines]
    assert unscaled == sorted(unscaled) and unscaled[-1] > 0.95
    assert lines[-1].saturated[0] > 0.8 and all(line.saturated[1] < 0.01 for line in lines)
    gradients = [line.gradient[0] for line in lines]
    assert gradients == sorted(gradients, reverse=True) and gradients[-1] < 0.05
    scaled = [line.largest[1] for line in lines]
    # ÷√d_k the mean grows, but slowly: a few hundredths from d_k = 8 to 512
    assert 0 < scaled[-1] - scaled[0] < 0.05 and max(scaled) - min(scaled) < 0.05
    assert all(0.2 < line.gradient[1] < 0.25 for line in lines)


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others():
    first, again = attn.scaling(d_k=[16], rows=50), attn.scaling(d_k=[16], rows=50)
    assert first.to_document() == again.to_document()
    other = attn.scaling(d_k=[16], rows=50, seed=1)
    assert other.lines[0].largest != first.lines[0].largest


@pytest.mark.parametrize(
    ("keywords", "python", "cli", "least"),
    [({"keys": 1}, "keys=1", "--keys 1", 2), ({"rows": 0}, "rows=0", "--rows 0", 1)],
)
def test_too_few_keys_or_rows_are_refused_by_name(keywords, python, cli, least):
    with pytest.raises(OptionError) as raised:
        attn.scaling(**keywords)
    told(raised.value, OptionError, "{setting}: it must be {least} or more", "python",
         setting=python, least=least)  # fmt: skip
    told(raised.value, OptionError, "{setting}: it must be {least} or more", setting=cli)


def test_too_few_keys_are_refused_on_the_command_line_too(run):
    result = run("scaling", "--keys", "1")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{setting}: it must be {least} or more",
         setting="--keys 1", least=2)  # fmt: skip


def test_the_command_writes_the_document_and_the_screen_in_both_languages(run, run_json):
    document = run_json("scaling", "--d-k", "8,512", "--rows", "500")
    assert [entry["d_k"] for entry in document["d_k"]] == [8, 512]
    assert document["saturated_at"] == 0.95 and document["keys"] == 6
    python = attn.scaling(d_k=[8, 512], rows=500).to_document()
    assert json.loads(json.dumps(python)) == document
    english = run("scaling", "--format", "table").stdout
    assert "the row saturates" in english and "vanishes" in english
    spanish = run("scaling", "--format", "table", "--lang", "es").stdout
    assert "la fila se satura" in spanish and "0,963" in spanish


@pytest.mark.parametrize(
    "line",
    [("--d-k", "0"), ("--d-k", "8,,64"), ("--keys", "1"), ("--rows", "0"),
     ("--rows", "100000000", "--d-k", "100000")],
)  # fmt: skip
def test_bad_sizes_are_one_line_on_stderr(run, line):
    result = run("scaling", *line)
    assert result.exit_code != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_the_words_follow_the_scaled_mean_which_grows_slowly(run):
    """The lesson: divided by √d_k the largest weight grows too, slowly (not «flat»). The
    screen says so with the run's own first and last means."""
    lines = attn.scaling().lines
    first, last = (f"{lines[i].largest[1]:.3f}" for i in (0, -1))
    english = " ".join(run("scaling", "--format", "table").stdout.split())
    assert f"grows slowly, from {first} at d_k = 8 to {last} at d_k = 512" in english
    spanish = " ".join(run("scaling", "--format", "table", "--lang", "es").stdout.split())
    comma = first.replace(".", ","), last.replace(".", ",")
    assert f"crece despacio, de {comma[0]} con d_k = 8 a {comma[1]} con d_k = 512" in spanish
    for screen in (english, spanish):
        assert "flat" not in screen and "plana" not in screen
    compared = run("compare-scores", "--tx", "4", "--ty", "4", "--d-h", "8", "--d-a", "8",
                   "--repeat", "1", "--format", "table", "--lang", "es").stdout  # fmt: skip
    assert "crece despacio" in compared and "plana" not in compared


def test_compare_scores_shows_the_same_seeded_row_as_attn_scaling(run_json):
    d_ks = [8, 64, 512]
    shown = attn.scaling(d_k=d_ks, rows=10).lines
    compared = run_json("compare-scores", "--tx", "4", "--ty", "4", "--d-h", "8", "--d-a", "8",
                        "--repeat", "1", "--d-k", "8,64,512")  # fmt: skip
    for line, draw in zip(shown, compared["scaling_one_draw"], strict=True):
        assert draw["d_k"] == line.d_k
        assert (draw["largest_weight"], draw["largest_weight_scaled"]) == line.largest_one
