"""A GGUF file converted once into a model folder, kept in the user's cache.

Opening a GGUF file costs seconds (the gguf package reads each of its tokens one by one, and
dequantizing every tensor more); a folder of config.json, model.safetensors (float32, the
dequantized values exactly), tokenizer.json and tokenizer_config.json opens in a fraction
of one. The first run converts (and says so on stderr); later runs read the folder:

    ATTN_GGUF_CACHE unset   ~/.cache/attncli/gguf (XDG_CACHE_HOME/attncli/gguf)
    ATTN_GGUF_CACHE=DIR     DIR
    ATTN_GGUF_CACHE=off     no cache: converted again on every run, into a temporary folder

A model shipped in parts (FILE.gguf.part00, .part01, … in several packages) is first joined
into ROOT/joined/FILE.gguf, once (again when the parts' total size changes), through a
temporary file and one rename; with the cache off, into a temporary folder.

A folder is named by the file's stem and a key of its path, size and modification time (and
the conversion's own version), so that a changed file is converted again. It is written in a
temporary folder beside it and renamed whole; converted.json, its list of files and their
sizes, is checked on every read, and a folder that fails the check is converted again,
never read half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from attncli.errors import InputError, first_line
from attncli.messages import Message, _
from attncli.reading.models.caches import user_cache
from attncli.reading.parse.opening import reading

# the conversion's version: a new one converts every file again (2: Gemma 3 27B's
# query_pre_attn_scalar is hidden_size ÷ heads, as llama.cpp scales it, not the head size)
FORMAT = 2
RECORD = "converted.json"
NOT_WHOLE = _("{folder}: the converted model is not whole; converting {path} again")
CONVERTING = _(
    "converting {path} once into {folder} (later runs read it from there; "
    "ATTN_GGUF_CACHE=off converts on every run instead)"
)
FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")
UNWRITABLE = _(
    "{folder}: the converted model could not be written there ({reason}); set "
    "ATTN_GGUF_CACHE to a folder you can write, or ATTN_GGUF_CACHE=off"
)


@contextlib.contextmanager
def writing(folder: str) -> Iterator[None]:
    """What the cache writes: a folder it cannot make, a full disk, a file where a folder
    should be, in one line naming the folder (safetensors says an I/O error in its own
    exception)."""
    from safetensors import SafetensorError

    try:
        yield
    except (OSError, SafetensorError) as error:
        raise unwritable(folder, error) from None


def unwritable(folder: str, error: Exception) -> InputError:
    """The cache's folder could not be written: the system's reason (No space left on
    device), else the library's first line."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else None
    return InputError(UNWRITABLE, folder=folder, reason=reason or first_line(error, 100))


