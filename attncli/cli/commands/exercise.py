"""attn exercise: a problem to work by hand, and its options."""

from collections.abc import Mapping
from enum import Enum
from typing import Annotated

from attncli.api.keywords import SEED, SHEETS
from attncli.cli.commands import command
from attncli.cli.declare import Option
from attncli.cli.options import ScoreMethod, methods_help
from attncli.messages import Message, _
from attncli.present.output import Output

# attn exercise
ProblemSeedOption = Annotated[
    int,
    Option(
        "--seed",
        min=SEED.least,
        max=SEED.most,
        help=_("Which problem: each seed gives another."),
    ),
]
SizeOption = Annotated[
    int,
    Option("--size", help=_("How many tokens (keys and values).")),
]
DimOption = Annotated[
    int | None,
    Option(
        "--dim",
        help=_("Numbers per vector. [default: 2; 4 with --method scaled, so that √d_k = 2]"),
    ),
]
ExerciseMethodOption = Annotated[
    ScoreMethod | None,
    Option(
        "--method",
        "-m",
        help=methods_help(_("The sheet gives the parameters. [default: dot]")),
    ),
]
SelfAttnOption = Annotated[
    bool,
    Option(
        "--selfattn",
        help=_(
            "A self-attention problem instead: X and small whole W^Q, W^K, W^V given; every "
            "token's q, k, v, then the scores (÷ √d_k), weights and output of the last token "
            "to work. Piped, attn selfattn checks it."
        ),
    ),
]
CountOption = Annotated[
    int,
    Option(
        "--count",
        min=SHEETS.least,
        max=SHEETS.most,
        help=_(
            "A class set: this many different sheets (seeds --seed, --seed + 1, …), each "
            "numbered with its seed, a page each in .tex and .html."
        ),
    ),
]


class WorksheetPositions(str, Enum):
    rope = "rope"


ExercisePositionsOption = Annotated[
    WorksheetPositions | None,
    Option(
        "--positions",
        help=_(
            "rope: rotary positions by hand, the query and each key turned by their "
            "position · 90° (cos and sin are 0 and ±1) before the dot score."
        ),
    ),
]
OnlineExerciseOption = Annotated[
    bool,
    Option(
        "--online",
        help=_(
            "The online softmax instead: small whole scores read 2 at a time, the running max "
            "m and sum ℓ to write after each block, then the weights."
        ),
    ),
]
LessonInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar=_("FILE"),
        reads=True,
        help=_(
            "A lesson's own problem instead of a fresh one: a query (or queries), keys and "
            "values, as -i tren (samples/tren.json, «el tren va lleno»), or x, w_q, w_k, w_v, "
            "as -i llaves, a row of its grid (--token)."
        ),
    ),
]
LessonTokenOption = Annotated[
    str | None,
    Option(
        "--token",
        help=_(
            "With -i FILE: the row of this token, of a grid of queries or of a layer's grid "
            "(the last by default)."
        ),
    ),
]
QuestionsOption = Annotated[
    bool,
    Option(
        "--questions",
        help=_(
            "The lessons' questions on ideas instead of a problem: what a layer without "
            "projections does, W^Q, W^K and W^V, √d_k, A's shape, a longer sentence, the "
            "additive score's cost, what the decoder limits; a letter each (--answers: the "
            "key, each with its explanation). attn check --questions marks them."
        ),
    ),
]
AnswersOnlyOption = Annotated[
    bool,
    Option(
        "--answers-only",
        help=_("The answer keys alone, each numbered as its sheet, to print apart."),
    ),
]
SheetBlankOption = Annotated[
    bool,
    Option(
        "--blank",
        help=_(
            "A spreadsheet (--export FILE.xlsx) with the student's cells empty and its "
            "formulas in the key's worksheets, after the sheets (a printed sheet is always "
            "blank)."
        ),
    ),
]
AnswerSheetOption = Annotated[
    str | None,
    Option(
        "--answer-sheet",
        metavar=_("FILE"),
        writes=True,
        help=_(
            "Also write each sheet's empty answer file, FILE.csv or FILE.json, one row per "
            "blank in the sheet's order, for the student to fill and attn check to correct "
            "(with --count, one per sheet: FILE-SEED.csv)."
        ),
    ),
]


