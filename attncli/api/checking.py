"""attn check as an operation: a worksheet's blanks and the student's answers to them,
each marked as attn exercise's key has it, carrying the student's own numbers forward.

>>> import attncli as attn
>>> marked = attn.check(seed=3, answers=["1", "2", "2", "2,72", "7,39", "7,39", "17,5"],
...                     lang="es")
>>> [verdict.kind for verdict in marked.verdicts]
['right', 'right', 'right', 'right', 'right', 'right', 'right']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from attncli.api.keywords import FILES, LANGUAGE, SEED, Kind, keywords, listed
from attncli.api.questions import each_answer
from attncli.errors import InputError, count
from attncli.explain.checking import Blank, Corrector, Verdict
from attncli.messages import Message, _, component_mark, in_decimals
from attncli.results.checking import CheckResult, ClassCheck
from attncli.results.exercise import Sheet


def corrector(
    seed: int = 0,
    size: int = 3,
    dim: int | None = None,
    method: str = "dot",
    selfattn: bool = False,
) -> tuple[Sheet, Corrector]:
    """The worksheet of `attn exercise` with these options, and its corrector."""
    from attncli.api.exercise import check_selfattn_sheet, exercise, selfattn_exercise

    if selfattn:
        check_selfattn_sheet(None if method == "dot" else method)
        layer_sheet = selfattn_exercise(seed, size, dim)
        return layer_sheet, corrector_of(layer_sheet)
    sheet = exercise(seed=seed, size=size, dim=dim, method=method)
    return sheet, corrector_of(sheet)


def corrector_of(sheet: Sheet) -> Corrector:
    """The corrector of a sheet attn exercise made."""
    from attncli.results.exercise import SelfAttnExercise

    if isinstance(sheet, SelfAttnExercise):
        layer = sheet.layer
        assert layer.x is not None  # the exercise gives X
        given = {name: np.asarray(layer.projections[name]) for name in ("w_q", "w_k", "w_v")}
        row = {"row": np.asarray(sheet.asking)}
        return Corrector("selfattn", parameters={"x": np.asarray(layer.x), **given, **row})
    return Corrector(sheet.method, sheet.query, sheet.keys, sheet.values, dict(sheet.parameters))


def read_answer(text: str, blank: Blank, lang: str = "en", size: int | None = None) -> np.ndarray:
    """A student's answer as typed: a number (0,665 in Spanish, 0.665 in English), a
    fraction (2/3), or for a vector its numbers as the language writes them (6,65; 0),
    `size` of them when given; never a NaN or an infinity."""

    # a typographic minus (−2, as the sheet prints it) is the minus a student means
    stripped = text.strip().replace("\u2212", "-")
    if not stripped:
        raise InputError(_("no answer given; type a number"))
    if not blank.vector and stripped.count("/") == 1:
        top, bottom = (read_answer(part, blank, lang) for part in stripped.split("/"))
        if float(bottom) == 0:
            raise InputError(_("{text}: a fraction over 0 is no number"), text=stripped)
        value = np.asarray(float(top) / float(bottom))
    else:
        value = _typed_numbers(stripped, blank, lang)
    if not np.isfinite(value).all():  # nan, inf or 1e400: no step of a sheet gives it
        raise InputError(
            _(
                "{text}: no step of the sheet gives an infinite or undefined number; type the "
                "number you worked out"
            ),
            text=stripped,
        )
    wanted = 1  # numbers the blank takes
    if blank.vector:
        if value.ndim == 2 and 1 in value.shape:  # 0; 0.78 in English reads as a column
            value = value.ravel()
        wanted = value.size if size is None else size
    fits = value.ndim == 1 and value.size == wanted if blank.vector else value.size == 1
    if not fits:
        raise InputError(
            _("{text}: this blank takes {count}"), text=stripped, count=count(wanted, "number")
        )
    return value if blank.vector else value.reshape(())


def _typed_numbers(stripped: str, blank: Blank, lang: str) -> np.ndarray:
    """The numbers of an answer as typed (not a fraction): 0,665, 6,65; 0, or 1 2 3."""
    from attncli.reading.parse.arguments import parse_inline

    try:
        value = np.asarray(parse_inline(stripped, "answer", lang), dtype=np.float64)
    except (InputError, ValueError, TypeError):  # [1, [2]] or {} reads as JSON, not numbers
        spaced = _spaced(stripped, lang)  # numbers with spaces between them: 1 2 3
        if spaced is None and blank.vector:
            first = in_decimals("6.65", lang)
            raise InputError(
                _(
                    "{text} is not a vector of numbers; type its numbers as the sheet writes "
                    "them ({example}) or with spaces between them ({spaced})"
                ),
                text=stripped,
                example=f"{first}{component_mark(lang)} 0",
                spaced=f"{first} 0",
            ) from None
        if spaced is None:
            raise InputError(
                _("{text} is not a number; type it as the sheet writes numbers ({example})"),
                text=stripped,
                example=Message(
                    _("{number} or a fraction such as 2/3"), number=in_decimals("0.665", lang)
                ),
            ) from None
        value = spaced
    return value


def _spaced(text: str, lang: str) -> np.ndarray | None:
    """Numbers typed with spaces between them ('1 2 3', in Spanish also '2,5 0'), as the
    arguments of attn softmax are read; None when that is not what the text is."""
    from attncli.reading.parse.arguments import parse_number_args

    parts = text.split()
    if len(parts) < 2:
        return None
    try:
        return np.asarray(parse_number_args(parts, "answer", lang), dtype=np.float64)
    except InputError:
        return None


# More answers than the sheet has blanks: they were written for another sheet.
TOO_MANY_ANSWERS = _(
    "{given} answers for a sheet of {blanks} blanks; give one a blank, in the sheet's order "
    "(is the sheet's seed, size or method another?)"
)


# the answers to a sheet's blanks, one a blank: each a number or its text, or a vector
ANSWERS = Kind(listed(lambda answer: True), _('a list of answers, one a blank: ["1", "2", …]'))


@keywords(seed=SEED, lang=LANGUAGE, answers=ANSWERS)
def check(
    seed: int = 0,
    size: int = 3,
    dim: int | None = None,
    method: str = "dot",
    *,
    answers: Iterable[str | float | Sequence[float]],
    lang: str = "en",
    selfattn: bool = False,
) -> CheckResult:
    """Mark `answers` (the blanks in the sheet's order, as a student types them) against
    the worksheet `attn exercise` makes with these options (`selfattn` for the
    self-attention sheet); fewer answers mark fewer blanks. An answer that is not a number
    (or not as many numbers as its blank takes) is refused, naming its place in `answers`.

    >>> [v.kind for v in check(3, answers=["1", "2"]).verdicts]  # the sheet's first scores
    ['right', 'right']
    >>> check(3, answers=["2"]).verdicts[0].mistakes  # q · k paired with another key
    (('wrong_key', {'other': 1}), ('wrong_key', {'other': 2}))
    """
    sheet, marking = corrector(seed, size, dim, method, selfattn)
    too_many = Message(TOO_MANY_ANSWERS, blanks=len(marking.blanks))

    def marked(blank: Blank, given: str | float | Sequence[float]) -> Verdict:
        # a number or a list of them from Python, as the text a student would type
        text = given if isinstance(given, str) else " ".join(map(repr, np.ravel(given).tolist()))
        return marking.mark(blank, read_answer(text, blank, lang, marking.exact(blank).size))

    verdicts = each_answer(marking.blanks, list(answers), marked, too_many)
    return CheckResult(sheet=sheet, verdicts=tuple(verdicts), blanks=tuple(marking.blanks))


@keywords(paths=FILES)
def check_files(paths: Iterable[str]) -> ClassCheck:
    """A class's answer files (CSV or JSON, as attn exercise --answer-sheet writes them
    empty) corrected: each against its own sheet, in the order given.

    Each row is held against the sheet's blank in the same place (its step and token); an
    empty answer is a blank not done, and the steps after it are marked from the sheet's
    number there."""
    from attncli.reading.parse.answer_sheets import read_answer_file
    from attncli.results.checking import StudentCheck

    students = []
    for path in paths:
        filled = read_answer_file(path)
        selfattn = filled.sheet == "selfattn"
        method = "dot" if selfattn else filled.sheet
        sheet, marking = corrector(filled.seed, filled.size, filled.dim, method, selfattn)
        blanks = marking.blanks
        if len(filled.rows) != len(blanks):
            raise InputError(
                _(
                    "{path}: {rows} rows of answers; sheet {seed} has {blanks} blanks, one "
                    "row each (attn exercise --answer-sheet writes them)"
                ),
                path=path,
                rows=len(filled.rows),
                seed=filled.seed,
                blanks=len(blanks),
            )
        verdicts = []
        for blank, row in zip(blanks, filled.rows, strict=True):
            token = "" if blank.key is None else sheet.tokens[blank.key]
            if (row.step, row.token) != (blank.step, token):
                raise InputError(
                    _("{line}: the row is {step} {token}; the sheet's blank there is {blank}"),
                    line=row.line,
                    step=row.step,
                    token=row.token or "-",
                    blank=f"{blank.step} {token or '-'}",
                )
            if not row.answer:
                verdicts.append(marking.unanswered(blank))
                continue
            try:
                # a vector of the wrong length is marked wrong, not refused: one student's
                # slip does not stop the class's marking
                answer = read_answer(row.answer, blank, filled.lang)
            except InputError as error:
                raise InputError(
                    _("{line}: {problem}"), line=row.line, problem=error.said
                ) from None
            verdicts.append(marking.mark(blank, answer))
        result = CheckResult(sheet=sheet, verdicts=tuple(verdicts), blanks=tuple(blanks))
        students.append(StudentCheck(student=filled.student, path=path, check=result))
    if not students:
        raise InputError(_("no answer files given; name them, e.g. attn check answers/*.csv"))
    return ClassCheck(students=tuple(students))
