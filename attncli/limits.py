"""What a command may ask of this machine, checked before any array exists.

A size typed by mistake (--d-model 1000000000, a 100,000-token sentence) must end in one
line naming the option to lower, not in an out-of-memory kill minutes later. The
estimates are bounds in float64 numbers; the limit is half of the memory available now.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from attncli.errors import InputError, OptionError
from attncli.messages import Message, Setting, _, either

BYTES_PER_NUMBER = 8  # float64
MAX_INPUT_BYTES = 1 << 30  # a JSON or .npy input larger than 1 GiB is refused, not read
MAX_REPEAT = 10_000  # timed runs per method in compare-scores (api/comparison.check_sizes)
MAX_ITERATIONS = 1_000_000  # attn train's updates: each keeps its loss, a run stays minutes


def available_memory() -> int:
    """Bytes of memory this machine can still hand out (MemAvailable), else its total."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no sysconf (Windows): assume 8 GB
        return 8 * 10**9


MEMORY_REFUSED = _(
    "reading {what} takes about {needed:,.0f} MiB of memory, and {free:,.0f} MiB are free; "
    "close other programs or pick a smaller model"
)


def check_free_memory(needed: int, what: str | Message) -> None:
    """Refuse before reading when `needed` bytes are more than the memory free (a model's or
    a weight file's arrays, counted in the float64 attn computes in)."""
    free = available_memory()
    if needed > free:
        raise InputError(
            MEMORY_REFUSED,
            what=what,
            needed=needed / 2**20,
            free=free / 2**20,
        )


def size_text(amount: int) -> str:
    """Bytes as a person reads them: 7.4 MB, 28.8 kB; absurd sizes in powers of ten."""
    if amount >= 10**15:
        return f"{amount:.1e} bytes"
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if amount >= size:
            return f"{amount / size:.1f} {unit}"
    return f"{amount} bytes"


def check_fits(
    numbers: Callable[[Mapping[str, int]], int],
    sizes: Mapping[str, int],
    lowerable: tuple[str, ...],
    what: str | Message,
    memory: int | None = None,
    names: Mapping[str, str | Message | Setting] | None = None,
    hint: str | Message = "",
) -> None:
    """Refuse `sizes` when `numbers(sizes)` float64 numbers need more than half the memory.

    `sizes` maps what the user can change ("--d-model", "tokens") to its value; the message
    names the ones in `lowerable` that, set to 1 alone, would make the job fit, or else
    the one that weighs most. `what` says what is being sized; `names` how to say a size
    that is not an option ("tokens": Message("the number of tokens")), or an option as the
    surface that shows it names it ("--d-a": Setting("d_a")); `hint` what follows.
    """
    memory = available_memory() if memory is None else memory
    need = numbers(sizes) * BYTES_PER_NUMBER
    if need <= memory // 2:
        return
    relief = {name: numbers({**sizes, name: 1}) * BYTES_PER_NUMBER for name in lowerable}
    culprits = [name for name in lowerable if relief[name] <= memory // 2]
    if not culprits:
        culprits = [min(lowerable, key=lambda name: relief[name])]
    need_text, memory_text = size_text(need), size_text(memory)
    names = names or {}
    raise OptionError(
        _(
            "{what} would need about {need}, more than half of the {memory} available; "
            "lower {lower}{hint}"
        ),
        what=what,
        need=need_text,
        memory=memory_text,
        # either() nests a Setting as it nests a text: each surface writes it its own way
        lower=either([names.get(name, name) for name in culprits]),  # type: ignore[misc]
        hint=hint,
    )


def too_large_input(source: str, document: bool = True) -> InputError:
    """The error for an input past MAX_INPUT_BYTES. A JSON document (`document`) is told of
    .npy, which holds the same numbers in fewer bytes; other text (a corpus, a sentence, an
    answer file) only to be smaller."""
    if not document:
        return InputError(
            _("{source}: larger than {most} GiB, the most attn reads; give a smaller file"),
            source=source,
            most=MAX_INPUT_BYTES >> 30,
        )
    return InputError(
        _(
            "{source}: larger than {most} GiB, the most attn reads; give a smaller input (or "
            "save large arrays as .npy)"
        ),
        source=source,
        most=MAX_INPUT_BYTES >> 30,
    )