@command(
    outputs=("answers", "digits"),
)
def exercise(
    seed: ProblemSeedOption = 0,
    size: SizeOption = 3,
    dim: DimOption = None,
    method: ExerciseMethodOption = None,
    selfattn: SelfAttnOption = False,
    count: CountOption = 1,
    answers_only: AnswersOnlyOption = False,
    positions: ExercisePositionsOption = None,
    online: OnlineExerciseOption = False,
    answer_sheet: AnswerSheetOption = None,
    blank: SheetBlankOption = False,
    questions: QuestionsOption = False,
    input_path: LessonInputOption = None,
    token: LessonTokenOption = None,
    *,
    output: Output,
) -> None:
    """A fresh problem to work by hand: score, softmax and mix, with empty cells to fill.

    Small whole numbers, as in the course: a query of 0s and 1s, keys from 0 to 2,
    values in steps of 5. --answers prints the filled key after the worksheet. Piped
    or with --json it writes the problem (and with --answers the results), so a student
    can check the work: attn exercise | attn score | attn softmax | attn mix

    A class set: attn exercise --count 30 --export hoja.tex, and its keys apart:
    attn exercise --count 30 --answers-only --export soluciones.tex

    Other scores: attn exercise --method general (or scaled, additive), its parameters
    given. Self-attention: attn exercise --selfattn | attn selfattn

    Sheets a class hands back as files: attn exercise --count 30 --answer-sheet
    answers/hoja.csv writes an empty answer file per sheet; attn check answers/*.csv
    corrects them all in one table.

    Rotary positions (as Llama's), by quarter turns: attn exercise --positions rope

    The online softmax by hand, blocks of 2: attn exercise --online --answers

    A spreadsheet whose cells compute, every step a formula: attn exercise --export
    hoja.xlsx (any kind of sheet, a class set a worksheet each); --blank leaves the
    student's cells empty and puts the formulas in the key's worksheets.

    The lessons' questions on ideas, a letter each: attn exercise --questions --answers

    A lesson's own sheet: attn exercise -i tren («el tren va lleno»), or a row of the
    «llaves» grid: attn exercise -i llaves --token están; attn check -i takes the same.

    Example: attn exercise --seed 7 --lang es --answers
    """
    from dataclasses import replace

    _refuse_together(answers_only, selfattn, method, positions, input_path, answer_sheet,
                     output)  # fmt: skip
    # the options that make a fresh problem: a lesson's own sheet and the questions take none
    problem = {"--seed": seed != 0, "--size": size != 3, "--dim": dim is not None,
               "--method": method is not None, "--selfattn": selfattn, "--count": count != 1,
               "--positions": positions is not None, "--online": online,
               "--answer-sheet": answer_sheet is not None}  # fmt: skip
    if input_path is not None or token is not None:
        fresh = {**problem, "--questions": questions, "--answers-only": answers_only}
        _lesson_sheet(input_path, token, fresh, output)
        return
    if questions:
        _questions_sheet({**problem, "--blank": blank}, answers_only, output)
        return
    rope = None if positions is None else positions.value
    if answer_sheet is not None:
        _check_answer_sheet_path(answer_sheet, rope, online)
    # The worksheet is what a terminal shows, not steps asked for: piped, the problem as JSON.
    # --blank (or --answers) as asked: a spreadsheet's student cells empty, its key apart.
    output = replace(output, steps=False, blank=True, sheet_blank=blank or output.answers)
    if online:
        _online_sheet(seed, size, dim, method, selfattn, count, answers_only, rope, output)
        return
    _problem_sheets(seed, size, dim, method, selfattn, count, answers_only, rope, answer_sheet,
                    output)  # fmt: skip


def _refuse_together(
    answers_only: bool,
    selfattn: bool,
    method: ScoreMethod | None,
    positions: WorksheetPositions | None,
    input_path: str | None,
    answer_sheet: str | None,
    output: Output,
) -> None:
    """The options that say two different sheets, or a sheet and its keys two ways."""
    from attncli.api.refusals import refuse_beside

    refuse_beside({"--answers": answers_only and output.answers}, "--answers-only",
                  _("--answers-only writes the keys alone, --answers each sheet followed by its "
                    "key; give one"))  # fmt: skip
    if selfattn:  # --method dot too: the sheet's score is attn selfattn's
        from attncli.api.exercise import check_selfattn_sheet

        check_selfattn_sheet(None if method is None else method.value,
                             None if positions is None else positions.value)  # fmt: skip
    if input_path is not None:
        refuse_beside({"--answer-sheet": answer_sheet}, Message(_("-i FILE")),
                      _("an answer file names a sheet attn exercise makes, by its seed; a "
                        "student marks the lesson's own sheet with attn check -i FILE"),
                      )  # fmt: skip


def _problem_sheets(
    seed: int,
    size: int,
    dim: int | None,
    method: ScoreMethod | None,
    selfattn: bool,
    count: int,
    answers_only: bool,
    rope: str | None,
    answer_sheet: str | None,
    output: Output,
) -> None:
    """A fresh problem's sheet (a score method's, or self-attention's), or a class set of
    --count sheets (or their keys alone); with --answer-sheet, each one's empty answer file."""
    from attncli.present.output import emit

    score = "dot" if method is None else method.value
    if count == 1 and not answers_only:
        from attncli.api.exercise import exercise as make
        from attncli.api.exercise import selfattn_exercise

        result = (
            selfattn_exercise(seed, size, dim) if selfattn else make(seed, size, dim, score, rope)
        )
        if answer_sheet is not None:
            _write_answer_sheets(answer_sheet, (result,), output)
        emit(result, output, document=result.to_document(answers=output.answers))
        return
    from attncli.api.exercise import exercise_set

    sheets = exercise_set(seed, size, dim, count, answers_only, score, selfattn, rope)
    if answer_sheet is not None:
        _write_answer_sheets(answer_sheet, sheets.sheets, output)
    emit(sheets, output, document=sheets.to_document(answers=output.answers))


