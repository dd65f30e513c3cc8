"""A model folder's files: the safetensors file that holds its weights, or the shards its
index names (each tensor the index names held by them), never a pickle; and the files attn
reads there, each a regular file (a pipe in place of config.json would be waited on
forever)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from attncli.errors import InputError
from attncli.messages import Message, _
from attncli.reading.models.checkpoint import needed
from attncli.reading.models.config_fields import Rule, config_json, held
from attncli.reading.parse.opening import check_regular, unreadable

SAFETENSORS = "model.safetensors"
INDEX = "model.safetensors.index.json"
PICKLED = ("pytorch_model.bin", "pytorch_model.bin.index.json")
# why a part the index names is needed (checkpoint.MISSING_PART's {needs}): a shard the
# folder lacks, or a tensor its shard does not hold
NAMED_SHARD = _("{index} names it, so the folder is not the model's whole: download the model "
                "again")  # fmt: skip
NAMED_TENSOR = _(
    "{index} names it in {shard}, which does not hold it; the shard is another file than "
    "the model's: download the model again"
)
WEIGHT_MAP = Rule(
    lambda found: isinstance(found, dict) and all(isinstance(s, str) for s in found.values()),
    Message(_("an object of each tensor's name and the shard file that holds it")),
)


def weight_files(folder: str) -> list[str]:
    """The safetensors file, or the shards its index names; pickle files are refused."""
    single = os.path.join(folder, SAFETENSORS)
    if os.path.isfile(single):
        return [single]
    index = os.path.join(folder, INDEX)
    if os.path.isfile(index):
        shards = sorted(set(_weight_map(index).values()))
        paths = [os.path.join(folder, shard) for shard in shards]
        for path in paths:
            check_regular(path)  # a pipe would wait forever
            needed(path if os.path.isfile(path) else None, path, Message(NAMED_SHARD, index=INDEX))
        return paths
    for pickled in PICKLED:
        if os.path.isfile(os.path.join(folder, pickled)):
            hint = (
                'python -c "from transformers import AutoModel; m = AutoModel.from_pretrained'
                f"('{folder}'); m.save_pretrained('{folder}')\""
            )
            raise InputError(
                _(
                    "{folder} has only {pickled}, a pickle file, which can run code when it is "
                    "opened, and attn never opens one; convert it once where torch is: {hint}"
                ),
                folder=folder,
                pickled=pickled,
                hint=hint,
            )
    raise InputError(
        _("{folder} has no {file}: attn reads a model's weights from safetensors"),
        folder=folder,
        file=SAFETENSORS,
    )


def _weight_map(index: str) -> dict[str, str]:
    """The index's weight_map: each tensor's name and the shard file that holds it."""
    import errno

    gone = FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))  # since it was found
    weight_map = config_json(index, unreadable(index, gone)).get("weight_map")
    return dict(held(weight_map, index, "weight_map", WEIGHT_MAP))


def check_index(folder: str, tensors: Mapping[str, object]) -> None:
    """Each tensor the index names is in the shards: a shard that holds other tensors (a
    link to another shard, a file of another model) would leave layers out, to be blamed
    on config.json."""
    index = os.path.join(folder, INDEX)
    if os.path.isfile(os.path.join(folder, SAFETENSORS)) or not os.path.isfile(index):
        return
    for name, shard in _weight_map(index).items():
        whose = Message(NAMED_TENSOR, index=index, shard=os.path.join(folder, shard))
        needed(name if name in tensors else None, name, whose)


# The files of a model folder attn reads (and any .safetensors shard).
READ_FILES = ("config.json", INDEX, "tokenizer.json", "tokenizer_config.json", "vocab.txt")


def check_regular_files(folder: str) -> None:
    """Refuse a model folder where a file attn reads is not a regular file: a pipe in place
    of config.json would block the read forever, a device would never end."""
    try:
        names = os.listdir(folder)
    except OSError:
        return  # read_config says what is wrong with the folder
    for name in names:
        if name in READ_FILES or name.endswith(".safetensors"):
            check_regular(os.path.join(folder, name))