def cache_root() -> str | None:
    """Where converted files are kept; None when the cache is turned off."""
    chosen = os.environ.get("ATTN_GGUF_CACHE", "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return os.path.expanduser(chosen)
    return os.path.join(user_cache(), "attncli", "gguf")


def _source(path: str) -> dict[str, Any]:
    stat = os.stat(path)
    return {"path": os.path.realpath(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def entry_folder(path: str, root: str) -> str:
    """The cache folder of the GGUF file at `path`."""
    source = _source(path)
    text = json.dumps({**source, "format": FORMAT}, sort_keys=True)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    stem = os.path.basename(path)
    stem = stem[: -len(".gguf")] if stem.lower().endswith(".gguf") else stem
    return os.path.join(root, f"{stem}-{key}")


def is_whole(folder: str) -> bool:
    """converted.json read, and every file it lists there with its size, the weights'
    header readable: a folder that is not is converted again."""
    try:
        with open(os.path.join(folder, RECORD), encoding="utf-8") as file:
            record = json.load(file)
        if record.get("format") != FORMAT:
            return False
        for name in FILES:
            if os.path.getsize(os.path.join(folder, name)) != record["sizes"][name]:
                return False
        with open(os.path.join(folder, "model.safetensors"), "rb") as weights:
            length = int.from_bytes(weights.read(8), "little")
            json.loads(weights.read(length))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return True


def _notice(message: Message) -> None:
    """One line on stderr, in the language ATTN_LANG asks for (English by default)."""
    lang = os.environ.get("ATTN_LANG", "").strip().lower() or "en"
    try:
        text = message.said(lang if lang in ("en", "es") else "en")
    except (KeyError, ValueError):
        text = message.said()
    print(text, file=sys.stderr, flush=True)


def convert(path: str, folder: str, announce: Message | None = None) -> None:
    """The GGUF file at `path` as a model folder in `folder` (which exists, empty): every
    check first, then the tokenizer, then the tensors one by one into model.safetensors;
    `announce` said on stderr once the checks have passed."""
    from safetensors.numpy import save_file

    from attncli.limits import check_free_memory
    from attncli.reading.models.gguf_file import (
        config_of,
        dequantized,
        float32_bytes,
        open_gguf,
        plan,
    )
    from attncli.reading.models.gguf_tokens import tokenizer_files

    model = open_gguf(path)
    config = config_of(model)
    planned = plan(model, config)
    # before a tensor is dequantized: the float32 copy the conversion holds
    check_free_memory(
        float32_bytes(planned), Message(_("the model in {path}, dequantized"), path=path)
    )
    text, tokenizer_config = tokenizer_files(model)
    if announce is not None:
        _notice(announce)
    tokenizer_config["model_max_length"] = config["max_position_embeddings"]
    with writing(folder):
        _write_text(os.path.join(folder, "tokenizer.json"), text)
        _write_text(os.path.join(folder, "tokenizer_config.json"), json.dumps(tokenizer_config))
    tensors = dict(dequantized(model, planned))
    with writing(folder):
        save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
        del tensors
        _write_text(os.path.join(folder, "config.json"), json.dumps(config, indent=1))
        sizes = {name: os.path.getsize(os.path.join(folder, name)) for name in FILES}
        record = {"format": FORMAT, "source": _source(path), "sizes": sizes}
        _write_text(os.path.join(folder, RECORD), json.dumps(record, indent=1))


JOINING = _("joining the {count} parts of {file} once into {path}")
NOT_THE_FILE = _(
    "{path}: the parts joined have the sha256 {found}, and {sums} gives {expected}; the "
    "parts are damaged: reinstall the model's packages"
)


def joined(name: str, parts: list[str], sha256: str | None = None) -> str:
    """The file `name` made of `parts` in order: the cache's copy when it is there with
    their total size, else joined now (said on stderr), checked against `sha256` when it
    is known, and renamed into place whole."""
    import hashlib

    root = cache_root()
    folder = _temporary() if root is None else os.path.join(root, "joined")
    target = os.path.join(folder, name)
    total = 0
    for part in parts:  # what the system says of a part, said as of any file attn reads
        with reading(part):
            total += os.path.getsize(part)
    with contextlib.suppress(OSError):
        if os.path.getsize(target) == total:
            return target
    _notice(Message(JOINING, count=len(parts), file=name, path=target))
    with writing(folder):
        os.makedirs(folder, exist_ok=True)
        handle, work = tempfile.mkstemp(prefix=".joining-", dir=folder)
    digest = hashlib.sha256()
    try:
        with writing(folder), os.fdopen(handle, "wb") as out:
            for part in parts:
                with open(part, "rb") as source:
                    while block := source.read(1 << 22):
                        digest.update(block)
                        out.write(block)
        if sha256 is not None and digest.hexdigest() != sha256:
            raise InputError(
                NOT_THE_FILE, path=name, found=digest.hexdigest()[:16] + "…",
                sums="SHA256SUMS", expected=sha256[:16] + "…",
            )  # fmt: skip
        with writing(folder):
            os.replace(work, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(work)
    return target


def _temporary() -> str:
    """A temporary folder, for the cache turned off, removed when attn exits."""
    import atexit

    with writing(tempfile.gettempdir()):
        folder = tempfile.mkdtemp(prefix="attn-gguf-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def converted(path: str) -> str:
    """The model folder of the GGUF file at `path`: the cache's, converted first when it is
    not there whole (said on stderr); with the cache off, a temporary folder removed when
    attn exits."""
    root = cache_root()
    if root is None:
        folder = _temporary()
        convert(path, folder)
        return folder
    folder = entry_folder(path, root)
    if is_whole(folder):
        return folder
    announce = Message(CONVERTING, path=path, folder=folder)
    if os.path.exists(folder):
        announce = Message(NOT_WHOLE, folder=folder, path=path)
        shutil.rmtree(folder, ignore_errors=True)
    with writing(root):
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".converting-", dir=root)
    try:
        convert(path, work, announce)
        try:
            os.rename(work, folder)
        except OSError as error:  # another run converted it meanwhile: keep the one that is whole
            if not is_whole(folder):
                raise unwritable(root, error) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _forget_older(path, root, folder)
    return folder


def _forget_older(path: str, root: str, kept: str) -> None:
    """The cache's earlier conversions of the same file (before it changed) removed."""
    real = os.path.realpath(path)
    stem = os.path.basename(kept).rsplit("-", 1)[0]
    for name in os.listdir(root):
        other = os.path.join(root, name)
        if other == kept or not name.startswith(stem + "-"):
            continue
        try:
            with open(os.path.join(other, RECORD), encoding="utf-8") as file:
                if json.load(file)["source"]["path"] != real:
                    continue
        except (OSError, ValueError, KeyError, TypeError):
            continue
        shutil.rmtree(other, ignore_errors=True)