def lesson_sheet_of(
    path: str | None, token: str | None, fresh: Mapping[str, object], lang: str
):  # fmt: skip
    """The sheet of a lesson's own problem in -i FILE, the row of --token; a fresh sheet's
    options given beside it (`fresh`: each option → its value or whether it was given) are
    refused."""
    from attncli.api.exercise import lesson_sheet
    from attncli.api.refusals import refuse_beside, refuse_without
    from attncli.reading.parse.sources import document_from

    refuse_without({"--token": token}, Message(_("-i FILE (-i tren)")), path is not None,
                   _("picks a row of a lesson's problem"))  # fmt: skip
    refuse_beside(fresh, Message(_("-i FILE")),
                  _("the sheet is the file's problem; leave out {option}"))  # fmt: skip
    document = document_from(path, None, {}, ("keys",), lang)
    return lesson_sheet(document, token=token)


def _lesson_sheet(
    path: str | None, token: str | None, fresh: Mapping[str, object], output: Output
):  # fmt: skip
    """attn exercise -i FILE: the lesson's own problem as a sheet, its key with --answers;
    piped, the problem as JSON (with its answers with --answers)."""
    from dataclasses import replace

    from attncli.present.output import emit

    sheet = lesson_sheet_of(path, token, fresh, output.lang)
    output = replace(output, steps=False, blank=True, sheet_blank=output.answers)
    emit(sheet, output, document=sheet.to_document(answers=output.answers))


def refuse_beside_questions(problem: Mapping[str, object]) -> None:
    """The lessons' questions are the same for everyone: attn exercise --questions and
    attn check --questions refuse an option of `problem` that would make a problem."""
    from attncli.api.refusals import refuse_beside

    refuse_beside(problem, "--questions",
                  _("the questions are the lessons' own, the same for everyone; leave out "
                    "{option}"))  # fmt: skip


def _questions_sheet(problem: Mapping[str, object], answers_only: bool, output: Output) -> None:
    """attn exercise --questions: the lessons' questions, their key with --answers (alone
    with --answers-only); piped, the questions as JSON (their answers with --answers)."""
    from dataclasses import replace

    from attncli.api.questions import questions
    from attncli.present.output import emit

    refuse_beside_questions(problem)
    sheet = questions(key_only=answers_only)
    emit(sheet, replace(output, steps=False, blank=True, sheet_blank=False),
         document=sheet.to_document(answers=output.answers))  # fmt: skip


def _online_sheet(
    seed: int,
    size: int,
    dim: int | None,
    method: ScoreMethod | None,
    selfattn: bool,
    count: int,
    answers_only: bool,
    rope: str | None,
    output: Output,
) -> None:
    """attn exercise --online: one sheet of scores for the online softmax (piped, the scores
    attn softmax --online reads; with --answers, its answers too)."""
    from attncli.api.inference import online_exercise
    from attncli.api.refusals import refuse_beside
    from attncli.present.output import emit

    others = {
        "--method": method is not None,
        "--selfattn": selfattn,
        "--count": count != 1,
        "--answers-only": answers_only,
        "--positions": rope is not None,
        "--dim": dim is not None,
    }  # fmt: skip (scores have no vectors to size)
    refuse_beside(others, "--online",
                  _("the online sheet is one row of scores; leave out {option}"))  # fmt: skip
    result = online_exercise(seed, size, 2)
    document = result.to_document()
    if not output.answers:
        document = {name: document[name] for name in ("tokens", "scores", "block")}
    emit(result, output, document=document)


def _check_answer_sheet_path(path: str, rope: str | None, online: bool) -> None:
    """An answer file is a .csv or a .json, of a sheet attn check corrects: anything else
    is refused before any work."""
    from attncli.api.refusals import refuse_beside
    from attncli.present.written import check_kind

    refuse_beside({"--positions rope": rope is not None, "--online": online}, "--answer-sheet",
                  _("attn check corrects the sheets of every --method and of --selfattn; leave "
                    "out one of them"))  # fmt: skip
    check_kind(path, "--answer-sheet", (".csv", ".json"))


def _write_answer_sheets(path: str, sheets: tuple, output: Output) -> None:
    """Each sheet's empty answer file, one row per blank."""
    from pathlib import Path

    from attncli.api.checking import corrector_of
    from attncli.present.answer_sheet import answer_sheet_paths, answer_sheet_text
    from attncli.present.written import write_file

    fmt = output.format()
    paths = answer_sheet_paths(path, [sheet.seed for sheet in sheets])
    suffix = Path(path).suffix.lower()
    for sheet, target in zip(sheets, paths, strict=True):
        text = answer_sheet_text(sheet, corrector_of(sheet).blanks, fmt, suffix)
        write_file(target, text, "--answer-sheet")
