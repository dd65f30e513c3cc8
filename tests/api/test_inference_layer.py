"""The KV cache ledger and the tiled row against the whole layer: each cached step is row t
of the causal grid bit for bit, both end at the layer's own output, the sizes counted."""

from __future__ import annotations

import numpy as np
import pytest

import attncli as attn
from attncli.core.inference import cache_multiplications, cache_numbers, tiled_memory
from attncli.errors import OptionError
from tests.meaning import told

LESSON = "las llaves del coche están ahí"


@pytest.mark.parametrize("heads", [None, 2, 4])
def test_each_cached_step_is_row_t_of_the_causal_grid_bit_for_bit(heads):
    layer = attn.selfattn(sentence=LESSON, causal=True, heads=heads)
    ledger = attn.kv_cache(layer)
    for t, step in enumerate(ledger.ledger):
        assert step.key.shape[0] == (heads or 1) and step.scores.shape[1] == t + 1
        assert np.array_equal(step.weights, ledger.full_weights[:, t, : t + 1])
        assert (ledger.full_weights[:, t, t + 1 :] == 0).all()
        assert np.array_equal(step.output, ledger.full_output[t])
    assert ledger.bit_for_bit
    # The layer's own products are BLAS's, summed in another order: a few ulps apart.
    np.testing.assert_allclose(ledger.full_output, layer.attention.output, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ledger.full_weights[0], (layer.attention.weights if heads is None
                                                        else layer.attention.weights[0]),
                               rtol=0, atol=1e-15)  # fmt: skip


@pytest.mark.parametrize("length", [8, 9, 40])
def test_eight_tokens_or_more_are_bit_for_bit_too(length):
    """np.sum adds 8 or more numbers in 8 interleaved parts in a row alone and one by one
    in a grid: the replay said 'a fault: report it' from 8 tokens on."""
    sentence = " ".join(f"w{number}" for number in range(length))
    ledger = attn.kv_cache(attn.selfattn(sentence=sentence, causal=True, heads=2))
    assert ledger.bit_for_bit and len(ledger.ledger) == length


def test_a_gpt2_layer_is_replayed_bit_for_bit(tmp_path):
    from tests import tiny_models

    tiny_models.write_gpt2(tmp_path / "gpt2")
    layer = attn.selfattn(tiny_models.SENTENCES[0], model=str(tmp_path / "gpt2"))
    ledger = attn.kv_cache(layer, head=2)
    assert ledger.bit_for_bit and len(ledger.ledger) >= 8
    assert ledger.layer_difference < 1e-14


def test_the_ordered_softmax_is_softmax_and_a_row_alone_is_its_row_in_a_grid():
    from attncli.core.attention import softmax
    from attncli.core.inference import ordered_softmax

    rng = np.random.default_rng(5)
    grid = rng.normal(size=(3, 40, 40)) * 4
    grid[:, np.triu_indices(40, 1)[0], np.triu_indices(40, 1)[1]] = -np.inf
    grid[1, 7] = -np.inf  # a row with nothing to look at: all 0, not NaN
    weights = ordered_softmax(grid)
    np.testing.assert_allclose(weights, softmax(grid), rtol=0, atol=1e-15)
    assert (weights[1, 7] == 0).all()
    for row in range(40):
        assert np.array_equal(ordered_softmax(grid[:, row].copy()), weights[:, row])


def test_a_step_is_worked_from_its_own_token_alone():
    layer = attn.selfattn(sentence=LESSON, causal=True)
    ledger = attn.kv_cache(layer)
    x, w = layer.x, layer.projections
    step = ledger.ledger[4]  # «están»: q from x_4 alone, the five cached keys
    q = np.array([sum(x[4, i] * w["w_q"][i, j] for i in range(8)) for j in range(8)])
    np.testing.assert_allclose(step.query[0], q, rtol=1e-14)
    keys = np.array([[sum(x[t, i] * w["w_k"][i, j] for i in range(8)) for j in range(8)]
                     for t in range(5)])  # fmt: skip
    scores = keys @ q / np.sqrt(8)
    np.testing.assert_allclose(step.scores[0], scores, rtol=1e-13)
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    np.testing.assert_allclose(step.weights[0], weights, rtol=1e-13)


def test_given_weights_with_biases_and_w_o():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 4))
    weights = {name: rng.normal(size=(4, 4)) for name in ("w_q", "w_k", "w_v", "w_o")}
    biases = {name: rng.normal(size=4) for name in ("b_q", "b_k", "b_v", "b_o")}
    layer = attn.selfattn(x=x, **weights, **biases, heads=2, causal=True)
    ledger = attn.kv_cache(layer, head=2)
    assert ledger.bit_for_bit and ledger.source == "given"
    np.testing.assert_allclose(ledger.full_output, layer.output, rtol=0, atol=1e-13)


