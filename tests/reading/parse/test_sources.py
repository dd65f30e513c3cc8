"""Where input comes from, each fault said one way wherever a file is read: a .npy or .npz
given to -i that is not there or is a folder, bytes that are not UTF-8 in a file or on
stdin, and a model folder's JSON file that cannot be opened."""

from __future__ import annotations

import pytest

from attncli.errors import InputError
from attncli.reading.parse import sources
from tests.meaning import told

NO_SUCH_FILE = (
    "cannot read '{path}': no such file (check the path given to {option}; attn samples lists "
    "the samples installed with attn)"
)
FOLDER = "cannot read '{path}': it is a folder, not a file"
NOT_UTF8 = "{source}: not UTF-8 text (byte {byte}); convert it, e.g. iconv -t UTF-8"


def test_a_numpy_file_for_i_that_is_not_there_or_a_folder_is_said_as_any_file(run, tmp_path):
    missing = tmp_path / "x.npy"
    told(run("selfattn", "-i", str(missing)).error, InputError, NO_SUCH_FILE,
         path=str(missing), option="-i")  # fmt: skip
    folder = tmp_path / "x.npz"
    folder.mkdir()
    told(run("selfattn", "-i", str(folder)).error, InputError, FOLDER, path=str(folder))


def test_bytes_that_are_not_utf8_are_named_by_their_file_or_stdin(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes("el café".encode("latin-1"))
    with pytest.raises(InputError) as caught:
        sources.read_text(str(path), None, None)
    told(caught.value, InputError, NOT_UTF8, source=str(path), byte=7)
    with pytest.raises(InputError) as caught:
        sources.decoded(b"\xff", "stdin")
    told(caught.value, InputError, NOT_UTF8, source="stdin", byte=1)


def test_a_model_folder_s_json_file_is_read_as_every_file_is(tmp_path):
    config = tmp_path / "config.json"
    with pytest.raises(FileNotFoundError):  # the model reader says what the folder lacks
        sources.json_file(str(config))
    config.mkdir()
    with pytest.raises(InputError) as caught:
        sources.json_file(str(config))
    told(caught.value, InputError, FOLDER, path=str(config))
    config.rmdir()
    config.write_bytes(b'{"model_type": "caf\xe9"}')
    with pytest.raises(InputError) as caught:
        sources.json_file(str(config))
    told(caught.value, InputError, NOT_UTF8, source=str(config), byte=20)
