"""attncli.cost: the Python face of attn cost, its keywords made from the one declaration
(api/cost.CostInputs), its numbers and its refusals."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

import attncli as attn
from attncli.api.cost import CostInputs
from attncli.core import attention_cost as arithmetic
from attncli.errors import InputError, OptionError, OptionTypeError
from tests.meaning import told


def test_the_keywords_are_the_declared_inputs():
    parameters = inspect.signature(attn.cost).parameters
    assert list(parameters) == ["model", *(f.name for f in fields(CostInputs))]
    assert parameters["cache_dtype"].default == "bfloat16"


def test_llama_3_1_70b_at_128k():
    """2 · 80 layers · 8 kv-heads · 128 · 131,072 tokens · 2 bytes = 40 GiB; as multi-head,
    8 times as much."""
    result = attn.cost("llama-3.1-70b", tokens="128k", designs="mha,gqa:1,mla:512")
    own, mha, mqa, mla = result.designs
    assert own.lengths[0].cache_bytes == 2 * 80 * 8 * 128 * 131072 * 2 == 40 * 1024**3
    assert mha.lengths[0].cache_bytes == 8 * own.lengths[0].cache_bytes
    assert mqa.shape.kv_heads == 1 and mqa.lengths[0].cache_bytes * 8 == own.lengths[0].cache_bytes
    assert mla.lengths[0].cache_numbers == 80 * (512 + 64) * 131072
    assert [d.own for d in result.designs] == [True, False, False, False]


def test_dtypes_batch_and_lengths():
    one = attn.cost("mistral-7b-v0.1", tokens=[100, 8192], cache_dtype="fp8")
    four = attn.cost("mistral-7b-v0.1", tokens="100,8k", cache_dtype="torch.float32", batch=4)
    assert [at.tokens for at in four.designs[0].lengths] == [100, 8192]
    small, large = one.designs[0].lengths
    assert small.cache_bytes == 32 * 8 * 256 * 100  # fp8: a byte a number
    assert large.cache_numbers == 32 * 8 * 256 * 4095  # the window keeps W − 1 = 4,095
    assert four.designs[0].lengths[1].cache_bytes == 4 * 4 * large.cache_bytes
    int4 = attn.cost("mistral-7b-v0.1", tokens="1", cache_dtype="int4")
    assert int4.designs[0].lengths[0].cache_bytes == 32 * 8 * 256 // 2


def test_options_alone_and_options_that_change_a_model():
    result = attn.cost(layers=2, d_model=32, heads=4, kv_heads=2, tokens=[7])
    assert result.source == "options" and result.designs[0].shape.design == "gqa"
    windowed = attn.cost("llama-3.1-8b", window=4096, global_every=2, tokens="8k")
    assert sum(w is not None for w in windowed.designs[0].shape.windows) == 16
    latent = attn.cost("llama-3.1-8b", kv_rank=256, tokens="8k")
    assert latent.designs[0].shape.latent == arithmetic.Latent(256, 64)
    sunk = attn.cost("llama-3.1-8b", sinks=True, tokens="1k").designs[0]
    assert sunk.parameters["sinks"] == 32


# What --kv-heads or --as gqa:G asks when it does not divide the query heads
WITHOUT = "{option} {why}; add {needed}"  # api/refusals.refuse_without
LATENT = "shapes latent attention"
GLOBAL_EVERY = "says which layers see every key, beside the others' window"
TWO_DESIGNS = "they ask for two designs; give one (or the other with {as_})"
DIVIDES = ("{kv_heads} does not divide the {heads} query heads: each key/value head serves the "
           "same number of them")  # fmt: skip


@pytest.mark.parametrize(
    ("given", "kind", "msgid", "fields"),
    [
        ({"cache_dtype": "fp7"}, OptionError,
         "{setting}: not a cache dtype attn knows; one of {known}",
         {"setting": "cache_dtype='fp7'"}),
        ({"designs": "mqa,sparse"}, OptionError,
         "{setting}: {design} is not a design attn knows; give mha, mqa, gqa:G or mla:R "
         "(mla:R+D)", {"design": "'sparse'"}),
        ({"designs": "gqa:3"}, OptionError, DIVIDES, {"kv_heads": "designs='gqa:3'", "heads": 32}),
        ({"designs": "mha,gqa:64"}, OptionError, DIVIDES,
         {"kv_heads": "designs='gqa:64'", "heads": 32}),
        ({"designs": "mla:512+128"}, OptionError,
         "{rope_dim} leaves nothing of a head's {d_k} numbers for the latent's keys; give less",
         {"rope_dim": "designs='mla:512+128'", "d_k": 128}),
        ({"kv_rank": 512, "rope_dim": 128}, OptionError,
         "{rope_dim} leaves nothing of a head's {d_k} numbers for the latent's keys; give less",
         {"rope_dim": "rope_dim=128", "d_k": 128}),
        ({"tokens": "1k,0"}, OptionError,
         "{setting}: every length must be 1 token or more, e.g. {example}", {}),
        ({"tokens": "lots"}, OptionError,
         "{setting}: {part} is not a length; give whole numbers of tokens, e.g. {example}",
         {"part": "'lots'"}),
        ({"tokens": [10**17]}, InputError,
         "{tokens} tokens × {batch}: {count} is past what a 64-bit count holds (2^63 − 1); "
         "give a shorter length or a smaller batch", {"tokens": 10**17}),
        ({"batch": 0}, OptionError, "{setting}: it must be {least} or more", {"least": 1}),
        ({"kv_heads": 5}, OptionError, DIVIDES, {"kv_heads": "kv_heads=5", "heads": 32}),
        ({"rope_dim": 32}, OptionError, WITHOUT,
         {"option": "rope_dim=32", "why": (LATENT, {"option": "rope_dim=32"}),
          "needed": "kv_rank='R'"}),
        ({"q_rank": 1536}, OptionError, WITHOUT,
         {"option": "q_rank=1536", "needed": "kv_rank='R'"}),
        ({"kv_heads": 8, "kv_rank": 512}, OptionError, "{option} with {beside}: {why}",
         {"option": "kv_heads=8", "beside": "kv_rank=512",
          "why": (TWO_DESIGNS, {"option": "kv_heads=8", "as_": "designs='mla:R'"})}),
        ({"global_every": 2}, OptionError, WITHOUT,
         {"option": "global_every=2", "needed": "window='W'",
          "why": (GLOBAL_EVERY, {"option": "global_every=2"})}),
        ({"sinks": "yes"}, OptionTypeError, "{given}: {name} takes {takes}", {"name": "sinks"}),
        ({"layers": 2.5}, OptionTypeError, "{given}: {name} takes {takes}", {"name": "layers"}),
    ],
)  # fmt: skip
def test_refusals(given, kind, msgid, fields):
    with pytest.raises(kind) as caught:
        attn.cost("llama-3.1-8b", **given)
    told(caught.value, kind, msgid, surface="python", **fields)


def test_an_unknown_keyword_and_sizes_missing():
    with pytest.raises(OptionError) as caught:
        attn.cost("llama-3.1-8b", token="1k")
    told(caught.value, OptionError,
         "{function}() got an unexpected keyword {name}= (did you mean {close}=?)",
         close="tokens")  # fmt: skip
    with pytest.raises(OptionError) as caught:
        attn.cost(layers=2, heads=4)
    told(caught.value, OptionError, "{setting} is needed without a model: give a model (a "
         "name, a folder, a config.json) or {layers}, {d_model} and {heads}", surface="python",
         setting="d_model")  # fmt: skip


def test_the_document_and_the_formulas_agree():
    result = attn.cost("gpt-oss-120b", tokens="8k", batch=2)
    document = result.to_document()
    design = document["designs"][0]
    at = result.designs[0].lengths[0]
    assert design["lengths"][0]["cache_bytes"] == at.cache_bytes
    assert design["sinks"] is True and design["parameters_per_layer"]["sinks"] == 64
    formulas = {f.quantity: f for f in result.formulas(result.designs[0], at)}
    cache = formulas["cache"].value + formulas["cache_window"].value
    assert cache == at.cache_numbers and formulas["cache_window"].window == 128
    assert formulas["prefill_scores"].value == at.prefill.scores
    shape = result.designs[0].shape
    assert 2 * 2 * shape.heads * shape.d_k * formulas["pairs"].value == at.prefill.scores
    assert 2 * 2 * shape.heads * shape.d_v * formulas["keys"].value == at.decode.mix
    assert formulas["parameters"].value == result.designs[0].total_parameters


def test_flops_past_64_bits_are_whole_and_exact():
    """A million tokens of Llama 3.1 405B in a batch of 8: its prefill's Q Kᵀ passes 2^63,
    exact as Python's ints keep it; only a cache past 2^63 − 1 bytes is refused."""
    at = attn.cost("llama-3.1-405b", tokens="1m", batch=8).designs[0].lengths[0]
    tokens = 1024**2
    assert at.prefill.scores == 2 * 8 * 126 * 128 * 128 * tokens * (tokens + 1) // 2 > 2**63


