"""Issue-8 holes: each bad input gets one line on stderr, a non-zero exit, empty stdout."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.reporting import cut_long_words
from attncli.errors import InputError, OptionError, ShapeError
from attncli.present.language import printable
from tests.conftest import invoke_attn
from tests.meaning import (
    DISAGREE,
    MASKED_FINITE,
    MASKED_NUMBER,
    NUMBER,
    TOO_LARGE,
    WRONG,
    told,
)

pytestmark = pytest.mark.slow  # a process per case: the promise is the process's own

ATTN = [sys.executable, "-m", "attncli"]
OVERFLOW = (
    "{field} overflow float64 at ({where}): the inputs are too large; numbers up to about 1e150 "
    "are safe"
)
MEMORY = (
    "{what} would need about {need}, more than half of the {memory} available; lower {lower}{hint}"
)
FOLDER = "cannot read '{path}': it is a folder, not a file"
NOT_ADDED = (
    "field '{name}': this command does not add that bias, and leaving it out would give a "
    "different result; fold it into the inputs or remove the field"
)
NON_UTF8 = "{source}: not UTF-8 text (byte {byte}); convert it, e.g. iconv -t UTF-8"
NO_SUCH_FILE = (
    "cannot read '{path}': no such file (check the path given to {option}; attn samples lists the "
    "samples installed with attn)"
)
LARGER_THAN = (
    "{source}: larger than {most} GiB, the most attn reads; give a smaller input (or save large "
    "arrays as .npy)"
)


def _attn(*args: str, stdin: bytes | None = None, stdout=subprocess.PIPE, env=None):
    done = subprocess.run(
        [*ATTN, *args], input=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=60, env=env
    )
    done.given = (args, stdin)  # type: ignore[attr-defined]
    return done


def _one_line_error(result, kind, msgid, /, code=2, apart_from=None, **fields) -> None:
    """The process wrote one line and nothing on stdout, and the line is the error the same
    command line tells in-process: a `kind` saying `msgid` with these fields (all of the
    line but the field `apart_from`, which two processes may not share: the memory free)."""
    assert result.returncode == code, result.stderr
    assert result.stdout in (b"", None)
    message = result.stderr.decode()
    assert message.count("\n") == 1 and "Traceback" not in message, message
    assert "\x1b" not in message, message
    args, stdin = result.given
    error = invoke_attn(CliRunner(), list(args), input=stdin).error
    told(error, kind, msgid, **fields)
    said = cut_long_words(printable(error.message("en")))
    if apart_from is None:
        assert message == f"attn: error: {said}\n"
    else:
        before, after = said.split(str(error.fields[apart_from]), 1)
        assert message.startswith(f"attn: error: {before}") and message.endswith(f"{after}\n")


def _click_line(result, words: str) -> None:
    """Click's own refusal (no AttnError tells it): one line, quoting what was given."""
    assert result.returncode == 2 and result.stdout == b""
    message = result.stderr.decode()
    assert message.count("\n") == 1 and "Traceback" not in message, message
    assert words in message, message


@pytest.mark.parametrize(
    ("args", "document", "fields"),
    [
        (("score", "--query", "1e200,1e200", "--keys", "[[1e200,1e200],[1,1]]"), None,
         {"field": "scores", "where": "1, 1"}),
        (("mix", "--weights", "1e300,1", "--values", "[[1e300],[1]]"), None,
         {"field": "output"}),
        (("selfattn", "-i", "-"), {"x": [[1e160, 1e160], [1, 1]]}, {"field": "scores"}),
        (("score", "--query", "1e200", "--keys", "[[-1e200]]", "--method", "general",
          "--seed", "1"), None, {}),
    ],
)  # fmt: skip
def test_overflow_is_an_error_never_a_mask(args, document, fields):
    stdin = json.dumps(document).encode() if document is not None else None
    _one_line_error(_attn(*args, stdin=stdin), InputError, OVERFLOW, **fields)


def test_non_utf8_stdin_is_an_input_error():
    _one_line_error(_attn("softmax", stdin=b"\xff\xfe[2]"), InputError, NON_UTF8, source="stdin",
                    byte=1)  # fmt: skip


