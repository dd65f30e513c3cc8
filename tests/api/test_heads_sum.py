"""Several heads, one score: the heads' products Q_h K_hᵀ add up to the one-head grid Q Kᵀ
of the same W, held against the layer run with one head; only the softmax parts them."""

from __future__ import annotations

import numpy as np
import pytest

import attncli as attn
from attncli.api.heads_sum import heads_sum
from attncli.errors import OptionError
from tests.meaning import told

LESSON = "las llaves del coche están ahí"


@pytest.mark.parametrize(("heads", "d_model", "seed"), [(2, 8, 0), (4, 8, 3), (8, 8, 1),
                                                       (2, 64, 5), (4, 32, 2)])  # fmt: skip
def test_the_heads_products_add_up_to_the_one_head_grid(heads, d_model, seed):
    summed = heads_sum(attn.selfattn(LESSON, heads=heads, d_model=d_model, seed=seed))
    # the one-head layer on its own: the same seed draws the same W^Q and W^K
    one = attn.selfattn(LESSON, d_model=d_model, seed=seed)
    grid = one.scores * one.divisor  # Q Kᵀ before ÷ √d_model
    unit = np.spacing(np.abs(grid).max())
    assert np.abs(summed.summed - grid).max() <= 4 * unit  # float64's last digit, no more
    assert np.abs(summed.one_head - grid).max() <= 4 * unit
    shown = np.char.mod("%.2f", summed.summed)
    assert (shown == np.char.mod("%.2f", grid)).all()  # to every digit the screen writes
    assert summed.products.shape == (heads, 6, 6)
    assert not np.allclose(summed.products[0], grid)  # one head alone is not the grid


def test_the_softmax_parts_them():
    layer = attn.selfattn(LESSON, heads=2)
    summed = heads_sum(layer, token="están")
    one = attn.selfattn(LESSON)
    assert summed.row == 4
    np.testing.assert_array_equal(summed.one_weights, one.weights[4])
    np.testing.assert_array_equal(summed.head_weights, layer.attention.weights[:, 4])
    # each head's own softmax of its part ÷ √4, not the whole sum's
    part = summed.products[1, 4] / 2.0
    np.testing.assert_allclose(summed.head_weights[1], np.exp(part) / np.exp(part).sum())
    assert summed.one_divisor == pytest.approx(np.sqrt(8)) and summed.head_divisor == 2.0
    assert np.abs(summed.head_weights - summed.one_weights).max() > 0.1


def test_a_given_divisor_is_the_one_heads_too():
    summed = heads_sum(attn.selfattn(LESSON, heads=2, scale=3.0))
    assert summed.one_divisor == summed.head_divisor == 3.0
    unscaled = heads_sum(attn.selfattn(LESSON, heads=2, scale=False))
    assert unscaled.one_divisor == unscaled.head_divisor == 1.0


def test_what_it_refuses():
    with pytest.raises(OptionError) as one:
        heads_sum(attn.selfattn(LESSON))
    told(one.value, OptionError, "{option} adds up several heads' scores; give {heads}",
         option="--heads-sum", heads="--heads 2")  # fmt: skip
    with pytest.raises(OptionError) as grouped:
        heads_sum(attn.selfattn(LESSON, heads=4, kv_heads=2))
    assert grouped.value.fields["kv_heads"].name == "kv_heads"
    with pytest.raises(OptionError) as turned:
        heads_sum(attn.selfattn(LESSON, heads=2, positions="rope"))
    assert "rope" in turned.value.fields
    with pytest.raises(OptionError) as gridless:
        heads_sum(attn.selfattn(LESSON, heads=2, grids=False))
    told(gridless.value, OptionError, "{option} reads every head's grid; run the layer with "
         "{grids}", surface="python", option="heads_sum()", grids="grids=True")  # fmt: skip
