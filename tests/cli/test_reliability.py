"""Counts and seeds past what attn can do are one line before any work, and a document
that fails to be written leaves nothing half-printed on stdout."""

from __future__ import annotations

import io

import pytest

from attncli.errors import InputError, OptionError
from attncli.limits import MAX_ITERATIONS
from attncli.present.output import write_json
from tests.meaning import MOST, TRY, told


def _refused(result, kind, msgid, /, **fields):
    """One line before any work, and the line is that error said."""
    assert result.exit_code == 2 and result.stdout == "", result.stdout[:200]
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_a_class_set_whose_seeds_pass_the_largest_seed_is_refused(run):
    largest = str(2**64 - 1)
    _refused(
        run("exercise", "--seed", largest, "--count", "3", "--json"), OptionError,
        "--seed {seed} --count {count}: the sheets take the seeds {seed} to {last}, past the "
        "largest seed {largest}; give a smaller --seed",
        seed=2**64 - 1, count=3, last=2**64 + 1, largest=2**64 - 1,
    )  # fmt: skip
    sheets = run("exercise", "--seed", str(2**64 - 3), "--count", "3", "--json")
    assert sheets.exit_code == 0 and '"seed":18446744073709551615' in sheets.stdout


def test_training_runs_are_capped_and_steps_need_an_iteration(run):
    line = ("train", "el tren va", "--want", "va=tren")
    _refused(run(*line, "-n", str(MAX_ITERATIONS + 1)), OptionError, TRY,
             refusal=(MOST, {"setting": f"--iterations {MAX_ITERATIONS + 1}", "least": 0,
                             "most": MAX_ITERATIONS}),
             example="--iterations 300")  # fmt: skip
    _refused(
        run(*line, "-n", "0", "--steps"), OptionError, "{option} with {beside}: {why}",
        option="--iterations 0", beside="--steps",
    )  # fmt: skip


class _Stream:
    def __init__(self) -> None:
        self.buffer = io.BytesIO()

    def flush(self) -> None:
        pass


def test_a_document_that_fails_to_be_written_leaves_nothing():
    stream = _Stream()
    with pytest.raises(TypeError):
        write_json(stream, {"sheets": [1, 2], "seed": 2**70})  # orjson refuses the integer
    assert stream.buffer.getvalue() == b""
    write_json(stream, {"sheets": [1, 2]})
    assert stream.buffer.getvalue() == b'{"sheets":[1,2]}\n'


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_a_byte_that_is_not_utf8_reaches_a_models_tokenizer_as_a_replacement(run, tmp_path, kind):
    from tests import tiny_models

    folder = tmp_path / kind
    tiny_models.WRITERS[kind](folder)
    sentence = "the keys \udcff here"  # how Python hands over a Latin-1 byte in an argument
    result = run("selfattn", sentence, "--model", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    piped = run("selfattn", "--model", str(folder), "--json", input="the keys \xff here")
    assert piped.exit_code == 0, piped.stderr


@pytest.mark.parametrize("sentence", ["", "   ", "\u200b\u200b", "\x01\x02", "\u200d \t"])
def test_a_sentence_with_nothing_to_read_is_refused_by_a_model(run, sentence):
    result = run("selfattn", sentence, "--model", "all-MiniLM-L6-v2", "--json")
    assert result.exit_code == 2 and result.stdout == ""
    told(result.error, InputError, "give a sentence, e.g. {example}",
         example='attn selfattn "the keys to the cabinet are on the table" '
                 "--model all-MiniLM-L6-v2")  # fmt: skip


def test_more_threads_than_cores_are_refused_not_reported(run):
    import os

    cores = os.cpu_count() or 1
    _refused(run("compare-scores", "--threads", str(cores + 1)), OptionError,
             "{threads}: this machine has {cores}; give 1 to {most}",
             threads=f"--threads {cores + 1}", cores=("{count} core", {"count": cores}),
             most=cores)  # fmt: skip


# --kv-heads and --rope-base need settings beside them (--heads, --positions rope), which a
# model's layer is not asked for: they are refused as the seeded layer's, not as lacking those
@pytest.mark.parametrize("option", [("--positions", "sinusoidal"), ("--item", "2"),
                                    ("--kv-heads", "2"), ("--rope-base", "500")])  # fmt: skip
def test_a_seeded_layers_option_with_a_model_is_refused_not_ignored(run, option):
    _refused(
        run("selfattn", "the car", "--model", "all-MiniLM-L6-v2", *option), OptionError,
        "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, "
        "sizes and weights are the model's own; leave it out", name=option[0], model="--model",
    )  # fmt: skip
