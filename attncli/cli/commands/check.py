"""attn check: a student's worksheet corrected blank by blank, and its options."""

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, TypeVar

from attncli.cli.commands import command
from attncli.cli.commands.exercise import (
    DimOption,
    ExerciseMethodOption,
    LessonInputOption,
    LessonTokenOption,
)
from attncli.cli.declare import Argument, Option
from attncli.messages import _
from attncli.present.output import Output

AnswerFilesArgument = Annotated[
    list[str] | None,
    Argument(
        metavar=_("[ANSWERS]..."),
        help=_(
            "A class's answer files (.csv or .json: the empty ones attn exercise writes, "
            "filled in), each corrected against its own sheet: one table, a row per student."
        ),
        show_default=False,
        reads=True,
    ),
]
CheckSeedOption = Annotated[
    int | None,
    Option(
        "--seed",
        min=0,
        max=2**64 - 1,
        help=_("Which problem: each seed gives another. [default: 0]"),
        show_default=False,
    ),
]
CheckSizeOption = Annotated[
    int | None,
    Option("--size", help=_("How many tokens (keys and values). [default: 3]"), show_default=False),
]
CheckSelfAttnOption = Annotated[
    bool,
    Option(
        "--selfattn",
        help=_(
            "Correct the self-attention sheet (attn exercise --selfattn): every token's q, k "
            "and v, then the last token's scores, weights and output."
        ),
    ),
]

CheckQuestionsOption = Annotated[
    bool,
    Option(
        "--questions",
        help=_(
            "Mark the lessons' questions (attn exercise --questions): a letter each, answered "
            "at once with the right choice and why."
        ),
    ),
]

T = TypeVar("T")

if TYPE_CHECKING:
    import numpy as np

    from attncli.cli.options import ScoreMethod
    from attncli.explain.checking import Blank, Corrector, Verdict
    from attncli.results.checking import CheckResult
    from attncli.results.exercise import Sheet


@command()
def check(
    answers: AnswerFilesArgument = None,
    seed: CheckSeedOption = None,
    size: CheckSizeOption = None,
    dim: DimOption = None,
    method: ExerciseMethodOption = None,
    selfattn: CheckSelfAttnOption = False,
    questions: CheckQuestionsOption = False,
    input_path: LessonInputOption = None,
    token: LessonTokenOption = None,
    *,
    output: Output,
) -> None:
    """Correct your own worksheet, blank by blank, as you work it; or a class's answer files.

    Shows the sheet attn exercise makes with the same options (--method, --selfattn), then
    asks for each blank in the sheet's order (q, k and v; the products, the scores,
    e^score, the total, each weight, each weight × value, the output) and answers at once:
    right, or the right value with the step it belongs to, and when your number is what a
    known mistake gives (√d_k forgotten or twice, e^x skipped, softmax over a column, the
    total of the wrong row, the wrong key or value row, K not transposed), the mistake.
    Later steps are marked from your own numbers, as a teacher marks. Answers may be piped
    in, one a line; --json writes the verdicts.

    A teacher: attn check answers/*.csv corrects the files attn exercise --answer-sheet
    wrote, a row per student and a column per step, and names the class's most common
    mistake; --json for a grade book, --export for a page.

    The lessons' questions on ideas, a letter each: attn check --questions

    A lesson's own sheet: attn check -i tren («el tren va lleno»), or a row of the
    «llaves» grid: attn check -i llaves --token están

    Example: attn check --seed 3 --lang es
    """
    import sys

    from attncli.present.output import wants_json
    from attncli.results.checking import CheckResult

    if questions:
        others = {"ANSWERS": bool(answers), "--seed": seed is not None, "--size": size is not None,
                  "--dim": dim is not None, "--method": method is not None,
                  "--selfattn": selfattn, "-i": input_path is not None,
                  "--token": token is not None}  # fmt: skip
        _check_questions(others, output)
        return
    if answers:
        _check_files(answers, seed, size, dim, method, selfattn, input_path, token, output)
        return
    sheet, marking = _sheet_to_mark(seed, size, dim, method, selfattn, input_path, token,
                                    output.lang)  # fmt: skip
    talk = not (output.fields is not None or wants_json(output.format_name, sys.stdout))
    if output.export is not None and output.export.lower().endswith(".xlsx"):
        from attncli.present.export_xlsx import check_xlsx

        # refused before the student types a number: a spreadsheet holds a sheet, not marks
        check_xlsx(CheckResult(sheet=sheet, verdicts=(), blanks=()), output.export)
    if talk:
        _show_sheet(sheet, output)
    verdicts, ended = _answers_marked(sheet, marking, talk, output)
    result = CheckResult(sheet=sheet, verdicts=verdicts, blanks=tuple(marking.blanks))
    _emit_marked(result, not ended and not sys.stdin.isatty(), talk, output)


