"""attn selfattn --kv-cache and --tiles on the command line: the screens, Spanish, the JSON
piped, and each refusal one line with nothing on stdout."""

from __future__ import annotations

import json
import re

from attncli.core.inference import cache_multiplications
from attncli.errors import OptionError
from tests.meaning import told

LESSON = "las llaves del coche están ahí"
MERGED_WORDS = "{option} with {beside}: {why}"
NOT_WITH_MODEL = (
    "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, sizes and "
    "weights are the model's own; leave it out"
)


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)


def test_the_ledger_on_the_lessons_sentence(run):
    result = run("selfattn", LESSON, "--causal", "--kv-cache", "--format", "table")
    assert result.exit_code == 0, result.stderr
    screen = _flat(result.stdout)
    assert "The KV cache, token by token: what each token computes" in screen
    assert "5 están 5 k, 5 v s -1.10, -1.33, -0.43, 1.14, -0.70" in screen
    assert "α 0.068, 0.054, 0.133, 0.642, 0.102" in screen
    assert "row t of the whole causal grid, bit for bit." in screen
    assert "1,488 with the cache" in screen and "5,488 without" in screen
    assert "2 · layers 1 · kv-heads 1 · d_k 8 · T 6 = 96 numbers, 768 bytes in float64" in screen
    assert "(192 in float16 or bfloat16, as models keep it)" in screen  # a model's own dtype


def test_the_ledger_piped(run):
    document = json.loads(run("selfattn", LESSON, "--causal", "--kv-cache", "--heads", "2").stdout)
    assert document["bit_for_bit"] is True and document["cache_numbers"] == 2 * 2 * 4 * 6
    assert [step["cached_keys"] for step in document["steps"]] == [1, 2, 3, 4, 5, 6]
    assert (
        len(document["steps"][2]["weights"]) == 2 and len(document["steps"][2]["weights"][0]) == 3
    )


def test_grouped_heads_cache_their_key_value_heads_only(run):
    line = ("selfattn", LESSON, "--causal", "--kv-cache", "--heads", "4", "--kv-heads", "2",
            "--head", "3")  # fmt: skip
    document = json.loads(run(*line).stdout)
    assert (document["heads"], document["kv_heads"]) == (4, 2)
    assert document["cache_numbers"] == 2 * 1 * 2 * 2 * 6  # 2 kv-heads of d_k 2, 6 tokens
    assert document["cache_numbers_multi_head"] == 2 * document["cache_numbers"]
    screen = _flat(run(*line, "--format", "table").stdout)
    assert "The KV cache, token by token, head 3 (kv head 2):" in screen
    assert "the 4 query heads share 2 key/value heads (2 each)" in screen
    assert "it would hold 96 numbers (768 bytes in float64), 2 times as many." in screen
    plain = _flat(run("selfattn", LESSON, "--causal", "--kv-cache", "--heads", "4",
                      "--format", "table").stdout)  # fmt: skip
    assert "Grouped-query" not in plain and "kv head" not in plain


def test_the_tiled_row(run):
    line = ("selfattn", LESSON, "--causal", "--tiles", "2,2", "--token", "están")
    screen = _flat(run(*line, "--format", "table").stdout)
    assert "«están» through the keys in blocks of 2" in screen
    assert "2 del, coche -0.43, 1.14 1.14 0.11 1.40" in screen
    assert "Output = acc ÷ ℓ = -0.31, 0.01, -0.33, -0.57, -0.09, 0.34, -0.60, -0.15" in screen
    assert "24 numbers (192 bytes)" in screen and "6 × 6 grid, 36 numbers (288 bytes)" in screen
    document = json.loads(run(*line).stdout)
    assert document["output"] == document["plain_output"] or document["largest_difference"] < 1e-15
    assert [block["start"] for block in document["blocks"]] == [1, 3, 5]


def test_in_spanish(run):
    screen = _flat(run("selfattn", LESSON, "--causal", "--kv-cache", "--lang", "es",
                       "--format", "table").stdout)  # fmt: skip
    assert "La caché KV, token a token" in screen and "bit a bit" in screen
    assert "1\u202f488 con la caché" in screen
    tiles = _flat(run("selfattn", LESSON, "--causal", "--tiles", "2,2", "--token", "están",
                      "--lang", "es", "--format", "table").stdout)  # fmt: skip
    assert "«están» recorriendo las claves en bloques de 2" in tiles
    assert "-0,43; 1,14" in tiles


