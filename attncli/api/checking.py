"""attn check as an operation: a worksheet's blanks and the student's answers to them,
each marked as attn exercise's key has it, carrying the student's own numbers forward.

>>> import attncli as attn
>>> marked = attn.check(seed=3, answers=["1", "2", "2", "2,72", "7,39", "7,39", "17,5"],
...                     lang="es")
>>> [verdict.kind for verdict in marked.verdicts]
['right', 'right', 'right', 'right', 'right', 'right', 'right']
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from attncli.errors import InputError, OptionError
from attncli.explain.checking import Blank, Corrector, Verdict
from attncli.messages import Message, _, in_decimals
from attncli.results.checking import CheckResult


def corrector(seed: int = 0, size: int = 3, dim: int | None = None, method: str = "dot"):
    """The worksheet of `attn exercise` with these options, and its corrector."""
    from attncli.api.exercise import exercise

    if method not in ("dot", "scaled"):
        raise OptionError(
            _(
                "--method {method}: attn check corrects the dot and scaled sheets; work a "
                "{method} sheet with attn exercise --method {method} --answers"
            ),
            method=method,
        )
    sheet = exercise(seed=seed, size=size, dim=dim, method=method)
    marking = Corrector(sheet.query, sheet.keys, sheet.values, scaled=method == "scaled")
    return sheet, marking


def read_answer(text: str, blank: Blank, lang: str = "en") -> np.ndarray:
    """A student's answer as typed: a number (0,665 in Spanish, 0.665 in English), a
    fraction (2/3), or for a vector its numbers as the language writes them (6,65; 0)."""
    from attncli.reading.parse.arguments import parse_inline

    stripped = text.strip()
    if not stripped:
        raise InputError(_("no answer given; type a number"))
    if not blank.vector and stripped.count("/") == 1:
        top, bottom = (read_answer(part, blank, lang) for part in stripped.split("/"))
        if float(bottom) == 0:
            raise InputError(_("{text}: a fraction over 0 is no number"), text=stripped)
        return np.asarray(float(top) / float(bottom))
    try:
        value = np.asarray(parse_inline(stripped, "answer", lang), dtype=np.float64)
    except InputError:
        raise InputError(
            _("{text} is not a number; type it as the sheet writes numbers ({example})"),
            text=stripped,
            example=Message(
                _("{number} or a fraction such as 2/3"), number=in_decimals("0.665", lang)
            ),
        ) from None
    if not blank.vector:
        if value.size != 1:
            raise InputError(_("{text}: this blank takes one number"), text=stripped)
        return value.reshape(())
    return value


def check(
    seed: int = 0,
    size: int = 3,
    dim: int | None = None,
    method: str = "dot",
    *,
    answers: Iterable[str],
    lang: str = "en",
) -> CheckResult:
    """Mark `answers` (the blanks in the sheet's order, as a student types them) against
    the worksheet `attn exercise` makes with these options; fewer answers mark fewer
    blanks. An answer that is not a number is marked wrong and said so."""
    sheet, marking = corrector(seed, size, dim, method)
    verdicts: list[Verdict] = []
    for blank, text in zip(marking.blanks, answers, strict=False):
        try:
            verdicts.append(marking.mark(blank, read_answer(text, blank, lang)))
        except InputError:
            verdicts.append(Verdict(blank, np.array(np.nan), "wrong", marking.carried(blank)))
    return CheckResult(sheet=sheet, verdicts=tuple(verdicts), blanks=tuple(marking.blanks))