def _sheet_to_mark(
    seed: int | None,
    size: int | None,
    dim: int | None,
    method: "ScoreMethod | None",
    selfattn: bool,
    input_path: str | None,
    token: str | None,
    lang: str,
) -> tuple["Sheet", "Corrector"]:
    """The sheet to correct and its corrector: a lesson's own (-i FILE, --token) or the one
    attn exercise makes with the same options (seed 0, 3 tokens, dot by default)."""
    from attncli.api.checking import corrector, corrector_of
    from attncli.api.refusals import refuse_beside
    from attncli.cli.commands.exercise import lesson_sheet_of

    if input_path is None and token is None:
        if selfattn:  # --method dot too, as attn exercise --selfattn refuses it
            from attncli.api.exercise import check_selfattn_sheet

            check_selfattn_sheet(None if method is None else method.value)
        chosen = "dot" if method is None else method.value
        return corrector(0 if seed is None else seed, 3 if size is None else size, dim, chosen,
                         selfattn)  # fmt: skip
    fresh = {"--seed": seed is not None, "--size": size is not None, "--dim": dim is not None,
             "--method": method is not None, "--selfattn": selfattn}  # fmt: skip
    refuse_beside({"-i -": input_path == "-"}, "attn check",
                  _("the answers come on standard input; name the file"))  # fmt: skip
    sheet = lesson_sheet_of(input_path, token, fresh, lang)
    return sheet, corrector_of(sheet)


def _show_sheet(sheet: "Sheet", output: Output) -> None:
    """The sheet with its blanks (the ones asked), and how to answer."""
    import sys
    from dataclasses import replace

    from attncli.present import render
    from attncli.present.output import print_renderables
    from attncli.present.views import view_of

    fmt = output.format()
    blank_sheet = replace(fmt, blank=True, asked=True)  # its blanks: the ones asked
    print_renderables(sys.stdout, view_of(sheet, blank_sheet))
    intro = fmt.say("check.intro", example=fmt.joined([fmt.decimal("6.65"), "0"]))
    print_renderables(sys.stdout, [render.lines(intro)])


def _answers_marked(
    sheet: "Sheet", marking: "Corrector", talk: bool, output: Output
) -> "tuple[tuple[Verdict, ...], bool]":
    """Each blank asked in the sheet's order and its answer marked at once (on a terminal,
    the verdict said under it), until the answers end; and whether they ended early."""
    from attncli.api.checking import read_answer
    from attncli.explain.checking import Verdict
    from attncli.present.checking_view import question, verdict_lines

    fmt = output.format()
    verdicts: list[Verdict] = []
    for blank in marking.blanks:
        asked = question(blank, sheet, fmt)

        def read(line: str, blank: "Blank" = blank) -> "np.ndarray":
            return read_answer(line, blank, output.lang, marking.exact(blank).size)

        given, answer = _asked(asked, read, len(verdicts) + 1, talk, output.lang, _said_line)
        if not given:
            if talk:
                print()
            return tuple(verdicts), True
        if answer is None:
            verdicts.append(Verdict(blank, _nothing(), "wrong", marking.carried(blank)))
        else:
            verdicts.append(marking.mark(blank, answer))
        if talk:
            _said_lines(verdict_lines(verdicts[-1], sheet, fmt))
    return tuple(verdicts), False


ANSWER = _("answer {number} ({asked}): {problem}")


