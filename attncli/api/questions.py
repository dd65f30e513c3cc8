"""The lessons' questions on ideas rather than arithmetic (attn exercise --questions, attn
check --questions): what a layer without projections does, what W^Q, W^K and W^V are for,
why √d_k, the grid's shape, what a longer sentence changes, what is symmetric, what W_a adds
to the dot product, what the additive score costs, and what the decoder now limits. Each has
one right choice among four and an explanation for the key; a student's letters are marked
against it.

>>> import attncli as attn
>>> [q.key for q in attn.questions().questions][:3]
['no_projections', 'three_matrices', 'root']
>>> marked = attn.check_questions(["c", "a"])
>>> [verdict.right for verdict in marked.verdicts]
[True, True]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from attncli.api.keywords import keywords
from attncli.errors import InputError
from attncli.messages import Message, _
from attncli.results.questions import LETTERS, Question

A = TypeVar("A")  # an answer as given
P = TypeVar("P")  # its place: a blank, a question
T = TypeVar("T")  # its mark

if TYPE_CHECKING:
    from attncli.results.questions import QuestionCheck, QuestionSheet

QUESTIONS: tuple[Question, ...] = (
    Question(
        "no_projections",
        "000",
        _(
            "Take Q = K = V = X (no projections), every token vector of the same length. Where "
            "does each row of the weight grid put its largest weight?"
        ),
        (
            _("On the next token: neighbouring tokens share context, so their vectors agree."),
            _("About evenly over the row: without W every score of the row comes out the same."),
            _("On its own diagonal cell: no other vector matches a token's as well as its own."),
            _("On the first token: the softmax gives the earliest position the largest share."),
        ),
        2,
        _(
            "x_i · x_j is at most ‖x_i‖ ‖x_j‖ = r² (Cauchy–Schwarz), and only x_j = x_i reaches "
            "it, so the diagonal is every row's largest score at once and the layer mostly "
            "hands each token back its own vector; with no parameter, nothing could learn to "
            "look elsewhere. attn selfattn … --no-proj shows it."
        ),
    ),
    Question(
        "three_matrices",
        "000",
        _("What are W^Q, W^K and W^V for?"),
        (
            _("One X plays three parts through them (asking, being compared, passing on)."),
            _("They normalise the grid, a matrix per axis: W^Q the rows, W^K the columns."),
            _("They hold a block of weights per position, so a longer sentence needs bigger ones."),
            _("They shrink the scores by √d_k so that the softmax of a row does not saturate."),
        ),
        0,
        _(
            "Comparing, being compared and contributing content are three jobs; a matrix each "
            "lets them differ, and without them the layer has no parameter at all. The "
            "softmax, not W, makes a row sum to 1; √d_k, not W, keeps it from saturating; and "
            "the same W serve every position."
        ),
    ),
    Question(
        "root",
        "000",
        _("Why are the scores divided by √d_k before the softmax?"),
        (
            _("To make every score positive, so that e^score cannot fall below 1."),
            _(
                "It is a constant that happened to work best when the first transformer was "
                "tuned for translation."
            ),
            _("To make each row's weights add up to 1 whatever the length of the vectors."),
            _("q · k adds d_k terms, so its spread grows as √d_k; dividing keeps the row mixing."),
        ),
        3,
        _(
            "With coordinates of variance 1, q · k has variance d_k. Unscaled, the scores drift "
            "apart as d_k grows, a row's largest weight heads for 1 and the gradient through "
            "the softmax fades (attn scaling measures both). The divisor is worked out from the "
            "variance, not tuned; e^x makes the numbers positive and the softmax's total makes "
            "them sum to 1, with or without it."
        ),
    ),
    Question(
        "grid_shape",
        "000",
        _(
            "A sentence of T tokens goes through one head with d_k = 64. What shape is the "
            "weight grid A?"
        ),
        (
            _("T × 64: a row per token and a column per coordinate of the token's query vector."),
            _("64 × 64: a row and a column per coordinate, whatever T is."),
            _("T × T: a row and a column per position, so a token's weight on itself exists."),
            _("T × 1: a single weight per token, shared by every query."),
        ),
        2,
        _(
            "Q Kᵀ multiplies a T × d_k matrix by a d_k × T one, so d_k drops out and A is "
            "square. Both axes are the same sentence, which is why the cell (i, i) exists; each "
            "row sums to 1."
        ),
    ),
    Question(
        "symmetric",
        "000",
        _("Without projections (Q = K = V = X), which grid is symmetric?"),
        (
            _("Both the scores and the weights."),
            _("The scores, not the weights."),
            _("The weights, not the scores."),
            _("Neither of them."),
        ),
        1,
        _(
            "x_i · x_j = x_j · x_i: the dot product cannot tell who asks from who answers. The "
            "weights can: row i is divided by its own total, and the rows' totals differ. A "
            "language needs that difference: a verb needs its subject more than the subject "
            "needs the verb."
        ),
    ),
    Question(
        "longer_sentence",
        "000",
        _("The sentence grows from 6 tokens to 9 and the layer stays the same. What changes?"),
        (
            _("The grid becomes 9 × 9 and the output gains 3 rows; the parameters stay as many."),
            _("W^Q, W^K and W^V each gain 3 rows, one for each new position."),
            _("d_k grows with the sentence, so that √d_k keeps the scores in range."),
            _(
                "Nothing at all: the layer reads only the first 6 tokens and leaves the other 3 "
                "out of the grid."
            ),
        ),
        0,
        _(
            "The three matrices multiply rows of X, however many there are: their count of "
            "numbers has no T in it. What has a row or a column per token grows: Q, K, V, the "
            "T × T grids and the output."
        ),
    ),
    Question(
        "w_a",
        "001",
        _("What does the matrix W_a add to the plain dot product of the two states?"),
        (
            _("A hidden layer with a tanh, which is why the score needs a size d_a of its own."),
            _("A division by √d_h, so that long states do not saturate the softmax."),
            _("A change of basis, so the two networks need not use their coordinates alike."),
            _("Nothing: W_a starts as the identity, so the scores come out the same."),
        ),
        2,
        _(
            "The dot product pairs coordinate k with coordinate k, which assumes that two "
            "separately trained networks gave them the same meaning and scale; W_a h̄ rewrites "
            "the encoder's state in the decoder's coordinates first. With W_a = I the score is "
            "the dot product again, free of parameters, and sound only where both sides share "
            "a basis."
        ),
    ),
    Question(
        "additive_cost",
        "001",
        _(
            "Scoring 60 × 60 pairs with d_h = d_a = 256, what does the additive score pay for "
            "that the multiplicative one does not?"
        ),
        (
            _("About d_a times as many parameters: a whole set of weights for each hidden unit."),
            _("A softmax over a row d_a times longer, an entry per hidden unit."),
            _("Nothing measurable: both come down to the same two matrix products."),
            _("A tanh per pair and hidden unit, and d_a numbers held per pair instead of one."),
        ),
        3,
        _(
            "921,600 tanh evaluations and as many numbers held (7.4 MB a pair of sentences), "
            "where the multiplicative score keeps 3,600 scores. The parameter counts are close "
            "(4,096 for d_h = 64 against 4,128 for d_a = 32). The tanh sits between the sum and "
            "v_a, so the additive score builds a three-dimensional block number by number; the "
            "multiplicative one is S W_a H̄ᵀ, two matrix products, the work the hardware is made "
            "for. attn compare-scores measures both."
        ),
    ),
    Question(
        "decoder_limit",
        "001",
        _(
            "The whole multiplicative grid is one product, S W_a H̄ᵀ. Why is it still filled one "
            "row at a time while translating?"
        ),
        (
            _("Because the 60 × 60 product does not fit in a GPU's memory at once."),
            _(
                "Because each decoder state needs the context, so the grid's row, of the step "
                "before."
            ),
            _(
                "Because the softmax has to run down every column of the grid before any row is "
                "read."
            ),
            _("Because W_a is updated after every step of the decoder."),
        ),
        1,
        _(
            "The decoder is recurrent: the state that scores row i needs the context of step "
            "i − 1, which needs row i − 1 of the grid. W_a H̄ᵀ depends on the source alone and "
            "is computed once per sentence, leaving each step one matrix–vector product. The "
            "score is no longer what holds the work back; the recurrence that makes the "
            "decoder's states is."
        ),
    ),
)


@keywords()
def questions(key_only: bool = False) -> QuestionSheet:
    """The lessons' questions, in the lessons' order; `key_only` for their key alone.

    >>> len(questions().questions)
    9
    """
    from attncli.results.questions import QuestionSheet

    return QuestionSheet(questions=QUESTIONS, key_only=key_only)


def read_choice(text: str) -> int:
    """A letter typed for a question (a to d, in either case, with or without its «)»),
    as the index of the choice; anything else is refused."""
    stripped = text.strip().rstrip(").").strip().lower()
    if len(stripped) != 1 or stripped not in LETTERS:
        raise InputError(
            _("{text}: answer with the letter of one choice, {letters}"),
            text=text.strip(),
            letters=", ".join(LETTERS),
        )
    return LETTERS.index(stripped)


@keywords()
def check_questions(answers: Iterable[str]) -> QuestionCheck:
    """Mark `answers` (a list of letters, one a question, in the sheet's order; fewer
    answers mark fewer questions), each against its question's right choice."""
    from attncli.results.questions import QuestionCheck, QuestionVerdict

    too_many = Message(
        _("{given} answers for {count} questions; give one letter a question, in order"),
        count=len(QUESTIONS),
    )

    def marked(question: Question, given: str) -> QuestionVerdict:
        return QuestionVerdict(question=question, chosen=read_choice(str(given)))

    verdicts = each_answer(QUESTIONS, list(answers), marked, too_many)
    return QuestionCheck(questions=QUESTIONS, verdicts=tuple(verdicts))


def each_answer(
    asked: Sequence[P], answers: Sequence[A], mark: Callable[[P, A], T], too_many: Message
) -> list[T]:
    """Each of `answers` marked against its place in `asked` (a blank, a question), in
    order (fewer answers mark fewer); more answers than places are refused as `too_many`
    says (its {given}: how many), one that cannot be read by its place in the list
    (answers[3]), never marked as a number or a letter it is not."""
    if len(answers) > len(asked):  # a line too many: the sheet read is not theirs
        raise InputError(too_many.msgid, given=len(answers), **too_many.fields)
    marked = []
    for index, (place, given) in enumerate(zip(asked, answers, strict=False)):
        try:
            marked.append(mark(place, given))
        except InputError as error:
            raise InputError(
                _("answers[{index}]: {problem}"), index=index, problem=error.said
            ) from None
    return marked