def test_the_cache_size_and_the_multiplications_counted():
    assert cache_numbers(12, 12, 64, 1024) == 2 * 12 * 12 * 64 * 1024
    assert cache_numbers(1, 2, 4, 3, d_v=6) == 1 * 2 * (4 + 6) * 3
    layer = attn.selfattn(sentence=LESSON, causal=True)
    ledger = attn.kv_cache(layer)
    assert ledger.cache_numbers == 2 * 1 * 1 * 8 * 6 == 96
    assert ledger.to_document()["cache_bytes"] == 768
    # d_model 8, one head of 8: a token's q, k, v are 3 · 64 products, its row t · 16.
    m = cache_multiplications(6, 8, 1, 8, 8, False, 1)
    assert m["cached"] == sum(192 + 16 * t for t in range(1, 7)) == 1488
    assert m["recomputed"] == sum(192 * t + 16 * t * t for t in range(1, 7)) == 5488
    assert ledger.multiplications == m


def test_the_ledger_refuses_what_it_does_not_replay():
    with pytest.raises(OptionError) as caught:
        attn.kv_cache(attn.selfattn(sentence=LESSON))
    told(caught.value, OptionError, "{option} replays a causal layer, where each token sees only "
         "the ones before it; add {causal}", "python", option="kv_cache()",
         causal="causal=True")  # fmt: skip
    with pytest.raises(OptionError) as caught:
        attn.kv_cache(attn.selfattn(sentence=LESSON, causal=True, heads=2), head=3)
    told(
        caught.value,
        OptionError,
        "{option} is out of range: {there} (1 to {total})",
        "python",
        option="head=3",
        there=("the layer has {heads}", {"heads": ("{count} head", {"count": 2})}),
        total=2,
    )
    with pytest.raises(OptionError) as caught:
        attn.kv_cache(attn.selfattn(sentence=LESSON, context="el tren", causal=True))
    told(caught.value, OptionError,
         "{option} replays self-attention; cross-attention ({context}, x_q and x_kv) is not",
         "python", option="kv_cache()", context="context")  # fmt: skip


@pytest.mark.parametrize(("tile_k", "causal", "heads"), [(1, False, None), (2, True, None),
                                                          (4, True, 2), (9, False, 2)])  # fmt: skip
