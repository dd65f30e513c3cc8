"""attn exercise: a fresh small problem, as in the course (three tokens, two numbers each).

Small whole numbers keep the arithmetic doable by hand: query entries 0 or 1 (never
all zero), keys 0 to 2, values multiples of 5 from 0 to 10, no two keys or values alike and
the scores never all equal. The learned scores' parameters
are -1, 0 or 1, drawn after the problem, so that one seed gives the same query, keys and
values under every method. The self-attention problem: X of 0s and 1s (never a zero row,
no two rows alike while there are enough), W^Q and W^K of -1, 0 and 1, W^V of multiples of
5 from 0 to 10. Every matrix is of full rank: none loses a direction of its input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from attncli.core import methods
from attncli.core.seeding import generator
from attncli.errors import OptionError
from attncli.messages import Setting, _

SENTENCES = (
    "el tren va lleno",
    "la casa es grande",
    "mi perro come mucho",
    "hoy leo un libro nuevo",
    "las llaves del coche están ahí",
    "el gato negro duerme en la silla roja",
)
MAX_TOKENS = max(len(sentence.split()) for sentence in SENTENCES)
MAX_DIM = 8


def default_dim(method: str) -> int:
    """Numbers per vector when --dim is not given: the course's 2, or the method's own (the
    scaled score's 4, so that √d_k = 2 divides by hand)."""
    return methods.method(method).exercise_dim


def make_exercise(seed: int, tokens: int, dim: int, method: str = "dot") -> dict[str, Any]:
    """tokens, query, keys and values (and the method's parameters) as plain lists: a JSON
    document attn score reads."""
    _check_sizes(tokens, dim)
    rng = generator(seed, "exercise")
    words = _words(rng, tokens)
    query = rng.integers(0, 2, size=dim)
    query[rng.integers(0, dim)] = 1  # a zero query would make every score 0
    keys, values = _keys_and_values(rng, query, tokens, dim, methods.method(method))
    problem: dict[str, Any] = {
        "tokens": words,
        "query": query.tolist(),
        "keys": keys.tolist(),
        "values": values.tolist(),
    }
    if methods.method(method).parameters:
        problem.update(_parameters(rng, method, dim, query, np.array(problem["keys"])))
    return problem


def _keys_and_values(
    rng: np.random.Generator,
    query: np.ndarray,
    tokens: int,
    dim: int,
    scoring: methods.ScoreMethod,
) -> tuple[np.ndarray, np.ndarray]:
    """Keys of 0 to 2 and values of 0, 5 or 10, drawn until no two keys and no two values
    are alike (while there are enough of them) and the query's scores are not all equal (by
    the method, when it has no parameters: they are drawn after): a sheet whose weights all
    come out 0.333 teaches nothing about the score. A key the method has no score for (a
    zero key, which has no length) is mended by the method."""
    distinct = tokens <= 3**dim
    for _attempt in range(100):
        keys = scoring.sheet_keys(rng, rng.integers(0, 3, size=(tokens, dim)))  # [T, d]
        values = rng.integers(0, 3, size=(tokens, dim)) * 5  # [T, d]
        if distinct and (_repeats(keys) or _repeats(values)):
            continue
        if tokens == 1 or np.ptp(scoring.sheet_scores(query, keys)) > 1e-9:
            break
    return keys, values


def _repeats(rows: np.ndarray) -> bool:
    return len({tuple(row) for row in rows.tolist()}) < len(rows)


def _parameters(
    rng: np.random.Generator, method: str, dim: int, query: np.ndarray, keys: np.ndarray
) -> dict[str, list]:
    """The learned score's parameters, drawn until the keys' scores are not all alike (when
    the keys themselves differ): a problem whose weights all come out equal teaches
    nothing about the score."""
    scoring = methods.method(method)
    for _attempt in range(100):
        drawn = scoring.sheet_parameters(
            rng, dim, lambda rows, columns: _small_matrix(rng, rows, columns)
        )
        parameters = {name: value.astype(np.float64) for name, value in drawn.items()}
        scores = scoring.score(query[None, :].astype(np.float64), keys, parameters)
        if np.ptp(scores) > 1e-9 or np.ptp(keys, axis=0).max() == 0:
            break
    return {name: value.tolist() for name, value in drawn.items()}


def make_selfattn_exercise(seed: int, tokens: int, dim: int) -> dict[str, Any]:
    """tokens, x, w_q, w_k and w_v as plain lists: a JSON document attn selfattn reads."""
    _check_sizes(tokens, dim)
    rng = generator(seed, "exercise-selfattn")
    words = _words(rng, tokens)
    # The rows of 0s and 1s that are not all zero (a zero embedding has a zero query), in
    # the order of the binary numbers 1, 2, 3, …: [2^d - 1, d]
    patterns = (np.arange(1, 2**dim)[:, None] >> np.arange(dim)[::-1]) & 1
    distinct = tokens <= len(patterns)
    x = patterns[rng.choice(len(patterns), size=tokens, replace=not distinct)]  # [T, d]
    return {
        "tokens": words,
        "x": x.tolist(),
        "w_q": _small_matrix(rng, dim, dim).tolist(),  # [d, d_k]
        "w_k": _small_matrix(rng, dim, dim).tolist(),  # [d, d_k]
        "w_v": (_full_rank(lambda: rng.integers(0, 3, size=(dim, dim))) * 5).tolist(),  # [d, d_v]
    }


def _check_sizes(tokens: int, dim: int) -> None:
    """Whole numbers in the sheet's ranges, as the command line's --size and --dim."""
    from attncli.errors import check_whole

    check_whole("size", tokens)
    check_whole("dim", dim)
    # each size 1 to its most, said in the words of what it counts
    ranges = (("size", tokens, MAX_TOKENS,
               _("{size}: give 1 to {most} tokens (the course uses 3)")),
              ("dim", dim, MAX_DIM,
               _("{dim}: give 1 to {most} numbers per vector (the course uses 2)")))  # fmt: skip
    for name, value, most, text in ranges:
        if not 1 <= value <= most:
            raise OptionError(text, most=most, **{name: Setting(name, value)})  # --size 0, size=0


def _words(rng: np.random.Generator, tokens: int) -> list[str]:
    """The last words of a sentence long enough, as the course takes «tren va lleno»."""
    long_enough = [sentence.split() for sentence in SENTENCES if len(sentence.split()) >= tokens]
    return long_enough[int(rng.integers(0, len(long_enough)))][-tokens:]


def _small_matrix(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """-1, 0 and 1, of full rank."""
    return _full_rank(lambda: rng.integers(-1, 2, size=(rows, columns)))  # [rows, columns]


def _full_rank(draw: Callable[[], np.ndarray]) -> np.ndarray:
    """The first draw of full rank; the draws come from one seeded generator, so the same
    one on every machine. A hundred tries fail with odds far below 1e-30 at any size."""
    for _attempt in range(100):
        matrix = draw()
        if np.linalg.matrix_rank(matrix) == min(matrix.shape):
            return matrix
    return matrix


# The answer file a student fills for a sheet (attn exercise --answer-sheet writes it empty,
# attn check reads it back): its CSV columns, a row per blank, and the JSON's mark and
# version. The sheet kinds attn check corrects are the methods' and the self-attention's.
ANSWER_COLUMNS = ("student", "seed", "sheet", "size", "dim", "lang", "step", "token",
                  "question", "answer")  # fmt: skip
ANSWER_SHEET_KEY, ANSWER_SHEET_VERSION = "attn_answer_sheet", 1
SHEET_KINDS = (*methods.NAMES, "selfattn")
