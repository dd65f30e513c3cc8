"""What every result shares (results/base.py): its steps show themselves as the worked
tables, its repr gives its arrays' shapes and its tokens, a one-row input comes back as one
vector, and its JSON document is what `attn … --json` writes."""

from __future__ import annotations

import io
import json

import numpy as np
from rich.console import Console

import attncli
from attncli.results.base import Steps, shaped


def _printed(renderable) -> str:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_every_kind_of_steps_shows_itself_as_its_worked_table():
    result = attncli.softmax([2, 0, 1], tokens=["tren", "va", "lleno"])
    steps = result.steps()
    assert isinstance(steps, Steps) and steps.result is result
    text = _printed(steps)
    # the table the hand-worked softmax has: each token's e^score over the row's sum
    assert all(token in text for token in ("tren", "va", "lleno"))
    assert f"{np.exp(2) / np.exp([2, 0, 1]).sum():.4f}"[:5] in text


def test_the_repr_gives_the_arrays_shapes_and_the_tokens():
    result = attncli.score([1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["a", "b", "c"])
    assert (
        repr(result)
        == "ScoreResult(queries=(1, 2), keys=(3, 2), grid=(1, 3), tokens=['a', 'b', 'c'])"
    )


def test_one_row_comes_back_as_one_vector_and_a_grid_as_a_grid():
    grid = np.arange(6.0).reshape(1, 6)
    assert shaped(grid, True).shape == (6,)
    assert shaped(grid, False).shape == (1, 6)
    single = attncli.softmax([2, 0, 1])
    assert single.to_document()["weights"].shape == (3,)
    rows = attncli.softmax([[2, 0, 1], [0, 0, 0]])
    assert rows.to_document()["weights"].shape == (2, 3)


def test_the_document_is_what_the_command_line_writes(run):
    result = attncli.softmax([2, 0, 1], tokens=["tren", "va", "lleno"])
    written = json.loads(
        run("softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--json").stdout
    )
    document = result.to_document()
    assert set(written) == set(document)
    for name, value in document.items():
        assert np.array_equal(np.asarray(written[name]), np.asarray(value)), name


def test_a_kind_with_no_rows_worked_by_hand_refuses_steps_in_one_line():
    """A kind that declares neither its steps nor why it has none (an online softmax, a
    cost) is refused as its view being all it computed, not with a NotImplementedError."""
    import pytest

    from attncli.errors import OptionError
    from tests.meaning import told

    for result in (attncli.online_softmax([1, 2, 3], block=2), attncli.tiles(
            attncli.selfattn("el tren va"), 2, 2)):  # fmt: skip
        with pytest.raises(OptionError) as caught:
            result.steps()
        told(caught.value, OptionError,
             "{kind} has no steps to lay out; its view() shows all it computed",
             kind=type(result).__name__)  # fmt: skip


def test_a_kind_of_result_must_give_its_document():
    """Result is an abstract base: a kind without to_document cannot be made."""
    import pytest

    from attncli.results.base import Result

    class Unwritten(Result):
        pass

    with pytest.raises(TypeError, match="to_document"):
        Unwritten()
