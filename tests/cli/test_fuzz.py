"""The error promise, fuzzed: any document and any argument line, for every command.

Whatever comes in, attn either succeeds quietly (exit 0, nothing on stderr) or fails
with exactly one `attn: error:` line on stderr, exit 1 or 2, and nothing on stdout;
never an internal error (exit 70), never a traceback, never a raw control character.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.conftest import ROOT, invoke_attn

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

RAW_CONTROLS = ("\x1b", "\x9b", "\x07", "\x85", "\x00")

NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([1e200, -1e200, 1e308, 2**64, 10**30, 0.0, -0.0]),
)
TEXT = st.sampled_from(["", "en", "llaves", "x\x1b[31m", "a\nb", "\x9b", "están", "1", "-inf"])
VECTORS = st.lists(NUMBERS, min_size=0, max_size=4)
MATRICES = st.lists(st.lists(NUMBERS, min_size=1, max_size=3), min_size=0, max_size=4)
JSON_VALUES = st.one_of(
    NUMBERS, TEXT, st.none(), st.booleans(), VECTORS, MATRICES, st.lists(TEXT, max_size=4)
)
FIELDS = st.sampled_from(
    ["query", "queries", "keys", "values", "scores", "weights", "tokens", "x", "w_q", "w_a",
     "v_a", "grad_output", "target", "method", "temperature", "b_q", "b_o", "b_1", "mask",
     "key_padding_mask", "x_q", "x_kv", "query_tokens", "note"]
)  # fmt: skip
DOCUMENTS = st.one_of(
    st.dictionaries(FIELDS, JSON_VALUES, max_size=6).map(json.dumps),
    st.sampled_from(["", "[", "[1, 2", "{}", "[]", "null", '"text"', "[NaN]", '{"scores": [1e999]}',
                     "\ufeff[2, 0, 1]", '{"scores": [' + "9" * 5000 + "]}"]),
)  # fmt: skip

OPTION_TEXT = st.sampled_from(
    ["1,0", "[[2,1],[0,2]]", "2,1;0,2", "x", "", "NaN", "1e400", "[[1]]", "[", "-1", "0", "3",
     "en,las", "1e200,1e200", "99999999999999999999999", "a\x1b"]
)  # fmt: skip
SIZES = st.sampled_from(["0", "1", "2", "3", "-1", "x", "100000000000000000000"])
COMMON = ["--lang", "--digits", "--format", "--json", "--steps", "--row", "--token", "--blank",
          "--fields"]  # fmt: skip
OPTIONS = {
    "score": ["--query", "--queries", "--keys", "--values", "--tokens", "--method", "--seed",
              "--d-a", *COMMON],
    "softmax": ["--scores", "--tokens", "--temperature", *COMMON],
    "mix": ["--weights", "--values", "--tokens", *COMMON],
    "grad": ["--query", "--keys", "--values", "--grad-output", "--target", "--method",
             "--temperature", "--check", *COMMON],
    "selfattn": ["--d-model", "--d-k", "--d-v", "--heads", "--causal", "--no-proj", "--norm",
                 "--seed", "--target", "--context", "--valid-len", "--scale", "--show",
                 "--no-out-proj", "--no-scale", *COMMON],
    "compare-scores": ["--tx", "--ty", "--d-h", "--d-a", "--d-k", "--seed", "--lang", "--json"],
    "exercise": ["--seed", "--size", "--dim", "--answers", "--lang", "--json"],
}  # fmt: skip
FLAGS = {"--json", "--steps", "--blank", "--causal", "--no-proj", "--check", "--answers",
         "--no-out-proj", "--no-scale"}  # fmt: skip
SIZED = {"--tx", "--ty", "--d-h", "--d-a", "--d-k", "--d-model", "--d-v", "--heads", "--size",
         "--dim", "--seed", "--row", "--digits", "--valid-len", "--scale"}  # fmt: skip
CHOICES = {
    "--method": ["dot", "scaled", "general", "additive", "cosine", "euclidean"],
    "--lang": ["en", "es", "fr"],
    "--format": ["json", "table", "html"],
    "--show": ["x,w", "all", "z", ""],
    "--fields": ["weights", "output,tokens", "nope", ""],
    "--context": ["las llaves", "", "a\x1b b"],
}


def with_values(draw, options: list[str], flags, choices, sized) -> list[str]:
    """Each option with an odd value of its kind (a flag alone)."""
    arguments: list[str] = []
    for option in options:
        arguments.append(option)
        if option in flags:
            continue
        if option in choices:
            arguments.append(draw(st.sampled_from(choices[option])))
        else:
            arguments.append(draw(SIZES if option in sized else OPTION_TEXT))
    return arguments


# Many examples, the same ones on every run.
FUZZED = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def argument_lines(draw) -> tuple[list[str], str | None]:
    """A command, some of its options with odd values, and maybe a document on stdin."""
    command = draw(st.sampled_from(sorted(OPTIONS)))
    arguments = [command]
    if command == "selfattn" and draw(st.booleans()):
        arguments.append(draw(st.sampled_from(["en las llaves", "", "   ", "a\x1b b", "¿qué?"])))
    if command == "softmax" and draw(st.booleans()):
        arguments += draw(st.lists(st.sampled_from(["2", "0", "-inf", "x", "inf", "1e308"]),
                                   min_size=1, max_size=3))  # fmt: skip
    options = draw(st.lists(st.sampled_from(OPTIONS[command]), max_size=4, unique=True))
    arguments += with_values(draw, options, FLAGS, CHOICES, SIZED)
    if command == "compare-scores":
        # Keep successful comparisons small: a full default comparison takes seconds.
        arguments += ["--repeat", "1", "--tx", "2", "--ty", "2", "--d-h", "2", "--d-a", "2"]
    document = draw(st.one_of(st.none(), DOCUMENTS)) if command not in ("exercise",) else None
    return arguments, document


@settings(FUZZED, max_examples=300)
@given(argument_lines())
def test_every_input_keeps_the_error_promise(case):
    arguments, document = case
    # As the console script runs it: a plain line without Typer, any other through Typer.
    result = invoke_attn(CliRunner(), arguments, input=document)
    keeps_the_promise(result, arguments, f"attn {arguments!r} <<< {document!r}")


def keeps_the_promise(result, arguments: list[str], where: str) -> None:
    """Exit 0 and quiet, or one `attn: error:` line, exit 1 or 2, nothing on stdout."""
    assert result.exit_code in (0, 1, 2), f"{where}: exit {result.exit_code}: {result.stderr}"
    assert "Traceback" not in result.stderr, where
    assert not any(c in result.stderr for c in RAW_CONTROLS), f"{where}: {result.stderr!r}"
    if result.exit_code == 0:
        assert result.stderr == "", f"{where}: {result.stderr}"
        assert not any(c in result.stdout for c in RAW_CONTROLS), f"{where}: {result.stdout!r}"
        # Steps and worksheets print as text wherever they go; the rest is one JSON document.
        if not {"--format", "--steps", "--blank", "--answers"} & set(arguments):
            json.loads(result.stdout)
    else:
        assert result.stdout == "", f"{where}: {result.stdout!r}"
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("attn: error: "), f"{where}: {lines}"


# The newer doors: a real model, weights as models store them, batches, the worksheets.
MODEL_OPTIONS = {
    "selfattn": ["--model", "--layer", "--head", "--words", "--item", "--dtype", "--no-causal",
                 "--weights", "--prefix", "--draw-missing", "--add-zero-attn", "--heads",
                 "--steps", "--json", "--fields"],
    "heads": ["--model", "--from", "--to", "--pattern", "--all", "--json", "--lang"],
    "exercise": ["--method", "--selfattn", "--count", "--answers-only", "--answers", "--dim",
                 "--size", "--json"],
}  # fmt: skip
MODEL_FLAGS = FLAGS | {"--words", "--no-causal", "--draw-missing", "--add-zero-attn", "--all",
                       "--selfattn", "--answers-only"}  # fmt: skip
MODEL_CHOICES = {
    **CHOICES,
    "--model": ["all-MiniLM-L6-v2", "no-such-model", "", "../x"],
    "--dtype": ["float32", "float64", "float16"],
    "--weights": ["samples/mha.safetensors", "samples/tren.json", "missing.pt", "samples"],
    "--prefix": ["encoder.layer.0.attention", "h.0.attn", "nope", ""],
    "--pattern": ["previous", "first", "self", "diagonal"],
    "--from": ["keys", "the", "nobody", ""],
    "--to": ["keys", "[CLS]", "x"],
}
MODEL_SIZED = SIZED | {"--layer", "--head", "--item", "--count"}


@st.composite
def model_lines(draw) -> tuple[list[str], str | None]:
    command = draw(st.sampled_from(sorted(MODEL_OPTIONS)))
    arguments = [command]
    if command == "selfattn":
        arguments.append(draw(st.sampled_from(["the keys are here", "", "a\x1b b", "¿qué?"])))
    if command != "exercise" and draw(st.integers(0, 3)) > (1 if command == "selfattn" else 0):
        # Mostly the demo model itself, so that the options after it are tried on a model.
        arguments += ["--model", draw(st.sampled_from(["all-MiniLM-L6-v2"] * 3 + ["nope"]))]
    choices = [o for o in MODEL_OPTIONS[command] if o not in arguments]
    options = draw(st.lists(st.sampled_from(choices), max_size=4, unique=True))
    arguments += with_values(draw, options, MODEL_FLAGS, MODEL_CHOICES, MODEL_SIZED)
    if command == "heads" and draw(st.booleans()):
        arguments.append(draw(st.sampled_from(["the keys are on the table", "", "\x9b"])))
    return arguments, None


@settings(FUZZED, max_examples=150)
@given(model_lines())
def test_the_model_weights_and_worksheet_options_keep_the_error_promise(case):
    import os

    arguments, document = case
    here = os.getcwd()
    os.chdir(ROOT)  # the samples' paths as the README types them
    try:
        result = invoke_attn(CliRunner(), arguments, input=document)
    finally:
        os.chdir(here)
    keeps_the_promise(result, arguments, f"attn {arguments!r}")