def test_a_byte_order_mark_is_accepted(tmp_path: Path):
    bom = b"\xef\xbb\xbf"
    piped = _attn("softmax", "--json", stdin=bom + b"[2, 0, 1]")
    assert piped.returncode == 0 and json.loads(piped.stdout)["weights"][0] > 0.66
    path = tmp_path / "bom.json"
    path.write_bytes(bom + b'{"scores": [1, 2]}')
    assert _attn("softmax", "-i", str(path), "--json").returncode == 0


def test_seed_out_of_range_is_refused():
    _click_line(_attn("score", "-i", "samples/tren.json", "--seed", str(2**64)), "--seed")


def test_full_disk_is_an_output_error():
    with open("/dev/full", "wb") as full:
        result = _attn("softmax", "2", "0", "1", stdout=full)
    assert result.returncode == 1
    message = result.stderr.decode()
    assert message == "attn: error: cannot write output: no space left on device\n"
    with open("/dev/full", "wb") as full:
        spanish = _attn("softmax", "2", "0", "1", "--lang", "es", stdout=full)
    said = spanish.stderr.decode()  # the system's reason stays its own
    assert said == "attn: error: no se puede escribir la salida: no space left on device\n"


def test_a_bug_is_told_in_one_line_in_the_users_language(capsys):
    from attncli.cli.reporting import outcome

    def broken() -> None:
        raise ZeroDivisionError("division by zero")

    for lang, words in (("en", "internal error: ZeroDivisionError: division by zero (this is a "
                                "bug in attn"),
                        ("es", "error interno: ZeroDivisionError: division by zero (es un fallo "
                               "de attn")):  # fmt: skip
        assert outcome(broken, lambda lang=lang: lang) == 70
        line = capsys.readouterr().err
        assert line.startswith(f"attn: error: {words}") and line.count("\n") == 1