def test_the_tiled_row_ends_at_the_layers_output(tile_k, causal, heads):
    layer = attn.selfattn(sentence=LESSON, causal=causal, heads=heads)
    for token in ("las", "están", "ahí"):
        tiled = attn.tiles(layer, 2, tile_k, token=token, head=heads or 1)
        index = LESSON.split().index(token)
        weights = layer.attention.weights if heads is None else layer.attention.weights[heads - 1]
        values = layer.attention.values if heads is None else layer.attention.values[heads - 1]
        np.testing.assert_allclose(tiled.tiled.output, weights[index] @ values, rtol=0, atol=1e-14)
        if heads is None:  # one head: the row the layer itself output
            np.testing.assert_allclose(tiled.tiled.output, layer.output[index], rtol=0, atol=1e-14)
        assert len(tiled.tiled.starts) == -(-6 // tile_k)
        assert tiled.tiled.running_sum[-1] == pytest.approx(
            np.exp(tiled.tiled.scores - tiled.tiled.scores.max()).sum(), rel=1e-14
        )


def test_the_tiled_accumulator_by_hand():
    layer = attn.selfattn(sentence="el tren va lleno", causal=True)
    tiled = attn.tiles(layer, 1, 2).tiled  # the last row, «lleno»: two blocks of two keys
    s, v = tiled.scores, layer.attention.values
    m1 = max(s[:2])
    acc1 = np.exp(s[0] - m1) * v[0] + np.exp(s[1] - m1) * v[1]
    m2 = max(m1, *s[2:])
    acc2 = acc1 * np.exp(m1 - m2) + np.exp(s[2] - m2) * v[2] + np.exp(s[3] - m2) * v[3]
    np.testing.assert_allclose(tiled.accumulator, [acc1, acc2], rtol=1e-14)
    l2 = (np.exp(s[0] - m1) + np.exp(s[1] - m1)) * np.exp(m1 - m2) + np.exp(s[2:] - m2).sum()
    np.testing.assert_allclose(tiled.output, acc2 / l2, rtol=1e-14)


def test_the_memory_held():
    assert tiled_memory(1024, 1024, 64, 64, 64) == {
        "tile_scores": 4096, "running": 128, "accumulator": 4096, "tiled": 8320,
        "grid": 1024 * 1024,
    }  # fmt: skip
    assert tiled_memory(6, 6, 8, 8, 8)["tile_scores"] == 36


def test_grouped_heads_share_one_cached_key_and_value():
    from attncli.core.inference import cache_ledger, causal_grid

    rng = np.random.default_rng(5)
    x = rng.normal(size=(5, 8))
    params = {"w_q": rng.normal(size=(8, 8)), "w_k": rng.normal(size=(8, 4)),
              "w_v": rng.normal(size=(8, 4))}  # fmt: skip
    ledger = cache_ledger(x, params, 4, 2.0)  # 4 query heads of 2, 2 kv-heads
    full = causal_grid(x, params, 4, 2.0)
    assert ledger[0].key.shape == (2, 2)
    for t, step in enumerate(ledger):
        assert np.array_equal(step.output, full.output[t])
    # Query heads 1 and 2 read kv-head 1: the same as a layer whose W^K repeats its columns.
    wide = dict(params, w_k=np.repeat(params["w_k"].reshape(8, 2, 2), 2, axis=1).reshape(8, 8),
                w_v=np.repeat(params["w_v"].reshape(8, 2, 2), 2, axis=1).reshape(8, 8))  # fmt: skip
    np.testing.assert_array_equal(causal_grid(x, wide, 4, 2.0).output, full.output)


def test_the_ledger_and_the_tiled_row_say_what_they_are_in_a_python_session():
    layer = attn.selfattn("las llaves del coche están ahí", causal=True)
    assert repr(attn.kv_cache(layer)) == (
        "CacheLedger(source='seeded', steps=6, cache_numbers=96, bit_for_bit=True)"
    )
    tiled = repr(attn.tiles(layer, 2, 2, token="están"))
    assert tiled.startswith("TiledResult(token='están', tiles=(2, 2), blocks=3, largest_")
    assert " object at 0x" not in tiled


def test_a_step_s_whole_cache_is_the_earlier_steps_keys_and_values(run):
    """--kv-cache --token T shows the cache as step T reads it: each earlier token's k and v
    as its own step wrote them, the last row appended by T, and T's weights over them."""
    layer = attn.selfattn("las llaves del coche están ahí", causal=True)
    ledger = attn.kv_cache(layer, token="están")
    assert ledger.shown_step == 4 and ledger.to_document()["shown_step"] == 5
    # the ledger sums its products in one fixed order, the layer by BLAS: a last digit apart
    np.testing.assert_allclose(
        np.stack([step.key[0] for step in ledger.ledger[:5]]), layer.keys[:5], rtol=1e-13
    )
    screen = run("selfattn", "las llaves del coche están ahí", "--causal", "--kv-cache",
                 "--token", "están", "--format", "table", "--lang", "es").stdout  # fmt: skip
    said = " ".join(screen.split())
    assert "La caché en el paso 5 («están»): su K y su V, 5 filas" in said
    rows = screen[screen.index("La caché en el paso 5") :].splitlines()
    new = [line for line in rows if "← nueva" in line]
    assert len(new) == 1 and new[0].split()[:2] == ["5", "están"]
    assert "0,102" in new[0]  # están's weight on itself, its row's last
    unasked = run("selfattn", "las llaves del coche están ahí", "--causal", "--kv-cache",
                  "--format", "table").stdout  # fmt: skip
    assert "The cache at step" not in unasked


@pytest.mark.parametrize("head", [1, 2, 3, 4])
def test_the_ledger_shows_the_key_value_head_a_grouped_query_head_reads(run, head):
    """--heads 4 --kv-heads 2: query heads 1-2 read kv head 1, 3-4 kv head 2; the k and v the
    ledger shows for a query head are its kv head's (the layer's own keys for that head)."""
    layer = attn.selfattn("las llaves del coche están ahí", causal=True, heads=4, kv_heads=2)
    screen = run("selfattn", "las llaves del coche están ahí", "--causal", "--heads", "4",
                 "--kv-heads", "2", "--kv-cache", "--head", str(head), "--token", "están",
                 "--format", "table", "--json")  # fmt: skip
    assert screen.exit_code == 0, screen.stderr
    table = run("selfattn", "las llaves del coche están ahí", "--causal", "--heads", "4",
                "--kv-heads", "2", "--kv-cache", "--head", str(head), "--token", "están",
                "--format", "table").stdout  # fmt: skip
    shown = table[table.index("The cache at step 5") :].splitlines()
    las = next(line for line in shown if line.split()[:2] == ["1", "las"])
    key = layer.keys[head - 1][0]  # the first token's key as query head `head` reads it
    assert ", ".join(f"{v:.2f}" for v in key) in las


def test_the_ledger_without_projections_is_refused_in_one_line(run):
    result = run("selfattn", LESSON, "--no-proj", "--causal", "--kv-cache", "-f", "table")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, OptionError, "{option} replays the k = x W^K and v = x W^V each new token "
         "appends; without the projections ({no_proj}) the keys and values are X itself; drop "
         "{no_proj}", option="--kv-cache", no_proj="--no-proj")  # fmt: skip


def test_a_replay_that_would_not_fit_is_refused_before_it_starts(monkeypatch):
    """6,001 tokens of a 4-head layer took 16.6 GB and a minute: sized first, as the
    layer is."""
    from attncli import limits

    layer = attn.selfattn(sentence=" ".join(["w"] * 100), causal=True, heads=4)
    monkeypatch.setattr(limits, "available_memory", lambda: 2 * 12 * 4 * 100**2 * 8 - 8)
    with pytest.raises(OptionError) as caught:
        attn.kv_cache(layer)
    told(caught.value, OptionError,
         "{what} would need about {need}, more than half of the {memory} available; "
         "lower {lower}{hint}", "python")  # fmt: skip
    assert caught.value.fields["what"].fields["tokens"] == 100
    monkeypatch.setattr(limits, "available_memory", lambda: 2 * 12 * 4 * 100**2 * 8)
    assert attn.kv_cache(layer).bit_for_bit
