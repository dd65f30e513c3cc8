"""A model's forward pass is refused before it starts when it would not fit in memory, and
a command that keeps more grids after it (attn heads, rollout) counts them: at a memory
where the layer's own weights fit, ranking every head or rolling the layers out does not."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import attncli
from attncli import limits
from attncli.errors import OptionError
from attncli.reading.models.model import load_model
from tests.meaning import told

TINY = str(Path(__file__).resolve().parent.parent / "models" / "tiny-llama")
SENTENCE = "the keys to the cabinet are on the table and the cat sat on a mat"
MEMORY = (
    "{what} would need about {need}, more than half of the {memory} available; lower {lower}{hint}"
)


@pytest.fixture
def just_the_forward_pass(monkeypatch):
    """A memory whose half holds the forward pass (its scores and weights, h × T × T a
    layer, and its states) with a fifth to spare, and nothing much besides."""
    model = load_model(TINY)
    tokens = len(model.tokenizer.encode(SENTENCE).ids)
    arch = model.architecture
    width = arch.d_model + arch.heads * arch.size_per_head  # a layer's T × d states: 8 of them
    numbers = arch.layers * (2 * arch.heads * tokens**2 + 8 * tokens * width)
    sized = functools.partial(limits.check_fits, memory=int(2 * 1.2 * numbers * 8))
    monkeypatch.setattr(limits, "check_fits", sized)  # what a job needs, not a model's file


def test_the_layer_fits_where_ranking_its_heads_or_rolling_it_out_does_not(just_the_forward_pass):
    result = attncli.selfattn(SENTENCE, model=TINY)  # the forward pass alone: it fits
    assert result.weights.shape[-1] == len(result.tokens)
    for run in (lambda: attncli.heads(SENTENCE, TINY, pattern="previous"),
                lambda: attncli.rollout(SENTENCE, TINY)):  # fmt: skip
        with pytest.raises(OptionError) as refused:
            run()
        told(refused.value, OptionError, MEMORY, "python")


def test_on_the_command_line_it_is_one_line_before_anything_is_computed(run, just_the_forward_pass):
    result = run("heads", SENTENCE, "--model", TINY, "--pattern", "previous")
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    told(result.error, OptionError, MEMORY)
