"""Where input comes from: a JSON file, piped stdin, or a .npy/.npz file (never unpickled)."""

from __future__ import annotations

import codecs
import os
import sys
from typing import IO, Any

from attncli.errors import PATH_SHOWN, InputError, shown
from attncli.limits import MAX_INPUT_BYTES, check_free_memory, too_large_input
from attncli.messages import Message, _
from attncli.reading.parse.json_text import (
    example_document,
    expected_document,
    parse_json,
    read_json,
)
from attncli.reading.parse.opening import decoded, reading
from attncli.reading.parse.values import (
    EMPTY,
    WRONG,
    Document,
    FiniteDocument,
    json_object,
)

# What -i and piped stdin hold: an object of named fields, or (softmax's scores) an array.
JSON_DOCUMENT = _("a JSON object or array")
NAMED_FIELDS = _("a JSON object of named fields, such as {example}")


def read_text(
    path: str, stdin: IO[str] | None, option: str | None = "-i", missing: Message | None = None
) -> tuple[str, str]:
    """The text behind a path ('-' is stdin) and a name for it in messages. `option` is the
    option that gave the path (--corpus, --sentences), named when the path is wrong; None
    when no option gave it (a path from Python, an answer file), and `missing` then says
    what to give when the path is not there."""
    data, source = read_raw(path, stdin, option, missing)
    return decoded(data, source), source


def read_raw(
    path: str, stdin: IO[str] | None, option: str | None = "-i", missing: Message | None = None
) -> tuple[bytes | str, str]:
    """read_text() before decoding: the bytes of the file or of piped stdin (a byte-order
    mark, common from Windows editors, dropped), or the text of a stdin without bytes. JSON
    is parsed from the bytes, which saves decoding a 200 MB document to read it."""
    if path == "-":
        if stdin is None:
            raise InputError(
                _("{option} -: there is no standard input to read"), option=option or "-"
            )
        buffer = getattr(stdin, "buffer", None)
        if buffer is None:
            return stdin.read(), "stdin"
        data = _read_capped(buffer, "stdin", option == "-i")
        return data.removeprefix(codecs.BOM_UTF8), "stdin"
    if not path:
        raise InputError(
            _("{option} '': the path is empty; give a file name, or - for standard input"),
            option=option or "",
        )
    from attncli.reading.parse.samples import located

    with reading(path, option, missing=missing), open(located(path), "rb") as file:
        data = _read_capped(file, path, option == "-i")
    return data.removeprefix(codecs.BOM_UTF8), path


def _read_capped(file: IO[bytes], source: str, document: bool) -> bytes:
    """All of `file`, refused past MAX_INPUT_BYTES (-i /dev/zero must not fill memory);
    `document`: it is -i's JSON document, which .npy would hold in fewer bytes."""
    data = file.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise too_large_input(source, document)
    return data


def json_file(path: str) -> Any:
    """A model folder's JSON file (config.json, tokenizer_config.json, an index) read by the
    one JSON reader: a key given twice is refused, as in every input. A missing file raises
    FileNotFoundError, for the caller to say what the folder lacks."""
    if not os.path.exists(path):
        raise FileNotFoundError(path)  # the caller says what the folder lacks
    text, _source = read_text(path, None, None)
    return parse_json(text, path, Message(_("expected the file as transformers writes it")))


def stdin_is_piped(stdin: IO[str] | None) -> bool:
    """True when stdin is a pipe or file, not a terminal and not closed."""
    if stdin is None or stdin.closed:
        return False
    try:
        return not stdin.isatty()
    except (ValueError, OSError):
        return False


def load_document(
    path: str | None,
    bare_field: str | None,
    read_stdin: bool,
    stdin: IO[str] | None = None,
    required: tuple[str, ...] = ("keys",),
) -> Document:
    """The input document from --input, or from piped stdin; {} when there is none.

    A bare JSON array is accepted when the command has one field it can mean
    (`bare_field`), e.g. scores for softmax.
    """
    stdin = sys.stdin if stdin is None else stdin
    if path is not None and path != "-":
        from attncli.reading.parse.samples import located

        found = located(path)  # -i mha_x: the installed sample, where no such file exists
        _refuse_weight_file(found)
        if found.endswith((".npy", ".npz")):
            return load_arrays(found)
    # what the document is: an object of named fields, or the bare array of its one field
    example = example_document(required)
    takes = Message(JSON_DOCUMENT) if bare_field else Message(NAMED_FIELDS, example=example)
    if path is not None:
        text, source = read_raw(path, stdin)
        if not text or text.isspace():  # (strip() would copy a 200 MB text to see it)
            raise InputError(EMPTY, where=source, expected=takes)
    elif read_stdin and stdin_is_piped(stdin):
        assert stdin is not None
        text, source = read_raw("-", stdin)
        if not text or text.isspace():
            return {}
    else:
        return {}
    expected = expected_document(required, bare_field is not None)
    value, finite = read_json(text, source, expected, lambda data: decoded(data, source))
    if isinstance(value, list) and bare_field is not None:
        return {bare_field: value}
    document = json_object(value, source, takes)
    return FiniteDocument(document) if finite else document


