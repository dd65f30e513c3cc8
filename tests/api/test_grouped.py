"""--kv-heads G with --heads H: grouped-query and multi-query heads, equal to torch's
scaled_dot_product_attention(enable_gqa=True) and transformers' repeat_kv
(tests/references/modern.json), G = H is plain multi-head, the screen names each head's kv
head and what grouping saves, the JSON reads back, and every refusal is one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attncli as attn
from attncli.errors import AttnError, InputError, OptionError, ShapeError
from tests import naive
from tests.meaning import DISAGREE, told

REFERENCES = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "modern.json").read_text("utf-8")
)["grouped"]
LESSON = "las llaves del coche están ahí"
pytestmark = pytest.mark.slow  # hypothesis


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_equal_to_torch_enable_gqa_and_repeat_kv(name):
    case = REFERENCES[name]
    result = attn.selfattn(
        x=case["x"],
        **{w: case[w] for w in ("w_q", "w_k", "w_v", "w_o")},
        heads=case["heads"],
        kv_heads=case["kv_heads"],
        causal=True,
        positions="rope" if case["rope"] else None,
    )
    for field in ("queries", "keys", "values", "weights", "output"):
        np.testing.assert_allclose(getattr(result, field), case[field], rtol=0, atol=1e-12)


def test_each_query_head_reads_its_groups_keys_as_a_loop_does():
    result = attn.selfattn(LESSON, heads=6, kv_heads=2, d_model=12)
    x, w = result.x, result.projections
    keys = naive.linear(x.tolist(), w["w_k"].tolist())  # 2 heads of 2 columns
    for head in range(6):
        kv = head // 3  # query heads 1-3 read kv head 1, 4-6 kv head 2
        own = [row[kv * 2 : (kv + 1) * 2] for row in keys]
        np.testing.assert_allclose(result.keys[head], own, atol=1e-13)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), heads=st.sampled_from([1, 2, 4]))
def test_as_many_kv_heads_as_heads_is_plain_multi_head(seed, heads):
    grouped = attn.selfattn(LESSON, heads=heads, kv_heads=heads, seed=seed)
    plain = attn.selfattn(LESSON, heads=heads, seed=seed)
    np.testing.assert_array_equal(grouped.output, plain.output)
    assert grouped.params == plain.params


def test_the_header_names_the_groups_and_the_saving(run):
    result = run("selfattn", LESSON, "--heads", "4", "--kv-heads", "2", "--format", "table")
    assert result.exit_code == 0, result.stderr
    screen = re.sub(r"[ \n]+", " ", result.stdout)
    assert "2 key/value heads, each read by 2 query heads" in screen
    assert "Head 3 (kv head 2): Scores" in screen and "Head 2 (kv head 1): Weights" in screen
    # W^K, W^V of 2 heads: 192 parameters against 256; cache 2 · (2 + 2) · 6 = 48 against 96
    assert "192 parameters (multi-head: 256)" in screen
    assert "2 · (2 + 2) · T = 48 numbers for these 6 tokens (multi-head: 96)" in screen
    spanish = run("selfattn", LESSON, "--heads", "4", "--kv-heads", "1", "--format", "table",
                  "--lang", "es")  # fmt: skip
    said = re.sub(r"[ \n]+", " ", spanish.stdout)
    assert "1 cabeza de claves y valores, leída por las 4 cabezas de consulta" in said
    assert "Cabeza 4 (cabeza kv 1)" in said


def test_the_json_reads_back_only_grouped_alike(run):
    piped = run("selfattn", LESSON, "--heads", "4", "--kv-heads", "2", "--json").stdout
    document = json.loads(piped)
    assert document["kv_heads"] == 2 and np.array(document["w_k"]).shape == (8, 4)
    again = run("selfattn", "--heads", "4", "--kv-heads", "2", input=piped)
    assert again.exit_code == 0, again.stderr
    refused = run("selfattn", "--heads", "4", input=piped)
    assert refused.exit_code == 2 and refused.stdout == ""
    told(
        refused.error,
        InputError,
        "{field}: the input is a result computed with {field} {value}, and computing it again "
        "otherwise would change its numbers; read it back {fix}",
        field="kv_heads",
        value="2",
        fix=("with {option}", {"option": "--kv-heads 2"}),
    )


# (the keywords, the error's kind, its msgid, its fields as Python writes them)
@pytest.mark.parametrize(
    ("keywords", "kind", "msgid", "fields"),
    [
        ({"kv_heads": 2}, OptionError, "{setting} is {what}; add {needed}",
         {"setting": "kv_heads=2", "needed": "heads"}),
        ({"heads": 4, "kv_heads": 3}, OptionError,
         "{kv_heads}: each key/value head is read by the same number of query heads, so the "
         "key/value heads must divide {heads}: one of {divisors}",
         {"kv_heads": "kv_heads=3", "heads": "heads=4", "divisors": "1, 2, 4"}),
        ({"heads": 2, "kv_heads": 1, "projections": False}, InputError,
         "{kv_heads} groups the heads of W^K and W^V; with no projections (or queries, keys and "
         "values given) there are none to group", {"kv_heads": "kv_heads=1"}),
        ({"heads": 2, "kv_heads": 1, "target": np.zeros((6, 8))}, OptionError,
         "{option} has no backward pass in attn yet; leave out the gradient ({upstream}, "
         "{target}) or {option}", {"option": "kv_heads=1", "target": "target"}),
    ],
)  # fmt: skip
def test_refused_in_one_line(keywords, kind, msgid, fields):
    with pytest.raises(AttnError) as caught:
        attn.selfattn(LESSON, **keywords)
    told(caught.value, kind, msgid, "python", **fields)


def test_queries_keys_and_values_given_have_no_heads_of_w_to_group():
    with pytest.raises(AttnError) as caught:
        attn.selfattn(queries=np.eye(4), keys=np.eye(4), values=np.eye(4), heads=2, kv_heads=1)
    told(caught.value, InputError,
         "{kv_heads} groups the heads of W^K and W^V; with no projections (or queries, keys and "
         "values given) there are none to group", "python", kv_heads="kv_heads=1")  # fmt: skip


def test_a_key_bias_is_refused_and_a_wrong_w_k_named(run):
    with pytest.raises(AttnError) as caught:
        attn.selfattn(x=np.eye(4), heads=2, kv_heads=1, draw_missing=True, b_k=np.zeros(4))
    told(caught.value, InputError,
         "{name} with {kv_heads}: a grouped layer's key and value biases are not read yet",
         "python", name="b_k", kv_heads="kv_heads=1")  # fmt: skip
    with pytest.raises(AttnError) as caught:
        attn.selfattn(x=np.eye(4), heads=2, kv_heads=1, draw_missing=True, w_k=np.eye(4))
    told(caught.value, ShapeError, DISAGREE, "python", field="w_k",
         found=("{numbers} a row", {"numbers": ("{count} number", {"count": 4})}),
         other="kv_heads=1", bound=("{count} number", {"count": 2}),
         dimension="kv_d_k")  # fmt: skip
    result = run("selfattn", LESSON, "--heads", "4", "--kv-heads", "3")
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
