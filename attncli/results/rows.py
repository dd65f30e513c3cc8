"""Which row --steps explains: by number (1-based), by token name, or the last."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attncli.errors import InputError, OptionError, shown
from attncli.messages import Message, Setting, _, typed


def check_pick(named: Any, number: int, total: int, there: Message) -> None:
    """A 1-based pick among `total` (a row, a head, a layer, a batch's sequence, a training
    run's iteration): `number` from 1 to `total`, else one line naming the pick as its
    surface spells it (`named`: `--layer 9`, `layer=9`) and saying what `there` is."""
    if not 1 <= number <= total:
        raise OptionError(_("{option} is out of range: {there} (1 to {total})"), option=named,
                          there=there, total=total)  # fmt: skip


def pick_row(row_labels: Sequence[str], row: int | None, token: str | None) -> int:
    """The 0-based row that --steps explains: --row N (1-based), --token NAME, or the last."""
    total = len(row_labels)
    if row is not None and token is not None:
        raise InputError(
            _("{row} and {token} both pick a row; give only one"),
            row=Setting("row"),
            token=Setting("token"),
        )
    if token is not None:
        return _token_row(list(row_labels), token)
    if row is not None:
        rows = Message(_("there are {total} rows"), total=total)
        check_pick(Setting("row", row), row, total, rows)
        return row - 1
    return total - 1


def _folded(text: str) -> str:
    """Text without accents and case: «Están» and «estan» fold alike."""
    import unicodedata

    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _token_row(labels: list[str], token: str) -> int:
    """The row named `token`: an exact match, else the one row that matches without accents
    or case (--token estan finds «están» on a keyboard without ñ or accents)."""
    import unicodedata

    exact = unicodedata.normalize("NFC", token)
    normalized = [unicodedata.normalize("NFC", label) for label in labels]
    if exact in normalized:
        return normalized.index(exact)
    loose = [i for i, label in enumerate(labels) if _folded(label) == _folded(token)]
    if len(loose) == 1:
        return loose[0]
    known = ", ".join(labels)
    raise InputError(
        _("{token} is not a row here; the rows are: {rows}"),
        token=typed(Setting("token"), shown(repr(token))),
        rows=shown(known, 200),
    )