def _asked(
    asked: str,
    read: Callable[[str], T],
    number: int,
    talk: bool,
    lang: str,
    said: Callable[[str], None],
) -> tuple[bool, T | None]:
    """Answer `number`, a line of stdin read by `read`, asked as `asked` on a terminal
    (`talk`); (False, None) when the answers have ended. A line `read` refuses: on a
    terminal `said` and asked again, piped said and answered None (marked not right),
    piped for JSON refused, named by its place as a student counts."""
    import sys

    from attncli.errors import AttnError

    while True:
        if talk:
            print(f"{asked}: ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:  # Ctrl-D, or the piped answers ran out
            return False, None
        if not talk:  # answers piped in for JSON: an unreadable one is an error
            return True, _read_or_refuse(read, line, number, asked)
        if not sys.stdin.isatty():
            print(line.rstrip("\n"))
        try:
            return True, read(line)
        except AttnError as error:
            said(error.message(lang))
            if not sys.stdin.isatty():
                return True, None
            # a terminal's student is asked again


def _read_or_refuse(read: Callable[[str], T], line: str, number: int, asked: str) -> T:
    """A piped answer read by `read`, or refused named by its place as a student counts
    (answer 2, and what it answers)."""
    from attncli.errors import AttnError, InputError

    try:
        return read(line)
    except AttnError as error:
        raise InputError(ANSWER, number=number, asked=asked, problem=error.said) from None


def _emit_marked(result: "CheckResult", piped_more: bool, talk: bool, output: Output) -> None:
    """The marks: on a terminal the summary under the verdicts (and --export the marked
    sheet), else the JSON document. Piped answers past the last blank (`piped_more`, when
    any is left) are refused, or said under the marks, never marked."""
    from attncli.api.checking import TOO_MANY_ANSWERS
    from attncli.errors import InputError
    from attncli.present.checking_view import summary
    from attncli.present.output import emit, exported

    blanks = len(result.blanks)
    left = _answers_left() if piped_more else 0
    extra = InputError(TOO_MANY_ANSWERS, given=blanks + left, blanks=blanks) if left else None
    if extra is not None and not talk:
        raise extra
    if not talk:
        emit(result, output)
        return
    print(summary(result, output.format()), flush=True)
    if extra is not None:
        _said_lines([extra.message(output.lang)])
    exported(result, output)  # --export: the marked sheet, as with JSON


def _said_line(line: str) -> None:
    """A line that is not an answer, said under it as a verdict is."""
    _said_lines([line])


def _said_lines(lines: list[str]) -> None:
    """Lines under an answer, indented, wrapped at words to the terminal's width."""
    import sys

    from rich.padding import Padding

    from attncli.present import render
    from attncli.present.output import print_renderables

    print_renderables(sys.stdout, [Padding(render.lines(*lines), (0, 0, 0, 2))])
    sys.stdout.flush()


def _check_questions(problem: "Mapping[str, object]", output: Output) -> None:
    """attn check --questions: the questions shown, then each letter marked as it is typed,
    with the right choice and why; piped for JSON, the letters marked all at once."""
    import sys

    from attncli.api.questions import QUESTIONS, check_questions, questions, read_choice
    from attncli.cli.commands.exercise import refuse_beside_questions
    from attncli.errors import InputError
    from attncli.present import render
    from attncli.present.output import emit, exported, print_renderables, wants_json
    from attncli.present.questions_view import Hanging, questions_sheet, summary, verdict_lines

    def not_a_choice(line: str) -> None:  # said under the question, indented
        print_renderables(sys.stdout, [render.lines("  " + line)])

    from attncli.results.questions import QuestionCheck, QuestionVerdict

    refuse_beside_questions(problem)
    fmt = output.format()
    if output.fields is not None or wants_json(output.format_name, sys.stdout):
        letters = [line for line in sys.stdin.read().splitlines() if line.strip()]
        for number, letter in enumerate(letters[: len(QUESTIONS)], 1):
            _read_or_refuse(read_choice, letter, number, fmt.say("questions.ask", number=number))
        emit(check_questions(letters), output)
        return
    if output.export is not None and output.export.lower().endswith(".xlsx"):
        from attncli.present.export_xlsx import check_xlsx

        # refused before the student types a letter: a spreadsheet holds no questions
        check_xlsx(QuestionCheck(questions=QUESTIONS, verdicts=()), output.export)
    print_renderables(sys.stdout, questions_sheet(questions(), fmt))
    print_renderables(sys.stdout, [render.lines(fmt.say("questions.check_intro"))])
    verdicts: list[QuestionVerdict] = []
    left = 0
    for number, question in enumerate(QUESTIONS, 1):
        asked = fmt.say("questions.ask", number=number)
        given, chosen = _asked(asked, read_choice, number, True, output.lang, not_a_choice)
        if not given:  # Ctrl-D, or the piped letters ran out
            print()
            break
        # a piped line that names no choice: said above, and marked not right
        verdicts.append(QuestionVerdict(question=question, chosen=chosen))
        said = verdict_lines(number, question, chosen, fmt)
        print_renderables(sys.stdout, [Hanging("  ", text) for text in said])
    else:
        left = _answers_left() if not sys.stdin.isatty() else 0
    result = QuestionCheck(questions=QUESTIONS, verdicts=tuple(verdicts))
    print(summary(result, fmt), flush=True)
    if left:
        extra = InputError(
            _("{given} answers for {count} questions; give one letter a question, in order"),
            given=len(QUESTIONS) + left,
            count=len(QUESTIONS),
        )
        print_renderables(sys.stdout, [render.lines(extra.message(output.lang))])
    exported(result, output)


def _answers_left() -> int:
    """How many piped answers are left past the sheet's last blank (blank lines aside):
    any means the answers were written for another sheet (another seed, size or method)."""
    import sys

    return sum(1 for text in sys.stdin.read().splitlines() if text.strip())


def _check_files(
    paths: list[str],
    seed: int | None,
    size: int | None,
    dim: int | None,
    method: object,
    selfattn: bool,
    input_path: str | None,
    token: str | None,
    output: Output,
) -> None:
    """A class's answer files, each against the sheet it names: one table."""
    from attncli.api.checking import check_files
    from attncli.api.refusals import refuse_beside
    from attncli.messages import Message
    from attncli.present.output import emit

    sheet = {"-i": input_path, "--token": token, "--seed": seed, "--size": size, "--dim": dim,
             "--method": method, "--selfattn": selfattn}  # fmt: skip
    refuse_beside(sheet, Message(_("answer files")),
                  _("each file names its own sheet; leave out {option}"))  # fmt: skip
    emit(check_files(paths), output)


def _nothing() -> "np.ndarray":
    """The answer of a line that was not a number: marked wrong, never carried forward."""
    import numpy as np

    return np.array(np.nan)
