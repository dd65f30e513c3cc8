"""The sinusoidal positional encoding (core.positions): hand values, and what it changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attncli.core import positions
from attncli.core.selfattn import attention_layer, embed, projections
from tests.meaning import told

HEADLINE = ["las", "llaves", "del", "coche", "están", "ahí"]


def test_sinusoidal_positions_by_hand():
    encoding = positions.sinusoidal(3, 4)
    for pos in range(3):
        for i in range(2):
            angle = pos / 10000 ** (2 * i / 4)
            assert encoding[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-15)
            assert encoding[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-15)
    odd = positions.sinusoidal(3, 5)
    assert odd.shape == (3, 5)  # the last column a sine alone
    assert odd[2, 4] == pytest.approx(math.sin(2 / 10000 ** (4 / 5)), abs=1e-15)
    assert odd[1, 3] == pytest.approx(math.cos(1 / 10000 ** (2 / 5)), abs=1e-15)


def test_positions_are_added_and_only_when_asked():
    x = np.arange(12.0).reshape(3, 4)
    assert positions.with_positions(x, None) is x
    np.testing.assert_array_equal(
        positions.with_positions(x, "sinusoidal"), x + positions.sinusoidal(3, 4)
    )
    batch = np.stack([x, 2 * x])
    np.testing.assert_array_equal(
        positions.with_positions(batch, "sinusoidal")[1], 2 * x + positions.sinusoidal(3, 4)
    )


def test_an_encoding_not_known_is_refused_before_one_is_computed():
    """encoding() computes the kinds it holds; each surface that asks for one has refused
    another name first."""
    import attncli as attn
    from attncli.errors import OptionError

    assert positions.KINDS == ("sinusoidal",)
    calls = (lambda: attn.selfattn("el tren va", positions="learned"),
             lambda: attn.train("el tren va", want="va=tren", positions="learned"))  # fmt: skip
    for call in calls:
        with pytest.raises(OptionError) as caught:
            call()
        told(caught.value, OptionError, "{setting}: give one of {choices}", "python",
             setting="positions='learned'", choices="sinusoidal, rope")  # fmt: skip


def test_positions_tell_a_reordered_sentence_apart():
    """Without positions, swapping two tokens swaps their rows and nothing else."""
    x = embed(HEADLINE, 8, math.sqrt(8), 0)
    order = [3, 1, 2, 0, 4, 5]  # «las» and «coche» swapped
    params = projections(0, 8, 8, 8)
    plain = attention_layer(x, x, params).weights
    swapped = attention_layer(x[order], x[order], params).weights
    np.testing.assert_allclose(swapped, plain[np.ix_(order, order)], atol=1e-15)
    placed = positions.with_positions(x, "sinusoidal")
    placed_swapped = positions.with_positions(x[order], "sinusoidal")
    moved = attention_layer(placed_swapped, placed_swapped, params).weights
    first = attention_layer(placed, placed, params).weights
    assert np.abs(moved - first[np.ix_(order, order)]).max() > 1e-3


def test_the_layer_is_placed_once():
    from attncli.errors import OptionError

    x, other = np.ones((3, 4)), np.zeros((2, 4))
    placed_x, placed_kv = positions.placed(x, other, "sinusoidal")
    np.testing.assert_array_equal(placed_x, 1 + positions.sinusoidal(3, 4))
    np.testing.assert_array_equal(placed_kv, positions.sinusoidal(2, 4))
    assert positions.placed(x, None, "sinusoidal")[1] is None
    positions.check_placeable(None)
    with pytest.raises(OptionError) as caught:
        positions.check_placeable(already="sinusoidal")
    told(caught.value, OptionError,
         "this x already has {kind} positions added (the document says so); drop --positions, "
         "or they would be added twice", kind="sinusoidal")  # fmt: skip