def test_refusals(run):
    for line, said in (
        (("selfattn", LESSON, "--kv-cache"), "add --causal"),
        (("selfattn", LESSON, "--tiles", "2"), "--tiles '2': give two whole sizes"),
        (("selfattn", LESSON, "--tiles", "0,2"), "--tiles '0,2': give two whole sizes"),
        (("selfattn", LESSON, "--causal", "--kv-cache", "--tiles", "2,2"), "give one"),
        (
            ("selfattn", LESSON, "--causal", "--kv-cache", "--heads", "2", "--head", "3"),
            "--head 3 is out of range: the layer has 2 heads",
        ),
        (("selfattn", LESSON, "--causal", "--kv-cache", "--context", "el tren"), "cross-attention"),
        (("selfattn", LESSON, "--causal", "--kv-cache", "--plot", "g.svg"), "--plot draws"),
    ):
        result = run(*line)
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert said in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_gpt2_layer_by_its_cache(run, tmp_path):
    from tests import tiny_models

    tiny_models.write_gpt2(tmp_path / "gpt2")
    model = str(tmp_path / "gpt2")
    line = ("selfattn", "the keys of the car", "--model", model, "--layer", "2", "--kv-cache")
    document = json.loads(run(*line).stdout)
    assert document["bit_for_bit"] is True and document["layers"] == 2
    tokens = len(document["tokens"])
    # 2 · layers · kv-heads · d_k · T: the tiny GPT-2 has 2 layers of 4 heads of 8.
    assert document["cache_numbers"] == 2 * 2 * 4 * 8 * tokens
    assert document["layer_difference"] < 1e-14
    # The attention of both layers, each the size of one: twice one layer's count.
    one_layer = cache_multiplications(tokens, 32, 4, 8, 8, True, 4)
    assert document["multiplications"] == {k: 2 * n for k, n in one_layer.items()}
    shown = run(*line, "--lang", "es", "--format", "table").stdout
    assert "la atención de las 2 capas" in _flat(shown)
    tiled = json.loads(run("selfattn", "the keys of the car", "--model", model, "--tiles", "2,2",
                           "--token", "keys", "--head", "3").stdout)  # fmt: skip
    assert tiled["head"] == 3 and tiled["largest_difference"] < 1e-14
    for seeded in (("--causal",), ("--prefix", "h.0.attn"), ("--target", "t.json")):
        refused = run(*line, *seeded)  # the seeded layer's, never left unread
        assert refused.exit_code == 2 and refused.stdout == "", refused.stderr
        told(refused.error, OptionError, NOT_WITH_MODEL, name=seeded[0], model="--model")
    for replay in (("--kv-cache",), ("--tiles", "2,2")):  # the replay shows the model's tokens
        refused = run(*line[:-1], *replay, "--words")
        assert refused.exit_code == 2 and refused.stdout == "", refused.stderr
        told(refused.error, OptionError, MERGED_WORDS, option=replay[0], beside="--words",
             why=("it works on the model's tokens and --words merges them; drop one",
                  {"option": replay[0]}))  # fmt: skip


def test_a_bidirectional_model_is_refused(run):
    refused = run("selfattn", "the keys", "--model", "all-MiniLM-L6-v2", "--kv-cache")
    assert refused.exit_code == 2 and refused.stdout == ""
    told(
        refused.error,
        OptionError,
        "{option} replays a causal layer; {model} reads in both directions (a GPT-2 model is "
        "causal)",
        option="--kv-cache",
        model="all-MiniLM-L6-v2",
    )


def test_the_ledger_s_row_says_what_the_scores_are_divided_by(run):
    lesson = ("selfattn", "las llaves del coche están ahí", "--causal", "--kv-cache", "--format",
              "table")  # fmt: skip
    scaled = " ".join(run(*lesson).stdout.split())
    assert "The new row: s = q · k ÷ √8 against the cached keys" in scaled
    plain = " ".join(run(*lesson, "--no-scale", "--lang", "es").stdout.split())
    assert "La fila nueva: s = q · k frente a las claves en caché" in plain
    assert "÷ divisor" not in scaled + plain


def test_tiles_and_the_cache_keep_the_grids_they_replay_against_whatever_fields(run):
    """--fields output alone computes no T × T grid; --tiles and --kv-cache need the
    layer's weights, so they keep them (an IndexError on an empty grid before)."""
    for view in (["--tiles", "2,2"], ["--kv-cache"]):
        result = run("selfattn", "el tren va lleno", "--causal", *view, "--json")
        assert result.exit_code == 0, result.stderr
        document = json.loads(result.stdout)
        field = next(iter(document))
        only = run("selfattn", "el tren va lleno", "--causal", *view, "--fields", field, "--json")
        assert only.exit_code == 0, only.stderr
        assert json.loads(only.stdout) == {field: document[field]}


def test_a_head_past_a_one_head_layer_is_refused_by_tiles_as_by_the_cache(run):
    for view in (["--tiles", "2,2"], ["--kv-cache"]):
        result = run("selfattn", "el tren va lleno", "--causal", *view, "--head", "2")
        assert result.exit_code == 2 and result.stdout == ""
        told(result.error, OptionError,
             "{option} is out of range: {there} (1 to {total})", option="--head 2",
             there=("the layer has {heads}", {"heads": ("{count} head", {"count": 1})}),
             total=1)  # fmt: skip


def test_alibi_is_named_where_the_replays_leave_it_out(run):
    """--alibi was told 'a given mask or attn_mask is not replayed', though none was given."""
    for option in (("--kv-cache",), ("--tiles", "2,2", "--row", "2")):
        result = run("selfattn", LESSON, "--causal", "--alibi", *option)
        assert result.exit_code == 2 and result.stdout == ""
        told(result.error, OptionError,
             "{option} does not replay ALiBi's distances yet; leave out {alibi}",
             alibi="--alibi")  # fmt: skip