def _refuse_weight_file(path: str) -> None:
    """A pickle file (.pt, .bin) is never opened; a .safetensors file holds a layer's
    weights, which attn selfattn takes as --weights FILE."""
    if path == "-" or path.lower().endswith((".json", ".npy", ".npz")):
        return  # the common case, without importing the weight-file readers
    from attncli.reading.parse.tensor_files import refuse_pickle

    refuse_pickle(path)
    if path.lower().endswith(".safetensors"):
        raise InputError(
            _(
                "{path} holds a layer's weights, not an input document; give it to attn "
                "selfattn as --weights FILE (with x in -i, or a sentence)"
            ),
            path=shown(path, PATH_SHOWN),
        )


def load_arrays(path: str) -> Document:
    """A .npy file (read as `x`) or a .npz archive (its names are the fields), never unpickled.

    Each array's header is checked against the bytes that follow it and against memory
    before numpy allocates what the header claims.
    """
    import numpy as np

    from attncli.reading.parse.tensor_files import numpy_headers

    with reading(path, "-i"):  # the headers' own refusals said as they are
        for _name, where, shape, claimed in numpy_headers(path):
            if claimed > MAX_INPUT_BYTES:  # already a .npy: not told to save it as one
                raise InputError(
                    _(
                        "{source}: its array of shape {tuple} takes {claimed:,} bytes, more "
                        "than {most} GiB, the most attn reads; give a smaller array"
                    ),
                    source=where,
                    tuple=shape,
                    claimed=claimed,
                    most=MAX_INPUT_BYTES >> 30,
                )
            # the array as stored, and the float64 copy the checks make of it
            check_free_memory(2 * claimed, where)
        # every header checked against its bytes and memory: numpy may allocate them now
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            return {"x": loaded}
        with loaded as archive:
            document = {name: archive[name] for name in archive.files}
    if "tokens" in document:
        document["tokens"] = _token_array(document["tokens"], path)
    return document


def _token_array(value: Any, path: str) -> Any:
    """Token names saved by numpy: a 1-D array of str, or of bytes in UTF-8, as a list."""
    if not hasattr(value, "dtype") or value.dtype.kind not in "US":
        return value  # parse_tokens says what is wrong with it
    kind = Message(_("an array of shape {shape}"), shape=value.shape)
    if value.ndim == 1:
        try:
            return [bytes(t).decode("utf-8") if value.dtype.kind == "S" else str(t) for t in value]
        except UnicodeDecodeError:
            kind = Message(_("bytes that are not UTF-8"))
    raise InputError(
        WRONG,
        where=f"{shown(path, PATH_SHOWN)}: tokens",
        kind=kind,
        expected=Message(
            _("a 1-D array of names as str, e.g. numpy.array(['en', 'las', 'llaves'])")
        ),
    )


def document_from(
    path: str | None,
    bare_field: str | None,
    inline: dict[str, Any],
    required: tuple[str, ...],
    lang: str = "en",
) -> Document:
    """The input document with inline options laid over it (option text, or values
    already read, such as softmax's arguments).

    Stdin is read only when the options do not already give every required field,
    so `attn softmax 2 0 1` inside a script never swallows the script's input. Option text
    is read as `lang` writes numbers (Spanish: '0,5; 1', rows by '|').
    """
    from attncli.reading.parse.arguments import parse_inline
    from attncli.reading.parse.values import GivenDocument, parse_tokens

    given = {name for name, text in inline.items() if text is not None}
    document = load_document(
        path, bare_field, read_stdin=not set(required) <= given, required=required
    )
    # A query typed replaces the document's queries, and the other way round; both typed
    # are both kept, for the one reader to refuse as it refuses both in a document.
    if given & {"query", "queries"}:
        document.pop("query", None)
        document.pop("queries", None)
    for name, text in inline.items():
        if text is None:
            continue
        if name == "tokens":
            document["tokens"] = parse_tokens(text, "--tokens")
            continue
        document[name] = parse_inline(text, name, lang) if isinstance(text, str) else text
    # what an option typed is named by its option (--keys); values already read (softmax's
    # arguments) and the file's fields by their own names
    typed = frozenset(name for name, text in inline.items() if isinstance(text, str))
    if typed:
        document = document if isinstance(document, GivenDocument) else GivenDocument(document)
        document.typed = typed
    return document
