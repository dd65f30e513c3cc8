"""attn exercise: a fresh small problem, as in the course (three tokens, two numbers each).

Small whole numbers keep the arithmetic doable by hand: query entries 0 or 1 (never
all zero), keys 0 to 2, values multiples of 5 from 0 to 10.
"""

from __future__ import annotations

from typing import Any

from attncli.core.seeding import generator
from attncli.errors import OptionError

SENTENCES = (
    "el tren va lleno",
    "la casa es grande",
    "mi perro come mucho",
    "hoy leo un libro nuevo",
    "en las llaves del coche están ahí",
    "el gato negro duerme en la silla roja",
)
MAX_TOKENS = max(len(sentence.split()) for sentence in SENTENCES)
MAX_DIM = 8


def make_exercise(seed: int, tokens: int, dim: int) -> dict[str, Any]:
    """tokens, query, keys and values as plain lists: a JSON document attn score reads."""
    if not 1 <= tokens <= MAX_TOKENS:
        raise OptionError(
            f"--size {tokens}: give 1 to {MAX_TOKENS} tokens (the course uses 3)",
            f"--size {tokens}: da de 1 a {MAX_TOKENS} tokens (el curso usa 3)",
        )
    if not 1 <= dim <= MAX_DIM:
        raise OptionError(
            f"--dim {dim}: give 1 to {MAX_DIM} numbers per vector (the course uses 2)",
            f"--dim {dim}: da de 1 a {MAX_DIM} números por vector (el curso usa 2)",
        )
    rng = generator(seed, "exercise")
    # The last words of a sentence long enough, as the course takes «tren va lleno».
    long_enough = [sentence.split() for sentence in SENTENCES if len(sentence.split()) >= tokens]
    words = long_enough[int(rng.integers(0, len(long_enough)))][-tokens:]
    query = rng.integers(0, 2, size=dim)
    query[rng.integers(0, dim)] = 1  # a zero query would make every score 0
    return {
        "tokens": words,
        "query": query.tolist(),
        "keys": rng.integers(0, 3, size=(tokens, dim)).tolist(),
        "values": (rng.integers(0, 3, size=(tokens, dim)) * 5).tolist(),
    }
