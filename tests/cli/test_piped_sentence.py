"""A sentence piped on stdin (attn heads, predict, rollout, selfattn --model) is read as
every stdin is: bytes that are not UTF-8 are refused in one line, never turned into '�'
and run."""

from __future__ import annotations

import json

import pytest

from attncli.errors import InputError
from tests import tiny_models
from tests.meaning import told

NOT_UTF8 = "{source}: not UTF-8 text (byte {byte}); convert it, e.g. iconv -t UTF-8"
LATIN1 = "el café está aquí\n".encode("latin-1")  # é is byte 7 on its own


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = tmp_path_factory.mktemp("piped") / "gpt2"
    tiny_models.write_gpt2(folder)
    return str(folder)


COMMANDS = [
    ("heads", "--pattern", "previous"),
    ("heads", "--pattern", "previous", "--model", "{gpt2}"),
    ("selfattn", "--model", "{gpt2}"),
    ("rollout", "--model", "{gpt2}"),
    ("predict", "--model", "{gpt2}"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:3]))
def test_a_piped_sentence_that_is_not_utf8_is_refused(run, gpt2, args):
    args = tuple(arg.format(gpt2=gpt2) for arg in args)
    result = run(*args, input=LATIN1)  # type: ignore[arg-type]
    assert result.exit_code == 2 and result.stdout == "", result.stderr
    told(result.error, InputError, NOT_UTF8, source="stdin", byte=7)
    piped = run(*args, "--json", input=LATIN1.decode("latin-1"))  # the same text in UTF-8
    assert piped.exit_code == 0, piped.stderr
    assert "�" not in piped.stdout and json.loads(piped.stdout)