def test_a_reader_that_goes_away_is_not_a_success():
    sentence = " ".join(f"w{i}" for i in range(600))
    process = subprocess.Popen(
        [*ATTN, "selfattn", sentence, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


def test_attn_alone_prints_help_and_succeeds():
    result = _attn()
    assert result.returncode == 0 and b"Usage" in result.stdout and result.stderr == b""


@pytest.mark.parametrize("args", [("--nope",), ("--nope", "softmax")])
def test_unknown_top_level_options_are_one_line(args):
    _click_line(_attn(*args), args[0])


def test_attn_with_only_a_language_prints_the_help_in_it():
    result = _attn("--lang", "es")
    assert result.returncode == 0 and result.stdout.startswith(b"Uso: attn")


def test_control_characters_in_messages_are_escaped():
    result = _attn("score", "-i", "x\x1b[31m\nrow.json")
    _one_line_error(result, InputError, NO_SUCH_FILE, path="x\x1b[31m\nrow.json", option="-i")
    assert "x\\x1b[31m\\nrow.json" in result.stderr.decode()  # the path, escaped


def test_ctrl_c_exits_130_silently():
    environment = {**os.environ}
    process = subprocess.Popen(
        [*ATTN, "compare-scores", "--tx", "400", "--ty", "400"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    import signal

    _wait_for_numpy(process)  # attn's handler is installed before anything is imported
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out == b"" and b"Traceback" not in err


def _wait_for_numpy(process: subprocess.Popen) -> None:
    """Until the process has loaded numpy's core, which attn imports only after its first
    line has installed the Ctrl-C handler (cli/entry.main): a wait that ends on what the
    process did, not on how fast this machine is."""
    import time

    maps = f"/proc/{process.pid}/maps"
    if not os.path.exists(maps):
        pytest.skip("needs /proc to see what the process has loaded")
    for _ in range(6000):  # a minute at most
        assert process.poll() is None, "attn ended before it was interrupted"
        with open(maps, encoding="utf-8", errors="replace") as loaded:
            if "_multiarray_umath" in loaded.read():
                return
        time.sleep(0.01)
    raise AssertionError("attn never loaded numpy")


@pytest.mark.parametrize(
    ("args", "lower"),
    [
        (("compare-scores", "--d-k", "1000000"), "--d-k"),
        (("compare-scores", "--d-h", "100000000"), "--d-h"),
        (("selfattn", "a b", "--d-model", "1000000000"), "--d-model"),
        (("selfattn", "a b", "--d-k", "1000000000"), "--d-k"),
        (("selfattn", "a b", "--d-v", "100000000000"), "--d-v"),
        (("score", "--query", "1,0", "--keys", "[[1,0]]", "--method", "additive",
          "--d-a", "100000000000"), "--d-a"),
    ],
)  # fmt: skip
def test_sizes_are_refused_before_allocation(args, lower):
    _one_line_error(_attn(*args), OptionError, MEMORY, apart_from="memory", lower=lower)


def test_repeats_past_the_limit_are_refused_before_running():
    _one_line_error(
        _attn("compare-scores", "--repeat", "100000000"), OptionError,
        "{setting}: it must be {most} or less", setting="--repeat 100000000", most=10_000,
    )  # fmt: skip


def test_many_tokens_are_refused_naming_the_number_of_tokens(tmp_path: Path):
    import numpy as np

    path = tmp_path / "x.npy"
    np.save(path, np.ones((40_000, 2)))
    _one_line_error(_attn("selfattn", "-i", str(path), "--json"), OptionError, MEMORY,
                    apart_from="memory", lower=("the number of tokens", {}))  # fmt: skip


def test_a_npy_header_claiming_more_than_the_file_holds_is_refused(tmp_path: Path):
    import struct

    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }"
    header = header.ljust(117) + "\n"
    path = tmp_path / "huge.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    _one_line_error(
        _attn("selfattn", "-i", str(path)), InputError,
        "{source}: the header says shape {tuple} ({claimed:,} bytes) but the file holds "
        "{total_bytes:,} bytes; the file is cut short or not written by numpy.save",
        source=str(path), tuple=(1_000_000_000, 1_000_000_000), total_bytes=128,
    )  # fmt: skip


def test_inputs_past_the_limit_are_refused_not_read(monkeypatch, tmp_path: Path):
    from attncli import limits
    from attncli.errors import InputError
    from attncli.reading.parse import sources

    monkeypatch.setattr(sources, "MAX_INPUT_BYTES", 10)
    path = tmp_path / "big.json"
    path.write_text("[1, 2, 3, 4, 5]")
    with pytest.raises(InputError) as caught:
        sources.read_text(str(path), None)
    told(caught.value, InputError, LARGER_THAN, source=str(path))
    assert limits.MAX_INPUT_BYTES == 1 << 30


def test_a_large_npy_or_text_is_not_told_to_be_saved_as_npy(monkeypatch, tmp_path: Path):
    """Only a JSON document is told of .npy: a .npy past the limit names its array's size,
    a corpus or a sentence list is told to be smaller."""
    import numpy as np

    from attncli.errors import InputError
    from attncli.reading.parse import sources

    monkeypatch.setattr(sources, "MAX_INPUT_BYTES", 100)
    array = tmp_path / "x.npy"
    np.save(array, np.zeros((4, 5)))
    with pytest.raises(InputError) as caught:
        sources.load_arrays(str(array))
    told(caught.value, InputError,
         "{source}: its array of shape {tuple} takes {claimed:,} bytes, more than {most} GiB, "
         "the most attn reads; give a smaller array", source=str(array), tuple=(4, 5),
         claimed=160)  # fmt: skip
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("los coches de la casa están ahí | están=coches\n" * 4)
    with pytest.raises(InputError) as caught:
        sources.read_text(str(corpus), None, "--corpus")
    told(caught.value, InputError,
         "{source}: larger than {most} GiB, the most attn reads; give a smaller file",
         source=str(corpus))  # fmt: skip


def test_dev_zero_is_refused_within_the_limit():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    from attncli.limits import too_large_input

    # the line is the refusal attn makes of it (read again in-process, it would take 1 GiB)
    result = _attn("softmax", "-i", "/dev/zero")
    assert result.returncode == 2 and result.stdout == b""
    refusal = too_large_input("/dev/zero")
    told(refusal, InputError, LARGER_THAN, source="/dev/zero", most=1)
    assert result.stderr.decode() == f"attn: error: {refusal.message('en')}\n"


@pytest.mark.parametrize(
    ("path", "msgid"),
    [("", "{option} '': the path is empty; give a file name, or - for standard input"),
     ("{tmp}/dir.npy", FOLDER), ("{tmp}", FOLDER)],
)  # fmt: skip
def test_paths_that_are_not_files_say_so(tmp_path: Path, path, msgid):
    (tmp_path / "dir.npy").mkdir()
    path = path.format(tmp=tmp_path)
    fields = {"path": path} if path else {"option": "-i"}
    _one_line_error(_attn("softmax", "-i", path), InputError, msgid, **fields)


@pytest.mark.parametrize(
    "tokens", [["en", "las", "llaves"], [b"en", b"las", b"llaves"]], ids=["str", "bytes"]
)
def test_npz_tokens_as_strings_or_bytes(tmp_path: Path, tokens):
    import numpy as np

    path = tmp_path / "x.npz"
    np.savez(path, x=np.eye(3), tokens=np.array(tokens))
    result = _attn("selfattn", "-i", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tokens"] == ["en", "las", "llaves"]


def test_npz_tokens_as_one_string_is_refused(tmp_path: Path):
    import numpy as np

    path = tmp_path / "x.npz"
    np.savez(path, x=np.eye(3), tokens=np.array("en las llaves"))
    _one_line_error(
        _attn("selfattn", "-i", str(path)), InputError, WRONG, where=f"{path}: tokens",
        kind=("an array of shape {shape}", {"shape": ()}),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "document", "kind", "msgid", "fields"),
    [("selfattn", {"x": [[1, 2]], "b_o": [1, 2]}, InputError,
      "b_o is added after W^O, which only {heads} (without {no_out}) has; leave b_o out",
      {"heads": "--heads", "no_out": "--no-out-proj"}),
     ("selfattn", {"x": [[1, 2]], "b_q": [1, 2, 3]}, ShapeError, DISAGREE,
      {"field": "b_q", "found": ("{count} number", {"count": 3}),
       "other": ("{option} by default", {"option": "--d-k 2"}), "dimension": "d_k"}),
     ("selfattn", {"x": [[1, 2]], "in_proj_bias": [1] * 6}, InputError,
      "{field}: not a field attn selfattn reads; {hint}",
      {"field": "in_proj_bias", "hint": (
          "give torch's in_proj_bias as b_q, b_k and b_v, its three thirds in that order", {})}),
     ("selfattn", {"queries": [[1]], "keys": [[1]], "values": [[1]], "b_q": [1]}, InputError,
      NOT_ADDED, {"name": "b_q"}),
     ("score", {"query": [1, 2], "keys": [[1, 2]], "b_1": [1, 2]}, InputError, NOT_ADDED,
      {"name": "b_1"})],
)  # fmt: skip
def test_biases_attn_cannot_use_are_refused_naming_the_field(
    command, document, kind, msgid, fields
):
    result = _attn(command, "-i", "-", stdin=json.dumps(document).encode())
    _one_line_error(result, kind, msgid, **fields)


@pytest.mark.parametrize(
    ("args", "kind", "msgid", "fields"),
    [(("--values", "[[\"x\"]]"), InputError, WRONG,
      {"where": ("{field}: row {row}, item {item}", {"field": "values", "row": 1, "item": 1}),
       "kind": ("{value} (a string)", {"value": '"x"'}), "expected": NUMBER}),
     (("--values", "[[1],[2],[3]]"), ShapeError, DISAGREE,
      {"field": "--values", "found": ("{count} row", {"count": 3}), "other": "--keys",
       "bound": ("{count} row", {"count": 2}), "dimension": "T_k"})],
)  # fmt: skip
def test_score_checks_the_values_it_carries(args, kind, msgid, fields):
    result = _attn("score", "--query", "1,0", "--keys", "[[1,0],[0,1]]", *args, "--json")
    _one_line_error(result, kind, msgid, **fields)


def _item(item: int):
    return ("{field}, item {item}", {"field": "scores", "item": item})


@pytest.mark.parametrize(
    ("document", "kind", "msgid", "fields"),
    [('{"scores": [1' + "1" * 5000 + ", 2]}", InputError, WRONG,
      {"where": _item(1), "kind": TOO_LARGE, "expected": MASKED_FINITE}),
     ('{"scores": [1e999, 2]}', InputError, WRONG,
      {"where": _item(1), "kind": TOO_LARGE, "expected": MASKED_FINITE}),
     ('{"scores": [[1, 2], [true, 2]]}', InputError, WRONG,
      {"where": ("{field}: row {row}, item {item}", {"field": "scores", "row": 2, "item": 1}),
       "kind": ("{value} (a boolean)", {"value": "true"}), "expected": MASKED_NUMBER}),
     ('{"scores": [1, "2"]}', InputError, WRONG,
      {"where": _item(2), "kind": ("{value} (a string)", {"value": '"2"'}),
       "expected": MASKED_NUMBER}),
     ('{"scores": [[1, 2], [3]]}', ShapeError,
      "{field}: row {index} has {row}, row 1 has {rows} (every row must have the same length)",
      {"field": "scores", "index": 2, "row": ("{count} number", {"count": 1}), "rows": 2})],
)  # fmt: skip
def test_document_numbers_are_checked_in_bulk_and_named_exactly(document, kind, msgid, fields):
    _one_line_error(_attn("softmax", "--json", stdin=document.encode()), kind, msgid, **fields)


def test_long_numbers_are_not_echoed_whole():
    result = _attn("score", "--query", "x" + "1" * 4000, "--keys", "[[1]]")
    _one_line_error(
        result, InputError, WRONG, where=("{field}, item {item}", {"field": "--query", "item": 1}),
        kind="'x" + "1" * 35 + "...",  # cut at 40 characters
    )  # fmt: skip
    assert len(result.stderr) < 300


def test_huge_integers_read_as_the_floats_they_denote_and_nan_carried_as_null():
    document = b'{"scores": [18446744073709551616, 1], "note": NaN, "big": 123456789012345678901}'
    result = _attn("softmax", "--json", stdin=document)
    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)
    assert written["scores"] == [2.0**64, 1.0] and written["weights"] == [1.0, 0.0]
    assert written["note"] is None and written["big"] == 1.2345678901234568e20


@pytest.mark.parametrize(
    ("args", "field"),
    [(("--query", "1e200,1", "--keys", "[[1e200,1],[1,1]]", "--values", "[[1],[2]]",
       "--grad-output", "1"), "scores"),
     (("--query", "1e150,1", "--keys", "[[1e150,1],[1,1]]", "--values", "[[1e300],[2]]",
       "--grad-output", "1e300", "--steps"), "grad_weights")],
)  # fmt: skip
def test_grad_overflow_is_an_error_without_warnings(args, field):
    _one_line_error(_attn("grad", *args), InputError, OVERFLOW, field=field, where="1, 1")


def test_a_tiny_temperature_in_steps_warns_nothing():
    result = _attn("softmax", "1", "2", "--temperature", "1e-300", "--steps")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert b"1.000" in result.stdout


@pytest.mark.parametrize("columns", ["10", "0"])
def test_narrow_terminals_keep_every_number(columns):
    env = {**os.environ, "COLUMNS": columns}
    result = subprocess.run(
        [*ATTN, "softmax", "2", "0", "1", "--format", "table"], capture_output=True, env=env
    )
    assert result.returncode == 0, result.stderr
    for weight in (b"0.665", b"0.090", b"0.245"):
        assert weight in result.stdout
    failed = _attn("softmax", "2", "x", env=env)
    assert failed.returncode == 2
    _one_line_error(
        failed, InputError, WRONG, kind="'x'",
        where=("{field}: argument {position}", {"field": "scores", "position": 2}),
    )  # fmt: skip


def test_an_ascii_only_output_gets_replacement_characters():
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    args = ["softmax", "1", "2", "--steps", "--lang", "es"]
    result = subprocess.run([*ATTN, *args], capture_output=True, env=env)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert b"Puntuaci?n" in result.stdout and b"0,731" in result.stdout


def test_long_lists_are_elided_on_a_terminal_with_a_note(run):
    scores = ",".join(str(i % 7) for i in range(5_000))
    result = run("softmax", "--scores", scores, "--format", "table")
    assert result.exit_code == 0, result.stderr
    assert "k1 " in result.stdout and "k5000" in result.stdout and "k2500" not in result.stdout
    assert "showing 20 of 5000 rows; --json has them all" in result.stdout
    steps = run("softmax", "--scores", scores, "--steps")
    assert "showing 20 of 5000 rows" in steps.stdout and "Total" in steps.stdout


def test_long_vectors_keep_their_first_and_last_numbers():
    from attncli.present.format import Format

    assert Format().vector(list(range(1, 513))) == "1, 2, 3, 4, …, 509, 510, 511, 512"
    assert Format().vector([10, 0]) == "10, 0"


def test_plot_with_very_long_tokens_writes_nothing_on_stderr(tmp_path: Path):
    pytest.importorskip("matplotlib")
    sentence = " ".join("x" * 200 + str(i) for i in range(3))
    result = _attn("selfattn", sentence, "--plot", str(tmp_path / "p.png"), "--json")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert (tmp_path / "p.png").stat().st_size > 0


ESCAPES = ("\x1b", "\x9b", "\x07", "\x85")


@pytest.mark.parametrize(
    "args",
    [("score", "-i", "{doc}", "--steps", "--row", "1"),
     ("softmax", "-i", "{doc}", "--steps", "--row", "1"),
     ("softmax", "-i", "{doc}", "--format", "table"),
     ("selfattn", "a\x1b[31mb c\x9b d", "--steps", "--row", "1"),
     ("selfattn", "a\x1b[31mb c\x9b d", "--format", "table")],
)  # fmt: skip
def test_token_text_never_reaches_the_terminal_raw(tmp_path: Path, args):
    doc = tmp_path / "esc.json"
    tokens = ["A\x1b[31m", "b\x85c\x07"]
    scores = [[1, 0], [0, 1]]
    doc.write_text(json.dumps({"scores": scores, "queries": scores, "keys": scores,
                               "tokens": tokens}))  # fmt: skip
    result = _attn(*(arg.format(doc=doc) for arg in args))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert not any(escape in text for escape in ESCAPES), text
    assert "\\x1b" in text


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_exports_show_token_escapes_as_text(tmp_path: Path, suffix):
    path = tmp_path / f"out{suffix}"
    result = _attn("softmax", "1", "2", "--tokens", "a\x1b[31m,b\x07", "--export", str(path))
    assert result.returncode == 0, result.stderr
    written = path.read_text()
    assert "\x1b" not in written and "\x07" not in written and "x1b" in written


def test_undecodable_argument_bytes_become_replacement_characters():
    result = subprocess.run(
        [*ATTN, "softmax", "1", "2", "--tokens", b"a\x9b,b", "--json"], capture_output=True
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tokens"] == ["a\ufffd", "b"]
    lone = _attn("softmax", "--json", stdin=b'{"scores": [1, 2], "tokens": ["\\ud800x", "b"]}')
    assert json.loads(lone.stdout)["tokens"] == ["\ufffdx", "b"]


def test_error_messages_escape_token_text():
    result = _attn("softmax", "1", "2", "--tokens", "a\x1b[31m,b", "--steps", "--token", "z\x9b")
    _one_line_error(result, InputError, "{token} is not a row here; the rows are: {rows}",
                    token="--token 'z\\x9b'")  # fmt: skip
    assert "--token 'z\\x9b'" in result.stderr.decode()  # the token, escaped


def test_selfattn_reads_piped_stdin_when_no_sentence_is_given():
    piped = _attn("selfattn", "--json", stdin=b'{"x": [[1, 0], [0, 1]]}')
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["x"] == [[1.0, 0.0], [0.0, 1.0]]
    with_sentence = _attn("selfattn", "a b", "--json", stdin=b'{"x": [[1, 0], [0, 1]]}')
    assert json.loads(with_sentence.stdout)["tokens"] == ["a", "b"]


def test_format_writes_any_float_without_raising():
    from attncli.present.format import Format

    assert [Format().number(v) for v in (math.nan, math.inf, -math.inf, 1e300)][:3] == [
        "NaN",
        "∞",
        "—",
    ]
