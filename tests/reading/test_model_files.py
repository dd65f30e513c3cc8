"""A model folder whose tokenizer and embedding files are corrupt: each refused in one
line, naming the file and the field, before any sentence runs (the tokenizers package and
numpy would stop with their own words, or broadcast a wrong row silently)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import AttnError, InputError, ShapeError
from attncli.reading.models import tokens
from attncli.reading.models.checkpoint import MISSING_PART
from attncli.reading.models.model import load_model
from tests import tiny_models
from tests.meaning import WRONG, in_file, plain, told


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    root = tmp_path_factory.mktemp("originals")
    tiny_models.write_bert(root / "bert")
    tiny_models.write_bert(root / "vocab", tokenizer_json=False)
    tiny_models.write_gpt2(root / "gpt2")
    return root


# a line of vocab.txt, as a part the file lacks is named (checkpoint.MISSING_PART's {name})
SPECIAL_PLACE = "{path}: the line {token}"


def copy(originals: Path, tmp_path: Path, kind: str) -> Path:
    folder = tmp_path / kind
    shutil.copytree(originals / kind, folder)
    return folder


def refused(folder: Path, kind: type[AttnError]) -> AttnError:
    with pytest.raises(kind) as caught:
        load_model(str(folder))
    for lang in ("en", "es"):
        assert "\n" not in caught.value.message(lang)
    return caught.value


def edit_tokenizer_config(folder: Path, **changes) -> None:
    path = folder / "tokenizer_config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))


def edit_weights(folder: Path, name: str, value: np.ndarray) -> None:
    from safetensors.numpy import load_file, save_file

    weights = load_file(str(folder / "model.safetensors"))
    weights[name] = value
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})


@pytest.mark.parametrize("token", ["[SEP]", "[CLS]", "[UNK]"])
def test_a_vocab_without_a_special_token_names_it(originals, tmp_path, token):
    folder = copy(originals, tmp_path, "vocab")
    lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    (folder / "vocab.txt").write_text("\n".join(t for t in lines if t != token) + "\n")
    vocab = str(folder / "vocab.txt")
    told(refused(folder, InputError), InputError, MISSING_PART,
         name=(SPECIAL_PLACE, {"path": vocab, "token": token}),
         needs=(tokens.SPECIAL_LINE, {"path": vocab}))  # fmt: skip


def test_a_special_token_renamed_in_tokenizer_config_is_the_one_looked_for(originals, tmp_path):
    folder = copy(originals, tmp_path, "vocab")
    edit_tokenizer_config(folder, sep_token={"content": "[END]", "lstrip": False})
    assert refused(folder, InputError).fields["name"].fields["token"] == "[END]"


def test_a_vocab_that_is_not_utf8_names_its_line(originals, tmp_path):
    folder = copy(originals, tmp_path, "vocab")
    text = (folder / "vocab.txt").read_bytes()
    (folder / "vocab.txt").write_bytes(text + b"caf\xe9\n")
    error = refused(folder, InputError)
    assert error.fields["line"] == text.count(b"\n") + 1 and error.fields["byte"] == "0xe9"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("strip_accents", "yes"),
        ("strip_accents", 1),
        ("do_lower_case", "false"),  # bool("false") is True: never read as a truth value
        ("do_lower_case", None),
        ("tokenize_chinese_chars", 0),
        ("unk_token", 3),
        ("cls_token", ""),
    ],
)
def test_a_tokenizer_config_field_of_the_wrong_kind_is_refused(originals, tmp_path, field, value):
    folder = copy(originals, tmp_path, "vocab")
    edit_tokenizer_config(folder, **{field: value})
    told(refused(folder, InputError), InputError, WRONG,
         where=in_file(str(folder / "tokenizer_config.json"), field))  # fmt: skip


@pytest.mark.parametrize("value", [True, False, None])
def test_strip_accents_as_transformers_allows_it_still_loads(originals, tmp_path, value):
    folder = copy(originals, tmp_path, "vocab")
    edit_tokenizer_config(folder, strip_accents=value)
    model = load_model(str(folder))
    assert model.tokenizer.encode("the keys").tokens[0] == "[CLS]"


@pytest.mark.parametrize(
    ("kind", "name"),
    [("bert", "embeddings.word_embeddings.weight"), ("vocab", "embeddings.word_embeddings.weight"),
     ("gpt2", "transformer.wte.weight")],
)  # fmt: skip
def test_an_embedding_table_with_fewer_rows_than_the_tokenizers_ids(
    originals, tmp_path, kind, name
):
    folder = copy(originals, tmp_path, kind)
    edit_weights(folder, name, np.zeros((50, tiny_models.WIDTH), np.float32))
    error = refused(folder, ShapeError)
    told(error, ShapeError, WRONG, where=name, kind=f"50 × {tiny_models.WIDTH}")
    assert error.fields["expected"].fields["largest"] >= 50


NO_ROWS = ("a row at least: a single sentence's tokens all take its row 0", {})


@pytest.mark.parametrize("shape", [(2, tiny_models.WIDTH - 1), (2,), (0, tiny_models.WIDTH)])
def test_a_token_type_table_of_the_wrong_shape_is_refused(originals, tmp_path, shape):
    folder = copy(originals, tmp_path, "bert")
    name = "embeddings.token_type_embeddings.weight"
    edit_weights(folder, name, np.zeros(shape, np.float32))
    error = refused(folder, ShapeError)
    told(error, ShapeError, WRONG, where=name)
    assert (plain(error.fields["expected"]) == NO_ROWS) == (shape[0] == 0)


def test_a_corrupt_tokenizer_file_is_one_line_on_the_command_line(originals, tmp_path, run):
    folder = copy(originals, tmp_path, "vocab")
    edit_tokenizer_config(folder, strip_accents="yes")
    result = run("selfattn", "the keys", "--model", str(folder))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    told(result.error, InputError, WRONG, kind='"yes"',
         where=in_file(str(folder / "tokenizer_config.json"), "strip_accents"))  # fmt: skip


LLAMA = Path(__file__).resolve().parent.parent / "models" / "tiny-llama"


def test_a_post_processor_naming_an_undefined_special_token_is_refused_before_any_sentence(
    tmp_path,
):
    """The tokenizers package panics on it at the first sentence (99 lines of Rust)."""
    folder = tmp_path / "llama"
    shutil.copytree(LLAMA, folder)
    path = folder / "tokenizer.json"
    tokenizer = json.loads(path.read_text())
    tokenizer["post_processor"]["single"].append({"SpecialToken": {"id": "</x>", "type_id": 0}})
    path.write_text(json.dumps(tokenizer))
    error = refused(folder, InputError)
    assert error.fields["token"] == "'</x>'" and error.fields["path"] == str(path)
    inside = {"type": "Sequence", "processors": [tokenizer["post_processor"]]}
    path.write_text(json.dumps({**tokenizer, "post_processor": inside}))
    assert refused(folder, InputError).fields["token"] == "'</x>'"


def test_a_tokenizer_that_panics_on_a_sentence_is_one_line_not_rust_s(tmp_path):
    """A pre-tokenizer pattern that backtracks past the regex engine's limit makes the
    tokenizers package panic: a traceback and Rust's own lines (35 with RUST_BACKTRACE=1)
    were printed; now one line, and the same folder reads another sentence."""
    import os
    import subprocess
    import sys

    import attncli as attn

    folder = tmp_path / "llama"
    shutil.copytree(LLAMA, folder)
    path = folder / "tokenizer.json"
    tokenizer = json.loads(path.read_text())
    split = {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated",
             "invert": False}  # fmt: skip
    tokenizer["pre_tokenizer"] = {"type": "Sequence",
                                  "pretokenizers": [split, tokenizer["pre_tokenizer"]]}  # fmt: skip
    path.write_text(json.dumps(tokenizer))
    sentence = "a" * 40 + "b"
    with pytest.raises(InputError) as caught:
        attn.selfattn(sentence, model=str(folder))
    assert caught.value.msgid.startswith("{path}: the tokenizer failed on this sentence")
    assert caught.value.fields["path"] == str(path)
    assert attn.selfattn("the keys", model=str(folder)).tokens
    done = subprocess.run(
        [sys.executable, "-m", "attncli", "predict", sentence, "--model", str(folder)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "RUST_BACKTRACE": "1"},
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("attn: error: "), done.stderr


def test_a_sentence_s_words_read_the_encoding_s_offsets_once():
    """Each read of an Encoding's offsets builds the whole list: read per token, a 3,000-
    token sentence took 7.9 s."""
    model = load_model(str(LLAMA))
    reads = {"offsets": 0, "word_ids": 0}
    tokenizer = model.tokenizer.tokenizer

    class Counted:
        def __init__(self, encoding):
            self._encoding = encoding

        def __getattr__(self, name):
            if name in reads:
                reads[name] += 1
            return getattr(self._encoding, name)

    class Tokenizer:
        def encode(self, sentence):
            return Counted(tokenizer.encode(sentence))

    model.tokenizer.tokenizer = Tokenizer()
    encoded = model.tokenizer.encode("the keys to the cabinet are on the table")
    assert len(encoded.ids) > 5
    assert reads["offsets"] <= 2 and reads["word_ids"] <= 1, reads
