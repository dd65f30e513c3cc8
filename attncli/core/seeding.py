"""Seeded random numbers that are the same on every machine and in every process.

A generator is keyed by the seed and a label (a parameter's name, a token's text)
through BLAKE2b, never Python's hash(), which changes from process to process.
Draws use Generator.random() scaled to a range, whose stream numpy keeps stable.
"""

from __future__ import annotations

import numpy as np

try:  # BLAKE2b itself: hashlib would load OpenSSL first, a twentieth of a run's start-up
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b


def generator(seed: int, *labels: str) -> np.random.Generator:
    """A PCG64 generator determined by the seed and the labels alone."""
    key = "\x1f".join([str(seed), *labels]).encode("utf-8")
    digest = blake2b(key, digest_size=16).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest, "little")))


def uniform_parameter(seed: int, name: str, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    """A weight matrix drawn uniformly with variance 1/fan_in, so projections keep scale ~1."""
    # -> shape
    bound = np.sqrt(3.0 / fan_in)
    return (generator(seed, name).random(shape) * 2.0 - 1.0) * bound


def linear_parameter(seed: int, name: str, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    """A weight drawn as torch's nn.Linear draws it, uniform within ±1/√fan_in (variance
    1/(3 fan_in)): the additive score's W_1, W_2 and v_a, the small network the course
    builds with nn.Linear, start as it starts them."""
    # -> shape
    bound = 1.0 / np.sqrt(fan_in)
    return (generator(seed, name).random(shape) * 2.0 - 1.0) * bound


def token_vector(seed: int, token: str, size: int, norm: float) -> np.ndarray:
    """The embedding of one token: a random direction of length `norm`, fixed by (seed, token)."""
    # -> [size]
    direction = generator(seed, "token", token).standard_normal(size)
    return direction * (norm / np.linalg.norm(direction))
