"""attn heads with controls: for each ranked head, the strongest other key in the row, the
head's mean weight on the target's column, and what it mostly does anyway, each equal to
what that head's own grid says; a sentence the model's vocabulary mostly lacks is warned
about in one line on stderr, and the run goes on."""

from __future__ import annotations

import numpy as np
import pytest

import attncli as attn
from tests import tiny_models

SENTENCE = "the keys to the cabinet are on the table"


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "bert"
    tiny_models.WRITERS["bert"](folder)
    return str(folder)


def test_every_heads_controls_are_its_own_grids(bert):
    ranked = attn.heads(SENTENCE, bert, source="are", target="keys", shown_count=None)
    start, end = ranked.source, ranked.target
    for entry in ranked.ranking:
        grid = attn.selfattn(SENTENCE, model=bert, layer=entry.layer, head=entry.head).weights
        row = grid[start].copy()
        row[end] = -1
        assert entry.rival == int(np.argmax(row))
        assert entry.rival_weight == pytest.approx(grid[start, entry.rival], abs=1e-12)
        assert entry.column_mean == pytest.approx(grid[:, end].mean(), abs=1e-12)
        assert entry.weight == pytest.approx(grid[start, end], abs=1e-12)
        previous = np.mean([grid[i, i - 1] for i in range(1, len(grid))])
        first, last = grid[:, 0].mean(), grid[:, -1].mean()
        habit = max((("previous", previous), ("first", first), ("last", last)),
                    key=lambda item: item[1])  # fmt: skip
        assert entry.habit == (habit[0] if habit[1] >= 0.5 else None)
    document = ranked.to_document()["heads"][0]
    assert {"rival", "rival_position", "rival_weight", "column_mean"} <= set(document)


def test_a_pattern_ranking_has_no_row_to_control(bert):
    ranked = attn.heads(SENTENCE, bert, pattern="previous")
    assert all(entry.rival is None for entry in ranked.ranking)


def test_the_screen_shows_the_controls_and_says_what_they_are(run, bert):
    screen = run("heads", SENTENCE, "--model", bert, "--from", "are", "--to", "keys",
                 "--format", "table").stdout  # fmt: skip
    assert "Row's next" in screen and "Column mean" in screen and "Mostly" in screen
    spanish = run("heads", SENTENCE, "--model", bert, "--from", "are", "--to", "keys",
                  "--format", "table", "--lang", "es").stdout  # fmt: skip
    assert "Media de la columna" in spanish


def test_spanish_to_an_english_model_is_warned_about_and_goes_on(run):
    spanish = run("selfattn", "las llaves del coche están ahí", "--model", "all-MiniLM-L6-v2",
                  "--json")  # fmt: skip
    assert spanish.exit_code == 0 and spanish.stdout.startswith("{")
    assert (
        spanish.stderr.count("\n") == 1 and "not in all-MiniLM-L6-v2's vocabulary" in spanish.stderr
    )
    english = run("selfattn", SENTENCE, "--model", "all-MiniLM-L6-v2", "--json")
    assert english.exit_code == 0 and english.stderr == ""
    heads = run("heads", "las llaves del coche están ahí", "--model", "all-MiniLM-L6-v2",
                "--pattern", "previous", "--json", "--lang", "es")  # fmt: skip
    assert "no están en el vocabulario" in heads.stderr