# the operators a formula is written with, as Python computes them
OPERATORS = {"·": "*", "÷": "//", "−": "-"}


@pytest.mark.parametrize(("model", "designs"), [
    ("tests/models/tiny-deepseek-v3", None), ("deepseek-v3", "mha,gqa:8"),
    ("gpt-oss-120b", "mla:256+32"), ("mistral-7b-v0.1", "mqa"), ("qwen2.5-7b", None),
])  # fmt: skip
def test_every_formula_s_numbers_give_its_value_and_the_flops(model, designs):
    """Each formula --steps writes, its numbers computed as written, is its value; the FLOPs'
    formulas are the prefill's and the next token's parts (MLA's next token too: its own
    projections and W^UK, W^UV absorbed)."""
    result = attn.cost(model, tokens="7,8k", designs=designs, cache_dtype="bf16")
    for design in result.designs:
        for at in design.lengths:
            said = {f.quantity: f for f in result.formulas(design, at)}
            for formula in said.values():
                if formula.numbers:
                    text = " ".join(OPERATORS.get(str(t), str(t)) for t in formula.numbers)
                    assert eval(text, {"__builtins__": {}, "min": min}) == formula.value, text
            latent = "_latent" if design.shape.latent is not None else ""
            decode = [said[f"decode_{part}{latent}"].value for part in
                      ("projections", "scores", "mix")]  # fmt: skip
            assert decode == [at.decode.projections, at.decode.scores, at.decode.mix]
            prefill = [said[f"prefill_{part}"].value for part in ("projections", "scores", "mix")]
            assert prefill == [at.prefill.projections, at.prefill.scores, at.prefill.mix]
