"""Where this machine keeps what attn reads and writes: the user's cache folder, the Hugging
Face hub cache (as huggingface_hub finds it), a repository there and its snapshots, looked
in for a model folder (locate) and for a GGUF file (gguf_places) alike."""

from __future__ import annotations

import contextlib
import os


def user_cache() -> str:
    """The user's cache folder: XDG_CACHE_HOME, else ~/.cache (the Hugging Face cache's and
    the converted GGUF files' base)."""
    return os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")


def hub_cache() -> str:
    """The Hugging Face hub cache folder, as huggingface_hub finds it."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return os.path.join(user_cache(), "huggingface", "hub")


def hub_repos(name: str, cache: str) -> list[str]:
    """The cache's folders (models--OWNER--NAME) of the repository `name`: OWNER/NAME
    exactly, or NAME whole under any owner (never a part of a name: `tiny` is not
    `org/tiny-bert`), in the order of their names."""
    try:
        entries = sorted(os.listdir(cache))
    except OSError:
        return []
    wanted = name.lower().replace("/", "--")
    found = []
    for entry in entries:
        lower = entry.lower()
        if not lower.startswith("models--"):
            continue
        repo_name = lower[len("models--") :]
        owner, _sep, short = repo_name.rpartition("--")
        if repo_name == wanted or ("/" not in name and owner and short == wanted):
            found.append(entry)
    return found


def snapshots(repo: str) -> list[str]:
    """A cached repository's snapshot folders, in the order they are looked in: the one
    refs/main names, then each, the newest first."""
    folder = os.path.join(repo, "snapshots")
    try:
        with open(os.path.join(repo, "refs", "main"), encoding="ascii") as handle:
            found = [os.path.join(folder, handle.read().strip())]
    except OSError:
        found = []
    with contextlib.suppress(OSError):
        found += sorted((os.path.join(folder, n) for n in sorted(os.listdir(folder))),
                        key=os.path.getmtime, reverse=True)  # fmt: skip
    return found
